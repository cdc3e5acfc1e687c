// The heat and advection scenes a user picks, run long enough at the edges of their parameter
// ranges to show what the schemes promise: heat's two heaters stay within their start and heater
// temperatures and approach the steady state at any dt; advection's sources inject exactly their
// mass and never make a concentration negative; and the stability check catches a NaN (planted
// through the field or a loaded state) with the step named, in every solver variant, without a
// false alarm on any scenario at its defaults (growth past the bounds: test_sim_limits.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "sim/simulation.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::sim {
namespace {

struct Range {
    double min = 0, max = 0, sum = 0;
};
Range range_of(const std::vector<float>& field) {
    Range r{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 0};
    for (float v : field) {
        r.min = std::min(r.min, double(v));
        r.max = std::max(r.max, double(v));
        r.sum += v;
    }
    return r;
}

using test::gpu_solvers;

// Two heaters at 1 K in a field at 0 K, 500 steps, for dt from 0.1 to 1000 (c = dh = 1, so
// mu = c dt / dh^2 up to 1000): the default scheme (implicit Euler splitting) makes every new
// value a convex combination of the old ones and the heaters', so T stays in [0, 1] up to fp32
// round-off (1e-6 here: a few ulps of 1, not accumulated), far inside the 10% the scene promises;
// heat only flows in, so the total never falls, and it approaches the steady state T = 1.
TEST(SceneHeat, TwoHeatersStayWithinTheirRangeAndApproachSteadyStateAtAnyDt) {
    ADILAB_NEED_GL();
    const int nx = 40, ny = 30;
    for (const double dt : {0.1, 1.0, 5.0, 50.0, 1e3}) {
        auto sim = make_simulation("heat");
        sim->set_param("dt", dt);
        sim->reset("two-heaters", nx, ny);
        double previous_sum = -1;
        for (int block = 0; block < 5; ++block) {
            sim->step(100);
            const Range r = range_of(sim->read_field());
            ASSERT_TRUE(sim->stats().stable) << "dt " << dt << ": " << sim->instability();
            EXPECT_GE(r.min, -1e-6) << "dt " << dt << " step " << 100 * (block + 1);
            EXPECT_LE(r.max, 1 + 1e-6) << "dt " << dt << " step " << 100 * (block + 1);
            EXPECT_GE(r.sum, previous_sum - 1e-4 * nx * ny) << "dt " << dt;
            previous_sum = r.sum;
        }
        // The distance to T = 1 falls: after 500 steps of dt >= 50 the field has arrived.
        if (dt >= 50)
            EXPECT_GT(range_of(sim->read_field()).min, 0.99) << "dt " << dt;
        else
            EXPECT_GT(previous_sum, 0.02 * nx * ny) << "dt " << dt;
    }
}

// The same scene with the paper's Peaceman–Rachford scheme (heaters now rows of both sweeps):
// stable at every dt, so the check never fires; at dt = 0.1 it is accurate and stays in range.
TEST(SceneHeat, PeacemanRachfordWithHeatersStaysStable) {
    ADILAB_NEED_GL();
    for (const double dt : {0.1, 5.0, 100.0}) {
        auto sim = make_simulation("heat");
        sim->set_param("scheme", 1);
        sim->set_param("dt", dt);
        sim->reset("two-heaters", 36, 28);
        sim->step(300);
        const Stats s = sim->stats();
        EXPECT_TRUE(s.stable) << "dt " << dt << ": " << s.instability;
        if (dt < 1) {
            EXPECT_GE(s.min, -1e-3);
            EXPECT_LE(s.max, 1 + 1e-3);
        }
    }
}

// A brush stroke adds its bump once; the maximum principle then holds for the hull that includes
// it (no false alarm), and the heat it added stays (insulated walls, no heaters).
TEST(SceneHeat, BrushStrokeIsBoundedAndConserved) {
    ADILAB_NEED_GL();
    for (const double dt : {1.0, 1e3}) {
        auto sim = make_simulation("heat");
        sim->set_param("dt", dt);
        sim->reset("free", 40, 30);
        sim->apply_brush({12.5f, 10.5f, 4.0f, 5.0f});
        const double added = range_of(sim->read_field()).sum;
        EXPECT_GT(added, 100.0);  // a Gaussian of radius 4 and height 5: ~ 5 pi 16
        sim->step(300);
        const Stats s = sim->stats();
        EXPECT_TRUE(s.stable) << s.instability;
        EXPECT_GE(s.min, -1e-6);
        EXPECT_LE(s.max, 5 + 1e-5);
        EXPECT_NEAR(s.sum, added, 1e-5 * added);  // fp32 round-off of 1200 values
    }
}

// The mass the source injects: dt times the rate times the sum of the Gaussian over the cells,
// in float64 with the kernel's own geometry (sim/advection.cpp, advection.comp).
double injected_per_step(const Simulation& sim, const std::string& scenario, int nx, int ny) {
    const double radius =
        std::max(0.5f, float(sim.param("source_radius")) * float(std::min(nx, ny)));
    const double cx = scenario == "vortex" ? 0.3f * nx : 0.3f * nx;
    const double cy = scenario == "vortex" ? 0.3f * ny : 0.5f * ny;
    double sum = 0;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const double rx = (i + 0.5 - cx) / radius, ry = (j + 0.5 - cy) / radius;
            const double r2 = rx * rx + ry * ry;
            if (r2 < 9) sum += std::exp(-r2);
        }
    return sim.param("dt") * sim.param("source_rate") * sum;
}

