// partition (solvers/tridiagonal/partition.cpp) against the float64 CPU Thomas on fresh random
// diagonally dominant systems of awkward sizes, solutions poisoned first: its split solve's
// shapes, its one-pass lines and their shapes, and its guarded window, where the bound holds and
// where it fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/reference/tridiagonal.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/variants.hpp"
#include "tests/support/gl_environment.hpp"
#include "tests/support/tridiagonal_checks.hpp"

namespace adilab {
namespace {

using test::check_variant;
using test::SolverFactory;
using test::tolerance;
using tridiag::Direction;

// partition's split solve (split_solve.glsl's three dispatches; one pass turned off, or every
// length here would take it): chunks of 2 (no interior rows), odd chunks, one warp (a span of
// one chunk) and several, on grids of more than 32 lines (two line groups, the last partial)
// whose lengths leave a partial last span and a partial last chunk, or fit one chunk.
// Tolerance as in tolerance(): each unknown's path runs through its chunk's sweeps, the span's
// and the coarse Thomas, a few roundings per step of recurrences whose factors stay below 1 for
// these dominant systems, like Thomas itself.
TEST(Tridiagonal, PartitionShapesMatchFloat64Thomas) {
    ADILAB_NEED_GL();
    unsigned seed = 1300;
    for (auto [chunk, warps] :
         {std::pair{2, 1}, std::pair{3, 2}, std::pair{5, 3}, std::pair{16, 8}}) {
        tridiag::PartitionTuning tuning;
        tuning.chunk = chunk;
        tuning.warps = warps;
        tuning.one_pass_x = 0;
        tuning.one_pass_y = 0;
        for (int n : {1, 2, 7, 33, 100, 701}) {
            for (Direction d : {Direction::x, Direction::y}) {
                const bool along_x = d == Direction::x;
                const int lines = 45;
                const int nx = along_x ? n : lines, ny = along_x ? lines : n;
                const auto p =
                    reference::random_dominant_problem(nx, ny, along_x, ++seed, 0.5, false);
                const auto expected =
                    reference::solve_grid_general(nx, ny, along_x, p.a, p.b, p.c, p.k);
                ASSERT_EQ(expected.failed_line, -1);
                gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b);
                gl::Buffer c = gl::Buffer::from(p.c), k = gl::Buffer::from(p.k);
                gl::Buffer x(k.size());
                x.poison();
                auto solver = tridiag::make_partition(tuning);
                solver->solve({nx, ny}, d, tridiag::GeneralCoefficients{&a, &b, &c}, k, x);
                EXPECT_LE(reference::max_relative_error(x.read_all<float>(), expected.x),
                          tolerance(n))
                    << "chunk " << chunk << " warps " << warps << " n " << n
                    << (along_x ? " x" : " y");
                EXPECT_FALSE(solver->check_pivots().has_value());
            }
        }
    }
}

// partition's one-pass lines (partition_lines.comp with fused_lines.glsl) in both directions on
// every reduced solve, with subgroup shuffles where the context has them and through shared
// memory: lengths of one chunk, of a partial last chunk, x rows that are not whole quads (4-byte
// stores) and rows that are (16-byte stores), up to 8192 unknowns (32 subgroups of 32 chunks a
// line: the hierarchy's largest top system), with line counts that leave a partial last work
// group. Both coefficient forms. Tolerance as in tolerance(): each unknown's path runs through its
// chunk's sweeps and the reduced solve's PCR or partition levels, a few roundings per level.
TEST(Tridiagonal, PartitionOnePassLinesMatchFloat64Thomas) {
    ADILAB_NEED_GL();
    unsigned seed = 1700;
    const bool has_subgroups = gl::Context::current().info().subgroups;
    for (int solve : {1, 2, 3})
        for (int subgroups : {0, 1}) {
            if (subgroups == 1 && !has_subgroups) continue;
            tridiag::PartitionTuning tuning;
            tuning.one_pass_y = 8192;
            tuning.one_pass_solve = solve;
            tuning.one_pass_subgroups = subgroups;
            for (Direction d : {Direction::x, Direction::y})
                for (int n : {1, 3, 8, 37, 258, 700, 1024, 2051, 8192})
                    for (bool constant : {false, true}) {
                        const SolverFactory make = [tuning] {
                            return tridiag::make_partition(tuning);
                        };
                        const int lines = n >= 2048 ? 2 : 11;
                        const std::string what = "partition one pass, solve " +
                                                 std::to_string(solve) + " subgroups " +
                                                 std::to_string(subgroups);
                        check_variant(what, {n, d, constant}, ++seed, tolerance(n), false, make,
                                      lines);
                    }
        }
}

// partition's one-pass shapes from the tuning: odd chunks (4-byte stores along x) and lines a
// work group that leave a partial last group, chunks of 16 with 16 lines (cut to 1024
// invocations on long lines); a chunk of 1 is refused by name.
TEST(Tridiagonal, PartitionOnePassShapesMatchFloat64Thomas) {
    ADILAB_NEED_GL();
    unsigned seed = 1900;
    for (auto [chunk, lines] : {std::pair{3, 3}, std::pair{16, 16}}) {
        tridiag::PartitionTuning tuning;
        tuning.one_pass_chunk = chunk;
        tuning.one_pass_lines = lines;
        const SolverFactory make = [tuning] { return tridiag::make_partition(tuning); };
        for (Direction d : {Direction::x, Direction::y})
            for (int n : {2, 37, 700, 2044})
                check_variant("partition one pass, chunk " + std::to_string(chunk) + " lines " +
                                  std::to_string(lines),
                              {n, d, false}, ++seed, tolerance(n), false, make, 13);
    }
    tridiag::PartitionTuning one;
    one.one_pass_chunk = 1;
    gl::Buffer k(64 * sizeof(float)), x(64 * sizeof(float));
    k.fill(1.0f);
    try {
        tridiag::make_partition(one)->solve({16, 4}, Direction::x,
                                            tridiag::ConstantCoefficients{-1, 4, -1, 4, 4}, k, x);
        ADD_FAILURE() << "a chunk of 1 was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknowns per invocation"), std::string::npos)
            << e.what();
    }
}

