#pragma once
// What the tridiagonal tests share (tests/gl/test_tridiagonal*.cpp): the fp32 tolerance against
// float64 Thomas and a check of one variant on a fresh random dominant problem.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "solvers/gl/objects.hpp"
#include "solvers/reference/tridiagonal.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::test {

// A problem's constant coefficients, as the solvers take them (float).
inline tridiag::ConstantCoefficients constant_coefficients(const reference::Problem& p) {
    return {float(p.const_a), float(p.const_b), float(p.const_c), float(p.const_b_first),
            float(p.const_b_last)};
}

// Tolerance from the fp32 arithmetic: each CR level (each Thomas step) rounds a few operations
// (relative error ~2 eps per level, eps = 2^-24 ~ 6e-8, backward stable for diagonally dominant
// systems), ~log2(N) + 1 levels lie on the path of any unknown, and the result's error is the
// backward error amplified at most by the condition number, below (2 + 2.5) / 0.5 = 9 for these
// systems (|b| >= |a| + |c| + 0.5 * U[1,2], |a|, |c| <= 1). So 2 eps * 9 * (log2 N + 1):
// 1e-6 at N = 1, 1.4e-5 at N = 4096 (the errors seen are ~3e-7; a wrong unknown is O(1)).
inline double tolerance(int n) {
    const double eps = std::ldexp(1.0, -24);
    return 2.0 * eps * 9.0 * (std::log2(double(n)) + 1.0);
}

struct Case {
    int n;
    tridiag::Direction direction;
    bool constant;
};

using SolverFactory = std::function<std::unique_ptr<tridiag::Solver>()>;

// lines: how many (0: 3 of 1000 unknowns and more, llvmpipe being slow, else 7).
inline void check_variant(const std::string& name, const Case& c, unsigned seed, double allowed,
                          bool symmetric = false, const SolverFactory& make = {}, int lines = 0) {
    if (lines == 0) lines = c.n >= 1000 ? 3 : 7;
    const bool along_x = c.direction == tridiag::Direction::x;
    const int nx = along_x ? c.n : lines, ny = along_x ? lines : c.n;
    const auto p = reference::random_dominant_problem(nx, ny, along_x, seed, 0.5, symmetric);
    const auto expected =
        c.constant ? reference::solve_grid_constant(nx, ny, along_x, p.const_a, p.const_b,
                                                    p.const_c, p.const_b_first, p.const_b_last, p.k)
                   : reference::solve_grid_general(nx, ny, along_x, p.a, p.b, p.c, p.k);
    ASSERT_EQ(expected.failed_line, -1);
    gl::Buffer a = gl::Buffer::from(p.a), b = gl::Buffer::from(p.b), cc = gl::Buffer::from(p.c);
    gl::Buffer k = gl::Buffer::from(p.k);
    gl::Buffer x(k.size());
    x.poison();
    tridiag::Coefficients coefficients =
        c.constant ? tridiag::Coefficients(constant_coefficients(p))
                   : tridiag::Coefficients(tridiag::GeneralCoefficients{&a, &b, &cc});
    auto solver = make ? make() : tridiag::make_solver(name);
    solver->solve({nx, ny}, c.direction, coefficients, k, x);
    const auto got = x.read_all<float>();
    const double error = reference::max_relative_error(got, expected.x);
    EXPECT_LE(error, allowed) << name << " N=" << c.n << (along_x ? " x " : " y ")
                              << (c.constant ? "constant" : "general");
    EXPECT_FALSE(solver->check_pivots().has_value()) << name << " N=" << c.n;
    // The right-hand side is left unchanged.
    EXPECT_EQ(k.read_all<float>(), p.k) << name;
}

}  // namespace adilab::test
