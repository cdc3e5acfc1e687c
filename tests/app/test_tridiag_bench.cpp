// `adilab --bench tridiag` end to end at tiny grids (llvmpipe in CI): usage errors before any
// work, the report's rows and fields, the error check against the reference, the Fig. 11 table.
#include <gtest/gtest.h>

#include <regex>

#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"
#include "tests/support/roof.hpp"

namespace adilab::test {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

TEST(TridiagBench, UnknownSolverAndBadGridAreUsageErrors) {
    auto r = run_adilab("--bench tridiag --solver cr-shared,no-such-solver --grid 8");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("no-such-solver"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cr-pingpong"), std::string::npos) << "lists the known ones\n"
                                                               << r.output;
    for (const char* bad :
         {"--grid 0", "--grid 8,abc", "--grid 100000", "--grid ,", "--repeats 0"}) {
        r = run_adilab(std::string("--bench tridiag --solver cr-shared ") + bad);
        EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
        EXPECT_NE(r.output.find(std::string(bad).substr(0, std::string(bad).find(' '))),
                  std::string::npos)
            << bad << "\n"
            << r.output;
    }
}

// --tune: a value outside its field's range, an unknown field or family, and a malformed
// assignment are usage errors naming the field and its range; --help lists the fields.
TEST(TridiagBench, TuneIsCheckedAndListed) {
    auto r = run_adilab("--bench tridiag --solver lu-window --grid 8 --tune tridiag.window_rows=0");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("tridiag.window_rows must lie in 1..256"), std::string::npos)
        << r.output;
    r = run_adilab("--bench tridiag --grid 8 --tune tridiag.no_such=1");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("no field 'no_such'"), std::string::npos) << r.output;
    r = run_adilab("--bench tridiag --grid 8 --tune fused.chunk=8");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    r = run_adilab("--bench tridiag --grid 8 --compare /no/such/old.json");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--compare"), std::string::npos) << r.output;
    r = run_adilab("--help");
    EXPECT_NE(r.output.find("tridiag.colscan_form (0..2)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("fused.solve (0..3)"), std::string::npos) << r.output;
}

// Every row records the tuning that ran and its repeats' spread; --compare against the run's
// own report finds every row.
TEST(TridiagBench, RowsRecordTuningAndSpreadAndCompare) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("tridiag-tune");
    auto r = run_adilab(
        "--bench tridiag --grid 33 --solver lu-window --direction y --coefficients constant"
        " --repeats 2 --warmup-ms 0 --tune tridiag.colscan_form=0 --report " +
        dir + "/t.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string json = read_text(dir + "/t.json");
    EXPECT_NE(json.find("\"tridiag.colscan_form\": 0"), std::string::npos) << json;
    EXPECT_NE(json.find("\"tridiag.scan_chunk_y\": 32"), std::string::npos) << json;
    for (const char* key : {"\"min_ms\": ", "\"max_ms\": ", "\"unstable\": "})
        EXPECT_NE(json.find(key), std::string::npos) << key << json;
    r = run_adilab(
        "--bench tridiag --grid 33 --solver lu-window --direction y --coefficients constant"
        " --repeats 2 --warmup-ms 0 --compare " +
        dir + "/t.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("compared with the tridiag report"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("no match"), std::string::npos) << r.output;
}

TEST(TridiagBench, ReportHasEveryRowCheckedAgainstTheReference) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("tridiag-bench");
    auto r = run_adilab(
        "--bench tridiag --grid 5,17 --solver cr-shared,cr-pingpong,thomas-cpu,cg-1"
        " --repeats 1 --report " +
        dir + "/t.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string json = read_text(dir + "/t.json");
    // 2 grids x 2 directions x 2 coefficient forms per solver.
    for (const char* name : {"cr-shared", "cr-pingpong", "thomas-cpu", "cg-1"})
        EXPECT_EQ(count(json, std::string("\"name\": \"") + name + "\""), 8u) << name << json;
    for (const char* key :
         {"\"grid\": ", "\"direction\": \"y\"", "\"coefficients\": \"general\"",
          "\"median_ms\": ", "\"gb_per_s\": ", "\"speedup_vs_thomas\": ", "\"max_rel_error\": "})
        EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
    // The exact solvers' errors are at fp32 rounding level: no row of theirs may be flagged.
    EXPECT_EQ(r.output.find("WRONG"), std::string::npos) << r.output;
    std::smatch m;
    std::string rest = json;
    const std::regex row(
        "\"name\": \"(cr-shared|cr-pingpong|thomas-cpu)\"[^}]*\"max_rel_error\": ([^,}]+)");
    int checked = 0;
    while (std::regex_search(rest, m, row)) {
        EXPECT_LT(std::stod(m[2].str()), 1e-5) << m[0];  // fp32 rounding, N <= 17
        ++checked;
        rest = m.suffix();
    }
    EXPECT_EQ(checked, 24);
    EXPECT_NE(r.output.find("Fig. 11"), std::string::npos) << r.output;

    r = run_adilab("--bench tridiag --grid 4 --solver lu-scan --repeats 1 --report " + dir +
                   "/t.csv");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string csv = read_text(dir + "/t.csv");
    EXPECT_EQ(csv.rfind("name,grid,direction,coefficients,min_ms,median_ms,max_ms,unstable,"
                        "gb_per_s,pct_of_roof,roof_gb_per_s,speedup_vs_thomas,max_rel_error,"
                        "solve_breakdown,tridiag.scan_chunk_x,",
                        0),
              0u)
        << csv;
    expect_rows_against_the_roof(bench::read_report(dir + "/t.json"));
    EXPECT_EQ(count(csv, "\nlu-scan,"), 4u) << csv;
}

TEST(TridiagBench, FiltersAndFixedCoefficients) {
    for (const char* bad :
         {"--direction z", "--coefficients none", "--constant 1,2", "--constant 1,x,2"}) {
        auto r = run_adilab(std::string("--bench tridiag --grid 8 --solver lu-window ") + bad);
        EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
        EXPECT_NE(r.output.find(std::string(bad).substr(0, std::string(bad).find(' '))),
                  std::string::npos)
            << bad << "\n"
            << r.output;
    }
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("tridiag-filters");
    auto r = run_adilab(
        "--bench tridiag --grid 40 --solver lu-window,lu-scan --direction y "
        "--coefficients constant --constant=-1,3,-1 --repeats 1 --report " +
        dir + "/t.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string json = read_text(dir + "/t.json");
    // Rows only for y and constant coefficients (the config records the filters too).
    EXPECT_EQ(count(json, "\"grid\": 40, \"direction\": \"y\", \"coefficients\": \"constant\""), 2u)
        << json;
    EXPECT_EQ(count(json, "\"direction\": \"x\""), 0u) << json;
    EXPECT_EQ(count(json, "\"coefficients\": \"general\""), 0u) << json;
    // The note names the coefficients given and the window they need (r = 1 heat: ~22 rows).
    EXPECT_NE(r.output.find("a=-1 b=3 c=-1: window K="), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("WRONG"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace adilab::test
