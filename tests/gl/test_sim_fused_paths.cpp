// The fused kernel's paths (shaders/tridiagonal/fused_lines.glsl), each against the float64 CPU
// stepper: the subgroup solve of the reduced system with real shuffles (where the context has
// subgroups) and with its shared-memory exchange (FusedTuning::subgroups = 0), the shared-memory
// PCR (solve = 2), and the x half step with and without its rows staged through shared memory
// (tile = 1 / 2), and the y half step by the split solve (split = 1; shapes with chunks of 2, odd
// chunks, one or several per work group). test_sim.cpp checks the default path on every model; here
// heat and shallow water run every path on lines that span 1, several and many subgroups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "sim/reference.hpp"
#include "sim/simulation.hpp"
#include "solvers/gl/context.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::sim {
namespace {

using test::max_abs_diff;
using test::random_field;

struct Path {
    FusedTuning tuning;
    const char* name;
};
// Without subgroups (llvmpipe) the default path is the shared-memory exchange already.
bool redundant(const Path& path) {
    return path.tuning.subgroups == 0 && !gl::Context::current().info().subgroups;
}
FusedTuning tuning(int solve, int subgroups, int tile) {
    FusedTuning t;
    t.solve = solve;
    t.subgroups = subgroups;
    t.tile = tile;
    return t;
}
FusedTuning split(int chunk, int warps) {
    FusedTuning t;
    t.split = 1;
    t.split_chunk = chunk;
    t.split_warps = warps;
    return t;
}
FusedTuning x_stores(int store4, int tile) {
    FusedTuning t;
    t.store4 = store4;
    t.tile = tile;
    return t;
}
const Path kPaths[] = {{tuning(0, 1, 0), "default"},
                       {split(8, 8), "split y sweep"},
                       {split(2, 1), "split y sweep, chunks of 2, one per work group"},
                       {split(5, 3), "split y sweep, chunks of 5, 3 per work group"},
                       {tuning(0, 1, 1), "x rows tiled"},
                       {tuning(1, 1, 0), "subgroup solve"},
                       {tuning(1, 0, 0), "subgroup solve, shared-memory exchange"},
                       {tuning(2, 1, 0), "shared-memory PCR"},
                       {tuning(0, 1, 2), "untiled x rows"},
                       {x_stores(0, 0), "x rows by 4-byte stores"},
                       {x_stores(0, 2), "untiled x rows by 4-byte stores"},
                       {tuning(3, 1, 0), "warp hierarchy"},
                       {tuning(3, 0, 0), "warp hierarchy, shared-memory exchange"}};

// Lines of 5 .. 2100 cells: one subgroup per line with 2 reduced rows per lane (short lines),
// and 4 .. 16 rows per lane (1100: K = 8, P = 256 ... 2100: K = 16, P = 256).
const std::pair<int, int> kPathGrids[] = {{5, 41}, {300, 7}, {1100, 5}, {6, 2100}};

// test::kStepTolerance (tests/support/fields.hpp) holds for 4 steps as for 6: the partition and
// PCR orderings differ from Thomas only in round-off.
using test::kStepTolerance;

// Heat two-heaters from a random start, 4 steps with `tuning`, against the float64 stepper:
// the largest difference, and the kernel that ran. dt = 20 (lambda 10, 20 with implicit Euler)
// is beyond every window's halo, so every line takes the fused line solve (not the windowed
// kernels of tests/gl/test_sim_heat_window.cpp), with heaters pinning cells.
struct Outcome {
    double error;
    std::string kernel;
};
Outcome heat_outcome(const FusedTuning& tuning, int nx, int ny, int scheme, unsigned seed) {
    auto sim = make_simulation("heat", "fused");
    sim->set_fused_tuning(tuning);
    sim->set_param("scheme", scheme);
    sim->set_param("dt", 20.0);
    sim->reset("two-heaters", nx, ny);
    const auto start = random_field(nx, ny, 0, 1, seed);
    sim->set_field(start);
    const reference::HeatSetup setup = test::heat_setup(*sim, "two-heaters", nx, ny, 10.0);
    std::vector<double> ref(start.begin(), start.end());
    for (int s = 0; s < 4; ++s) reference::heat_step(setup, ref);
    sim->step(4);
    return {max_abs_diff(sim->read_field(), ref), sim->kernel()};
}

// Shallow water `free` from a random surface, 4 steps with `tuning`, against the float64
// stepper: the largest difference. The windows off: every line takes the line solve of the
// path (tests/gl/test_sim_water_window.cpp checks the windowed kernels).
double water_error(const FusedTuning& tuning, int nx, int ny, unsigned seed) {
    auto sim = make_simulation("shallow-water", "fused");
    FusedTuning line_solve = tuning;
    line_solve.window = 0;
    sim->set_fused_tuning(line_solve);
    sim->set_param("dt", 0.2);
    sim->set_param("damping", 0.01);
    sim->reset("free", nx, ny);
    const auto start = random_field(nx, ny, 0.9f, 1.1f, seed);
    sim->set_field(start);
    reference::ShallowWaterSetup setup{nx, ny, 9.81 * 0.04 / 2, 0.01,
                                       std::vector<double>(start.size(), 0.0)};
    std::vector<double> h(start.begin(), start.end()), previous = h;
    for (int s = 0; s < 4; ++s) reference::shallow_water_step(setup, h, previous);
    sim->step(4);
    return max_abs_diff(sim->read_field(), h);
}

TEST(SimFusedPaths, HeatMatchesTheFloat64ReferenceOnEveryPath) {
    ADILAB_NEED_GL();
    for (const Path& path : kPaths) {
        if (redundant(path)) continue;
        for (auto [nx, ny] : kPathGrids) {
            for (const int scheme : {0, 1}) {
                if (scheme == 1 && &path != &kPaths[0]) continue;  // the rows differ, not the solve
                const Outcome outcome = heat_outcome(path.tuning, nx, ny, scheme, 3);
                EXPECT_LE(outcome.error, kStepTolerance)
                    << path.name << " scheme " << scheme << " " << nx << "x" << ny;
                EXPECT_EQ(outcome.kernel, "fused");
            }
        }
    }
}

TEST(SimFusedPaths, ShallowWaterMatchesTheFloat64ReferenceOnEveryPath) {
    ADILAB_NEED_GL();
    for (const Path& path : kPaths) {
        if (redundant(path)) continue;
        for (auto [nx, ny] : kPathGrids)
            EXPECT_LE(water_error(path.tuning, nx, ny, 9), kStepTolerance)
                << path.name << " " << nx << "x" << ny;
    }
}

TEST(SimFusedPaths, WarpHierarchyJoinsThirtyTwoSubgroups) {
    ADILAB_NEED_GL();
    // x lines of 8192 cells: 1024 chunks of 8, 32 subgroups a line, the most the hierarchy's
    // top system takes (the default on lines past 4096 cells where the device has subgroups).
    // kPathGrids reach 8 subgroups a line.
    FusedTuning t;
    t.solve = 3;
    EXPECT_LE(heat_outcome(t, 8192, 4, 0, 5).error, kStepTolerance) << "heat";
    EXPECT_LE(water_error(t, 8192, 4, 11), kStepTolerance) << "shallow water";
}

}  // namespace
}  // namespace adilab::sim
