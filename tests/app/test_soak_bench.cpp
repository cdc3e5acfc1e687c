// `adilab --bench soak` end to end, tiny: every scenario of every model for a few steps on a
// small grid (the real soak, 20,000 steps at 128^2, is a bench run, not CI: minutes). Checks
// the report's fields, which scenarios count as sourceless, and the usage errors.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "app/bench/report.hpp"
#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"

namespace adilab::test {
namespace {

TEST(SoakBench, EveryScenarioIsReportedWithItsVerdictAndMemory) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("soak");
    const std::string report_path = dir + "/soak.json";
    const ProcessResult r =
        run_adilab("--bench soak --steps 40 --grid 16x12 --check-every 15 --report " + report_path);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* column : {"stable", "first bad", "sources", "total moved", "tolerance",
                               "conserved", "RSS growth KiB", "GPU growth KiB", "ms/step"})
        EXPECT_NE(r.output.find(column), std::string::npos) << column << " not in\n" << r.output;
    const bench::Report report = bench::read_report(report_path);
    EXPECT_EQ(report.benchmark, "soak");
    EXPECT_TRUE(report.failure.empty()) << report.failure;
    // The scenarios that add or take away their quantity (sim/*.cpp: has_sources): heaters, the
    // advection sources, shallow water's push and drops. The rest must keep their total.
    const std::set<std::string> sourced = {"heat/two-heaters", "advection/river",
                                           "advection/vortex", "shallow-water/diagonal-push",
                                           "shallow-water/drops"};
    const std::set<std::string> every = {"heat/two-heaters",    "heat/free",
                                         "advection/river",     "advection/vortex",
                                         "advection/free",      "shallow-water/diagonal-push",
                                         "shallow-water/drops", "shallow-water/dam-break",
                                         "shallow-water/free"};
    std::set<std::string> seen;
    for (const bench::Row& row : report.rows) {
        const std::string name = row.text("name");
        seen.insert(name);
        EXPECT_EQ(row.text("grid"), "16x12") << name;
        EXPECT_EQ(row.number("steps"), 40) << name;  // 15 + 15 + 10: the last chunk is shorter
        EXPECT_EQ(row.text("stable"), "yes") << name;
        EXPECT_EQ(row.number("first_bad_step"), -1) << name;
        EXPECT_EQ(row.text("sources"), sourced.count(name) ? "yes" : "no") << name;
        EXPECT_TRUE(std::isfinite(row.number("total_start")) &&
                    std::isfinite(row.number("total_end")))
            << name;
        if (sourced.count(name)) {
            EXPECT_EQ(row.text("conserved"), "n/a (sources)") << name;
        } else {
            EXPECT_EQ(row.text("conserved"), "yes") << name;
            EXPECT_LE(row.number("relative_change"), row.number("tolerance")) << name;
            EXPECT_GT(row.number("tolerance"), 0) << name;
        }
        // Memory: integers in KiB (the growth may be 0 or, with the allocator, negative).
        EXPECT_GT(row.number("rss_kib"), 1024) << name;
        EXPECT_TRUE(std::isfinite(row.number("rss_growth_kib"))) << name;
        const std::string gpu = row.text("gpu_growth_kib");
        EXPECT_TRUE(gpu == "n/a" || std::isfinite(row.number("gpu_growth_kib")))
            << name << ": " << gpu;
        EXPECT_GT(row.number("median_ms"), 0) << name;
    }
    EXPECT_EQ(seen, every);
}

// --terrain: each shallow-water scenario once per bottom named, other models once; rows off the
// flat bottom carry the terrain (and their name says it), flat rows none (their identity as
// before the option, for --compare). The shoreline bottoms keep dam-break's volume too: their
// steps settle the cells that come out dry every step.
TEST(SoakBench, TerrainsRunEachWaterScenarioOnEachBottom) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("soak_terrain");
    const std::string report_path = dir + "/soak.json";
    const ProcessResult r = run_adilab(
        "--bench soak --steps 30 --grid 24x20 --check-every 15 --scenario dam-break,heat/free "
        "--terrain flat,island,png --report " +
        report_path);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("terrain"), std::string::npos) << r.output;
    const bench::Report report = bench::read_report(report_path);
    std::set<std::string> seen;
    for (const bench::Row& row : report.rows) {
        const std::string name = row.text("name");
        seen.insert(name);
        const bool off_flat = name.find(" on ") != std::string::npos;
        EXPECT_EQ(row.find("terrain") != nullptr, off_flat) << name;
        if (off_flat) {
            const std::string expected =
                row.text("model") + "/" + row.text("scenario") + " on " + row.text("terrain");
            EXPECT_EQ(name, expected);
        }
        EXPECT_EQ(row.text("stable"), "yes") << name;
        EXPECT_EQ(row.text("conserved"), "yes") << name;
    }
    EXPECT_EQ(seen, (std::set<std::string>{"heat/free", "shallow-water/dam-break",
                                           "shallow-water/dam-break on island",
                                           "shallow-water/dam-break on png"}));
}

TEST(SoakBench, BadValuesAreUsageErrors) {
    ADILAB_NEED_GL();
    struct Case {
        std::string arguments, named;
    } cases[] = {
        {"--bench soak --steps 0", "--steps: '0' is out of range"},
        {"--bench soak --steps 1e4", "--steps: '1e4'"},
        {"--bench soak --grid 4294967424", "--grid: '4294967424'"},
        {"--bench soak --check-every -5", "--check-every: '-5'"},
        {"--bench soak --scenario lava", "--scenario: unknown 'lava'"},
        {"--bench soak --solver bogus", "--solver: unknown 'bogus'"},
        {"--bench soak --terrain mountain", "--terrain: unknown terrain 'mountain'"},
        {"--bench soak --scenario heat --terrain island", "--terrain: no selected scenario"},
        {"--bench soak --scenario dam-break --terrain png:/no/such/hills.png",
         "cannot read height map '/no/such/hills.png'"},
    };
    for (const Case& c : cases) {
        const ProcessResult r = run_adilab(c.arguments);
        EXPECT_EQ(r.exit_code, 2) << c.arguments << "\n" << r.output;
        EXPECT_NE(r.output.find(c.named), std::string::npos) << c.arguments << "\n" << r.output;
    }
}

}  // namespace
}  // namespace adilab::test
