// The decay window of `lu-window` (solvers/tridiagonal/lu_factors.cpp): its truncation bound
// holds for the window algorithm itself (emulated here in float64, so only the truncation
// differs from the exact solve), the plan picks the smallest window meeting its target, and
// weak dominance or a non-dominant matrix leaves no window (the exact path).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "solvers/reference/tridiagonal.hpp"
#include "solvers/tridiagonal/lu_factors.hpp"

namespace adilab {
namespace {

using tridiag::ConstantCoefficients;

// lu_window.comp's arithmetic in float64: chunks of `rows` rows, each solved from zero carries
// `window` rows above and below it.
std::vector<double> window_solve(const std::vector<float>& k, const ConstantCoefficients& c,
                                 unsigned rows, unsigned window) {
    const unsigned n = unsigned(k.size());
    std::vector<double> m, r, q;
    EXPECT_TRUE(tridiag::factorise(n, c, m, r, q));
    std::vector<double> x(n, 0.0);
    for (unsigned s = 0; s < n; s += rows) {
        const unsigned e = std::min(s + rows, n) - 1;
        const unsigned w = s > window ? s - window : 0;
        const unsigned z = std::min(e + window, n - 1);
        std::vector<double> y(z + 1, 0.0);
        double carry = 0.0;
        for (unsigned i = w; i <= z; ++i) y[i] = carry = k[i] + m[i] * carry;
        double xi = 0.0;
        for (unsigned i = z + 1; i-- > s;) {
            xi = r[i] * y[i] + q[i] * xi;
            if (i <= e) x[i] = xi;
        }
    }
    return x;
}

double relative_error(const std::vector<double>& x, const std::vector<double>& exact) {
    double scale = 0, error = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        scale = std::max(scale, std::abs(exact[i]));
        error = std::max(error, std::abs(x[i] - exact[i]));
    }
    return error / scale;
}

TEST(DecayWindow, TruncationStaysWithinTheBound) {
    std::mt19937 rng(31);
    std::uniform_real_distribution<double> off(-1.0, 1.0), extra(0.05, 1.0);
    for (int trial = 0; trial < 40; ++trial) {
        const unsigned n = 50 + unsigned(trial) * 7;
        // Dominant, possibly non-symmetric, negative diagonals, Neumann-like ends.
        ConstantCoefficients c;
        c.a = float(off(rng));
        c.c = float(off(rng));
        const double sign = trial % 3 == 0 ? -1.0 : 1.0;
        c.b = float(sign * (std::abs(c.a) + std::abs(c.c) + extra(rng)));
        c.b_first = float(sign * (std::abs(c.c) + extra(rng)));
        c.b_last = float(sign * (std::abs(c.a) + extra(rng)));
        std::vector<float> k(n);
        for (float& v : k) v = float(off(rng));
        std::vector<double> exact(n);
        ASSERT_TRUE(reference::thomas_line_constant(n, c.a, c.b, c.c, c.b_first, c.b_last, k.data(),
                                                    exact.data(), 0, 1));
        for (unsigned window : {1u, 2u, 3u, 5u, 8u, 13u, 21u}) {
            const double bound = tridiag::decay_window_bound(n, c, window);
            for (unsigned rows : {1u, 4u, 9u}) {
                // float64 rounding of the two solves (~n eps each) comes on top of the bound.
                const double error = relative_error(window_solve(k, c, rows, window), exact);
                EXPECT_LE(error, bound * (1 + 1e-9) + 1e-12)
                    << "trial " << trial << " window " << window << " rows " << rows;
            }
        }
    }
}

TEST(DecayWindow, PlanIsTheSmallestWindowMeetingTheTarget) {
    const ConstantCoefficients heat{-1.0f, 3.0f, -1.0f, 2.0f, 2.0f};  // r = 1, Neumann ends
    const double target = std::ldexp(1.0, -26);
    const auto plan = tridiag::plan_decay_window(1024, heat, 64, target);
    ASSERT_TRUE(plan.usable);
    EXPECT_LE(tridiag::decay_window_bound(1024, heat, plan.exact_rows), target);
    EXPECT_GT(tridiag::decay_window_bound(1024, heat, plan.exact_rows - 1), target);
    EXPECT_EQ(plan.rows % 8, 0u);
    EXPECT_GE(plan.rows, plan.exact_rows);
    EXPECT_LE(plan.bound, target);
    // rho = 1 / u_inf = 0.382 for r = 1: at least log(2^-26) / log(rho) = 18.7 rows.
    EXPECT_GE(plan.exact_rows, 19u);
    // A window wider than the line truncates nothing.
    EXPECT_EQ(tridiag::decay_window_bound(40, heat, 40), 0.0);
}

TEST(DecayWindow, WeakOrNoDominanceLeavesNoWindow) {
    const double target = std::ldexp(1.0, -26);
    // b = 2.05, a = c = -1: rho = 0.8, about 95 rows needed: over a 64-row limit.
    const ConstantCoefficients weak{-1.0f, 2.05f, -1.0f, 2.05f, 2.05f};
    EXPECT_FALSE(tridiag::plan_decay_window(4096, weak, 64, target).usable);
    EXPECT_TRUE(tridiag::plan_decay_window(4096, weak, 256, target).usable);
    // Not dominant (|b| < |a| + |c|): the pivots oscillate, the factors do not decay.
    const ConstantCoefficients oscillating{1.0f, 1.5f, 1.0f, 1.5f, 1.5f};
    EXPECT_FALSE(tridiag::plan_decay_window(1000, oscillating, 256, target).usable);
    // A zero pivot: no bound at all.
    const ConstantCoefficients singular{-1.0f, 4.0f, -1.0f, 0.0f, 4.0f};
    EXPECT_TRUE(std::isinf(tridiag::decay_window_bound(100, singular, 8)));
    EXPECT_FALSE(tridiag::plan_decay_window(100, singular, 64, target).usable);
}

}  // namespace
}  // namespace adilab
