// The CPU LU reference (solvers/reference/lu.hpp) on cases with known answers: a hand-factored
// 3 x 3 matrix, pivot ties, solve, determinant and the singular report. The GPU tests trust it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "solvers/reference/lu.hpp"

namespace adilab {
namespace {

TEST(LuReference, FactorsAKnownMatrixWithPivoting) {
    // A = [[1, 2, 3], [4, 5, 6], [7, 8, 10]]. Step 0 picks row 2 (7) and swaps it with row 0;
    // in column 1 the candidates are then 5 - 32/7 = 3/7 (row 1) and 2 - 8/7 = 6/7 (row 2):
    // row 2 again. U = diag(7, 6/7, -1/2) on the diagonal, two interchanges: det = -3.
    std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8, 10};
    std::vector<int> pivots(3);
    const auto report = reference::lu_factor<double>(a, 3, pivots);
    EXPECT_EQ(report.singular_column, -1);
    EXPECT_EQ(pivots, (std::vector<int>{2, 2, 2}));
    // Row order after the interchanges: rows 2, 0, 1 of A. L(1,0) = 1/7, L(2,0) = 4/7.
    EXPECT_NEAR(a[3], 1.0 / 7, 1e-15);
    EXPECT_NEAR(a[6], 4.0 / 7, 1e-15);
    EXPECT_NEAR(a[0], 7.0, 0.0);
    EXPECT_NEAR(a[4], 2 - 8.0 / 7, 1e-15);                 // U(1,1) = 6/7
    EXPECT_NEAR(a[7], (5 - 32.0 / 7) / (6.0 / 7), 1e-15);  // L(2,1) = 1/2
    const reference::Determinant d = reference::lu_determinant<double>(a, 3, pivots);
    EXPECT_NEAR(d.value(), -3.0, 1e-12);  // det A = -3
}

TEST(LuReference, TiesGoToTheSmallestRow) {
    std::vector<double> a = {1, 1, -1, 2};  // |1| == |-1|: row 0 stays
    std::vector<int> pivots(2);
    const auto report = reference::lu_factor<double>(a, 2, pivots);
    EXPECT_EQ(pivots[0], 0);
    EXPECT_EQ(report.min_pivot_gap, 0.0);
}

TEST(LuReference, SolveAndResidualsOnARandomMatrix) {
    const int n = 50;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> a(n * n), b(n);
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    std::vector<float> lu = a, x = b;
    std::vector<int> pivots(n);
    reference::lu_factor<float>(lu, n, pivots);
    reference::lu_solve<float>(lu, n, pivots, x);
    // float32 factors: both residuals of order n u, far below 1e-4, far above 0 (not exact).
    const double factor = reference::factor_residual(a, lu, n, pivots);
    EXPECT_LT(factor, 1e-4);
    EXPECT_GT(factor, 0.0);
    EXPECT_LT(reference::solve_residual(a, n, x, b), 1e-4);
    // The estimate is a lower bound of the exact value and of the same order.
    const double estimate = reference::factor_residual_estimate(a, lu, n, pivots);
    EXPECT_LE(estimate, factor * (1 + 1e-12));
    EXPECT_GT(estimate, factor / 100);
    // Wilkinson's bound holds: ||PA - LU|| <= gamma_n || |L||U| || / ||A||.
    const double u = 0x1p-24;
    EXPECT_LE(factor,
              n * u / (1 - n * u) * reference::abs_lu_norm_inf(lu, n) / reference::norm_inf(a, n));
}

TEST(LuReference, SingularColumnIsReportedAndNothingIsNaN) {
    std::vector<double> a = {1, 2, 2, 4};
    std::vector<int> pivots(2);
    const auto report = reference::lu_factor<double>(a, 2, pivots);
    EXPECT_EQ(report.singular_column, 1);
    for (double v : a) EXPECT_TRUE(std::isfinite(v));
    const reference::Determinant d = reference::lu_determinant<double>(a, 2, pivots);
    EXPECT_EQ(d.sign, 0);
    EXPECT_EQ(d.value(), 0.0);
    EXPECT_EQ(d.log_abs, -std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace adilab
