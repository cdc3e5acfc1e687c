// `adilab --headless` and `adilab --bench sim` end to end: .npy round trips, bit-identical
// continuation from a saved state, named errors with the right exit codes, instability.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/simulation.hpp"
#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"
#include "tests/support/roof.hpp"

namespace adilab::test {
namespace {

std::vector<float> field_of(const std::string& path) {
    return sim::read_npy(path).values;
}

bool bit_identical(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void expect_usage_error(const std::string& arguments, const std::string& named) {
    const ProcessResult r = run_adilab(arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << arguments << "\n" << r.output;
}

TEST(SimCli, InitThenExportRoundTripsBitForBit) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("sim_cli_npy");
    std::vector<float> values(23 * 17);
    for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = std::sin(0.37f * k) * 1e3f + 1e-7f * k;
    sim::write_npy(dir + "/in.npy", 23, 17, values);
    for (const char* model : {"heat", "advection", "shallow-water"}) {
        const ProcessResult r = run_adilab(std::string("--headless --model ") + model +
                                           " --scenario free --grid 23x17 --steps 0 --init " + dir +
                                           "/in.npy --export " + dir + "/out.npy");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const sim::NpyArray out = sim::read_npy(dir + "/out.npy");
        EXPECT_EQ(out.nx, 23);
        EXPECT_EQ(out.ny, 17);
        EXPECT_TRUE(bit_identical(out.values, values)) << model;
    }
}

TEST(SimCli, SavedStateContinuesBitIdentically) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("sim_cli_state");
    const char* cases[][3] = {{"heat", "two-heaters", "--set dt=2"},
                              {"advection", "vortex", "--set omega=0.05 --set source_steps=5"},
                              {"shallow-water", "drops", "--terrain island --set drop_interval=4"}};
    for (auto& [model, scenario, extra] : cases) {
        const std::string base = std::string("--headless --model ") + model + " --scenario " +
                                 scenario + " --grid 20x16 " + extra;
        ASSERT_EQ(run_adilab(base + " --steps 14 --export " + dir + "/straight.npy").exit_code, 0);
        ASSERT_EQ(run_adilab(base + " --steps 7 --save-state " + dir + "/half.state").exit_code, 0);
        const ProcessResult r =
            run_adilab(std::string("--headless --model ") + model + " --steps 7 --load-state " +
                       dir + "/half.state --export " + dir + "/resumed.npy");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("steps=14"), std::string::npos) << r.output;
        EXPECT_TRUE(bit_identical(field_of(dir + "/straight.npy"), field_of(dir + "/resumed.npy")))
            << model;
    }
}

TEST(SimCli, BadInputIsNamedAndExitsTwo) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("sim_cli_bad");
    expect_usage_error("--headless --model plasma", "plasma");
    expect_usage_error("--headless --steps 3", "--model");
    expect_usage_error("--headless --model heat --scenario volcano", "volcano");
    expect_usage_error("--headless --model heat --set viscosity=1", "viscosity");
    expect_usage_error("--headless --model heat --set dt=-1", "out of range");
    expect_usage_error("--headless --model heat --solver gauss-seidel", "gauss-seidel");
    expect_usage_error("--headless --model heat --grid 3", "--grid");
    expect_usage_error("--headless --model shallow-water --terrain moon", "moon");
    sim::write_npy(dir + "/small.npy", 4, 5, std::vector<float>(20, 1.0f));
    expect_usage_error("--headless --model heat --grid 8 --init " + dir + "/small.npy", "shape");
    expect_usage_error("--bench sim --scenario volcano", "volcano");
    expect_usage_error("--bench sim --scenario two-heaters --set viscosity=1", "viscosity");
    expect_usage_error("--bench sim --scenario two-heaters --set dt=-1", "out of range");
    expect_usage_error("--bench sim --scenario two-heaters --set dt", "NAME=VALUE");
}

TEST(SimCli, InstabilityStopsNamingTheStep) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("sim_cli_nan");
    std::vector<float> values(12 * 12, 0.5f);
    values[40] = NAN;
    sim::write_npy(dir + "/nan.npy", 12, 12, values);
    const ProcessResult r = run_adilab(
        "--headless --model heat --scenario free --grid 12 --steps 50 --init " + dir + "/nan.npy");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("T became NaN or infinite at step 1"), std::string::npos) << r.output;
}

TEST(SimCli, ListParamsShowsUnitsAndRanges) {
    ADILAB_NEED_GL();
    const ProcessResult r = run_adilab("--headless --model shallow-water --list-params");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* text : {"damping", "m/s^2", "dam-break", "island", "fused", "range"})
        EXPECT_NE(r.output.find(text), std::string::npos) << text << "\n" << r.output;
}

TEST(SimCli, BenchSimWritesRowsWithTheDocumentedFields) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("sim_cli_bench");
    // --set dt=0.1: heat's implicit weight 0.1, halo 8: the windowed kernels wherever no heater
    // pins a cell (the row names the kernel); shallow water takes the same dt.
    const ProcessResult r = run_adilab(
        "--bench sim --scenario heat/free,shallow-water/drops --grid 16 --steps 4 --repeats 1 "
        "--set dt=0.1 --report " +
        dir + "/sim.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream f(dir + "/sim.json");
    std::stringstream json;
    json << f.rdbuf();
    for (const char* key :
         {"\"ms_per_step\"", "\"steps_per_s\"", "\"cells_per_s\"", "\"fps_one_step_per_frame\"",
          "\"free\"", "\"drops\"", "\"fused\"", "\"kernel\"", "\"window-H8\""})
        EXPECT_NE(json.str().find(key), std::string::npos) << key;
    const bench::Report report = bench::read_report(dir + "/sim.json");
    expect_rows_against_the_roof(report);
    // The least traffic of a step (ModelInfo::least_fields_per_step): 4 fields of 16^2 floats
    // for heat, 9 for shallow water.
    for (const bench::Row& row : report.rows) {
        const double fields = row.text("model") == "heat" ? 4 : 9;
        EXPECT_NEAR(row.number("gb_per_s"),
                    fields * 16 * 16 * 4 / (row.number("ms_per_step") * 1e6),
                    2e-8 * row.number("gb_per_s"))  // 9 significant digits each
            << row.text("model");
    }
}

// --bench sim --terrain: the water scenario's rows once per bottom, the one off the flat bottom
// carrying its terrain in the report and the table, heat's row once and without one.
TEST(SimCli, BenchSimRunsWaterOnEachTerrainNamed) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("sim_cli_terrain");
    const ProcessResult r = run_adilab(
        "--bench sim --scenario heat/free,dam-break --grid 16 --steps 4 --repeats 1 "
        "--terrain flat,basin --report " +
        dir + "/sim.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("basin"), std::string::npos) << r.output;
    const bench::Report report = bench::read_report(dir + "/sim.json");
    ASSERT_EQ(report.rows.size(), 3u);
    std::vector<std::string> terrains;
    for (const bench::Row& row : report.rows)
        terrains.push_back(row.find("terrain") ? row.text("terrain") : "-");
    EXPECT_EQ(terrains, (std::vector<std::string>{"-", "-", "basin"}));
    EXPECT_EQ(report.rows[2].text("scenario"), "dam-break");
}

}  // namespace
}  // namespace adilab::test
