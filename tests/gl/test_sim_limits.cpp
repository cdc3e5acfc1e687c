// Where fp32 ends (sim/simulation.hpp, kMaxImplicitWeight): a sweep's matrix has the diagonal
// 1 + W, and past W = 1e4 the parameters are refused before anything runs, with the weight and
// what lowers it named, in any order of setting them, on a larger grid, from a state file. At the
// limit itself every scenario of every model still stays bounded and conserves what it should;
// and growth past the derived bounds (what the refused parameters used to produce) is caught with
// its step on every solver path.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sim/model.hpp"
#include "sim/simulation.hpp"
#include "solvers/gl/error.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"  // read_text, write_text

namespace adilab::sim {
namespace {

using Values = std::vector<std::pair<std::string, double>>;

using test::gpu_solvers;

// The exploding sets (heat c = dt = 1e9 on dh = 1e-9; shallow water g = dt = 1e6 on
// dh = 1e-9 with 1e6 m of water; advection at the top of dt's range): refused as a whole, named,
// and nothing changes. The same dt with a cell size that brings W back is accepted whichever
// comes first.
TEST(SceneLimits, ParametersPastWhatFp32SolvesAreRefusedWithTheReason) {
    ADILAB_NEED_GL();
    const std::vector<std::pair<std::string, Values>> cases = {
        {"heat", {{"c", 1e9}, {"dt", 1e9}, {"dh", 1e-9}}},
        {"advection", {{"dt", 1e9}}},
        {"shallow-water",
         {{"g", 1e6}, {"dt", 1e6}, {"dh", 1e-9}, {"level", 1e6}, {"dam_height", 1e6}}},
    };
    for (const auto& [model, values] : cases) {
        auto sim = make_simulation(model);
        sim->reset(sim->scenarios().front(), 16, 12);
        try {
            sim->set_params(values);
            ADD_FAILURE() << model << ": accepted";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("implicit weight"), std::string::npos) << what;
            EXPECT_NE(what.find("raise dh"), std::string::npos) << what;
        }
        for (const ParamSpec& spec : sim->params())
            EXPECT_EQ(sim->param(spec.name), spec.default_value) << model << " " << spec.name;
        EXPECT_THROW(sim->set_param("dt", 1e9 * (model == "shallow-water" ? 1e-3 : 1)), Error)
            << model;
    }
    // 2 c dt / dh^2: 2e5 with dh = 1 (refused alone), 2e3 with dh = 10.
    auto heat = make_simulation("heat");
    heat->set_params(Values{{"dt", 1e5}, {"dh", 10}});
    heat->set_params(Values{{"dh", 1}, {"dt", 1}});
    heat->set_params_text(
        std::vector<std::pair<std::string, std::string>>{{"dt", "1e5"}, {"dh", "10"}});
    EXPECT_EQ(heat->param("dt"), 1e5);
}

// The vortex's weight grows with the grid (its fastest velocity is at the corners): a grid past
// the limit is refused by reset() before it allocates or changes anything.
TEST(SceneLimits, AGridThatTakesTheVortexPastTheLimitIsRefusedBeforeAnythingChanges) {
    ADILAB_NEED_GL();
    auto sim = make_simulation("advection");
    // dt (omega hypot(nx, ny) / 2 + 2 D) at dt = 100, omega = 1: 2,263 at 32^2, 9e4 at 256^2.
    sim->set_params(Values{{"omega", 1}, {"dt", 100}, {"D", 0}});
    sim->reset("vortex", 32, 32);
    sim->step(2);
    try {
        sim->reset("vortex", 256, 256);
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("256 x 256"), std::string::npos) << e.what();
    }
    EXPECT_EQ(sim->nx(), 32);
    EXPECT_EQ(sim->stats().steps, 2);
}