// River (continuous source, uniform flow) and vortex (a short injection into a rotation) at
// large dt: the closed box keeps the mass the source put in, and the implicit Euler sweeps
// (M-matrices) keep C non-negative. Tolerances: every column of a sweep's matrix sums to 1, but
// an fp32 solve is exact only up to a backward error of ~2^-24 |A|, whose diagonal is
// 1 + X (X = dt (|w| / dh + 2 D / dh^2), the cell's Courant and diffusion numbers): each step may
// lose 2^-24 (1 + X) of the mass it moves. At dt = 0.5 that is ~1e-5 over 200 steps; at
// dt = 1000 the bound is ~1e-2 (measured: the river's pile at the far wall soon stops moving,
// 1e-5; the vortex keeps carrying its mass from wall to wall, 5e-3). The minimum may go below
// zero only by the round-off of values around it (1e-6 of the largest).
TEST(SceneAdvection, SourcesInjectExactlyTheirMassAndNothingGoesNegativeAtLargeDt) {
    ADILAB_NEED_GL();
    const int nx = 44, ny = 36, steps = 200;
    for (const std::string scenario : {"river", "vortex"}) {
        for (const double dt : {0.5, 50.0, 1e3}) {
            auto sim = make_simulation("advection");
            sim->set_param("dt", dt);
            sim->set_param("source_radius", 0.05);
            sim->set_param("source_steps", 60);
            sim->set_param("omega", 0.05);
            sim->reset(scenario, nx, ny);
            sim->step(steps);
            const Stats s = sim->stats();
            ASSERT_TRUE(s.stable) << scenario << " dt " << dt << ": " << s.instability;
            const double expected =
                injected_per_step(*sim, scenario, nx, ny) * (scenario == "vortex" ? 60 : steps);
            const double speed =
                scenario == "vortex" ? 0.05 * 0.5 * std::hypot(double(nx), double(ny)) : 1.0;
            const double courant = dt * (speed + 2 * sim->param("D"));
            const double tolerance = 1e-5 + steps * std::ldexp(1.0, -24) * (1 + courant);
            EXPECT_NEAR(s.sum, expected, tolerance * expected) << scenario << " dt " << dt;
            EXPECT_GE(s.min, -1e-6 * s.max) << scenario << " dt " << dt;
        }
    }
}

// A negative brush stroke removes pollutant only where there is some.
TEST(SceneAdvection, RemovingBrushNeverMakesConcentrationNegative) {
    ADILAB_NEED_GL();
    auto sim = make_simulation("advection");
    sim->reset("free", 40, 30);
    sim->apply_brush({10.5f, 10.5f, 3.0f, 2.0f});
    sim->apply_brush({12.5f, 10.5f, 6.0f, -5.0f});
    const Stats s = sim->stats();
    EXPECT_GE(s.min, 0.0);
    sim->step(50);
    EXPECT_TRUE(sim->stats().stable) << sim->instability();
}

// A NaN in the field (as --init or a loaded state would bring it) is caught at the first step,
// with the quantity named, by every solver variant of both models, default scheme and the
// paper's.
TEST(SceneDetection, NanFromTheFieldOrALoadedStateIsCaughtInEverySolver) {
    ADILAB_NEED_GL();
    const auto folder = std::filesystem::temp_directory_path() / "adilab-scene-detection";
    std::filesystem::create_directories(folder);
    for (const std::string model : {"heat", "advection"}) {
        const std::string quantity = model == "heat" ? "T" : "C";
        for (const std::string& solver : gpu_solvers(model)) {
            auto sim = make_simulation(model, solver);
            sim->reset(sim->scenarios().front(), 23, 17);
            std::vector<float> field(23 * 17, 0.5f);
            field[5 * 23 + 7] = std::numeric_limits<float>::quiet_NaN();
            sim->set_field(field);
            const auto state = folder / (model + "-" + solver + ".state");
            sim->save_state(state);
            sim->step(3);
            EXPECT_EQ(sim->first_bad_step(), 1) << model << " " << solver;
            EXPECT_NE(sim->instability().find(quantity + " became NaN or infinite at step 1"),
                      std::string::npos)
                << sim->instability();

            auto loaded = make_simulation(model, solver);
            loaded->set_param("scheme", 1);
            loaded->load_state(state);
            loaded->step(2);
            EXPECT_EQ(loaded->first_bad_step(), 1) << model << " " << solver << " (loaded)";
        }
    }
    std::filesystem::remove_all(folder);
}

// No false alarm: every scenario of every model at its defaults, 400 steps.
TEST(SceneDetection, NoFalseAlarmOnAnyScenarioAtItsDefaults) {
    ADILAB_NEED_GL();
    for (const ModelInfo& info : models()) {
        auto sim = make_simulation(info.name);
        for (const std::string& scenario : sim->scenarios()) {
            sim->reset(scenario, 48, 40);
            sim->step(400);
            EXPECT_TRUE(sim->stats().stable)
                << info.name << " " << scenario << ": " << sim->instability();
        }
    }
}

}  // namespace
}  // namespace adilab::sim
