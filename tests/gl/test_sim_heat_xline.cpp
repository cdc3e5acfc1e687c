// Heat's whole-row x kernel (shaders/sim/heat_linerow.comp; sim/heat.cpp picks it by its measured
// rule, ADILAB_HEAT_XLINE forces it): first its maths, the closed-form inverse with the walls'
// images summed exactly, in float64 against Thomas; then the GPU model with it against the float64
// PR stepper on awkward grids, in several shapes, both PR forms and both scans, with the
// intermediate field poisoned; then conservation and the PR factor through it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "sim/model.hpp"
#include "sim/simulation.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::sim {
namespace {

using test::random_field;

// What heat_linerow.comp computes, in float64: the recurrences from zero carries at the line's
// ends, then the walls' terms rho^(p+1) alpha and rho^(n-p) beta (every position, no reach cut).
std::vector<double> exact_walls(double lambda, const std::vector<double>& d) {
    const int n = int(d.size());
    const double rho = detail::heat_window_rho(lambda), g = (1 - rho) / (1 + rho);
    std::vector<double> f(n), b(n), x(n);
    for (int p = 0; p < n; ++p) f[p] = d[p] + (p > 0 ? rho * f[p - 1] : 0);
    for (int p = n - 1; p >= 0; --p) b[p] = d[p] + (p + 1 < n ? rho * b[p + 1] : 0);
    const double rn = std::pow(rho, n), scale = 1 / (1 - rn * rn);
    const double alpha = (b[0] + rn * f[n - 1]) * scale, beta = (f[n - 1] + rn * b[0]) * scale;
    for (int p = 0; p < n; ++p)
        x[p] = g * (f[p] + b[p] - d[p] + std::pow(rho, p + 1) * alpha +
                    std::pow(rho, n - p) * beta);
    return x;
}

TEST(SimHeatXline, ExactWallsEqualThomas) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> dist(-1, 1);
    // Lambdas from weak to far beyond the windowed kernels' limit (~7), lines of one cell to long.
    for (double lambda : {0.01, 0.52, 3.0, 7.0, 50.0}) {
        for (int n : {1, 2, 3, 5, 17, 200}) {
            std::vector<double> d(n);
            for (double& v : d) v = dist(rng);
            const std::vector<double> exact = test::neumann_pr_solve(lambda, d);
            const std::vector<double> closed = exact_walls(lambda, d);
            double worst = 0;
            for (int i = 0; i < n; ++i) worst = std::max(worst, std::abs(exact[i] - closed[i]));
            // float64 round-off of sums of at most ~1 / (1 - rho) ~ 15 terms of size <= 1.
            EXPECT_LE(worst, 1e-12) << "lambda " << lambda << " n " << n;
            // Not vacuous: without the walls' terms the near-wall unknowns are far off.
            if (n >= 2) {
                const double rho = detail::heat_window_rho(lambda), g = (1 - rho) / (1 + rho);
                double f = 0, b = 0;
                for (int p = n - 1; p >= 0; --p) b = d[p] + rho * b;
                f = d[0];
                EXPECT_GT(std::abs(g * (f + b - d[0]) - exact[0]), 1e-6)
                    << "lambda " << lambda << " n " << n;
            }
        }
    }
}

// `steps` steps with the whole-row x kernel in shape `shape` (the one-dispatch tile off),
// against the float64 stepper (test::compare_heat_with_reference). The model's intermediate
// field is poisoned (NaN) when allocated: a cell the x kernel misses stays NaN and spreads
// through y.
test::HeatComparison run_xline(int nx, int ny, double dt, const std::string& scenario, int steps,
                               const char* shape) {
    setenv("ADILAB_HEAT_TILE", "0", 1);
    setenv("ADILAB_HEAT_XLINE", shape, 1);
    auto sim = make_simulation("heat", "fused");
    sim->set_param("dt", dt);
    const unsigned seed = unsigned(nx * 7 + ny * 13);
    const test::HeatComparison r =
        test::compare_heat_with_reference(*sim, scenario, nx, ny, steps, seed);
    unsetenv("ADILAB_HEAT_TILE");
    unsetenv("ADILAB_HEAT_XLINE");
    return r;
}

