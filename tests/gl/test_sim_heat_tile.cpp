// Heat's one-dispatch step (shaders/sim/heat_tile.comp: both PR half steps over a tile with a
// halo, T* in shared memory), the `fused` solver's default on grids of at most 256^2 cells with
// halos <= 16 (sim/heat.cpp's measured rule; ADILAB_HEAT_TILE=1 wherever it fits): against the
// float64 PR stepper on awkward grids, in both scenarios, in the default and other tile shapes,
// and against the two-dispatch path it replaces (ADILAB_HEAT_TILE=0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/model.hpp"
#include "sim/reference.hpp"
#include "sim/simulation.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::sim {
namespace {

using test::max_abs_diff;
using test::random_field;

struct HeatRun {
    std::vector<float> gpu;
    std::vector<double> ref;
    std::string kernel;
    bool stable = false;
};

// `steps` steps on the GPU and in the float64 stepper from one random field in [0, 1) (the
// `--init` start; with heaters too). A fresh model: its second buffer is poisoned (NaN) when
// allocated and the one-dispatch step writes into it first (then the two swap), so after an odd
// number of steps a cell the kernel missed is NaN; after an even number it still holds the
// random start, far from the reference.
HeatRun run_heat(int nx, int ny, double dt, const std::string& scenario, int steps) {
    auto sim = make_simulation("heat", "fused");
    sim->set_param("dt", dt);
    sim->reset(scenario, nx, ny);
    const std::vector<float> start =
        random_field(nx, ny, 0, 1, unsigned(nx * 977 + ny * 3 + steps));
    sim->set_field(start);
    const reference::HeatSetup setup = test::heat_setup(*sim, scenario, nx, ny, 0.5 * dt);
    HeatRun r;
    r.ref.assign(start.begin(), start.end());
    for (int s = 0; s < steps; ++s) reference::heat_step(setup, r.ref);
    sim->step(steps);
    r.kernel = sim->kernel();
    r.gpu = sim->read_field();
    r.stable = sim->stats().stable;
    return r;
}

// Largest |gpu - ref| relative to max(1, max |ref|) (the PR scheme with held heater cells can
// overshoot [0, 1], and fp32 round-off scales with the field).
double relative_error(const HeatRun& r) {
    double magnitude = 1;
    for (double v : r.ref) magnitude = std::max(magnitude, std::abs(v));
    return max_abs_diff(r.gpu, r.ref) / magnitude;
}

// The same fp32 budget as the two-dispatch path's tests (test_sim_heat_window.cpp), since the
// arithmetic per half step is the same: d = lambda (4 differences), |d| <= 8 lambda max |T|; the
// two recurrences round their running sums (<= max |d| / (1 - rho)) each term, damped by rho,
// scaled by g: ~4 u max |d| / (1 - rho^2); T + dT adds u. The truncation after HALO terms
// (every output takes at least HALO either side) adds heat_window_tail max |d|. Twice a step,
// and a factor 2 for the growth of round-off over the steps.
double tolerance(double lambda, int steps) {
    const double u = std::ldexp(1.0, -24), rho = detail::heat_window_rho(lambda);
    const int halo = detail::heat_window_halo(lambda);
    const double max_d = 8 * lambda;
    const double truncation = detail::heat_window_tail(lambda, halo) * max_d;
    return 2 * 2 * steps * (4 * u * max_d / (1 - rho * rho) + 2 * u + truncation);
}

// Awkward grids for the default tiles of 32 x 32 with a halo of 16 (all within the rule's 256^2
// cells): 291 x 173 and 292 x 173
// (interior tiles touching no wall next to partial ones), narrower and lower than one tile
// (37 x 29), lines shorter than the halo (5 x 41, 70 x 6, 6 x 7: several mirror images), and
// tiles partial in both directions (133 x 67, 300 x 7).
const std::pair<int, int> kGrids[] = {{291, 173}, {292, 173}, {37, 29}, {5, 41},
                                      {70, 6},    {6, 7},     {133, 67}, {300, 7}};

TEST(SimHeatTile, MatchesTheFloat64Reference) {
    ADILAB_NEED_GL();
    unsetenv("ADILAB_HEAT_TILE");
    // lambda = dt / 2: 0.52 (halo 16, the default parameters' bucket) and 0.05 (halo 8).
    for (const auto& [dt, expected] : {std::pair{1.04, "tile-H16"}, std::pair{0.1, "tile-H8"}}) {
        for (auto [nx, ny] : kGrids) {
            if (dt < 1 && nx * ny > 20000) continue;  // one large grid per halo is enough
            for (const std::string scenario : {"two-heaters", "free"}) {
                for (int steps : {1, 2, 3}) {
                    if (nx * ny > 20000 && steps == 2) continue;  // llvmpipe time
                    const HeatRun r = run_heat(nx, ny, dt, scenario, steps);
                    EXPECT_EQ(r.kernel, expected) << nx << "x" << ny;  // the new path ran
                    EXPECT_TRUE(r.stable);
                    EXPECT_LE(relative_error(r), tolerance(0.5 * dt, steps))
                        << scenario << " " << nx << "x" << ny << " dt " << dt << " steps " << steps;
                }
            }
        }
    }
}

TEST(SimHeatTile, OtherShapesMatch) {
    ADILAB_NEED_GL();
    // ADILAB_HEAT_TILE = "tx,ty,sx,sy[,group]": small tiles (many tiles, every one touching a
    // wall or another's halo), segments that do not divide the lines (the last one shifted back,
    // storing only its own cells), and a group smaller than the segments (each invocation takes
    // several), on grids with partial tiles.
    // (All fit llvmpipe's 32 KiB of shared memory at halo 16.)
    for (const char* shape : {"16,8,1,1", "40,24,3,5", "24,20,4,3,64", "32,16,2,4"}) {
        setenv("ADILAB_HEAT_TILE", shape, 1);
        for (auto [nx, ny] : {std::pair{37, 29}, std::pair{133, 67}, std::pair{6, 7}}) {
            for (int steps : {1, 2}) {
                const HeatRun r = run_heat(nx, ny, 1.04, "two-heaters", steps);
                EXPECT_EQ(r.kernel, "tile-H16") << shape;
                EXPECT_LE(relative_error(r), tolerance(0.52, steps))
                    << shape << " " << nx << "x" << ny << " steps " << steps;
            }
        }
    }
    unsetenv("ADILAB_HEAT_TILE");
}

TEST(SimHeatTile, AgreesWithTheTwoDispatchPath) {
    ADILAB_NEED_GL();
    // The same steps through the two-dispatch kernels (ADILAB_HEAT_TILE=0) and the tile: both
    // truncate after at least HALO terms, so they differ by fp32 round-off and at most twice the
    // truncation bound: each is within tolerance() of the float64 stepper.
    for (auto [nx, ny] : {std::pair{291, 173}, std::pair{37, 29}}) {
        for (const std::string scenario : {"two-heaters", "free"}) {
            setenv("ADILAB_HEAT_TILE", "0", 1);
            const HeatRun window = run_heat(nx, ny, 1.04, scenario, 3);
            unsetenv("ADILAB_HEAT_TILE");
            const HeatRun tile = run_heat(nx, ny, 1.04, scenario, 3);
            EXPECT_EQ(window.kernel, "window-H16");
            EXPECT_EQ(tile.kernel, "tile-H16");
            double worst = 0;
            for (std::size_t k = 0; k < tile.gpu.size(); ++k)
                worst = std::max(worst, double(std::abs(tile.gpu[k] - window.gpu[k])));
            EXPECT_LE(worst, 2 * tolerance(0.52, 3)) << scenario << " " << nx << "x" << ny;
            EXPECT_GT(worst, 0.0) << "the two paths are different kernels";
        }
    }
}

TEST(SimHeatTile, TheMeasuredRuleAndTheSwitch) {
    ADILAB_NEED_GL();
    unsetenv("ADILAB_HEAT_TILE");
    // By default the tile step takes halos <= 16 on grids of at most 256^2 cells (sim/heat.cpp:
    // measured faster there, slower above).
    EXPECT_EQ(run_heat(256, 256, 1.04, "free", 1).kernel, "tile-H16");
    EXPECT_EQ(run_heat(257, 256, 1.04, "free", 1).kernel, "window-H16");
    EXPECT_EQ(run_heat(37, 29, 3.0, "free", 1).kernel, "window-H24");
    // ADILAB_HEAT_TILE=1: wherever a default shape fits; halo 24 fits (and matches).
    setenv("ADILAB_HEAT_TILE", "1", 1);
    for (const std::string scenario : {"two-heaters", "free"}) {
        const HeatRun r = run_heat(37, 29, 3.0, scenario, 3);
        EXPECT_EQ(r.kernel, "tile-H24");
        EXPECT_LE(relative_error(r), tolerance(1.5, 3)) << scenario;
    }
    // lambda 6 needs a halo of 48: T^n and T* around any default tile exceed 48 KiB of shared
    // memory, so even when asked for, the two-dispatch kernels take it.
    const HeatRun r = run_heat(37, 29, 12.0, "two-heaters", 2);
    unsetenv("ADILAB_HEAT_TILE");
    EXPECT_EQ(r.kernel, "window-H48");
    EXPECT_LE(relative_error(r), tolerance(6.0, 2));
    // ADILAB_HEAT_TILE=0: never.
    setenv("ADILAB_HEAT_TILE", "0", 1);
    EXPECT_EQ(run_heat(37, 29, 1.04, "free", 1).kernel, "window-H16");
    unsetenv("ADILAB_HEAT_TILE");
}

}  // namespace
}  // namespace adilab::sim
