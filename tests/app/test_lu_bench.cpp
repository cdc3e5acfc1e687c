// `adilab --bench lu` end to end: bad input stops before any work with a message naming the
// problem (exit 2 for the command line, 1 for a bad file); a Matrix Market file is factored and
// reported. Small sizes only: llvmpipe.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"

namespace adilab::test {
namespace {

TEST(LuBench, BadOptionsExitTwoNamingTheOption) {
    ADILAB_NEED_GL();
    const std::string folder = temp_folder("lu_bad_options");
    write_text(folder + "/a.mtx", "%%MatrixMarket matrix array real general\n1 1\n2\n");
    const struct {
        std::string args, expected;
    } cases[] = {
        {"--impl gpu-magic", "unknown variant 'gpu-magic'"},
        {"--impl all,cpu", "--impl"},
        {"--block 12", "--block: 12 is not supported"},
        {"--sizes 0", "--sizes"},
        {"--panel lean", "--panel"},  // the panel is lu.registers_panel now
        {"--tune lu.fastest=1", "lu has no field 'fastest'"},
        {"--tune lu.lookahead=2", "lu.lookahead must lie in 0..1"},
        {"--tune lu.lookahead=yes", "lu.lookahead takes an integer"},
        {"--tune power.key_slots=4", "unknown family 'power'"},
        {"--tune lookahead=0", "expected FAMILY.FIELD=VALUE"},
        {"--mtx " + folder + "/a.mtx --sizes 4", "exclude each other"},
    };
    for (const auto& c : cases) {
        auto r = run_adilab("--bench lu " + c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.args << "\n" << r.output;
    }
}

TEST(LuBench, MalformedOrNonSquareMatrixMarketFilesNameTheProblem) {
    ADILAB_NEED_GL();
    const std::string folder = temp_folder("lu_bad_mtx");
    write_text(folder + "/bad.mtx",
               "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 x 3.0\n");
    auto r = run_adilab("--bench lu --mtx " + folder + "/bad.mtx");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("bad.mtx:4"), std::string::npos) << r.output;  // the line
    write_text(folder + "/wide.mtx", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n");
    r = run_adilab("--bench lu --mtx " + folder + "/wide.mtx");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("square"), std::string::npos) << r.output;
    r = run_adilab("--bench lu --mtx " + folder + "/missing.mtx");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("missing.mtx"), std::string::npos) << r.output;
}

TEST(LuBench, FactorsAMatrixMarketFileAndReportsResidualsAndSingularity) {
    ADILAB_NEED_GL();
    const std::string folder = temp_folder("lu_mtx");
    // A coordinate file with a zero diagonal (pivoting needed): det = -(2*3*4) * ... computed by
    // the reference in the GL tests; here the report's fields are checked.
    write_text(folder + "/perm.mtx",
               "%%MatrixMarket matrix coordinate real general\n% a comment\n3 3 4\n"
               "1 2 2.0\n2 3 3.0\n3 1 4.0\n3 3 0.5\n");
    auto r = run_adilab("--bench lu --mtx " + folder +
                        "/perm.mtx --impl all --block 8 --repeats 1 --tune lu.lookahead=0 "
                        "--report " +
                        folder + "/perm.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string json = read_text(folder + "/perm.json");
    for (const char* key : {"\"name\": \"gpu-blocked\"", "\"name\": \"gpu-unblocked\"",
                            "\"name\": \"cpu\"", "\"factor_residual\"", "\"solve_residual\"",
                            "\"speedup_vs_unblocked\"", "\"matrix\": \"perm.mtx\"", "\"det_sign\"",
                            "\"panel\": \"registers\"",  // the default panel, as it ran
                            // the complete tuning, panel_rows resolved from 0 to 64
                            "\"tuning\": \"lu.registers_panel=1 lu.panel_rows=64 ",
                            "\"lu.panel_rows\": 64", "\"lu.lookahead\": 0"})
        EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
    // A singular array file (second column zero): said, and no solve.
    write_text(folder + "/singular.mtx",
               "%%MatrixMarket matrix array real general\n2 2\n1\n2\n0\n0\n");
    r = run_adilab("--bench lu --mtx " + folder +
                   "/singular.mtx --impl gpu-blocked --block 8 --repeats 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("singular (zero pivot in column 1)"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("nan"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace adilab::test