// partition's guarded window on general coefficients: solves `p` (nx x ny, lines along `d`)
// with `solver`, the solution poisoned first, and returns the largest error relative to float64
// Thomas; `path`: the path the solve reports.
double window_solve_error(tridiag::Solver& solver, int nx, int ny, Direction d,
                          const reference::Problem& p, std::string& path) {
    const bool along_x = d == Direction::x;
    const auto expected = reference::solve_grid_general(nx, ny, along_x, p.a, p.b, p.c, p.k);
    EXPECT_EQ(expected.failed_line, -1);
    gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b);
    gl::Buffer c = gl::Buffer::from(p.c), k = gl::Buffer::from(p.k);
    gl::Buffer x(k.size());
    x.poison();
    solver.solve({nx, ny}, d, tridiag::GeneralCoefficients{&a, &b, &c}, k, x);
    path = solver.last_path();
    EXPECT_FALSE(solver.check_pivots().has_value());
    return reference::max_relative_error(x.read_all<float>(), expected.x);
}

// The window's shapes from the first unknown on (window_min 1). Windows of runs of chunks: halos
// of one or two chunks and of 40 rows, chunks of 4, 8 and 12 along x and of 3 and 10 along y, 8
// and 32 subgroups a y work group. Windows of whole x lines: lines of 1 to 17 subgroups' chunks,
// several lines a work group and one. Lines shorter than one window, of a partial last window, x
// rows of whole quads (16-byte loads and stores) and of not; 45 y lines (a partial last column
// group). The systems' rows are dominant enough for each halo that every window's bound holds (a
// margin of 100 for the short halos, 0.5 to 1 for 40 rows, where the rows' decay factors sigma and
// rho average 2^-1.7 and the 40 rows' products stay below 2^-40 in 2 million samples), so the
// window must take every line, which the solve's path says. Tolerance: tolerance() for the fp32
// partition arithmetic, plus the window's bound of 2^-27 max |x|.
TEST(Tridiagonal, PartitionWindowMatchesFloat64Thomas) {
    ADILAB_NEED_GL();
    unsigned seed = 2100;
    struct Shape {
        int halo, row_chunk, column_chunk, column_warps;
        bool whole;  // x lines in windows of whole lines
        double margin;
    };
    for (const Shape& shape : {Shape{8, 4, 3, 8, false, 100.0}, Shape{8, 8, 10, 32, false, 100.0},
                               Shape{40, 12, 10, 32, false, 0.5}, Shape{40, 8, 3, 32, false, 0.5},
                               Shape{8, 4, 3, 8, true, 100.0}, Shape{40, 12, 10, 32, true, 0.5}}) {
        tridiag::PartitionTuning tuning;
        tuning.window_min = 1;
        tuning.window_halo = shape.halo;
        tuning.window_row_chunk = shape.row_chunk;
        tuning.window_column_chunk = shape.column_chunk;
        tuning.window_column_warps = shape.column_warps;
        tuning.window_whole_x = shape.whole ? 1 << 15 : 0;
        auto solver = tridiag::make_partition(tuning);
        for (Direction d : {Direction::x, Direction::y})
            for (int n : {5, 37, 300, 1031, 2052}) {
                const bool along_x = d == Direction::x;
                const int lines = along_x ? 13 : 45;
                const int nx = along_x ? n : lines, ny = along_x ? lines : n;
                const auto p = reference::random_dominant_problem(nx, ny, along_x, ++seed,
                                                                  shape.margin, false);
                std::string path;
                const double error = window_solve_error(*solver, nx, ny, d, p, path);
                const std::string what = "halo " + std::to_string(shape.halo) + " chunks " +
                                         std::to_string(shape.row_chunk) + " / " +
                                         std::to_string(shape.column_chunk) +
                                         (shape.whole ? " whole" : "") + " n " + std::to_string(n) +
                                         (along_x ? " x" : " y");
                EXPECT_LE(error, tolerance(n) + std::ldexp(1.0, -27)) << what;
                EXPECT_EQ(path, shape.whole && along_x ? "whole-line window" : "window") << what;
            }
    }
}

