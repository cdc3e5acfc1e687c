// Shallow water's step on wet/dry ground against the float64 stepper
// (tests/support/water_reference.hpp): every exact solver path, and settling however its work
// groups' runs of tiles are cut.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "sim/simulation.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"
#include "tests/support/temp_folder.hpp"
#include "tests/support/water_reference.hpp"

namespace adilab::sim {
namespace {

// Every exact solver path (fused, and each generic variant but the 1- and 2-iteration CGs, which
// stop short by design) against the float64 step, on wet/dry ground: the island under a rough
// surface with its top dry, a Courant number about 3 (dt = 1), so that shallow cells are
// overdrawn and settling works. fp32 agreement as in test_sim.cpp (kStepTolerance there: about
// 1e-6 relative per step for O(10) operations a cell and a well-conditioned solve, 6 steps at
// unit magnitude, a factor 3 spare); settling adds a handful of operations per cell.
TEST(SimWaterScenes, WetDryStepMatchesTheFloat64ReferenceOnEveryPath) {
    ADILAB_NEED_GL();
    const double damping = 0.02;
    // The island on one settling work group's worth of columns (32), 6 steps; and a bottom of
    // random heights around the surface, 70 x 45 cells (3 settling tiles, the last partial), so
    // that dry cells and shores lie on every tile edge, 1 step (232 cells overdrawn). After it,
    // hundreds of cells refilled to their bottom sit at h = b within one rounding, and whether
    // the next step counts them as dry (v = 0) is decided by that rounding: from step 2 on, some
    // solvers differed from float64 by 3e-4 to 1e-3 there and others by 1e-7 (each solve itself
    // within its conditioning of float64 Thomas). One step already caught a settling kernel that
    // read a wrong neighbour.
    const std::string folder = test::temp_folder("wet-dry");
    const std::string rocks = folder + "/rocks.png";
    test::write_rocks(rocks, 5);
    // And a level bottom at 1.05 m under the same rough surface, puddles on dry ground: the kernels
    // compiled for a bottom the same everywhere (FLAT_BOTTOM, a uniform in place of the field).
    const std::string level = folder + "/level.png";
    files::write_png(level, 40, 30, std::vector<std::uint8_t>(4 * 40 * 30, 179));
    // dt 0.2 as well: the fused path's windowed sweeps (a halo of 48) on the same ground,
    // with fewer cells overdrawn (1 and 24).
    for (const double dt : {1.0, 0.2})
        for (const auto& [terrain, nx, ny, steps] :
             {std::tuple{std::string("island"), 27, 22, 6}, std::tuple{"png:" + rocks, 70, 45, 1},
              std::tuple{"png:" + level, 40, 30, 3}})
            for (const std::string& solver : test::gpu_solvers("shallow-water")) {
                if (solver == "cg-1" || solver == "cg-2") continue;
                if (dt < 1 && solver != "fused") continue;
                auto [sim, bottom, start] =
                    test::rough_water(solver, FusedTuning{}, terrain, nx, ny, dt, damping, 17);
                test::WaterState ref = test::at_rest(nx, ny, start, bottom);
                int overdrawn = 0;
                for (int s = 0; s < steps; ++s)
                    overdrawn += test::reference_water_step(ref, 9.81 * dt * dt / 2, damping);
                sim->step(steps);
                const std::vector<float> h = sim->read_field();
                double worst = 0;
                int dry = 0;
                for (std::size_t k = 0; k < h.size(); ++k) {
                    worst =
                        std::max(worst, std::isfinite(h[k]) ? std::abs(h[k] - ref.h[k]) : INFINITY);
                    dry += ref.h[k] <= ref.b[k] + 1e-9;
                }
                EXPECT_LE(worst, 2e-5) << solver << " " << nx << " x " << ny << " dt " << dt;
                EXPECT_GT(dry, 10) << "the scene must have dry cells";
                // (The puddles on level ground overdraw at dt 1 only.)
                if (terrain != "png:" + level || dt == 1.0) {
                    EXPECT_GT(overdrawn, 0)
                        << "the scene must exercise settling: " << terrain << " dt " << dt;
                }
                if (dt < 1) {
                    EXPECT_EQ(sim->kernel(), "window-H48");
                }
            }
}

// Settling's work groups (FusedTuning::settle_groups of them) claim its items in order: a tile's
// changes near dry cells found, and the tile a row of tiles and two before it settled once the
// changes around it are found (shaders/sim/shallow_water.comp, KERNEL_SETTLE). The step against
// float64 as above (one step: its tolerance) on random rocks under a rough surface, however many
// groups share the items: 70 x 45 (3 x 2 tiles, 11 items) with 1, 2, 4 and 1024 groups, and
// 8192 x 80 (256 x 2 tiles, 770 items) with 1024, 86 and 2, where a group waits for tiles that
// another is changing. dt 1 takes the line solve, 0.2 the windows, whose parts are the sums of
// the tiles that nothing changes. (A CPU renderer runs one group whatever the tuning:
// sim/shallow_water.cpp, settle_dispatch_groups; the group counts differ on a GPU.) 8192 x 130
// has more than 1024^2 cells: its guarded sweeps are dispatched from their counts, the others'
// whole (AdiModel::guards_by_storage).
TEST(SimWaterScenes, SettlingMatchesTheFloat64ReferenceHoweverItsRunsAreCut) {
    ADILAB_NEED_GL();
    const double damping = 0.02;
    const std::string rocks = test::temp_folder("settling-runs") + "/rocks.png";
    test::write_rocks(rocks, 23);
    for (const double dt : {1.0, 0.2})
        for (const auto& [nx, ny, groups] :
             {std::tuple{70, 45, 1}, std::tuple{70, 45, 2}, std::tuple{70, 45, 4},
              std::tuple{70, 45, 1024}, std::tuple{8192, 80, 1024}, std::tuple{8192, 80, 86},
              std::tuple{8192, 80, 2}, std::tuple{8192, 130, 1024}}) {
            FusedTuning tuning;
            tuning.settle_groups = groups;
            auto [sim, bottom, start] =
                test::rough_water("fused", tuning, "png:" + rocks, nx, ny, dt, damping, 29);
            test::WaterState ref = test::at_rest(nx, ny, start, bottom);
            const int overdrawn = test::reference_water_step(ref, 9.81 * dt * dt / 2, damping);
            ASSERT_GT(overdrawn, 0) << "the scene must exercise settling";
            sim->step(1);
            const std::vector<float> h = sim->read_field();
            double worst = 0;
            for (std::size_t k = 0; k < h.size(); ++k)
                worst = std::max(worst, std::isfinite(h[k]) ? std::abs(h[k] - ref.h[k]) : INFINITY);
            EXPECT_LE(worst, 2e-5) << nx << " x " << ny << ", " << groups << " groups, dt " << dt
                                   << " (" << sim->kernel() << ")";
        }
}

}  // namespace
}  // namespace adilab::sim
