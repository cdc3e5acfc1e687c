// Heat's windowed half steps (the `fused` solver's path wherever lambda allows): first the
// truncated closed-form inverse itself, in float64 on the CPU, against an exact Thomas solve of
// the Neumann system, within the bound sim/heat.cpp relies on; then the GPU model against the
// float64 PR stepper on awkward grids: the two-dispatch kernels (x: heat_rowscan.comp, y:
// heat_colscan.comp) for every HALO bucket and a lambda too weak for any (the exact fused line
// solve), and their other shapes. (The one-dispatch tile step is switched off here:
// ADILAB_HEAT_TILE=0.)
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
                for (int i = 0; i < n; ++i) miss = std::max(miss, std::abs(exact[i] - short_window[i]));
                EXPECT_GT(miss, 100 * tail) << "lambda " << lambda << " n " << n;
            }
        }
    }
    EXPECT_EQ(detail::heat_window_halo(7.5), 0);  // too slow a decay: the exact line solve
    EXPECT_EQ(detail::heat_window_halo(50.0), 0);
}

// Awkward grids: lines shorter than a halo (5, 6: several mirror images), not multiples of any
// tile (37, 29, 70, 133, 67), partial tiles in both directions, lines longer than a span.
const std::pair<int, int> kGrids[] = {{37, 29}, {5, 41}, {70, 6}, {133, 67}, {300, 7}};

// test::compare_heat_with_reference's relative error for the two-dispatch kernels. The model's
// intermediate field is poisoned (NaN) when allocated, so a cell the x half step misses shows up
// as NaN; a cell the y half step misses keeps the random start, far from the reference.
double gpu_vs_reference(int nx, int ny, double dt, const std::string& scenario, int steps,
                        std::string* kernel) {
    // These tests are about the two-dispatch kernels: the one-dispatch tile step (the default
    // where it fits, test_sim_heat_tile.cpp) off.
    setenv("ADILAB_HEAT_TILE", "0", 1);
    auto sim = make_simulation("heat", "fused");
    sim->set_param("dt", dt);
    const test::HeatComparison r =
        test::compare_heat_with_reference(*sim, scenario, nx, ny, steps, unsigned(nx * 131 + ny));
    unsetenv("ADILAB_HEAT_TILE");
    *kernel = r.kernel;
    EXPECT_TRUE(r.stable);
    return r.error;
}

// fp32 budget of one half step, relative to max |T| (T in [0, 1] at the start): d = lambda (4 differences) has |d| <= 8 lambda; the
// two recurrences add a rounding of ~2^-24 of their running sums (<= max|d| / (1 - rho)) each
// term, damped by rho, then scaled by g = (1 - rho) / (1 + rho): ~4 u max|d| / (1 - rho^2)
// with margin; T + dT adds u. The truncation adds heat_window_tail * max|d|. Twice per step,
// and a factor 2 for the steps' growth of round-off.
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
    // lambda = dt / 2 (c = dh = 1): halos 8, 16, 24, 32, 48, then none (exact fused solve).
    const std::pair<double, std::string> kCases[] = {{0.1, "window-H8"},   {1.04, "window-H16"},
                                                     {2.5, "window-H24"},  {5.0, "window-H32"},
                                                     {12.0, "window-H48"}, {40.0, "fused"}};
    for (const auto& [dt, expected_kernel] : kCases) {
        for (auto [nx, ny] : kGrids) {
            for (const std::string scenario : {"two-heaters", "free"}) {
                std::string kernel;
                const double error = gpu_vs_reference(nx, ny, dt, scenario, steps, &kernel);
                EXPECT_EQ(kernel, expected_kernel) << "dt " << dt;
                EXPECT_LE(error, tolerance(0.5 * dt, steps))
                    << kernel << " " << scenario << " " << nx << "x" << ny;
            }
        }
    }
}

TEST(SimHeatWindow, InteriorTilesMatch) {
    ADILAB_NEED_GL();
    // Lines long and many enough for tiles that touch no wall and no heater (the kernels' plain
    // indexing), next to tiles that do; nx = 292 also takes the default 16-byte row loads.
    for (const int nx : {291, 292}) {
        for (const std::string scenario : {"two-heaters", "free"}) {
            std::string kernel;
            const double error = gpu_vs_reference(nx, 173, 1.04, scenario, 2, &kernel);
            EXPECT_EQ(kernel, "window-H16");
            EXPECT_LE(error, tolerance(0.52, 2)) << kernel << " " << scenario << " nx " << nx;
        }
    }
}