// Where the bound fails, the work groups solve the lines exactly: rows -x_{i-1} + 2.01 x_i -
// x_{i+1} (a decay of 0.905 a row, so that the 40-row window's own error, about 0.7%, fails the
// comparison where the exact path is missed), and one row of one line that is only weakly
// dominant (|b| = |a| + |c|, which the bound excludes) in systems that the window takes
// otherwise, where the groups of the other windows on its line store their own. Between them,
// two solves where the bound holds, so that each of the two words that the path reads is seen
// cleared after a failure. Windows of runs of chunks (lines of 2 to 12 blocks of a window's
// chunks, carried from block to block: the default shapes, and chunks of 11 and 12 with 16
// subgroups along y) and of whole x lines (2 lines a group at 300, so that the weak row's group
// holds a good line too). Tolerance as in tolerance(), with the condition number of the weak
// systems (below (2 + 2.01) / 0.01 = 401 against 9) in place of 9.
TEST(Tridiagonal, PartitionWindowTakesTheExactPathWhereTheBoundFails) {
    ADILAB_NEED_GL();
    unsigned seed = 2300;
    struct Form {
        bool whole;
        int row_chunk, column_chunk, column_warps;
    };
    for (const Form& form :
         {Form{false, 8, 8, 32}, Form{true, 8, 8, 32}, Form{false, 12, 11, 16}}) {
        const bool whole = form.whole;
        tridiag::PartitionTuning tuning;
        tuning.window_min = 64;
        tuning.window_whole_x = whole ? 1 << 15 : 0;
        tuning.window_row_chunk = form.row_chunk;
        tuning.window_column_chunk = form.column_chunk;
        tuning.window_column_warps = form.column_warps;
        auto solver = tridiag::make_partition(tuning);
        for (int round = 0; round < 2; ++round)
            for (Direction d : {Direction::x, Direction::y})
                for (int n : {300, 2052}) {
                    const bool along_x = d == Direction::x;
                    const int lines = along_x ? 13 : 45;
                    const int nx = along_x ? n : lines, ny = along_x ? lines : n;
                    const bool whole_lines = whole && along_x;
                    const std::string held = whole_lines ? "whole-line window" : "window";
                    const std::string broken = held + ", exact in its work groups: bound broken";
                    const std::string what =
                        held + " " + std::to_string(n) + (along_x ? " x" : " y") + " chunk " +
                        std::to_string(along_x ? form.row_chunk : form.column_chunk);
                    std::string path;
                    auto weak =
                        reference::random_dominant_problem(nx, ny, along_x, ++seed, 0.5, false);
                    for (std::size_t e = 0; e < weak.b.size(); ++e) {
                        const int pos = along_x ? int(e) % nx : int(e) / nx;
                        weak.a[e] = pos == 0 ? 0.0f : -1.0f;
                        weak.c[e] = pos == n - 1 ? 0.0f : -1.0f;
                        weak.b[e] = 2.01f;
                    }
                    double error = window_solve_error(*solver, nx, ny, d, weak, path);
                    EXPECT_LE(error, tolerance(n) * 401.0 / 9.0) << "weak " << what;
                    EXPECT_EQ(path, broken) << "weak " << what;

                    const auto good =
                        reference::random_dominant_problem(nx, ny, along_x, ++seed, 0.5, false);
                    for (int again = 0; again < 2; ++again) {
                        error = window_solve_error(*solver, nx, ny, d, good, path);
                        EXPECT_LE(error, tolerance(n) + std::ldexp(1.0, -27)) << "good " << what;
                        EXPECT_EQ(path, held) << "good " << what << " again " << again;
                    }

                    auto one_row = good;
                    const int line = lines - 2, pos = n / 2 + 1;
                    const int e = along_x ? line * nx + pos : pos * nx + line;
                    one_row.b[e] = std::abs(one_row.a[e]) + std::abs(one_row.c[e]);
                    error = window_solve_error(*solver, nx, ny, d, one_row, path);
                    EXPECT_LE(error, tolerance(n) * 401.0 / 9.0) << "one row " << what;
                    EXPECT_EQ(path, broken) << "one row " << what;
                }
    }
}

