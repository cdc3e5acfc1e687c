// Shallow water's windowed sweeps (shaders/tridiagonal/window_lines.glsl with shallow_water.comp's
// rows): the halo's bound on water's lines in float64, the kernels against the float64 stepper for
// every halo, and the GPU's guard that hands the sweeps to the exact line solve while the water
// is deeper than the halo holds for (sim/shallow_water.cpp, resolve_window).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "sim/model.hpp"
#include "sim/reference.hpp"
#include "sim/simulation.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"

namespace adilab::sim {
namespace {

// Thomas on rows first .. last - 1 of (a, b, c) with right-hand side d, the couplings past
// them dropped: the exact solve (first 0, last n) or a window's.
std::vector<double> truncated_thomas(const std::vector<double>& a, const std::vector<double>& b,
                                     const std::vector<double>& c, const std::vector<double>& d,
                                     std::size_t first, std::size_t last) {
    const std::size_t n = last - first;
    std::vector<double> cp(n), dp(n), x(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = first + k;
        const double low = k == 0 ? 0.0 : a[i];
        const double before_c = k == 0 ? 0.0 : cp[k - 1], before_d = k == 0 ? 0.0 : dp[k - 1];
        const double denominator = b[i] - low * before_c;
        cp[k] = (k == n - 1 ? 0.0 : c[i]) / denominator;
        dp[k] = (d[i] - low * before_d) / denominator;
    }
    for (std::size_t k = n; k-- > 0;) x[k] = dp[k] - (k == n - 1 ? 0.0 : cp[k] * x[k + 1]);
    return x;
}

// The rows of one line as shallow_water.comp builds them (row_system) from surface heights and
// a bottom: the edge conductance min(d_p + d_q, 2 d_upstream), coupling g dt^2 / (2 dh^2).
void water_line(const std::vector<double>& h, const std::vector<double>& bottom, double coupling,
                std::vector<double>& a, std::vector<double>& b, std::vector<double>& c) {
    const std::size_t n = h.size();
    a.assign(n, 0.0);
    b.assign(n, 1.0);
    c.assign(n, 0.0);
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const double dp = std::max(h[i] - bottom[i], 0.0),
                     dq = std::max(h[i + 1] - bottom[i + 1], 0.0);
        const double upstream = h[i] >= h[i + 1] ? dp : dq;
        const double edge = coupling * std::min(dp + dq, 2 * upstream);
        c[i] = -edge;
        a[i + 1] = -edge;
        b[i] += edge;
        b[i + 1] += edge;
    }
}

TEST(SimWaterWindow, TruncationIsWithinItsBoundOnWaterLines) {
    // Lines of random depths up to `depth` (a third of the cells dry: bottoms above their
    // surface), for face transfers T = g dt^2 depth / dh^2 from 0.05 to 0.95: a window that drops
    // the rows past its ends misses the exact solution m rows inside an end by at most
    // general_window_tail(2 T, T, m) of max |x| (sim/shallow_water.cpp derives T and 2 T from the
    // depth); and the halo picked for T keeps the miss under 2^-27.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const int n = 400;
    for (double transfer : {0.05, 0.2, 0.5, 0.8, 0.95}) {
        const double depth = 1.5;
        const double coupling = transfer / depth / 2;  // g dt^2 / (2 dh^2)
        for (int trial = 0; trial < 20; ++trial) {
            std::vector<double> h(n), bottom(n), d(n);
            for (std::size_t i = 0; i < std::size_t(n); ++i) {
                const bool dry = unit(rng) < 0.33;
                bottom[i] = dry ? 2.0 : 0.5 * unit(rng);
                h[i] = dry ? bottom[i] - 0.1 * unit(rng) : bottom[i] + depth * unit(rng);
                d[i] = 2 * unit(rng) - 1;
            }
            std::vector<double> a, b, c;
            water_line(h, bottom, coupling, a, b, c);
            const std::vector<double> exact = truncated_thomas(a, b, c, d, 0, n);
            double largest = 0;
            for (double x : exact) largest = std::max(largest, std::abs(x));
            const int first = 100, last = 300;  // a window inside the line
            const std::vector<double> window = truncated_thomas(a, b, c, d, first, last);
            for (int m = 1; m < 60; ++m) {
                const double bound = detail::general_window_tail(2 * transfer, transfer, m);
                const double miss_low =
                    std::abs(window[std::size_t(m)] - exact[std::size_t(first + m)]);
                const double miss_high = std::abs(window[std::size_t(last - first - 1 - m)] -
                                                  exact[std::size_t(last - 1 - m)]);
                // 1e-15: float64 round-off of the two solves, far below the bounds tested.
                EXPECT_LE(miss_low, bound * largest + 1e-15) << "T " << transfer << " m " << m;
                EXPECT_LE(miss_high, bound * largest + 1e-15) << "T " << transfer << " m " << m;
            }
            const int halo = detail::general_window_halo(2 * transfer, transfer);
            ASSERT_GT(halo, 0) << "T " << transfer;
            EXPECT_LE(std::abs(window[std::size_t(halo)] - exact[std::size_t(first + halo)]),
                      std::ldexp(1.0, -27) * largest);
        }
    }
}

// The halo sim/shallow_water.cpp picks for a start whose deepest water is `start_depth`: the one
// for twice that depth, else for it, else none; "window-H<halo>" or "fused".
std::string water_expected_kernel(const Simulation& sim, double start_depth) {
    const double dt = sim.param("dt"), dh = sim.param("dh");
    const double per_depth = sim.param("g") * dt * dt / (dh * dh);
    const double start = std::max(sim.param("level"), start_depth);
    int halo = detail::general_window_halo(4 * per_depth * start, 2 * per_depth * start);
    if (halo == 0) halo = detail::general_window_halo(2 * per_depth * start, per_depth * start);
    return halo == 0 ? "fused" : "window-H" + std::to_string(halo);
}

// Grids with lines shorter than a window, of one and of several windows each way (an x window
// stores up to 256 positions, a y window up to 320), and not multiples of 4 (the x window's
// scalar stores).
const std::pair<int, int> kWaterWindowGrids[] = {{37, 29},  {5, 41},  {70, 6},
                                                 {133, 67}, {300, 7}, {9, 700}};

// Shallow water `free` at `dt` (damping 0.01) from a random surface in [0.9, 1.1] m on a flat
// bottom, and the float64 stepper's state and setup for the same start.
struct FreeWater {
    std::unique_ptr<Simulation> sim;
    reference::ShallowWaterSetup setup;
    std::vector<double> h, previous;
    double deepest = 0;  // of the start
};
FreeWater free_water(double dt, int nx, int ny, unsigned seed, const FusedTuning& tuning = {}) {
    FreeWater w;
    w.sim = make_simulation("shallow-water", "fused");
    w.sim->set_fused_tuning(tuning);
    w.sim->set_param("dt", dt);
    w.sim->set_param("damping", 0.01);
    w.sim->reset("free", nx, ny);
    const std::vector<float> start = test::random_field(nx, ny, 0.9f, 1.1f, seed);
    w.sim->set_field(start);
    w.setup = {nx, ny, 9.81 * dt * dt / 2, 0.01, std::vector<double>(start.size(), 0.0)};
    w.h.assign(start.begin(), start.end());
    w.previous = w.h;
    w.deepest = *std::max_element(start.begin(), start.end());
    return w;
}

// free_water 4 steps against the float64 stepper: the largest difference, and the kernel.
double water_vs_reference(double dt, int nx, int ny, std::string* kernel, std::string* expected) {
    FreeWater w = free_water(dt, nx, ny, unsigned(nx * 7 + ny));
    for (int s = 0; s < 4; ++s) reference::shallow_water_step(w.setup, w.h, w.previous);
    w.sim->step(4);
    *kernel = w.sim->kernel();
    *expected = water_expected_kernel(*w.sim, w.deepest);
    EXPECT_TRUE(w.sim->stats().stable);
    return test::max_abs_diff(w.sim->read_field(), w.h);
}

TEST(SimWaterWindow, MatchesTheFloat64ReferenceForEveryHaloAndTheFallback) {
    ADILAB_NEED_GL();
    // dt from 0.02 to 0.5 s: every halo bucket (8 .. 48; at 0.3 the halo for the start depth,
    // none holding for twice it) and past the last (the line solve).
    // kStepTolerance: the steps' fp32 round-off (tests/support/fields.hpp); the truncation adds
    // 2^-26 of an increment a sweep.
    std::set<std::string> kernels;
    for (double dt : {0.02, 0.1, 0.16, 0.2, 0.25, 0.3, 0.5}) {
        for (auto [nx, ny] : kWaterWindowGrids) {
            std::string kernel, expected;
            const double error = water_vs_reference(dt, nx, ny, &kernel, &expected);
            EXPECT_EQ(kernel, expected) << "dt " << dt;
            EXPECT_LE(error, test::kStepTolerance)
                << "dt " << dt << " " << nx << "x" << ny << " " << kernel;
            kernels.insert(kernel);
        }
    }
    EXPECT_EQ(kernels, (std::set<std::string>{"window-H8", "window-H16", "window-H24", "window-H32",
                                              "window-H48", "fused"}));
}

// The brush's bump as shallow_water.comp's KERNEL_DISPLACE adds it (a round bump, cut at 3
// radii), in float64.
void add_bump(std::vector<double>& h, int nx, int ny, double cx, double cy, double radius,
              double strength) {
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const double rx = (i + 0.5 - cx) / radius, ry = (j + 0.5 - cy) / radius;
            const double r2 = rx * rx + ry * ry;
            if (r2 < 9.0) h[std::size_t(j) * nx + i] += strength * std::exp(-r2);
        }
}

