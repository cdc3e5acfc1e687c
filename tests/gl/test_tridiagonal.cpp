// Every GPU tridiagonal variant against the float64 CPU Thomas (solvers/reference) on fresh
// random diagonally dominant systems of awkward sizes, both directions, both coefficient forms,
// solutions poisoned with NaN before each run; and the pivot-failure flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "solvers/gl/error.hpp"
#include "solvers/reference/tridiagonal.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab {
namespace {

using tridiag::Direction;

std::vector<std::string> gpu_exact_variants() {
    std::vector<std::string> names;
    for (const auto& v : tridiag::variants())
        // cg-1 / cg-2 stop after a fixed number of iterations: not exact solvers (own test).
        if (v.name != "cg-1" && v.name != "cg-2") names.push_back(v.name);
    return names;
}

// Tolerance from the fp32 arithmetic: each CR level (each Thomas step) rounds a few operations
// (relative error ~2 eps per level, eps = 2^-24 ~ 6e-8, backward stable for diagonally dominant
// systems), ~log2(N) + 1 levels lie on the path of any unknown, and the result's error is the
// backward error amplified at most by the condition number, below (2 + 2.5) / 0.5 = 9 for these
// systems (|b| >= |a| + |c| + 0.5 * U[1,2], |a|, |c| <= 1). So 2 eps * 9 * (log2 N + 1):
// 1e-6 at N = 1, 1.4e-5 at N = 4096 (the errors seen are ~3e-7; a wrong unknown is O(1)).
double tolerance(int n) {
    const double eps = std::ldexp(1.0, -24);
    return 2.0 * eps * 9.0 * (std::log2(double(n)) + 1.0);
}

struct Case {
    int n;
    Direction direction;
    bool constant;
};

void check_variant(const std::string& name, const Case& c, unsigned seed) {
    const int lines = c.n >= 1000 ? 3 : 7;  // few lines at big N: llvmpipe is slow
    const bool along_x = c.direction == Direction::x;
    const int nx = along_x ? c.n : lines, ny = along_x ? lines : c.n;
    const auto p = reference::random_dominant_problem(nx, ny, along_x, seed);
    const auto expected =
        c.constant ? reference::solve_grid_constant(nx, ny, along_x, p.const_a, p.const_b,
                                                    p.const_c, p.const_b_first, p.const_b_last,
                                                    p.k)
                   : reference::solve_grid_general(nx, ny, along_x, p.a, p.b, p.c, p.k);
    ASSERT_EQ(expected.failed_line, -1);
    gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b), cc = gl::Buffer::from(p.c);
    gl::Buffer k = gl::Buffer::from(p.k);
    gl::Buffer x(k.size());
    x.poison();
    tridiag::Coefficients coefficients =
        c.constant ? tridiag::Coefficients(tridiag::ConstantCoefficients{
                         float(p.const_a), float(p.const_b), float(p.const_c),
                         float(p.const_b_first), float(p.const_b_last)})
                   : tridiag::Coefficients(tridiag::GeneralCoefficients{&a, &b, &cc});
    auto solver = tridiag::make_solver(name);
    solver->solve({nx, ny}, c.direction, coefficients, k, x);
    const auto got = x.read_all<float>();
    const double error = reference::max_relative_error(got, expected.x);
    EXPECT_LE(error, tolerance(c.n))
        << name << " N=" << c.n << (along_x ? " x " : " y ")
        << (c.constant ? "constant" : "general");
    EXPECT_FALSE(solver->check_pivots().has_value()) << name << " N=" << c.n;
    // The right-hand side is left unchanged.
    EXPECT_EQ(k.read_all<float>(), p.k) << name;
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
                for (bool constant : {false, true}) check_variant(name, {n, d, constant}, ++seed);
            }
        }
    }
}

TEST(Tridiagonal, ZeroPivotIsReportedWithItsLine) {
    ADILAB_NEED_GL();
    // Line 2 of 5 (x direction, N = 37) has a zero row: b_i = a_i = c_i = 0, a singular
    // system; every elimination order meets the zero pivot.
    const int nx = 37, ny = 5;
    for (const auto& v : tridiag::variants()) {
        auto p = reference::random_dominant_problem(nx, ny, true, 7);
        const int bad = 2 * nx + 17;
        p.a[bad] = p.b[bad] = p.c[bad] = 0.0f;
        p.c[bad - 1] = 0.0f;
        p.a[bad + 1] = 0.0f;  // row and column zero: a zero pivot for CR, Thomas and CG alike
        gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b), c = gl::Buffer::from(p.c);
        gl::Buffer k = gl::Buffer::from(p.k), x(k.size());
        auto solver = tridiag::make_solver(v.name);
        solver->solve({nx, ny}, Direction::x, tridiag::GeneralCoefficients{&a, &b, &c}, k, x);
        const auto failure = solver->check_pivots();
        ASSERT_TRUE(failure.has_value()) << v.name;
        EXPECT_EQ(failure->line, 2) << v.name;
        EXPECT_FALSE(solver->check_pivots().has_value()) << v.name << ": the flag is cleared";
    }
}

TEST(Tridiagonal, BadInputIsAClearError) {
    ADILAB_NEED_GL();
    auto solver = tridiag::make_solver("cr-shared");
    gl::Buffer k(16 * sizeof(float)), x(16 * sizeof(float));
    EXPECT_THROW(solver->solve({0, 4}, Direction::x, tridiag::ConstantCoefficients{}, k, x),
                 Error);
    EXPECT_THROW(solver->solve({8, 4}, Direction::x, tridiag::ConstantCoefficients{}, k, x),
                 Error);  // buffers hold 16 floats, the grid needs 32
    EXPECT_THROW(solver->solve({4, 4}, Direction::x, tridiag::GeneralCoefficients{}, k, x),
                 Error);
}

}  // namespace
}  // namespace adilab