// fp32 budget, relative to max |T| (as test_sim_heat_window.cpp's): each half step's recurrences
// round ~4 u of max |rhs| / (1 - rho^2), T + dT adds u; the y half step's truncation adds
// heat_window_tail of max |d| (x has none). The right-hand side is d = lambda (4 differences),
// |d| <= 8 lambda, in the delta form, and r = T + lambda d_yy T, |r| <= 1 + 4 lambda, in the plain
// one; the larger of the two for both. Twice per step, and a factor 2 for the growth of round-off.
double tolerance(double lambda, int steps) {
    const double u = std::ldexp(1.0, -24), rho = detail::heat_window_rho(lambda);
    const double max_rhs = std::max(8 * lambda, 1 + 4 * lambda);
    const double truncation = detail::heat_window_tail(lambda, detail::heat_window_halo(lambda));
    return 2 * 2 * steps * (4 * u * max_rhs / (1 - rho * rho) + 2 * u + truncation * 8 * lambda);
}

// Shapes "chunk,lines,options": the default ("1": chunks of 4, one row a group, the plain form;
// where nx = 4k each invocation's own chunk loaded and stored, (T*, e) pairs for the pair y
// kernel, and with 32-wide subgroups the walls by shuffles), chunks of 4 staged with 3 rows a
// group, 8 with 2 rows in the plain form without 16-byte loads, 32 with the shared scan, the
// pair path in the delta form with 2 rows a group; on llvmpipe (no 32-wide subgroups) every
// shape takes the shared-memory scan.
const char* const kShapes[] = {"1", "4,3", "8,2,pn", "32,1,s", "4,2,de"};
// Lines shorter than a chunk (5, 4), not a multiple of one (37), 16-byte rows (292, 4), rows of
// more chunks than a subgroup has lanes (292 at chunk 4: 128 chunks), partial groups of rows
// (ny = 23, 29, 41 with 2 or 3 rows a group).
const std::pair<int, int> kGrids[] = {{37, 29}, {5, 41}, {292, 23}, {4, 9}};

// The pair path (x writes (T*, e), heat_colpair.comp reads them) where the shape asks for it
// ('e', or the default "1") and the rows are whole 16-byte vectors.
std::string expected_suffix(const std::string& shape, int nx) {
    const bool pair = shape == "1" || (shape.size() > 4 && shape.find('e', 4) != std::string::npos);
    return pair && nx % 4 == 0 ? "+xpair" : "+xline";
}

TEST(SimHeatXline, MatchesTheFloat64Reference) {
    ADILAB_NEED_GL();
    const int steps = 2;
    for (const char* shape : kShapes) {
        for (auto [nx, ny] : kGrids) {
            // lambda 0.52 (halo 16, heat's default parameters), and 6 (halo 48) on one grid.
            for (double dt : {1.04, 12.0}) {
                if (dt > 2 && nx != 292) continue;
                const test::HeatComparison r = run_xline(nx, ny, dt, "two-heaters", steps, shape);
                EXPECT_TRUE(r.stable);
                EXPECT_EQ(r.kernel.substr(r.kernel.size() - 6), expected_suffix(shape, nx))
                    << shape;
                EXPECT_LE(r.error, tolerance(0.5 * dt, steps))
                    << shape << " dt " << dt << " " << nx << "x" << ny;
            }
        }
        // halo 8, no heaters
        const test::HeatComparison free = run_xline(136, 67, 0.1, "free", steps, shape);
        EXPECT_LE(free.error, tolerance(0.05, steps)) << shape;
        EXPECT_EQ(free.kernel.substr(free.kernel.size() - 6), expected_suffix(shape, 136)) << shape;
    }
}