TEST(SimWaterWindow, WaterDeeperThanTheHaloHoldsForTakesTheLineSolve) {
    ADILAB_NEED_GL();
    // The `free` scene at dt 0.1 (window-H16 for its 1.1 m), two steps, then a brush stroke that
    // piles the water far deeper than the halo holds for at one place (and adds that bump to
    // both previous heights, as the model does). The steps after it must take the exact line
    // solve (the GPU's choice, counted in the kernel's name) until the bump has spread, and
    // every step must match the float64 stepper. The halo holds to 4.5 m here: a bump of 8 m
    // is deeper than that for the first steps after the stroke, one of 20 m for all four. (The
    // float64 stepper has no settling: bumps that drain their surroundings past empty, 40 m
    // here, are the wet and dry tests' business.) The line solve's y sweep either one dispatch
    // (these columns' own) or the split solve's three (`split` 1, the rule from 2048 rows).
    struct Case {
        double strength;
        int split;
    };
    for (const Case& c : {Case{8.0, 0}, Case{20.0, 0}, Case{20.0, 1}}) {
        const double strength = c.strength;
        const int nx = 61, ny = 53, after = 4;
        FusedTuning tuning;
        tuning.split = c.split;
        FreeWater w = free_water(0.1, nx, ny, 3, tuning);
        Simulation* sim = w.sim.get();
        const reference::ShallowWaterSetup& setup = w.setup;
        std::vector<double>& h = w.h;
        std::vector<double>& previous = w.previous;
        for (int s = 0; s < 2; ++s) reference::shallow_water_step(setup, h, previous);
        sim->step(2);
        EXPECT_EQ(sim->kernel(), "window-H16");
        sim->apply_brush({30.5f, 20.5f, 2.0f, float(strength)});
        add_bump(h, nx, ny, 30.5, 20.5, 2.0, strength);
        add_bump(previous, nx, ny, 30.5, 20.5, 2.0, strength);
        for (int s = 0; s < after; ++s) reference::shallow_water_step(setup, h, previous);
        sim->step(after);
        const std::string kernel = sim->kernel();
        const std::string prefix = "window-H16 (the line solve on ";
        ASSERT_EQ(kernel.substr(0, prefix.size()), prefix) << kernel;
        const int line_solves = std::stoi(kernel.substr(prefix.size()));
        if (strength < 10) {
            EXPECT_GE(line_solves, 1) << kernel;
            EXPECT_LT(line_solves, after) << kernel;  // the windows again once it spread
        } else {
            EXPECT_EQ(line_solves, after) << kernel;
        }
        // Relative: the bump's height scales the steps' round-off (kStepTolerance is for unit
        // magnitudes).
        EXPECT_LE(test::max_abs_diff(sim->read_field(), h), test::kStepTolerance * (1 + strength))
            << "strength " << strength << " split " << c.split << " " << kernel;
        EXPECT_TRUE(sim->stats().stable);
    }
}

