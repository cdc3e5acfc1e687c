// The shallow-water scenes as a user runs them (shaders/sim/shallow_water.comp): every
// disturbance — the diagonal push, drops, the brush, the dam — adds its own volume once, and
// afterwards the volume sum(h) stays what it was, with damping 0 (nothing hides a drift), on every
// terrain, wet/dry included; with damping the surface comes to rest; and a NaN or a blow-up is
// flagged with its step on every solver path, even where the dry clamp used to hide it.
//
// Tolerances. A step changes each height by a solved increment. The sum h + dv is compensated
// (the shader keeps each cell's rounding error c and adds it to the next increment), so
// sum(h + c) changes only by the rounding of the increments themselves, and the reported volume
// sum(h) differs from it by |sum c| <= nx ny 2^-24 max|h|: on 1.5 m of water 9e-8 of the volume,
// for any number of steps. The solve's rounding of sum(dv) lasts one step (the x sweep takes the
// wet cells' mean velocity out), about 2^-24 sqrt(nx ny) max|dv| a step, a random walk far below
// that. The bound, 1e-5 relative, is 100 times the sum of both; the long-run test below
// holds 1e-6. Without the compensation the lost sub-ulp increments of calm water summed to a
// drift linear in the steps (1.8e-6 in 10,000 steps at 64^2, 9.7e-6 at 128^2); before the
// disturbances were displacements, the scenes missed the bound by 12% to 1,260%.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "app/files/png.hpp"
#include "sim/simulation.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"  // read_text, write_text
#include "tests/support/temp_folder.hpp"
#include "tests/support/water_reference.hpp"