// A singular line behind the window is reported with its line, as on every other path: a zero
// row and column (a zero pivot in every elimination order) in line 7 of 13 (x) or 45 (y), where
// the window's bound fails at once (the row is not strictly dominant), and the work groups' exact
// solve reports it: in windows of runs of chunks and, along x, of whole lines.
TEST(Tridiagonal, PartitionWindowReportsAZeroPivotWithItsLine) {
    ADILAB_NEED_GL();
    for (bool whole : {false, true}) {
        tridiag::PartitionTuning tuning;
        tuning.window_min = 64;
        tuning.window_whole_x = whole ? 1 << 15 : 0;
        auto solver = tridiag::make_partition(tuning);
        for (Direction d : {Direction::x, Direction::y}) {
            const bool along_x = d == Direction::x;
            const int n = 300, lines = along_x ? 13 : 45;
            const int nx = along_x ? n : lines, ny = along_x ? lines : n;
            const int step = along_x ? 1 : nx;
            auto p = reference::random_dominant_problem(nx, ny, along_x, 2500, 0.5, false);
            const int bad = along_x ? 7 * nx + 150 : 150 * nx + 7;
            p.a[bad] = p.b[bad] = p.c[bad] = 0.0f;
            p.c[bad - step] = 0.0f;
            p.a[bad + step] = 0.0f;
            gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b);
            gl::Buffer c = gl::Buffer::from(p.c), k = gl::Buffer::from(p.k), x(k.size());
            solver->solve({nx, ny}, d, tridiag::GeneralCoefficients{&a, &b, &c}, k, x);
            const std::string what =
                std::string(whole ? "whole " : "runs ") + (along_x ? "x" : "y");
            const auto failure = solver->check_pivots();
            ASSERT_TRUE(failure.has_value()) << what;
            EXPECT_EQ(failure->line, 7) << what;
        }
    }
}

}  // namespace
}  // namespace adilab