TEST(SimWaterWindow, WindowStepThatLeavesWaterTooDeepHandsTheNextToTheLineSolve) {
    ADILAB_NEED_GL();
    // A window step can itself pile the water deeper than the halo holds for: here a state whose
    // last change v lifts a 5 x 5 patch by 8 m in one step (the free scene at dt 0.1 holds to
    // 4.5 m, as above), written into a saved state's file. That step's rows come from the heights
    // before it, so the windows take it; settling then finds the y window's sums too deep and
    // must hand the next step to the line solve. Both steps match the float64
    // stepper.
    const int nx = 61, ny = 53;
    FreeWater w = free_water(0.1, nx, ny, 11);
    const std::string path = test::temp_folder("water-window-deep") + "/water.state";
    w.sim->save_state(path);
    std::string text = test::read_text(path);
    const std::string mark =
        "\nbuffer v " + std::to_string(std::size_t(nx) * ny * sizeof(float)) + "\n";
    const std::size_t at = text.find(mark);
    ASSERT_NE(at, std::string::npos);
    // The rest of the surface sinks by as much, so that v sums to 0: the mean velocity the
    // model takes out of v every step (the float64 stepper has none) stays round-off.
    std::vector<float> v(std::size_t(nx) * ny, -8.0f * 25 / float(nx * ny - 25));
    for (int j = 24; j < 29; ++j)
        for (int i = 28; i < 33; ++i) v[std::size_t(j) * nx + i] = 8.0f;
    std::memcpy(text.data() + at + mark.size(), v.data(), v.size() * sizeof(float));
    test::write_text(path, text);
    for (std::size_t k = 0; k < v.size(); ++k) w.previous[k] = w.h[k] - v[k];

    auto sim = make_simulation("shallow-water", "fused");
    sim->load_state(path);
    reference::shallow_water_step(w.setup, w.h, w.previous);
    sim->step(1);
    EXPECT_EQ(sim->kernel(), "window-H16");  // the lift came from the shallow state's windows
    EXPECT_GT(*std::max_element(w.h.begin(), w.h.end()), 6.0);  // past the 4.5 m the halo holds
    reference::shallow_water_step(w.setup, w.h, w.previous);
    sim->step(1);
    const std::string kernel = sim->kernel();
    ASSERT_EQ(kernel.substr(0, 30), "window-H16 (the line solve on ") << kernel;
    EXPECT_EQ(kernel.substr(30, 2), "1 ") << kernel;
    EXPECT_LE(test::max_abs_diff(sim->read_field(), w.h), test::kStepTolerance * 9) << kernel;
    EXPECT_TRUE(sim->stats().stable);
}

}  // namespace
}  // namespace adilab::sim