// A state file whose parameters together pass the limit (each in its own range) is refused with
// the file named, and the running simulation keeps its parameters.
TEST(SceneLimits, AStatePastTheLimitIsRefusedNamingTheFile) {
    ADILAB_NEED_GL();
    const auto path = std::filesystem::temp_directory_path() / "adilab-limits.state";
    auto sim = make_simulation("advection");
    sim->reset("river", 16, 12);
    sim->save_state(path);
    std::string bytes = test::read_text(path.string());
    const std::size_t at = bytes.find("param dt ");
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, bytes.find('\n', at) - at, "param dt 1e8");
    test::write_text(path.string(), bytes);
    try {
        sim->load_state(path);
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(path.string()), std::string::npos) << what;
        EXPECT_NE(what.find("implicit weight"), std::string::npos) << what;
    }
    EXPECT_EQ(sim->param("dt"), 0.5);
    std::filesystem::remove(path);
}

// Every scenario of every model and scheme with dt at its limit (computed here from the formulas
// in the models' messages; 1.01 dt is refused, so the two agree), 1,000 steps on 32 x 24 from a
// random start where the scenario has no source of its own: no flag, and the total kept. Twice:
// with the one-dispatch y sweep these small grids take, and with every y sweep by the split solve
// (FusedTuning::split = 1) that grids of 4096 rows and more take.
//
// Tolerance of the total: an fp32 solve is exact for a matrix within 2^-24 of A, whose diagonal is
// 1 + W (Peaceman–Rachford's explicit half multiplies by up to 1 + W as well), so a step may
// change the total by up to 2^-24 (1 + W) of the largest value times the cells, in the worst case
// of every rounding alike; with rounding of random sign over the n = 768 cells it is
// 2^-24 (1 + W) max|field| sqrt(n) a step, summed linearly over the 1,000 steps. Relative to the
// total n mean|field|: 1000 2^-24 (1 + W) (max / mean) / sqrt(n), 2e-2 at W = 1e4 for a smooth
// field, more where Peaceman–Rachford's advection overshoots.

using detail::kMaxAdvectionPeacemanRachfordWeight;
using detail::kMaxHeatPeacemanRachfordWeight;
using detail::kMaxShallowWaterWeight;

// dt with W at the scheme's limit, and that W.
std::pair<double, double> dt_at_limit(const Simulation& sim, const std::string& scenario, int nx,
                                      int ny) {
    const double dh = sim.param("dh");
    const bool implicit_euler = sim.model() == "shallow-water" || sim.param("scheme") == 0;
    if (sim.model() == "heat") {
        const double per_dt = sim.param("c") / (dh * dh);  // W = 2 mu (IE), mu (PR)
        if (implicit_euler) return {kMaxImplicitWeight / (2 * per_dt), kMaxImplicitWeight};
        return {kMaxHeatPeacemanRachfordWeight / per_dt, kMaxHeatPeacemanRachfordWeight};
    }
    if (sim.model() == "advection") {
        double speed = std::abs(sim.param("u"));
        if (scenario == "vortex")
            speed = std::abs(sim.param("omega")) * 0.5 * dh * std::hypot(nx, ny);
        const double per_dt = speed / dh + 2 * sim.param("D") / (dh * dh);
        if (implicit_euler) return {kMaxImplicitWeight / per_dt, kMaxImplicitWeight};
        return {kMaxAdvectionPeacemanRachfordWeight / (0.5 * per_dt),
                kMaxAdvectionPeacemanRachfordWeight};
    }
    double depth = sim.param("level");
    if (scenario == "dam-break") depth += std::max(0.0, sim.param("dam_height"));
    if (scenario == "drops") depth += std::max(0.0, sim.param("drop_height"));
    return {std::sqrt(kMaxShallowWaterWeight * dh * dh / (sim.param("g") * depth)),
            kMaxShallowWaterWeight};
}