// Every shape of `shapes` (set through the environment variable `knob`) on every grid, for three
// halo buckets' lambdas, against the float64 stepper.
void check_scan_shapes(const char* knob, std::initializer_list<const char*> shapes,
                       std::initializer_list<std::pair<int, int>> grids) {
    for (const char* shape : shapes) {
        setenv(knob, shape, 1);
        for (auto [nx, ny] : grids) {
            for (double dt : {0.1, 1.04, 12.0}) {
                std::string kernel;
                const double error = gpu_vs_reference(nx, ny, dt, "two-heaters", 2, &kernel);
                EXPECT_EQ(kernel.substr(0, 8), "window-H");
                EXPECT_LE(error, tolerance(0.5 * dt, 2))
                    << knob << "=" << shape << " dt " << dt << " " << nx << "x" << ny;
            }
        }
    }
    unsetenv(knob);
}

TEST(SimHeatWindow, RowScanShapesMatch) {
    ADILAB_NEED_GL();
    // The x half step as a scan across 32 lanes (heat_rowscan.comp) in shapes other than the
    // default (8 subgroups, chunks of 4): chunks of 8 and 3 (halo lanes 2 and 6 for halo 16),
    // 4 and 1 subgroups a group, lines shorter than one segment and spanning several, three halo
    // buckets' lambdas.
    check_scan_shapes("ADILAB_HEAT_ROWSCAN", {"4,8", "1,3"}, {{291, 23}, {37, 29}, {5, 41}});
}

TEST(SimHeatWindow, ColumnScanShapesMatch) {
    ADILAB_NEED_GL();
    // The y half step with chunk ends joined through shared memory (heat_colscan.comp) in shapes
    // other than the default (16 subgroups of 8 rows): 7 subgroups of 5 rows and 32 of 3;
    // columns shorter than one group's rows and spanning several; three halo buckets' lambdas
    // (48 needs more subgroups than 7 x 5 rows have: the fused line solve takes the y half step).
    check_scan_shapes("ADILAB_HEAT_COLSCAN", {"32,3", "7,5"}, {{23, 291}, {37, 29}, {43, 6}});
}

TEST(SimHeatWindow, LoadOptionsMatch) {
    ADILAB_NEED_GL();
    // ADILAB_HEAT_OPT: 16-byte row loads ('v', the default; only chunks of 4k with nx = 4k:
    // 296 and 12 take them, 291 the scalar loads) and none ("0"), in three row / column shapes
    // (x with 1, 3 and 2 rows a subgroup: ny = 23, 70, 22 leave partial blocks of rows); lines
    // shorter than a halo (12), partial segments and tiles, heaters across tiles, two halo
    // buckets (16, 48).
    const std::pair<const char*, const char*> kShapes[] = {
        {"8,4", "16,8"}, {"4,8,3", "16,16"}, {"2,4,2", "32,4"}};
    for (const char* options : {"0", "v"}) {
        setenv("ADILAB_HEAT_OPT", options, 1);
        for (const auto& [rows, columns] : kShapes) {
            setenv("ADILAB_HEAT_ROWSCAN", rows, 1);
            setenv("ADILAB_HEAT_COLSCAN", columns, 1);
            for (auto [nx, ny] : {std::pair{296, 23}, std::pair{12, 70}, std::pair{291, 22}}) {
                for (double dt : {1.04, 12.0}) {
                    std::string kernel;
                    const double error = gpu_vs_reference(nx, ny, dt, "two-heaters", 2, &kernel);
                    EXPECT_EQ(kernel.substr(0, 8), "window-H");
                    EXPECT_LE(error, tolerance(0.5 * dt, 2))
                        << options << " " << rows << " / " << columns << " dt " << dt << " " << nx
                        << "x" << ny;
                }
            }
        }
    }
    unsetenv("ADILAB_HEAT_OPT");
    unsetenv("ADILAB_HEAT_ROWSCAN");
    unsetenv("ADILAB_HEAT_COLSCAN");
}

TEST(SimHeatWindow, CanBeSwitchedOffForTheExactLineSolve) {
    ADILAB_NEED_GL();
    setenv("ADILAB_HEAT_WINDOW", "0", 1);
    std::string kernel;
    const double error = gpu_vs_reference(37, 29, 1.04, "two-heaters", 3, &kernel);
    unsetenv("ADILAB_HEAT_WINDOW");
    EXPECT_EQ(kernel, "fused");
    EXPECT_LE(error, tolerance(0.52, 3));
}

}  // namespace
}  // namespace adilab::sim