namespace adilab::sim {
namespace {

using test::at_rest;
using test::reference_water_step;
using test::rough_water;
using test::WaterState;

constexpr double kVolumeTolerance = 1e-5;   // relative; see above
constexpr double kLongRunTolerance = 1e-6;  // relative, 10 times the bound derived above

// The model's bump strength exp(-r^2) (cut at r = 3, r in units of `width`) summed in float64
// over an nx x ny grid: shape 1 the band along the diagonal x = y of the domain (scaled to a
// square), shape 2 a round bump at `cx, cy` (cells). What a disturbance adds on water deep enough
// that nothing is cut at the bottom.
double bump_volume(int shape, int nx, int ny, double strength, double width, double cx = 0,
                   double cy = 0) {
    double sum = 0;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const double px = i + 0.5, py = j + 0.5;
            double r2;
            if (shape == 1) {
                const double side = std::min(nx, ny);
                const double s = (px / nx * side - py / ny * side) * std::sqrt(0.5);
                r2 = s * s / (width * width);
            } else {
                r2 = ((px - cx) * (px - cx) + (py - cy) * (py - cy)) / (width * width);
            }
            if (r2 < 9.0) sum += strength * std::exp(-r2);
        }
    return sum;
}

double relative_change(double value, double expected) {
    return std::abs(value - expected) / std::abs(expected);
}

// Diagonal push, damping 0: push_steps pushes, each the band's volume; 2,000 steps after the
// last one the volume is the start plus exactly those. The old code added the push to the
// right-hand side as a velocity: 64^2 grew by 150% (the same 16,384 -> 41,108 as the issue's
// 128^2).
TEST(SimWaterScenes, DiagonalPushAddsItsVolumeOnce) {
    ADILAB_NEED_GL();
    const int n = 64, push_steps = 50;
    auto sim = make_simulation("shallow-water");
    sim->set_param("damping", 0);
    sim->set_param("push_steps", push_steps);
    sim->reset("diagonal-push", n, n);
    const double start = sim->stats().sum;
    const double added =
        push_steps * bump_volume(1, n, n, sim->param("push_strength"), sim->param("push_width"));
    sim->step(push_steps);
    EXPECT_LE(relative_change(sim->stats().sum, start + added), kVolumeTolerance);
    sim->step(2000);
    const Stats s = sim->stats();
    ASSERT_TRUE(s.stable);
    EXPECT_LE(relative_change(s.sum, start + added), kVolumeTolerance)
        << "start " << start << " added " << added << " now " << s.sum;
}

// Drops, damping 0: with the radius 2 on 64^2 every drop lies inside the domain (centres in
// [0.1, 0.9] of each side = 6.4 cells or more from a wall, the bump cut at 3 radii = 6 cells),
// so each adds the full lattice sum of its bump. Where the centre falls between cells changes
// that sum only through the cut-off tail (e^-9 of it), 1e-9 of the volume here. Dents and bumps
// in turn: the old code lost water for dents and gained it for bumps, step after step.
TEST(SimWaterScenes, DropsAddTheirVolumeOnce) {
    ADILAB_NEED_GL();
    const int n = 64, interval = 50;
    const double heights[] = {-0.05, 0.08, -0.05};
    auto sim = make_simulation("shallow-water");
    sim->set_param("damping", 0);
    sim->set_param("drop_interval", interval);
    sim->set_param("drop_radius", 2);
    sim->reset("drops", n, n);
    const double start = sim->stats().sum;
    double added = 0;
    for (int k = 0; k < 3; ++k) {  // drops fall on steps 1, 51, 101
        sim->set_param("drop_height", heights[k]);
        sim->step(k < 2 ? interval : 1);
        added += bump_volume(2, n, n, heights[k], 2, 30.3, 33.7);
    }
    sim->set_param("drop_interval", 2e9);  // no more drops
    sim->step(2000);
    const Stats s = sim->stats();
    ASSERT_TRUE(s.stable);
    EXPECT_LE(relative_change(s.sum, start + added), kVolumeTolerance)
        << "start " << start << " added " << added << " now " << s.sum;
}

// A brush stroke (dabs along a line, steps between them as the viewer gives them) across the
// beach of the slope (bottom 1.5 x / 64 m, still water 1 m: the shore at x = 42.7): dents in the
// water (0.3 m deep or more, so the dent is never cut), bumps up on the dry beach that run down
// into the sea. 2,000 steps later the volume is the start plus what the dabs painted.
TEST(SimWaterScenes, BrushStrokeAddsItsVolumeOnce) {
    ADILAB_NEED_GL();
    const int n = 64;
    auto sim = make_simulation("shallow-water");
    sim->set_param("damping", 0);
    sim->set_terrain("slope");
    sim->reset("dam-break", n, n);
    std::vector<float> still = sim->read_field();  // without the dam: still water at 1 m
    const std::vector<float> bottom = sim->terrain()->read<float>(still.size());
    for (std::size_t k = 0; k < still.size(); ++k) still[k] = std::max(1.0f, bottom[k]);
    sim->set_field(still);
    const double start = sim->stats().sum;
    double added = 0;
    for (int k = 0; k < 6; ++k) {
        const bool dent = k < 2;
        const Brush dab{12.0f + 8.0f * k, 30.0f + 1.5f * k, 3.0f, dent ? -0.05f : 0.08f};
        sim->apply_brush(dab);
        added += bump_volume(2, n, n, dab.strength, dab.radius, dab.center_x, dab.center_y);
        sim->step(3);
    }
    sim->step(2000);
    const Stats s = sim->stats();
    ASSERT_TRUE(s.stable);
    EXPECT_LE(relative_change(s.sum, start + added), kVolumeTolerance)
        << "start " << start << " added " << added << " now " << s.sum;
}

// A dent dug on dry ground takes no water (there is none), and a bump there adds its own.
TEST(SimWaterScenes, BrushOnDryGroundTakesNoWater) {
    ADILAB_NEED_GL();
    const int n = 32;
    auto sim = make_simulation("shallow-water");
    sim->set_terrain("island");
    sim->reset("dam-break", n, n);  // the island's top (1.5 m) stands above the 1 m sea
    const double start = sim->stats().sum;
    sim->apply_brush({16.0f, 16.0f, 1.0f, -0.3f});
    EXPECT_EQ(sim->stats().sum, start);
    sim->apply_brush({16.0f, 16.0f, 1.0f, 0.3f});
    EXPECT_NEAR(sim->stats().sum, start + bump_volume(2, n, n, 0.3, 1, 16, 16), 1e-4);
}

// Every terrain, wet/dry included (the slope's beach, the island, the basin's rim, the height
// map), dam-break with damping 0 at the default dt and at a large one (Courant number about 3:
// shallow cells are overdrawn, the case the old dry clamp turned into new water): the volume
// the dam holds at the start stays. (The 10,000-step check: DropsOnTheIslandAddOnlyTheirVolume.)
TEST(SimWaterScenes, EveryTerrainConservesVolume) {
    ADILAB_NEED_GL();
    const int n = 32;
    auto sim = make_simulation("shallow-water");
    for (const std::string& terrain : sim->terrains()) {
        for (const double dt : {0.05, 1.0}) {
            sim->set_param("damping", 0);
            sim->set_param("dt", dt);
            sim->set_terrain(terrain);
            sim->reset("dam-break", n, n);
            const double start = sim->stats().sum;
            sim->step(300);
            const Stats s = sim->stats();
            ASSERT_TRUE(s.stable) << terrain;
            EXPECT_LE(relative_change(s.sum, start), kVolumeTolerance)
                << terrain << " dt " << dt << ": " << start << " -> " << s.sum;
            EXPECT_GE(s.min, 0.0f) << terrain << ": a surface sank far below the ground";
        }
    }
}

// The dam-break at 64^2 with damping 0 for 10,000 steps, at the default dt and at the largest
// the model accepts (the weight g dt^2 depth / dh^2 at its limit of 100): once the wave has
// spread, most cells move by less than an ulp a step, the case where uncompensated heights lost
// volume in proportion to the steps (1.8e-6 at the default dt). Every solver path shares the
// compensated store.
TEST(SimWaterScenes, DamBreakKeepsItsVolumeForTenThousandSteps) {
    ADILAB_NEED_GL();
    auto sim = make_simulation("shallow-water");
    const double depth = sim->param("level") + sim->param("dam_height");
    const double largest_dt = std::sqrt(100 / (sim->param("g") * depth)) * (1 - 1e-9);
    // The default dt in the windows and, with them off, in the line solve, whose y sweep keeps
    // the compensation's words another way (shaders/sim/shallow_water.comp,
    // add_compensated_at); the largest dt, which no window's halo holds for.
    const std::tuple<double, int> cases[] = {
        {sim->param("dt"), 1}, {sim->param("dt"), 0}, {largest_dt, 1}};
    for (const auto& [dt, window] : cases) {
        FusedTuning tuning;
        tuning.window = window;
        sim->set_fused_tuning(tuning);
        sim->set_param("damping", 0);
        sim->set_param("dt", dt);
        sim->reset("dam-break", 64, 64);
        const double start = sim->stats().sum;
        sim->step(10000);
        const Stats s = sim->stats();
        ASSERT_TRUE(s.stable) << sim->instability();
        EXPECT_LE(relative_change(s.sum, start), kLongRunTolerance)
            << "dt " << dt << " window " << window << ": " << start << " -> " << s.sum;
    }
}

// Every store of the compensation keeps it (shaders/sim/shallow_water.comp, "The compensation in
// storage"): the y window's whole words (its chunk of 10 rows, an even one) and the halves that
// every other store changes by an atomic (add_compensated_at: here the line solve, with the
// windows off), on a grid of odd height, whose last row the window stores in words half full.
// The dam-break at 64 x 21, damping 0, 4,000 steps: calm water after the wave, where most
// increments are below an ulp of h. With every c kept, sum(h + c) moves only by the rounding of
// the increments (2^-24 of increments up to ~1e-2 m, a cell a step, a random walk) and of c to 16
// bits (2^-13 ulp(h) a cell a step): these runs moved 2e-9 to 9e-9 of the volume, as they did with
// c in 32 bits. Dropping the atomic stores of c moved it 6.9e-7, dropping only the last row's in
// the window 3.9e-8: the tolerance, 2e-8, lies between.
TEST(SimWaterScenes, EveryStorePathKeepsTheCompensation) {
    ADILAB_NEED_GL();
    for (const int window : {1, 0}) {
        auto sim = make_simulation("shallow-water");
        FusedTuning tuning;
        tuning.window = window;
        sim->set_fused_tuning(tuning);
        sim->set_param("damping", 0);
        sim->reset("dam-break", 64, 21);
        const double start = sim->stats().sum;
        sim->step(4000);
        const Stats s = sim->stats();
        ASSERT_TRUE(s.stable) << sim->instability();
        EXPECT_LE(relative_change(s.sum, start), 2e-8)
            << "window " << window << ": " << start << " -> " << s.sum << " (" << sim->kernel()
            << ")";
    }
}

// A dam-break (24 x 20, damping 0) after 50 steps, saved to `path`; and in the file's bytes the
// record of the compensation c: "\nbuffer c BYTES\n" at `start`, its BYTES bytes from `data`.
// Where a state file's buffer record starts (its newline before "buffer"), its data and size.
struct StateRecord {
    std::size_t start = std::string::npos, data = 0, bytes = 0;
};
std::unique_ptr<Simulation> saved_dam_break(const std::string& path) {
    auto sim = make_simulation("shallow-water");
    sim->set_param("damping", 0);
    sim->reset("dam-break", 24, 20);
    sim->step(50);
    sim->save_state(path);
    return sim;
}
StateRecord state_record(const std::string& text, const std::string& name) {
    StateRecord r;
    const std::string mark = "\nbuffer " + name + " ";
    r.start = text.find(mark);
    if (r.start == std::string::npos) return r;
    const std::size_t size_at = r.start + mark.size();
    r.data = text.find('\n', size_at) + 1;
    r.bytes = std::stoul(text.substr(size_at, r.data - 1 - size_at));
    return r;
}

// The floats of a state file's buffer `name` (none where the file has no such buffer).
std::vector<float> record_floats(const std::string& text, const std::string& name) {
    const StateRecord record = state_record(text, name);
    EXPECT_NE(record.start, std::string::npos) << name;
    std::vector<float> values(record.bytes / sizeof(float));
    std::memcpy(values.data(), text.data() + record.data, values.size() * sizeof(float));
    return values;
}

// A state saved before the height compensation c existed has no buffer c: it loads with c = 0
// (what a run starting from those heights has) and goes on conserving.
TEST(SimWaterScenes, StateWithoutCompensationLoadsAndConserves) {
    ADILAB_NEED_GL();
    const std::string path = test::temp_folder("water-no-c") + "/water.state";
    const std::vector<float> saved = saved_dam_break(path)->read_field();
    std::string text = test::read_text(path);
    const StateRecord c = state_record(text, "c");
    ASSERT_NE(c.start, std::string::npos);
    text.erase(c.start + 1, c.data + c.bytes - c.start);  // through the newline after the data
    test::write_text(path, text);

    auto loaded = make_simulation("shallow-water");
    loaded->load_state(path);
    EXPECT_EQ(loaded->read_field(), saved);
    const double start = loaded->stats().sum;
    loaded->step(500);
    ASSERT_TRUE(loaded->stats().stable) << loaded->instability();
    EXPECT_LE(relative_change(loaded->stats().sum, start), kVolumeTolerance);
}

// The mean velocity that a step leaves for the next one to take out is part of the state: the
// dam-break's y windows sum it in their own order, which measuring the loaded state would round
// differently, so a resumed run goes on exactly as the straight one only with it. A file saved
// before it existed has it measured from the state instead, and the run goes on within that
// rounding.
TEST(SimWaterScenes, SavedMeanVelocityContinuesTheRunExactly) {
    ADILAB_NEED_GL();
    const std::string folder = test::temp_folder("water-mean");
    const std::string path = folder + "/water.state";
    auto straight = saved_dam_break(path);
    straight->step(30);
    const std::vector<float> expected = straight->read_field();

    auto resumed = make_simulation("shallow-water");
    resumed->load_state(path);
    resumed->step(30);
    EXPECT_EQ(resumed->read_field(), expected);

    std::string text = test::read_text(path);
    const StateRecord mean = state_record(text, "mean");
    ASSERT_NE(mean.start, std::string::npos);
    ASSERT_EQ(mean.bytes, sizeof(float));
    text.erase(mean.start + 1, mean.data + mean.bytes - mean.start);
    const std::string older = folder + "/older.state";
    test::write_text(older, text);
    auto measured = make_simulation("shallow-water");
    measured->load_state(older);
    measured->step(30);
    ASSERT_TRUE(measured->stats().stable) << measured->instability();
    // The measured mean differs from the saved one by the rounding of a sum of 480 values of v
    // (|v| < 0.1 m here): below 480 * 2^-24 * 0.1 = 3e-6 m. A shift of the x sweep's
    // right-hand side passes through the sweeps (rows summing to 1) at most unchanged, so 30
    // steps move h by at most 30 times that: 1e-4 m.
    const std::vector<float> close = measured->read_field();
    ASSERT_EQ(close.size(), expected.size());
    for (std::size_t k = 0; k < close.size(); ++k) ASSERT_NEAR(close[k], expected[k], 1e-4) << k;
}

// The total that stats() reports for shallow water is the volume the scheme conserves, the sum
// of h + c (its heights with their compensation, as the state file holds them), not of h alone.
TEST(SimWaterScenes, TotalCountsTheHeightsCompensation) {
    ADILAB_NEED_GL();
    const std::string path = test::temp_folder("water-total") + "/water.state";
    auto sim = saved_dam_break(path);
    const std::vector<float> h = sim->read_field();
    const std::string text = test::read_text(path);
    const StateRecord record = state_record(text, "c");
    ASSERT_NE(record.start, std::string::npos);
    ASSERT_EQ(record.bytes, h.size() * sizeof(float));
    std::vector<float> c(h.size());
    std::memcpy(c.data(), text.data() + record.data, record.bytes);
    double heights = 0, conserved = 0;
    for (std::size_t k = 0; k < h.size(); ++k) {
        heights += h[k];
        conserved += double(h[k]) + double(c[k]);
    }
    ASSERT_NE(heights, conserved) << "the run must leave some compensation";
    // Both sums in float64 over 480 cells of O(1): they agree to ~1e-13.
    EXPECT_NEAR(sim->stats().sum, conserved, 1e-12 * conserved);
}

// Drops falling on the island's shore with a large dt, damping 0, 10,000 steps: sources and
// wet/dry together, as TenThousandLargeStepsStayFinite runs it.
TEST(SimWaterScenes, DropsOnTheIslandAddOnlyTheirVolume) {
    ADILAB_NEED_GL();
    const int n = 32, interval = 500;
    auto sim = make_simulation("shallow-water");
    sim->set_param("damping", 0);
    sim->set_param("dt", 0.5);
    sim->set_param("drop_interval", interval);
    sim->set_param("drop_radius", 1);
    sim->set_param("drop_height", 0.05);  // a bump adds its full volume wherever it falls
    sim->set_terrain("island");
    sim->reset("drops", n, n);
    const double start = sim->stats().sum;
    const int steps = 10000, drops = (steps - 1) / interval + 1;
    sim->step(steps);
    const Stats s = sim->stats();
    ASSERT_TRUE(s.stable);
    const double expected = start + drops * bump_volume(2, n, n, 0.05, 1, 15.3, 16.6);
    EXPECT_LE(relative_change(s.sum, expected), kVolumeTolerance) << start << " -> " << s.sum;
}

// Damping > 0: the dam's wave dies out and the wet surface comes to one level (the volume
// unchanged), flat bottom and the island's shore alike.
TEST(SimWaterScenes, DampingBringsTheSurfaceToRest) {
    ADILAB_NEED_GL();
    const int n = 32;
    auto sim = make_simulation("shallow-water");
    for (const std::string terrain : {"flat", "island"}) {
        sim->set_param("damping", 0.05);
        sim->set_param("dt", 0.2);
        sim->set_terrain(terrain);
        sim->reset("dam-break", n, n);
        const double start = sim->stats().sum;
        sim->step(400);
        const Stats s = sim->stats();
        ASSERT_TRUE(s.stable);
        EXPECT_LE(relative_change(s.sum, start), kVolumeTolerance) << terrain;
        const std::vector<float> h = sim->read_field();
        const std::vector<float> b = sim->terrain()->read<float>(h.size());
        float lo = INFINITY, hi = -INFINITY;
        for (std::size_t k = 0; k < h.size(); ++k)
            if (h[k] - b[k] > 1e-3f) lo = std::min(lo, h[k]), hi = std::max(hi, h[k]);
        // The dam stood 0.5 m high; at rest the wet surface is one level to 1 mm.
        EXPECT_LE(hi - lo, 1e-3) << terrain << ": wet surface from " << lo << " to " << hi;
    }
}

// A NaN planted in the field (through set_field, as --init and --load-state do) is flagged
// at the next step on every solver path: the dry clamp max(h, b) used to turn it into dry
// ground and the run went on as stable.
TEST(SimWaterScenes, NanInTheFieldIsFlaggedOnEveryPath) {
    ADILAB_NEED_GL();
    for (const std::string& solver : test::gpu_solvers("shallow-water")) {
        for (const std::string terrain : {"flat", "island"}) {
            auto sim = make_simulation("shallow-water", solver);
            sim->set_terrain(terrain);
            sim->reset("dam-break", 20, 12);
            sim->step(3);
            ASSERT_TRUE(sim->stats().stable) << solver;
            std::vector<float> field = sim->read_field();
            field[6 * 20 + 10] = NAN;  // the island's top: dry ground
            sim->set_field(field);
            sim->step(2);
            const Stats s = sim->stats();
            EXPECT_FALSE(s.stable) << solver << " " << terrain;
            EXPECT_EQ(s.first_bad_step, 4) << solver << " " << terrain;
        }
    }
}

// Settling sums only the tiles it changes, and takes the sums of the others from the y window's
// parts (shaders/sim/shallow_water.comp, TILE_CHUNKS: a tile's rows are whole chunks of the
// window's, each chunk of 32 columns one part). The mean velocity a step leaves must still be
// the state's: the sum of v over its wet cells over their count. The rough surface over random
// rocks of the wet-dry tests (test_sim_water_wet_dry.cpp), on a grid of 4 settling tiles across, 14
// down (chunks of 10 rows, 4 a tile), and 3 y windows, with the model's chunk and tuned chunks of
// 8, 16 and 5 (an odd chunk: 8 a tile), after each of the first steps; the first overdraws cells
// (the float64 reference counts them). The rocks lie in one band of rows, so settling changes the
// tiles near them and takes the others' sums from the parts. Tolerance: an fp32 sum of N values of
// v rounds by at most N 2^-24 max|v| in any order, the mean (over N wet cells) by 2^-24 max|v|; a
// part taken from the wrong chunk moved it by 1e-6 to 2e-5 here.
TEST(SimWaterScenes, MeanVelocityIsTheStatesWhereSettlingTakesTheWindowsSums) {
    ADILAB_NEED_GL();
    const int nx = 100, ny = 530;
    const double dt = 0.2, damping = 0.02;
    const std::string folder = test::temp_folder("water-window-sums");
    const std::string path = folder + "/water.state", rocks = folder + "/rocks.png";
    {
        // Rocks in rows 240 .. 299 only, on a level bottom at 0 elsewhere (deep water: no tile
        // far from the rocks is near a dry cell).
        std::vector<std::uint8_t> rgba(4 * std::size_t(nx) * ny, 255);
        std::mt19937 rng(5);
        std::uniform_int_distribution<int> grey(128, 204);  // 0.5 .. 0.8 of 1.5 levels
        for (std::size_t k = 0; k < rgba.size(); k += 4) {
            const int row = int(k / 4) / nx;
            rgba[k] = rgba[k + 1] = rgba[k + 2] =
                row >= 240 && row < 300 ? std::uint8_t(grey(rng)) : 0;
        }
        files::write_png(rocks, nx, ny, rgba);
    }
    for (const int chunk : {0, 8, 16, 5}) {
        FusedTuning tuning;
        tuning.window_column_chunk = chunk;
        auto [sim, bottom, start] =
            rough_water("fused", tuning, "png:" + rocks, nx, ny, dt, damping, 17);
        if (chunk == 0) {
            WaterState ref = at_rest(nx, ny, start, bottom);
            ASSERT_GT(reference_water_step(ref, 9.81 * dt * dt / 2, damping), 0)
                << "the first step must overdraw cells";
        }
        for (int step = 1; step <= 4; ++step) {
            sim->step(1);
            ASSERT_TRUE(sim->stats().stable) << sim->instability();
            // Every step by the windows (no "(the line solve on N steps ...)").
            ASSERT_EQ(sim->kernel().rfind("window-", 0), 0u) << sim->kernel();
            ASSERT_EQ(sim->kernel().find("line solve"), std::string::npos) << sim->kernel();
            sim->save_state(path);
            const std::string text = test::read_text(path);
            const std::vector<float> h = record_floats(text, "h"), v = record_floats(text, "v"),
                                     b = record_floats(text, "b"),
                                     mean = record_floats(text, "mean");
            ASSERT_EQ(h.size(), start.size());
            ASSERT_EQ(mean.size(), 1u);
            double sum = 0, largest = 0;
            int wet = 0;
            for (std::size_t k = 0; k < h.size(); ++k)
                if (h[k] - b[k] > 0.0f) {  // the kernels' test, in fp32
                    sum += v[k];
                    largest = std::max(largest, double(std::abs(v[k])));
                    ++wet;
                }
            ASSERT_GT(wet, 0);
            EXPECT_NEAR(mean[0], sum / wet, std::ldexp(largest, -24) + 1e-12)
                << "chunk " << chunk << ", step " << step << ", " << wet << " wet cells";
        }
    }
}

// Where no cell comes out below its bottom, the mean velocity is what the y window's parts add
// to the step's sums in fixed point (the settling kernels leave it alone): the same check on
// deep water over a flat bottom. A state whose mean record says 0 while v sums to `drift` a cell
// (of either sign) makes the next step's v sum to (1 - damping) times that: a mean far from the
// rounding that a zero or a wrong sign would hide in. 100 x 530 in every shape of the y window
// (the parts split its columns and rows differently, neither a whole number of them); 64 x 48
// with a drift that takes the parts' sums into the fixed point's top limb (a part's units pass
// 2^80 where it holds over 2^-19 of cells x the field's range).
TEST(SimWaterScenes, MeanVelocityIsTheStatesWhereTheWindowsSumsAreTheStepsSums) {
    ADILAB_NEED_GL();
    const std::string path = test::temp_folder("water-step-sums") + "/water.state";
    struct Case {
        int nx, ny, chunk;
        float drift;
    };
    std::vector<Case> cases;
    for (const int chunk : {0, 8, 16, 5})
        for (const float drift : {2e-3f, -2e-3f}) cases.push_back({100, 530, chunk, drift});
    for (const float drift : {0.4f, -0.4f}) cases.push_back({64, 48, 0, drift});
    for (const Case& c : cases) {
        const std::string name = std::to_string(c.nx) + "x" + std::to_string(c.ny) + ", chunk " +
                                 std::to_string(c.chunk) + ", drift " + std::to_string(c.drift);
        auto sim = make_simulation("shallow-water");
        FusedTuning tuning;
        tuning.window_column_chunk = c.chunk;
        sim->set_fused_tuning(tuning);
        sim->set_param("dt", 0.2);
        sim->set_param("damping", 0.02);
        sim->reset("dam-break", c.nx, c.ny);
        sim->step(3);
        sim->save_state(path);
        std::string text = test::read_text(path);
        const StateRecord v = state_record(text, "v"), mean = state_record(text, "mean");
        ASSERT_NE(v.start, std::string::npos);
        ASSERT_NE(mean.start, std::string::npos);
        std::vector<float> velocity(v.bytes / sizeof(float));
        std::memcpy(velocity.data(), text.data() + v.data, v.bytes);
        for (float& value : velocity) value += c.drift;
        std::memcpy(text.data() + v.data, velocity.data(), v.bytes);
        const float zero = 0.0f;
        std::memcpy(text.data() + mean.data, &zero, sizeof(float));
        test::write_text(path, text);
        sim->load_state(path);
        sim->step(1);
        ASSERT_TRUE(sim->stats().stable) << sim->instability() << "; " << name;
        ASSERT_EQ(sim->kernel().rfind("window-", 0), 0u) << sim->kernel() << "; " << name;
        sim->save_state(path);
        const std::string saved = test::read_text(path);
        const std::vector<float> h = record_floats(saved, "h"), vs = record_floats(saved, "v"),
                                 b = record_floats(saved, "b"),
                                 stored_mean = record_floats(saved, "mean");
        ASSERT_EQ(h.size(), std::size_t(c.nx) * c.ny) << name;
        ASSERT_EQ(vs.size(), h.size()) << name;
        ASSERT_EQ(b.size(), h.size()) << name;
        ASSERT_EQ(stored_mean.size(), 1u) << name;
        double sum = 0, largest = 0;
        for (std::size_t k = 0; k < h.size(); ++k) {
            ASSERT_GT(h[k] - b[k], 0.0f) << "a cell ran dry at " << k << "; " << name;
            sum += vs[k];
            largest = std::max(largest, double(std::abs(vs[k])));
        }
        // The parts' fp32 sums round as the settling kernel's did (the same tolerance as above);
        // the fixed point adds at most half a unit a part, below 2^-30 of this sum; the sum's
        // conversion to fp32 and the division by the wet cells round the mean by half an ulp
        // each (2^-24 of it), which the larger means here reach.
        const double expected = sum / double(h.size());
        const double tolerance =
            std::ldexp(largest, -24) + std::ldexp(std::abs(expected), -23) + 1e-12;
        ASSERT_GT(std::abs(expected), 100 * tolerance) << "the test's mean is rounding; " << name;
        EXPECT_NEAR(stored_mean[0], expected, tolerance) << name;
    }
}

}  // namespace
}  // namespace adilab::sim