TEST(SceneLimits, EveryScenarioAtTheLimitStaysBoundedAndKeepsItsTotal) {
    ADILAB_NEED_GL();
    const int nx = 32, ny = 24, steps = 1000;
    for (const ModelInfo& info : models()) {
        for (int scheme : {0, 1})
            for (int split : {0, 1}) {
                const bool has_scheme = info.name != "shallow-water";
                if (!has_scheme && scheme == 1) continue;
                for (const std::string& scenario : make_simulation(info.name)->scenarios()) {
                    const std::string what = info.name + " " + scenario + " scheme " +
                                             std::to_string(scheme) + (split ? " split" : "");
                    auto sim = make_simulation(info.name);
                    FusedTuning tuning;
                    tuning.split = split;
                    sim->set_fused_tuning(tuning);
                    if (has_scheme) sim->set_param("scheme", scheme);
                    if (info.name == "shallow-water") {
                        sim->set_param("damping", 0);
                        sim->set_param("drop_interval", 2 * steps);  // one drop, at the first step
                    }
                    sim->reset(scenario, nx, ny);
                    const auto [dt, weight] = dt_at_limit(*sim, scenario, nx, ny);
                    EXPECT_THROW(sim->set_param("dt", 1.01 * dt), Error) << what;
                    sim->set_param("dt", dt * (1 - 1e-9));  // at the limit up to its rounding
                    sim->reset(scenario, nx, ny);
                    const bool sourced = scenario != "free" && scenario != "dam-break";
                    if (!sourced) sim->set_field(test::random_field(nx, ny, 0.5f, 1.0f, 7));
                    // Sources: the push lasts 50 steps, a drop falls at step 1, heaters pin and the
                    // advection sources keep injecting (their total is checked in test_sim_scenes).
                    sim->step(info.name == "shallow-water" ? 50 : 0);
                    const double start = sim->stats().sum;
                    sim->step(steps);
                    const Stats s = sim->stats();
                    ASSERT_TRUE(s.stable) << what << ": " << s.instability;
                    EXPECT_TRUE(std::isfinite(s.sum)) << what;
                    if (info.name == "heat" && scenario == "two-heaters") {
                        if (scheme == 0) {  // the maximum principle: [0, 1], fp32 round-off aside
                            EXPECT_GE(s.min, -1e-6) << what;
                            EXPECT_LE(s.max, 1 + 1e-6) << what;
                        }
                    } else if (info.name == "advection" && sourced) {
                        if (scheme == 0) {
                            EXPECT_GE(s.min, -1e-6 * s.max) << what;
                        }
                    } else {
                        const double largest = std::max(std::abs(s.min), std::abs(s.max));
                        const double mean = std::abs(s.sum) / (nx * ny);
                        const double tolerance = steps * std::ldexp(1.0, -24) * (1 + weight) *
                                                 (largest / mean) / std::sqrt(nx * ny);
                        EXPECT_NEAR(s.sum, start, tolerance * std::abs(start)) << what;
                    }
                }
            }
    }
}

// A cell corrupted far past every value the field was given (what the refused parameters, memory
// corruption or a kernel bug leave behind) stops the run at the step that spread it, as a bound,
// on every solver path of every model (the fused kernel also with its split y sweep).
TEST(SceneLimits, GrowthPastTheDerivedBoundIsCaughtOnEveryPath) {
    ADILAB_NEED_GL();
    for (const ModelInfo& info : models()) {
        std::vector<std::pair<std::string, int>> paths;  // solver, FusedTuning::split
        for (const std::string& solver : gpu_solvers(info.name)) paths.push_back({solver, 0});
        paths.push_back({"fused", 1});
        for (const auto& [solver, split] : paths) {
            auto sim = make_simulation(info.name, solver);
            FusedTuning tuning;
            tuning.split = split;
            sim->set_fused_tuning(tuning);
            sim->reset(sim->scenarios().back(), 30, 20);  // "free": no source, no heaters
            sim->step(4);
            std::vector<float> field = sim->read_field();
            field[10 * 30 + 10] = 1e30f;
            const_cast<gl::Buffer&>(sim->field()).write(field);
            sim->step(3);
            const std::string what =
                info.name + " " + solver + (split ? " split" : "") + ": " + sim->instability();
            EXPECT_EQ(sim->first_bad_step(), 5) << what;
            EXPECT_NE(sim->instability().find("at step 5"), std::string::npos) << what;
        }
    }
}

}  // namespace
}  // namespace adilab::sim