TEST(SimHeatXline, ConservesHeatAndDecaysByThePeacemanRachfordFactor) {
    ADILAB_NEED_GL();
    for (const char* shape : {"1", "4,2,p"}) {
        setenv("ADILAB_HEAT_TILE", "0", 1);
        setenv("ADILAB_HEAT_XLINE", shape, 1);
        {
            // As SimHeat.TotalHeatIsConservedWithoutSources: every column of the Neumann PR
            // matrices sums to 1, and the x kernel solves them exactly (no truncation); fp32
            // round-off of the values is 1e-7 relative each, a random walk over 200 steps.
            auto sim = make_simulation("heat");
            sim->set_param("dt", 3.0);
            sim->reset("free", 36, 27);
            sim->set_field(random_field(36, 27, 0, 2, 3));
            const double before = sim->stats().sum;
            sim->step(200);
            EXPECT_NEAR(sim->stats().sum, before, 1e-5 * before) << shape;
            EXPECT_EQ(sim->kernel(), "window-H24" + expected_suffix(shape, 36));
        }
        {
            // As SimHeat.CosineModeDecaysByThePeacemanRachfordFactor.
            const int nx = 40, ny = 24, steps = 20;
            auto sim = make_simulation("heat");
            sim->set_param("dt", 0.7);
            const test::CosineDecay decay = test::cosine_mode_decay(*sim, nx, ny, steps);
            // fp32 round-off: about 1e-7 relative per operation, some 30 a step, 20 steps.
            EXPECT_LE(decay.error, 1e-5) << shape << " g " << decay.factor;
            EXPECT_EQ(sim->kernel(), "window-H16" + expected_suffix(shape, nx));
        }
        unsetenv("ADILAB_HEAT_TILE");
        unsetenv("ADILAB_HEAT_XLINE");
    }
}

TEST(SimHeatXline, DefaultPathOnWideRowsMatchesTheFloat64Reference) {
    ADILAB_NEED_GL();
    // The measured rule takes the pair path for rows of 1024 cells (x: own chunks, the plain
    // form, (T*, e) pairs; y from the pairs); ny = 12 leaves one column-scan group of rows, so
    // the pair y kernel also runs on 64 x 140 (two groups of rows with warm-ups between) through
    // ADILAB_HEAT_XLINE=1 (the default shape wherever it fits).
    for (auto [nx, ny] : {std::pair{1024, 12}, std::pair{64, 140}}) {
        for (const std::string scenario : {"two-heaters", "free"}) {
            setenv("ADILAB_HEAT_TILE", "0", 1);
            if (nx < 1024) setenv("ADILAB_HEAT_XLINE", "1", 1);
            auto sim = make_simulation("heat", "fused");
            const test::HeatComparison r =
                test::compare_heat_with_reference(*sim, scenario, nx, ny, 3, unsigned(nx + ny));
            unsetenv("ADILAB_HEAT_TILE");
            unsetenv("ADILAB_HEAT_XLINE");
            EXPECT_EQ(r.kernel, "window-H16+xpair") << nx << "x" << ny;
            EXPECT_TRUE(r.stable);
            EXPECT_LE(r.error, tolerance(0.5, 3))
                << scenario << " " << nx << "x" << ny;
        }
    }
}

TEST(SimHeatXline, OffByDefaultOnSmallGridsAndSwitchable) {
    ADILAB_NEED_GL();
    // The measured rule keeps the row scan on small grids; "0" keeps it everywhere.
    setenv("ADILAB_HEAT_TILE", "0", 1);
    for (const char* choice : {"", "0"}) {
        if (*choice) setenv("ADILAB_HEAT_XLINE", choice, 1);
        auto sim = make_simulation("heat");
        sim->reset("two-heaters", 64, 48);
        sim->step(1);
        EXPECT_EQ(sim->kernel(), "window-H16") << choice;
        unsetenv("ADILAB_HEAT_XLINE");
    }
    unsetenv("ADILAB_HEAT_TILE");
}

}  // namespace
}  // namespace adilab::sim
