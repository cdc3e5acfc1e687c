// Every GPU tridiagonal variant against the float64 CPU Thomas (solvers/reference) on fresh
// random diagonally dominant systems of awkward sizes, both directions, both coefficient forms,
// solutions poisoned with NaN before each run; lu-scan's and lu-window's shapes; and the
// pivot-failure flag. partition's shapes and its guarded window: test_tridiagonal_partition.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/reference/tridiagonal.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/variants.hpp"
#include "tests/support/gl_environment.hpp"
#include "tests/support/tridiagonal_checks.hpp"

namespace adilab {
namespace {

using test::Case;
using test::check_variant;
using test::constant_coefficients;
using test::SolverFactory;
using test::tolerance;
using tridiag::Direction;

// lu-scan's shape for a test: chunks, lines per group, bands (0 rows: none) and subgroup scans.
tridiag::ScanTuning scan_tuning(unsigned chunk_x, unsigned chunk_y, unsigned lines,
                                unsigned band_rows, unsigned band_min_n, int subgroups) {
    tridiag::ScanTuning t;
    t.chunk_x = int(chunk_x);
    t.chunk_y = int(chunk_y);
    t.lines = int(lines);
    t.band_rows = int(band_rows);
    t.band_min_n = int(band_min_n);
    t.subgroups = subgroups;
    return t;
}

std::vector<std::string> gpu_exact_variants() {
    std::vector<std::string> names;
    for (const auto& v : tridiag::variants())
        // cg-1 / cg-2 stop after a fixed number of iterations: not exact solvers (own test).
        // cg needs symmetric positive definite lines: its own test below.
        if (!v.name.starts_with("cg")) names.push_back(v.name);
    return names;
}

TEST(Tridiagonal, RegistryListsTheVariantsAndRejectsUnknownNames) {
    ADILAB_NEED_GL();
    std::vector<std::string> names;
    for (const auto& v : tridiag::variants()) names.push_back(v.name);
    for (const char* expected : {"cr-shared", "cr-pingpong"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    try {
        tridiag::make_solver("no-such-solver");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no-such-solver"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("cr-shared"), std::string::npos);
    }
}

TEST(Tridiagonal, EveryVariantMatchesFloat64Thomas) {
    ADILAB_NEED_GL();
    unsigned seed = 100;
    for (const std::string& name : gpu_exact_variants()) {
        for (int n : {1, 2, 3, 5, 31, 32, 33, 127, 1000, 1023, 1024, 1025, 4096}) {
            for (Direction d : {Direction::x, Direction::y}) {
                for (bool constant : {false, true})
                    check_variant(name, {n, d, constant}, ++seed, tolerance(n));
            }
        }
    }
}

// lu-scan's three-pass band kernel for y lines (lu_bands.comp), forced on every length with
// bands of 1 row (every unknown joined through the carry pass), 3 rows (a partial last band at
// most lengths) and 32 rows, and columns per work group that leave a partial column block.
TEST(Tridiagonal, LuScanBandsYMatchesFloat64Thomas) {
    ADILAB_NEED_GL();
    unsigned seed = 700;
    for (unsigned rows : {1u, 3u, 32u}) {
        const SolverFactory make = [rows] {
            return tridiag::make_lu_scan("lu-scan-bands", scan_tuning(16, 32, 8, rows, 0, 0));
        };
        for (int n : {1, 2, 3, 5, 31, 32, 33, 127, 1000, 1025}) {
            // Constant coefficients only (general ones go to cr-shared, tested above). The same
            // fp32 tolerance: the band carries add one affine-map composition per band to the
            // path of an unknown, like the carry scan's steps (and errors shrink along it, the
            // G, H, P factors being below 1 for these dominant systems).
            check_variant("lu-scan bands " + std::to_string(rows), {n, Direction::y, true}, ++seed,
                          tolerance(n), false, make);
            // x lines never take the band kernel.
            if (n == 33)
                check_variant("lu-scan bands x", {n, Direction::x, true}, ++seed, tolerance(n),
                              false, make);
        }
    }
}

// The subgroup-shuffle carry scans of lu_scan.comp (the registry's lu-scan uses them where the
// GPU has GL_KHR_shader_subgroup; Mesa llvmpipe has not, so this runs on GPU machines only).
TEST(Tridiagonal, LuScanSubgroupScansMatchFloat64Thomas) {
    ADILAB_NEED_GL();
    if (!gl::Context::current().info().subgroups)
        GTEST_SKIP() << "no GL_KHR_shader_subgroup on this driver";
    unsigned seed = 900;
    // Chunks of 4 along x and y so that the lines span one subgroup, several (two-level scan)
    // or a part of one; no bands (band_rows = 0).
    const SolverFactory make = [] {
        return tridiag::make_lu_scan("lu-scan-sg", scan_tuning(4, 4, 8, 0, 0, 1));
    };
    for (int n : {1, 2, 3, 5, 31, 32, 33, 127, 1000, 1025, 4096})
        for (Direction d : {Direction::x, Direction::y})
            check_variant("lu-scan subgroups", {n, d, true}, ++seed, tolerance(n), false, make);
}

// A y grid wider than one work group of lu_bands.comp (256 columns): several column blocks per
// band, the last one partial, checked against float64 Thomas.
TEST(Tridiagonal, LuScanBandsWideGridMatchesFloat64Thomas) {
    ADILAB_NEED_GL();
    const int nx = 300, ny = 70;
    const auto p = reference::random_dominant_problem(nx, ny, false, 4242, 0.5, false);
    const auto expected = reference::solve_grid_constant(
        nx, ny, false, p.const_a, p.const_b, p.const_c, p.const_b_first, p.const_b_last, p.k);
    ASSERT_EQ(expected.failed_line, -1);
    gl::Buffer k = gl::Buffer::from(p.k);
    gl::Buffer x(k.size());
    x.poison();
    auto solver = tridiag::make_lu_scan("lu-scan-bands", scan_tuning(16, 32, 8, 16, 0, 0));
    solver->solve({nx, ny}, Direction::y, constant_coefficients(p), k, x);
    // fp32 tolerance as in tolerance() (the line length is ny).
    EXPECT_LE(reference::max_relative_error(x.read_all<float>(), expected.x), tolerance(ny));
    EXPECT_FALSE(solver->check_pivots().has_value());
}

TEST(Tridiagonal, ConjugateGradientToToleranceMatchesFloat64Thomas) {
    ADILAB_NEED_GL();
    // Stopping rule max|r| <= 1e-6 max|k|. Rows dominant by delta >= 0.5 give
    // max|x - x*| <= max|r| / delta <= 2e-6 max|k|, and max|k| <= (row sum of |A| <= 5) max|x*|,
    // so 1e-5 relative; fp32 makes the updated residual drift from the true one by about
    // eps * iterations * |A| |x| (~30 iterations: 1e-5 more after dividing by delta). So 2e-5 + the
    // exact solvers' rounding bound.
    unsigned seed = 500;
    for (int n : {1, 2, 3, 5, 31, 32, 33, 127, 1000, 1023, 1024, 1025, 4096})
        for (Direction d : {Direction::x, Direction::y})
            for (bool constant : {false, true})
                check_variant("cg", {n, d, constant}, ++seed, 2e-5 + tolerance(n), true);
}

TEST(Tridiagonal, ConjugateGradientFixedIterationsReduceTheEnergyError) {
    ADILAB_NEED_GL();
    // cg-1 and cg-2 are the paper's fixed-iteration comparators: not solvers to a tolerance,
    // but CG minimises the A-norm of the error over a growing Krylov space, so the A-norm error
    // (computed here in float64) must fall from x0 = 0 to 1 to 2 iterations.
    const int nx = 33, ny = 6;
    const auto p = reference::random_dominant_problem(nx, ny, true, 77, 0.5, true);
    const auto exact = reference::solve_grid_general(nx, ny, true, p.a, p.b, p.c, p.k);
    gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b), c = gl::Buffer::from(p.c);
    gl::Buffer k = gl::Buffer::from(p.k);
    auto energy_error = [&](const std::vector<float>& x) {
        double sum = 0;
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                auto e = [&](int ii) {
                    if (ii < 0 || ii >= nx) return 0.0;
                    const std::size_t at = std::size_t(j) * nx + ii;
                    return double(x[at]) - exact.x[at];
                };
                const std::size_t at = std::size_t(j) * nx + i;
                const double ae_i = p.b[at] * e(i) + (i > 0 ? p.a[at] * e(i - 1) : 0.0) +
                                    (i + 1 < nx ? p.c[at] * e(i + 1) : 0.0);
                sum += e(i) * ae_i;
            }
        return sum;
    };
    double previous = energy_error(std::vector<float>(p.k.size(), 0.0f));
    for (const char* name : {"cg-1", "cg-2"}) {
        gl::Buffer x(k.size());
        x.poison();
        auto solver = tridiag::make_solver(name);
        solver->solve({nx, ny}, Direction::x, tridiag::GeneralCoefficients{&a, &b, &c}, k, x);
        const double now = energy_error(x.read_all<float>());
        EXPECT_LT(now, 0.9 * previous) << name;
        previous = now;
        EXPECT_FALSE(solver->check_pivots().has_value()) << name;
    }
    auto cg = tridiag::make_solver("cg");
    gl::Buffer x(k.size());
    const tridiag::ConstantCoefficients asymmetric{-1.0f, 4.0f, -0.5f, 4.0f, 4.0f};
    EXPECT_THROW(cg->solve({nx, ny}, Direction::x, asymmetric, k, x), Error);
    // Asymmetric general coefficients are reported, not silently solved wrong.
    auto q = reference::random_dominant_problem(nx, ny, true, 78, 0.5, false);
    for (float& v : q.b) v = std::abs(v);
    gl::Buffer qa = gl::Buffer::from(q.a), qb = gl::Buffer::from(q.b), qc = gl::Buffer::from(q.c);
    cg->solve({nx, ny}, Direction::x, tridiag::GeneralCoefficients{&qa, &qb, &qc}, k, x);
    EXPECT_TRUE(cg->check_pivots().has_value());
}

// lu-window (the decay-window kernel, lu_window.comp) against float64 Thomas: the
// coefficients of random_dominant_problem have |a|, |c| <= 1 and |b| >= |a| + |c| + 0.5, so
// the plan must find a window (asserted: the test would otherwise only see the exact path).
// Tolerance: the exact solvers' fp32 bound (the window runs Thomas's own recurrences over
// ROWS + 2K rows, so the rounding is that of a Thomas line of that length, below tolerance(n)
// for the longer n) plus the plan's truncation bound (lu_factors.cpp derives it; <= 2^-26).
// Settings vary the rows per invocation (1: every row its own window; 7: chunks off powers of
// two; 32: the registry's) and the warps per work group; along y the grids have 3 or 7 columns
// (part of one warp) and 45 (a partial second column block); along x, segments of 32 .. 2048
// unknowns per work group, partial at most lengths. Outputs poisoned.
void check_window(int n, int lines, unsigned seed, const tridiag::WindowTuning& settings,
                  Direction direction = Direction::y) {
    const bool along_x = direction == Direction::x;
    const int nx = along_x ? n : lines, ny = along_x ? lines : n;
    const auto p = reference::random_dominant_problem(nx, ny, along_x, seed, 0.5, false);
    const tridiag::ConstantCoefficients constant = constant_coefficients(p);
    const auto plan = tridiag::lu_window_plan(unsigned(n), constant, unsigned(settings.max_window));
    ASSERT_TRUE(plan.usable) << "n=" << n;
    const auto expected =
        reference::solve_grid_constant(nx, ny, along_x, constant.a, constant.b, constant.c,
                                       constant.b_first, constant.b_last, p.k);
    gl::Buffer k = gl::Buffer::from(p.k), x(k.size());
    x.poison();
    auto solver = tridiag::make_lu_window(
        "lu-window-test", settings,
        tridiag::make_lu_scan("lu-scan", scan_tuning(16, 32, 8, 32, 4096, 0)));
    solver->solve({nx, ny}, direction, constant, k, x);
    const double error = reference::max_relative_error(x.read_all<float>(), expected.x);
    EXPECT_LE(error, tolerance(std::max(n, 64)) + plan.bound)
        << "n=" << n << (along_x ? " x" : " y") << " lines=" << lines
        << " rows=" << (along_x ? settings.rows_x : settings.rows) << " K=" << plan.rows;
    EXPECT_FALSE(solver->check_pivots().has_value());
}

TEST(Tridiagonal, LuWindowMatchesFloat64ThomasWithinItsBound) {
    ADILAB_NEED_GL();
    unsigned seed = 1300;
    for (unsigned rows : {1u, 7u, 32u}) {
        tridiag::WindowTuning settings;
        settings.scan_y = false;  // the window kernel along y too (the column scan: below)
        settings.rows = int(rows);
        settings.min_unknowns = 0;  // the window on every grid (the registry's: large ones only)
        settings.max_window = 64;   // windows of up to 64 rows (the registry's: 32, for speed)
        settings.chunks = rows == 7 ? 3 : 8;
        settings.x_lines = 1;  // x lines by the window too (the registry's: by lu-scan)
        settings.rows_x = int(std::min(rows, 16u));
        settings.group_x = rows == 7 ? 32 : 64;
        for (int n : {1, 2, 3, 5, 31, 32, 33, 127, 1000, 1025, 4096}) {
            // 1-row chunks: slow on llvmpipe, and 1025 has them all.
            if (rows == 1 && n > 1025) continue;
            for (Direction d : {Direction::y, Direction::x})
                check_window(n, n >= 1000 ? 3 : 7, ++seed, settings, d);
        }
        check_window(70, 45, ++seed, settings);
    }
}

// The column scan (lu_colscan.comp) against float64 Thomas, on the y lines of check_window's
// problems. Settings: the registry's (8 rows x 8 warps: groups of 64 rows, 2 warm-up chunks a
// side for K <= 16, 16 warps for wider windows), 8 x 16, 4 x 24 (the whole-column exact case up
// to 96 rows), 7 x 12 (chunks off powers of two) and 3 x 32 (1024-invocation groups); groups grow
// to fit a warm-up for windows of up to 32 rows (max_window), so the only reason to leave the
// scan is a random line whose window exceeds 32 rows: asserted (lu_colscan_halo,
// lu_window_plan), and such lines (solved by the exact path, still checked) must stay a small
// minority. Tolerance: the exact solvers' fp32 bound
// (each row's value is Thomas's recurrences regrouped: a chunk's local recurrences plus the
// carries times fp32 products of at most CHUNK factors, all |m|, |q| < 1, and folds over at most
// 32 chunks: rounding of the order of a Thomas line of that length) plus the window's truncation
// bound where the group does not hold the whole column (the warm-up covers >= K rows).
// Columns: 3 or 7 (part of a warp), 45 (a partial second column block). Outputs poisoned.
// Both forms: the first (lu_colscan.comp) and the lean one (lu_colscan_lean.comp), whose
// interior groups take the factors as uniforms: on lines of 1000 rows and more, groups lie
// inside the interior range (asserted, so that both of its paths are checked: the first and last
// row blocks always take the table).
TEST(Tridiagonal, LuColscanMatchesFloat64ThomasWithinItsBound) {
    ADILAB_NEED_GL();
    unsigned seed = 1700;
    const int shapes[][3] = {{8, 8, 0},  {8, 16, 0}, {4, 24, 0}, {7, 12, 0}, {3, 32, 0}, {8, 8, 1},
                             {8, 16, 1}, {4, 24, 1}, {7, 12, 1}, {3, 32, 1}, {16, 8, 1}};
    int scanned = 0, total = 0;
    for (const auto& shape : shapes) {
        tridiag::WindowTuning settings;
        settings.scan_y = true;
        settings.scan_rows = shape[0];
        settings.scan_warps = shape[1];
        settings.scan_form = shape[2];
        settings.max_window = 32;
        for (int n : {1, 2, 3, 5, 31, 32, 33, 127, 1000, 1023, 1024, 1025, 4096}) {
            const int lines = n >= 1000 ? 3 : (n == 127 ? 45 : 7);
            const auto p = reference::random_dominant_problem(lines, n, false, ++seed, 0.5, false);
            const tridiag::ConstantCoefficients constant = constant_coefficients(p);
            const unsigned halo = tridiag::lu_colscan_halo(unsigned(n), constant, settings);
            const auto plan =
                tridiag::lu_window_plan(unsigned(n), constant, unsigned(settings.max_window));
            ++total;
            if (halo == ~0u)
                EXPECT_FALSE(plan.usable) << "n=" << n << " shape " << shape[0] << "x" << shape[1];
            else
                ++scanned;
            if (n >= 1000 && halo != ~0u) {
                // Some group lies in the interior range: groups of W C rows start every S rows
                // (S = (W - 2 halo) C stored), so a range of W C + S rows holds one whole.
                const unsigned warps = tridiag::lu_colscan_warps(halo, settings);
                const unsigned group = warps * unsigned(shape[0]),
                               stored = group - 2 * halo * unsigned(shape[0]);
                const auto [first, last] = tridiag::lu_window_interior_rows(unsigned(n), constant);
                EXPECT_GE(last - first + 1, int(group + stored)) << "n=" << n;
            }
            const double truncation = halo == 0 || halo == ~0u ? 0.0 : plan.bound;
            const auto expected =
                reference::solve_grid_constant(lines, n, false, constant.a, constant.b, constant.c,
                                               constant.b_first, constant.b_last, p.k);
            gl::Buffer k = gl::Buffer::from(p.k), x(k.size());
            x.poison();
            auto solver = tridiag::make_lu_window(
                "lu-colscan-test", settings,
                tridiag::make_lu_scan("lu-scan", scan_tuning(16, 32, 8, 32, 4096, 0)));
            solver->solve({lines, n}, Direction::y, constant, k, x);
            const double error = reference::max_relative_error(x.read_all<float>(), expected.x);
            EXPECT_LE(error, tolerance(std::max(n, 64)) + truncation)
                << "n=" << n << " shape " << shape[0] << "x" << shape[1] << " form " << shape[2]
                << " halo " << halo;
            EXPECT_FALSE(solver->check_pivots().has_value());
        }
    }
    EXPECT_GE(scanned, total * 3 / 4);
}

// The column scan's scan_form 2 (the default) takes the lean form where at least half the row
// blocks are interior, else the first form (lu_window.cpp: colscan_lean); lu_colscan_lean says
// which. The solver must follow it, seen bit for bit against solvers that can only take that
// form, and be within the float64 reference's bound (fp32 bound plus truncation bound); the
// lengths are chosen so that both forms are picked (asserted). Awkward lengths, 3 or 45
// columns, outputs poisoned.
TEST(Tridiagonal, LuColscanAutoFormFollowsTheInteriorShare) {
    ADILAB_NEED_GL();
    unsigned seed = 1980;
    int lean_count = 0, first_count = 0;
    for (int n : {100, 127, 200, 1025}) {
        const int lines = n == 127 ? 45 : 3;
        const auto p = reference::random_dominant_problem(lines, n, false, ++seed, 0.5, false);
        const tridiag::ConstantCoefficients constant = constant_coefficients(p);
        tridiag::WindowTuning settings;
        ASSERT_EQ(settings.scan_form, 2);
        const unsigned halo = tridiag::lu_colscan_halo(unsigned(n), constant, settings);
        ASSERT_NE(halo, ~0u) << "n=" << n;
        ASSERT_NE(halo, 0u) << "n=" << n;  // (a whole-column group has no interior block)
        const bool lean = tridiag::lu_colscan_lean(unsigned(n), constant, settings);
        (lean ? lean_count : first_count) += 1;
        const auto plan =
            tridiag::lu_window_plan(unsigned(n), constant, unsigned(settings.max_window));
        const auto expected =
            reference::solve_grid_constant(lines, n, false, constant.a, constant.b, constant.c,
                                           constant.b_first, constant.b_last, p.k);
        gl::Buffer k = gl::Buffer::from(p.k), x(k.size());
        auto run = [&](int form) {
            tridiag::WindowTuning s = settings;
            s.scan_form = form;
            auto solver = tridiag::make_lu_window(
                "lu-colscan-test", s,
                tridiag::make_lu_scan("lu-scan", scan_tuning(16, 32, 8, 32, 4096, 0)));
            x.poison();
            solver->solve({lines, n}, Direction::y, constant, k, x);
            EXPECT_FALSE(solver->check_pivots().has_value());
            return x.read_all<float>();
        };
        const auto by_auto = run(2), by_first = run(0), by_lean = run(1);
        EXPECT_LE(reference::max_relative_error(by_auto, expected.x),
                  tolerance(std::max(n, 64)) + plan.bound)
            << "n=" << n;
        ASSERT_FALSE(by_first == by_lean) << "n=" << n;  // (else the check below could not tell)
        EXPECT_TRUE(by_auto == (lean ? by_lean : by_first)) << "n=" << n << " lean " << lean;
    }
    EXPECT_GT(lean_count, 0);
    EXPECT_GT(first_count, 0);
}

// scan_max_unknowns: grids above it take the window kernel along y, the others the column
// scan. Which path ran is seen bit for bit (the same problem through a solver that can only take
// that path); both within the float64 reference's bound (fp32 bound plus truncation bound).
TEST(Tridiagonal, LuWindowScanMaxUnknownsSelectsTheYKernel) {
    ADILAB_NEED_GL();
    const int n = 1025, lines = 45;
    const auto p = reference::random_dominant_problem(lines, n, false, 1950, 0.5, false);
    const tridiag::ConstantCoefficients constant = constant_coefficients(p);
    tridiag::WindowTuning base;
    base.min_unknowns = 0;  // the window kernel allowed on this small grid
    const auto plan = tridiag::lu_window_plan(unsigned(n), constant, unsigned(base.max_window));
    ASSERT_TRUE(plan.usable);
    ASSERT_NE(tridiag::lu_colscan_halo(unsigned(n), constant, base), ~0u);
    const auto expected =
        reference::solve_grid_constant(lines, n, false, constant.a, constant.b, constant.c,
                                       constant.b_first, constant.b_last, p.k);
    gl::Buffer k = gl::Buffer::from(p.k), x(k.size());
    auto run = [&](const tridiag::WindowTuning& settings) {
        auto solver = tridiag::make_lu_window(
            "lu-window-test", settings,
            tridiag::make_lu_scan("lu-scan", scan_tuning(16, 32, 8, 32, 4096, 0)));
        x.poison();
        solver->solve({lines, n}, Direction::y, constant, k, x);
        EXPECT_FALSE(solver->check_pivots().has_value());
        return x.read_all<float>();
    };
    tridiag::WindowTuning scan_only = base, window_only = base, above = base, below = base;
    window_only.scan_y = false;
    above.scan_max_unknowns = lines * n - 1;  // this grid is above: window kernel
    below.scan_max_unknowns = lines * n;      // at the limit: column scan
    const auto by_scan = run(scan_only), by_window = run(window_only);
    EXPECT_LE(reference::max_relative_error(by_scan, expected.x), tolerance(n) + plan.bound);
    EXPECT_LE(reference::max_relative_error(by_window, expected.x), tolerance(n) + plan.bound);
    ASSERT_FALSE(by_scan == by_window);  // (else the comparison below could not tell)
    EXPECT_TRUE(run(above) == by_window);
    EXPECT_TRUE(run(below) == by_scan);
}

// Weak dominance (b = 2.05, a = c = -1: the factors decay like 0.8^K, a window of ~95 rows would
// be needed, over the registry's 32-row limit) must take the exact path (the window is allowed
// on every grid size here, so the plan is the only reason), and still match float64 Thomas.
// Tolerance: the fp32 bound of tolerance() with this matrix's condition number in place of 9:
// ||A||_inf = 4.05 and ||A^-1||_inf <= 1 / (smallest dominance margin 0.05) = 20, so 81.
TEST(Tridiagonal, LuWindowWeakDominanceTakesTheExactPath) {
    ADILAB_NEED_GL();
    const tridiag::ConstantCoefficients weak{-1.0f, 2.05f, -1.0f, 2.05f, 2.05f};
    tridiag::WindowTuning settings;
    settings.min_unknowns = 0;
    auto solver = tridiag::make_lu_window(
        "lu-window-test", settings,
        tridiag::make_lu_scan("lu-scan", scan_tuning(16, 32, 8, 32, 4096, 0)));
    unsigned seed = 1500;
    // (Lines shorter than the window are solved exactly by it: 200 is the shortest here.)
    for (int n : {200, 1000, 4096}) {
        ASSERT_FALSE(
            tridiag::lu_window_plan(unsigned(n), weak, unsigned(settings.max_window)).usable)
            << n;
        const int columns = 5;
        const auto p = reference::random_dominant_problem(columns, n, false, ++seed);
        const auto expected = reference::solve_grid_constant(
            columns, n, false, weak.a, weak.b, weak.c, weak.b_first, weak.b_last, p.k);
        gl::Buffer k = gl::Buffer::from(p.k), x(k.size());
        x.poison();
        solver->solve({columns, n}, Direction::y, weak, k, x);
        const double eps = std::ldexp(1.0, -24);
        EXPECT_LE(reference::max_relative_error(x.read_all<float>(), expected.x),
                  2.0 * eps * 81.0 * (std::log2(double(n)) + 1.0))
            << n;
        EXPECT_FALSE(solver->check_pivots().has_value());
    }
}

TEST(Tridiagonal, ZeroPivotOfConstantCoefficientsIsReported) {
    ADILAB_NEED_GL();
    // b_first = 0 with a != 0 below it: the first pivot of every line is zero.
    const tridiag::ConstantCoefficients singular{-1.0f, 4.0f, -1.0f, 0.0f, 4.0f};
    gl::Buffer k(64 * sizeof(float)), x(64 * sizeof(float));
    k.fill(1.0f);
    for (const auto& v : tridiag::variants()) {
        if (v.name.starts_with("cg")) continue;  // b > 0 is checked separately, same flag
        auto solver = tridiag::make_solver(v.name);
        solver->solve({16, 4}, Direction::y, singular, k, x);
        EXPECT_TRUE(solver->check_pivots().has_value()) << v.name;
    }
}

TEST(Tridiagonal, ZeroPivotIsReportedWithItsLine) {
    ADILAB_NEED_GL();
    // Line 2 of 5 (N = 37) has a zero row: b_i = a_i = c_i = 0, a singular system; every
    // elimination order meets the zero pivot. Both directions: general y lines take other
    // kernels than x lines (lu-scan's partition fallback).
    for (Direction d : {Direction::x, Direction::y}) {
        const bool along_x = d == Direction::x;
        const int n = 37, lines = 5;
        const int nx = along_x ? n : lines, ny = along_x ? lines : n;
        const int step = along_x ? 1 : nx;  // between neighbours along a line
        for (const auto& v : tridiag::variants()) {
            auto p = reference::random_dominant_problem(nx, ny, along_x, 7, 0.5, true);
            const int bad = along_x ? 2 * nx + 17 : 17 * nx + 2;
            p.a[bad] = p.b[bad] = p.c[bad] = 0.0f;
            p.c[bad - step] = 0.0f;
            p.a[bad + step] = 0.0f;  // row and column zero: a zero pivot for CR, Thomas and CG
            gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b);
            gl::Buffer c = gl::Buffer::from(p.c);
            gl::Buffer k = gl::Buffer::from(p.k), x(k.size());
            auto solver = tridiag::make_solver(v.name);
            solver->solve({nx, ny}, d, tridiag::GeneralCoefficients{&a, &b, &c}, k, x);
            const auto failure = solver->check_pivots();
            ASSERT_TRUE(failure.has_value()) << v.name << (along_x ? " x" : " y");
            EXPECT_EQ(failure->line, 2) << v.name << (along_x ? " x" : " y");
            EXPECT_FALSE(solver->check_pivots().has_value()) << v.name << ": the flag is cleared";
        }
    }
}

// Both ways of reading the pivot flag (gpu_solver.hpp: through a staging copy by default, or
// directly) report the failing line, clear the flag, and report nothing for a good system after
// a failure, repeatedly (the staging copy must see each new flag, not a stale one).
TEST(Tridiagonal, LineSolveIncludeWorksAsDocumented) {
    ADILAB_NEED_GL();
    // shaders/tridiagonal/line_solve_example.comp uses the include's public API unpadded, as the
    // fused simulation kernels do; same tolerance reasoning as the solvers (it is the same CR).
    const gl::Program& program = gl::compute_program("tridiagonal/line_solve_example.comp");
    unsigned seed = 900;
    for (int n : {1, 2, 3, 33, 1000, 1024}) {
        const int rows = 3;
        auto p = reference::random_dominant_problem(n, rows, true, ++seed);
        const auto expected = reference::solve_grid_general(n, rows, true, p.a, p.b, p.c, p.k);
        gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b), c = gl::Buffer::from(p.c);
        gl::Buffer k = gl::Buffer::from(p.k), x(k.size()), failures(sizeof(unsigned));
        x.poison();
        failures.zero();
        program.use();
        program.set("nx", unsigned(n));
        a.bind_storage(0);
        b.bind_storage(1);
        c.bind_storage(2);
        k.bind_storage(3);
        x.bind_storage(4);
        failures.bind_storage(5);
        gl::dispatch(rows);
        gl::memory_barrier(gl::Barrier::storage);
        EXPECT_LE(reference::max_relative_error(x.read_all<float>(), expected.x), tolerance(n))
            << n;
        EXPECT_EQ(failures.read<unsigned>(1)[0], 0u) << n;
    }
}

