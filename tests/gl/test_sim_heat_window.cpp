// Heat's windowed sweeps (the `fused` solver's path where no cell is pinned and lambda allows):
// first the truncated closed-form inverse itself, in float64 on the CPU, against an exact Thomas
// solve of the Neumann system, within the bound sim/heat.cpp relies on; then the GPU model
// against the float64 stepper on awkward grids, for both schemes: the two-dispatch kernels (x:
// heat_rowscan.comp, y: heat_colscan.comp) for every HALO bucket, a lambda too weak for any (the
// exact fused line solve), and with the heaters (pinned cells: the exact line solve again on the
// lines across them, near the heaters: segments that end inside the lines and at the walls).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "sim/model.hpp"
#include "sim/simulation.hpp"
#include "solvers/gl/error.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::sim {
namespace {

// What heat_scan.glsl's kernels compute, in float64: both recurrences over the mirrored right-hand
// side, `halo` terms before each unknown.
std::vector<double> windowed_solve(double lambda, int halo, const std::vector<double>& d) {
    const int n = int(d.size());
    auto mirrored = [n](int p) {
        const int m = ((p % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    };
    const double rho = detail::heat_window_rho(lambda), g = (1 - rho) / (1 + rho);
    std::vector<double> x(n);
    for (int p = 0; p < n; ++p) {
        double forward = 0, backward = 0;
        for (int q = p - halo; q <= p; ++q) forward = d[mirrored(q)] + rho * forward;
        for (int q = p + halo; q >= p; --q) backward = d[mirrored(q)] + rho * backward;
        x[p] = g * (forward + backward - d[p]);
    }
    return x;
}

TEST(SimHeatWindow, TruncatedInverseIsWithinItsBoundOfTheExactSolve) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (double lambda : {0.01, 0.35, 0.52, 1.5, 3.0, 6.0, 7.0}) {
        const int halo = detail::heat_window_halo(lambda);
        ASSERT_GT(halo, 0) << lambda;
        const double tail = detail::heat_window_tail(lambda, halo);
        EXPECT_LE(tail, std::ldexp(1.0, -26)) << lambda;
        // The bucket is the smallest that meets the bound.
        const int smaller = halo == 8 ? 0 : halo == 48 ? 32 : halo - 8;
        if (smaller > 0) {
            EXPECT_GT(detail::heat_window_tail(lambda, smaller), std::ldexp(1.0, -26));
        }
        // Lines shorter than the halo (several mirror images) up to lines much longer.
        for (int n : {4, 5, 17, 49, 200}) {
            std::vector<double> d(n);
            for (double& v : d) v = dist(rng);
            const std::vector<double> exact = test::neumann_pr_solve(lambda, d);
            const std::vector<double> windowed = windowed_solve(lambda, halo, d);
            double worst = 0;
            for (int i = 0; i < n; ++i) worst = std::max(worst, std::abs(exact[i] - windowed[i]));
            // max |d| <= 1; float64 round-off of the two sums is ~1e-15.
            EXPECT_LE(worst, tail + 1e-14) << "lambda " << lambda << " n " << n;
            // ...and the bound is not vacuous: 2 terms instead of `halo` miss by far more.
            if (n >= 17) {
                const std::vector<double> short_window = windowed_solve(lambda, 2, d);
                double miss = 0;
                for (int i = 0; i < n; ++i)
                    miss = std::max(miss, std::abs(exact[i] - short_window[i]));
                EXPECT_GT(miss, 100 * tail) << "lambda " << lambda << " n " << n;
            }
        }
    }
    EXPECT_EQ(detail::heat_window_halo(7.5), 0);  // too slow a decay: the exact line solve
    EXPECT_EQ(detail::heat_window_halo(50.0), 0);
}

// Awkward grids: lines shorter than a halo (5, 6: several mirror images), not multiples of any
// tile (37, 29, 70, 133, 67), partial tiles in both directions, lines longer than a span.
const std::pair<int, int> kWindowGrids[] = {{37, 29}, {5, 41}, {70, 6}, {133, 67}, {300, 7}};

// test::compare_heat_with_reference's relative error. The model's intermediate field is poisoned
// (NaN) when allocated, so a cell the x sweep misses shows up as NaN; a cell the y sweep misses
// keeps the random start, far from the reference.
// split: the heaters' columns by the split solve, as on grids of 8192 rows: the y sweep split
// (fused.split = 1) and fused groups of 2 lines (fused.lines = 2), too few columns for the fused
// kernel's heater columns (Heat::split_columns).
// window: the window kernels' shape (FusedTuning's window_* fields; the rest is ignored).
double gpu_vs_reference(int nx, int ny, double dt, int scheme, const std::string& scenario,
                        int steps, std::string* kernel, bool split = false,
                        const FusedTuning& window = {}) {
    auto sim = make_simulation("heat", "fused");
    FusedTuning tuning;
    tuning.window_row_chunk = window.window_row_chunk;
    tuning.window_row_warps = window.window_row_warps;
    tuning.window_column_chunk = window.window_column_chunk;
    tuning.window_column_warps = window.window_column_warps;
    tuning.heater_lines = 1;  // the window + heater lines path even on these small grids
    tuning.split = split ? 1 : 2;
    if (split) tuning.lines = 2;
    sim->set_fused_tuning(tuning);
    sim->set_param("dt", dt);
    sim->set_param("scheme", scheme);
    const test::HeatComparison r =
        test::compare_heat_with_reference(*sim, scenario, nx, ny, steps, unsigned(nx * 131 + ny));
    *kernel = r.kernel;
    EXPECT_TRUE(r.stable);
    return r.error;
}

// fp32 budget of one sweep, relative to max |T| (T in [0, 1] at the start), for the implicit
// weight lambda: d (4 differences, weights <= lambda) has |d| <= 8 lambda; the two recurrences
// add a rounding of ~2^-24 of their running sums (<= max|d| / (1 - rho)) each term, damped by
// rho, then scaled by g = (1 - rho) / (1 + rho): ~4 u max|d| / (1 - rho^2) with margin; T + dT
// adds u. The truncation adds heat_window_tail * max|d|. Twice per step, and a factor 2 for the
// steps' growth of round-off. The exact line solve (no halo) stays within the same budget.
double tolerance(double lambda, int steps) {
    const double u = std::ldexp(1.0, -24), rho = detail::heat_window_rho(lambda);
    const int halo = detail::heat_window_halo(lambda);
    const double max_d = 8 * lambda;
    const double truncation = halo > 0 ? detail::heat_window_tail(lambda, halo) * max_d : 0;
    return 2 * 2 * steps * (4 * u * max_d / (1 - rho * rho) + 2 * u + truncation);
}

TEST(SimHeatWindow, MatchesTheFloat64ReferenceForEveryHaloAndTheFallback) {
    ADILAB_NEED_GL();
    const int steps = 3;
    // Implicit weights (c = dh = 1) in every halo bucket, 8 .. 48, then one too large for any.
    for (const double lambda : {0.1, 1.04, 2.5, 5.0, 7.0, 20.0}) {
        for (const int scheme : {0, 1}) {
            const double dt = scheme == 0 ? lambda : 2 * lambda;
            const int halo = detail::heat_window_halo(lambda);
            const std::string windowed = halo > 0 ? "window-H" + std::to_string(halo) : "fused";
            for (auto [nx, ny] : kWindowGrids) {
                for (const auto& [scenario, split] :
                     {std::pair{"two-heaters", false}, std::pair{"two-heaters", true},
                      std::pair{"free", false}}) {
                    std::string kernel;
                    const double error =
                        gpu_vs_reference(nx, ny, dt, scheme, scenario, steps, &kernel, split);
                    // Heaters: the window for every line, then the exact line solve again for
                    // the lines across them (a cell missed by either shows up here).
                    const std::string expected = std::string(scenario) == "free" || halo == 0
                                                     ? windowed
                                                     : windowed + "+heater-lines";
                    EXPECT_EQ(kernel, expected) << "dt " << dt;
                    EXPECT_LE(error, tolerance(lambda, steps))
                        << kernel << " scheme " << scheme << " " << scenario << " " << nx << "x"
                        << ny << (split ? " split" : "");
                }
            }
        }
    }
}

TEST(SimHeatWindow, InteriorTilesMatch) {
    ADILAB_NEED_GL();
    // Lines long and many enough for tiles that touch no wall (the kernels' plain indexing),
    // next to tiles that do; nx = 292 also takes the 16-byte row loads.
    for (const int nx : {291, 292}) {
        for (const int scheme : {0, 1}) {
            std::string kernel;
            const double error = gpu_vs_reference(nx, 173, 1.04, scheme, "free", 2, &kernel);
            EXPECT_EQ(kernel.substr(0, 8), "window-H");
            EXPECT_LE(error, tolerance(scheme == 0 ? 1.04 : 0.52, 2)) << kernel << " nx " << nx;
        }
    }
}

// The window kernels in shapes other than the defaults (FusedTuning's window_* knobs): shorter
// x and y chunks with more subgroups a group (the former defaults), odd chunks and subgroup
// counts, on grids with partial groups and interior tiles, both schemes; and a shape whose
// warm-up would leave no subgroup to store, which takes the exact line solve.
TEST(SimHeatWindow, EveryWindowShapeMatches) {
    ADILAB_NEED_GL();
    FusedTuning former, odd, none;  // former: the defaults before 2026-11-26 (night)
    former.window_row_chunk = 4;
    former.window_row_warps = 8;
    former.window_column_chunk = 8;
    former.window_column_warps = 16;
    odd.window_row_chunk = 12;
    odd.window_row_warps = 5;
    odd.window_column_chunk = 5;
    odd.window_column_warps = 11;
    none.window_column_chunk = 2;
    none.window_column_warps = 16;  // halo 24 needs 12 warps of warm-up either side
    for (const FusedTuning& shape : {former, odd, none})
        for (const int scheme : {0, 1})
            for (auto [nx, ny] : {std::pair{133, 67}, std::pair{292, 173}}) {
                std::string kernel;
                const double dt = scheme == 0 ? 1.04 : 2.08;  // lambda 1.04: halo 24
                const double error =
                    gpu_vs_reference(nx, ny, dt, scheme, "free", 2, &kernel, false, shape);
                EXPECT_EQ(kernel, shape.window_column_chunk == 2 ? "fused" : "window-H24")
                    << "column chunk " << shape.window_column_chunk;
                EXPECT_LE(error, tolerance(1.04, 2))
                    << kernel << " scheme " << scheme << " " << nx << "x" << ny << " row chunk "
                    << shape.window_row_chunk << " column chunk " << shape.window_column_chunk;
            }
}

}  // namespace
}  // namespace adilab::sim