TEST(Tridiagonal, InstancesSharingProgramsDoNotMixTheirSettings) {
    ADILAB_NEED_GL();
    // An ADI step uses one solver per direction; on a square grid both run the same program
    // with different strides and coefficients. Alternate them and check the first one again.
    const int n = 40;
    for (const char* name : {"cr-shared", "lu-scan", "lu-window", "cg"}) {
        auto px = reference::random_dominant_problem(n, n, true, 31, 0.5, true);
        auto py = reference::random_dominant_problem(n, n, false, 32, 0.5, true);
        const tridiag::ConstantCoefficients kx = constant_coefficients(px);
        const tridiag::ConstantCoefficients ky = constant_coefficients(py);
        const auto expected = reference::solve_grid_constant(n, n, true, kx.a, kx.b, kx.c,
                                                             kx.b_first, kx.b_last, px.k);
        gl::Buffer k = gl::Buffer::from(px.k), x(k.size()), y(k.size());
        auto along_x = tridiag::make_solver(name), along_y = tridiag::make_solver(name);
        along_x->solve({n, n}, Direction::x, kx, k, x);
        along_y->solve({n, n}, Direction::y, ky, k, y);
        x.poison();
        along_x->solve({n, n}, Direction::x, kx, k, x);
        EXPECT_LE(reference::max_relative_error(x.read_all<float>(), expected.x),
                  name == std::string("cg") ? 2e-5 + tolerance(n) : tolerance(n))
            << name;
    }
}

TEST(Tridiagonal, BadInputIsAClearError) {
    ADILAB_NEED_GL();
    auto solver = tridiag::make_solver("cr-shared");
    gl::Buffer k(16 * sizeof(float)), x(16 * sizeof(float));
    EXPECT_THROW(solver->solve({0, 4}, Direction::x, tridiag::ConstantCoefficients{}, k, x), Error);
    EXPECT_THROW(solver->solve({8, 4}, Direction::x, tridiag::ConstantCoefficients{}, k, x),
                 Error);  // buffers hold 16 floats, the grid needs 32
    EXPECT_THROW(solver->solve({4, 4}, Direction::x, tridiag::GeneralCoefficients{}, k, x), Error);
}

}  // namespace
}  // namespace adilab
