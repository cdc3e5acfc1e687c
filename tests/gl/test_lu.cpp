// LU with partial pivoting on the GPU (solvers/lu) against the float64 CPU reference
// (solvers/reference/lu.hpp): factor residuals within Wilkinson's fp32 bound, pivot sequences,
// solve residuals, determinants, zero diagonals and singular matrices. Pivots and solutions are
// poisoned (NaN) before each run so an unwritten element fails. Sizes stay small: llvmpipe.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "solvers/gl/error.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/reference/lu.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab {
namespace {

constexpr double kUnit = 0x1p-24;  // fp32 unit roundoff u

// gamma_k = k u / (1 - k u) (Higham, Accuracy and Stability of Numerical Algorithms, §3.1).
double gamma(int k) {
    return k * kUnit / (1.0 - k * kUnit);
}

std::vector<float> random_matrix(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a(static_cast<std::size_t>(n) * n);
    for (float& v : a) v = dist(rng);
    return a;
}

// A matrix without ties: A = P^T L U, L unit lower triangular with L(i+1,i) in [-1/2, 1/2] and
// the rest of L below 1/(2n) in magnitude, U with diagonal +-[1, 2] and off-diagonal entries
// below 1/n. Partial pivoting finds P's rows in order, each time with a candidate at least twice
// as large as any other. L and U are diagonally dominant, hence well conditioned, so rounding A
// to fp32 moves the Schur complements by O(u) only and cannot bridge that margin.
std::vector<float> matrix_without_ties(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> one(-1.0, 1.0), diag(1.0, 2.0);
    const std::size_t N = static_cast<std::size_t>(n);
    std::vector<double> l(N * N, 0.0), u(N * N, 0.0);
    for (int i = 0; i < n; ++i) {
        l[i * N + i] = 1.0;
        for (int j = 0; j < i; ++j) l[i * N + j] = one(rng) * (j == i - 1 ? 0.5 : 0.5 / n);
        u[i * N + i] = (rng() & 1 ? 1.0 : -1.0) * diag(rng);
        for (int j = i + 1; j < n; ++j) u[i * N + j] = one(rng) / n;
    }
    std::vector<int> order(N);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<float> a(N * N);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k <= std::min(i, j); ++k) s += l[i * N + k] * u[k * N + j];
            a[order[i] * N + j] = static_cast<float>(s);
        }
    return a;
}

struct GpuResult {
    std::vector<float> lu;
    std::vector<int> pivots;
    std::optional<int> singular;
};

// gpu-blocked's tuning knobs (ADILAB_LU_*, read when the solver is made), set for one solver.
using Knobs = std::vector<std::pair<std::string, std::string>>;

class KnobScope {
  public:
    explicit KnobScope(const Knobs& knobs) : knobs_(knobs) {
        for (const auto& [name, value] : knobs_) setenv(name.c_str(), value.c_str(), 1);
    }
    ~KnobScope() {
        for (const auto& kv : knobs_) unsetenv(kv.first.c_str());
    }
    KnobScope(const KnobScope&) = delete;
    KnobScope& operator=(const KnobScope&) = delete;

  private:
    Knobs knobs_;
};

GpuResult factor_on_gpu(const std::string& name, int block, const std::vector<float>& a, int n,
                        lu::Factors* keep = nullptr,
                        lu::TrailingUpdate update = lu::TrailingUpdate::matmul,
                        const Knobs& knobs = {}) {
    lu::Factors f = lu::Factors::upload(a, n);
    f.pivots.poison();
    std::unique_ptr<lu::Solver> solver;
    {
        const KnobScope scope(knobs);
        solver = lu::make_solver(name, block, update);
    }
    solver->factor(f);
    GpuResult r{f.values.read_all<float>(), f.pivots.read_all<int>(), lu::singular_column(f)};
    if (keep) *keep = std::move(f);
    return r;
}

bool all_finite(const std::vector<float>& v) {
    return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

struct Variant {
    std::string name;
    int block;
    std::vector<int> sizes;
    lu::TrailingUpdate update = lu::TrailingUpdate::own;
    Knobs knobs = {};
};

std::string label(const Variant& v) {
    std::string knobs;
    for (const auto& [name, value] : v.knobs) knobs += " " + name + "=" + value;
    return v.name +
           (v.name == "gpu-blocked"
                ? " block " + std::to_string(v.block) + " update " + lu::to_string(v.update)
                : "") +
           knobs;
}

// Unblocked is n dispatch pairs over the whole trailing matrix: small sizes only on llvmpipe.
// Blocked takes the big ones, with block sizes that exercise both panel paths there (the fused
// one-dispatch panel for panels that fit a work group, the column-by-column fallback otherwise).
const std::vector<Variant>& variants_under_test() {
    static const std::vector<Variant> all = {
        {"cpu", 0, {1, 2, 3, 17, 100}},
        {"gpu-unblocked", 0, {1, 2, 3, 17, 100}},
        {"gpu-blocked", 8, {1, 2, 3, 17, 100}, lu::TrailingUpdate::matmul},
        {"gpu-blocked", 16, {1, 3, 17, 100, 1000}, lu::TrailingUpdate::own},
        {"gpu-blocked", 32, {2, 17, 100, 1025}, lu::TrailingUpdate::matmul},
        {"gpu-blocked", 64, {3, 17, 100}, lu::TrailingUpdate::own},
        {"gpu-blocked", 64, {100}, lu::TrailingUpdate::matmul},
        // Block 128 and the tuning paths: look-ahead (the next panel beside the trailing
        // update), the block-row solve in registers / in shared memory / unrolled / blocked, the
        // trailing update's tiles. 200 has panels of both kinds on llvmpipe (column by column
        // above the fused panel's rows, fused below).
        {"gpu-blocked", 128, {17, 200}, lu::TrailingUpdate::matmul},
        {"gpu-blocked", 64, {17, 200}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_LOOKAHEAD", "1"}, {"ADILAB_LU_TRSM", "unrolled"}}},
        {"gpu-blocked", 128, {200}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_LOOKAHEAD", "0"}, {"ADILAB_LU_TRSM", "unrolled"}}},
        {"gpu-blocked", 64, {200}, lu::TrailingUpdate::matmul, {{"ADILAB_LU_TRSM", "blocked"}}},
        {"gpu-blocked", 128, {200}, lu::TrailingUpdate::matmul, {{"ADILAB_LU_TRSM", "blocked"}}},
        // The block-row solve by explicit inverse (X = L11^-1, then U12 = X A12 by GEMM; the
        // default, named here so that it stays tested if that changes), with look-ahead on and
        // off; block 8 takes the singular matrix (n = 20) over 3 panels. On
        // llvmpipe, block 128's L11 does not fit shared memory (32 KiB) and is read from the
        // matrix; the other blocks keep it in shared memory.
        {"gpu-blocked", 32, {1, 2, 3, 17, 100, 257}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_TRSM", "inverse"}}},
        {"gpu-blocked", 64, {17, 257, 1025}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_TRSM", "inverse"}, {"ADILAB_LU_LOOKAHEAD", "0"}}},
        {"gpu-blocked", 64, {100}, lu::TrailingUpdate::matmul, {{"ADILAB_LU_TRSM", "inverse"}}},
        {"gpu-blocked", 128, {3, 200, 257}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_TRSM", "inverse"}}},
        {"gpu-blocked", 128, {257}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_TRSM", "inverse"}, {"ADILAB_LU_LOOKAHEAD", "0"}}},
        {"gpu-blocked", 8, {17, 100}, lu::TrailingUpdate::matmul, {{"ADILAB_LU_TRSM", "inverse"}}},
        {"gpu-blocked", 32, {100, 257}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_LOOKAHEAD", "0"}, {"ADILAB_LU_TRSM", "shared"},
          {"ADILAB_LU_GEMM_TILES", "32x32x8x4x4"}}},
        {"gpu-blocked", 64, {200}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_LOOKAHEAD", "0"}, {"ADILAB_LU_TRSM", "reg"}, {"ADILAB_LU_PANEL_ROWS", "32"},
          {"ADILAB_LU_PANEL", "fused"}, {"ADILAB_LU_PANEL_REDUX", "1"}}},
        // The panels: `fused` (an earlier default), `one-trip` and `lean` (the default before
        // `registers`), lean also without subgroups, with every block size, row split and
        // work-group size that changes the slot layout (3 values a word: 8, 16, 32, 64, 128
        // leave 2, 1, 2, 1, 2 in the last). On llvmpipe one group takes a panel; on a GPU, 1025
        // and 1000 spread it over 4-33 groups (ADILAB_LU_PANEL_ROWS 32, ADILAB_LU_PANEL_GROUPS
        // 4) and exchange across them (passed on the H200, 2026-11-21).
        {"gpu-blocked", 64, {17, 257}, lu::TrailingUpdate::matmul, {{"ADILAB_LU_PANEL", "fused"}}},
        {"gpu-blocked", 32, {1, 2, 3, 100, 1025}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "lean"}, {"ADILAB_LU_PANEL_ROWS", "32"},
          {"ADILAB_LU_SUBGROUPS", "0"}}},
        {"gpu-blocked", 128, {3, 200}, lu::TrailingUpdate::matmul, {{"ADILAB_LU_PANEL", "fused"}}},
        {"gpu-blocked", 32, {1, 2, 3, 100}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "one-trip"}, {"ADILAB_LU_PANEL_ROWS", "32"}}},
        {"gpu-blocked", 16, {17, 257}, lu::TrailingUpdate::own, {{"ADILAB_LU_PANEL", "one-trip"}}},
        {"gpu-blocked", 8, {17, 100}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "one-trip"}, {"ADILAB_LU_PANEL_WG", "128"}}},
        {"gpu-blocked", 128, {3, 257}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "one-trip"}, {"ADILAB_LU_LOOKAHEAD", "0"}}},
        {"gpu-blocked", 32, {1000}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "one-trip"}, {"ADILAB_LU_PANEL_GROUPS", "4"},
          {"ADILAB_LU_SUBGROUPS", "0"}}},
        {"gpu-blocked", 64, {17, 257}, lu::TrailingUpdate::matmul, {{"ADILAB_LU_PANEL", "lean"}}},
        {"gpu-blocked", 128, {3, 200}, lu::TrailingUpdate::matmul, {{"ADILAB_LU_PANEL", "lean"}}},
        // `registers` (the default, so also every variant above without a panel knob) where
        // its layout changes: few rows a part (ADILAB_LU_PANEL_ROWS 32 at nb 32: 16 parts of 4
        // rows, so on a GPU 1025 takes 17 groups), fewer than 32 columns a warp (nb 8, 16), one
        // and eight invocations a column (work groups of 128 and 1024), without subgroups.
        {"gpu-blocked", 32, {1, 2, 3, 100, 1025}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "registers"}, {"ADILAB_LU_PANEL_ROWS", "32"}}},
        {"gpu-blocked", 8, {17, 100}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "registers"}}},
        {"gpu-blocked", 16, {17, 257}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "registers"}, {"ADILAB_LU_SUBGROUPS", "0"}}},
        {"gpu-blocked", 128, {3, 257}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "registers"}, {"ADILAB_LU_PANEL_WG", "128"}}},
        {"gpu-blocked", 128, {200, 1025}, lu::TrailingUpdate::matmul,
         {{"ADILAB_LU_PANEL", "registers"}, {"ADILAB_LU_PANEL_WG", "1024"},
          {"ADILAB_LU_PANEL_ROWS", "64"}}},
    };
    return all;
}

TEST(LuGpu, FactorResidualWithinTheFp32BoundOnRandomMatrices) {
    ADILAB_NEED_GL();
    unsigned seed = 100;
    for (const Variant& v : variants_under_test()) {
        for (int n : v.sizes) {
            SCOPED_TRACE(label(v) + " n=" + std::to_string(n));
            const std::vector<float> a = random_matrix(n, ++seed);
            const GpuResult r = factor_on_gpu(v.name, v.block, a, n, nullptr, v.update, v.knobs);
            ASSERT_TRUE(all_finite(r.lu));
            ASSERT_FALSE(r.singular.has_value());
            for (int k = 0; k < n; ++k) {
                ASSERT_GE(r.pivots[k], k);  // poisoned (-1) if never written
                ASSERT_LT(r.pivots[k], n);
            }
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < i; ++j) ASSERT_LE(std::abs(r.lu[i * n + j]), 1.0f);  // |L| <= 1
            // Wilkinson: the computed factors satisfy |PA - LU| <= gamma_n |L||U| for any order
            // of the n-term sums (blocked GEMM, FMA included), so in the infinity norm
            // ||PA - LU|| <= gamma_n || |L||U| ||; |U| carries the growth factor rho, and
            // || |L||U| || <= n rho ||A|| in the worst case. Factor 2: the GPU's float division
            // (the column of L) is not correctly rounded (NVIDIA: 2 ulp).
            const double residual = reference::factor_residual(a, r.lu, n, r.pivots);
            const double norm_a = reference::norm_inf(a, n);
            const double bound = 2.0 * gamma(n) * reference::abs_lu_norm_inf(r.lu, n) / norm_a;
            EXPECT_LE(residual, bound);
        }
    }
}

TEST(LuGpu, PivotSequenceMatchesTheReferenceWithoutTies) {
    ADILAB_NEED_GL();
    unsigned seed = 200;
    for (const Variant& v : variants_under_test()) {
        for (int n : v.sizes) {
            if (n == 1000) continue;  // llvmpipe time: 1025 stands for the big sizes here
            SCOPED_TRACE(label(v) + " n=" + std::to_string(n));
            const std::vector<float> a = matrix_without_ties(n, ++seed);
            const int m = n;
            std::vector<double> ref(a.begin(), a.end());
            std::vector<int> ref_pivots(m);
            const auto report = reference::lu_factor<double>(ref, m, ref_pivots);
            // The construction's promise, checked: every step's best candidate beats the second
            // by a margin no fp32 rounding of these O(1) values can bridge.
            ASSERT_GT(report.min_pivot_gap, 0.25);
            const GpuResult r = factor_on_gpu(v.name, v.block, a, m, nullptr, v.update, v.knobs);
            EXPECT_EQ(r.pivots, ref_pivots);
        }
    }
}

TEST(LuGpu, SolveResidualWithinTheBackwardErrorBound) {
    ADILAB_NEED_GL();
    unsigned seed = 300;
    for (const Variant& v : variants_under_test()) {
        for (int n : v.sizes) {
            if (n > 200) continue;  // the factor test covers the big sizes
            SCOPED_TRACE(label(v) + " n=" + std::to_string(n));
            const std::vector<float> a = random_matrix(n, ++seed);
            std::vector<float> b(n);
            std::mt19937 rng(seed + 1000);
            std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
            for (float& x : b) x = dist(rng);
            lu::Factors f;
            const GpuResult r = factor_on_gpu(v.name, v.block, a, n, &f, v.update, v.knobs);
            gl::Buffer rhs = gl::Buffer::from(b), x(b.size() * sizeof(float));
            x.poison();
            lu::solve(f, rhs, x);
            const std::vector<float> solution = x.read_all<float>();
            ASSERT_TRUE(all_finite(solution));
            // Higham Thm 9.4: the computed x solves (A + dA) x = b with |dA| <= gamma_3n |L||U|,
            // so ||Ax - b|| <= gamma_3n || |L||U| || ||x||. Factor 2 for the GPU's division.
            const double residual = reference::solve_residual(a, n, solution, b);
            const double bound = 2.0 * gamma(3 * n) * reference::abs_lu_norm_inf(r.lu, n) /
                                 reference::norm_inf(a, n);
            EXPECT_LE(residual, bound);
            // The rhs is left alone.
            EXPECT_EQ(rhs.read_all<float>(), b);
        }
    }
}

TEST(LuGpu, ZerosOnTheDiagonalNeedPivoting) {
    ADILAB_NEED_GL();
    for (const Variant& v : variants_under_test()) {
        for (int n : {2, 17, 100}) {
            SCOPED_TRACE(label(v) + " n=" + std::to_string(n));
            std::vector<float> a = matrix_without_ties(n, 400u + n);
            for (int i = 0; i < n; ++i) a[i * n + i] = 0.0f;
            // Also an exact case: the anti-diagonal permutation, whose LU is exact.
            std::vector<float> anti(static_cast<std::size_t>(n) * n, 0.0f);
            for (int i = 0; i < n; ++i) anti[i * n + (n - 1 - i)] = static_cast<float>(i + 1);
            for (const auto& m : {a, anti}) {
                std::vector<double> ref(m.begin(), m.end());
                std::vector<int> ref_pivots(n);
                const auto report = reference::lu_factor<double>(ref, n, ref_pivots);
                ASSERT_EQ(report.singular_column, -1);
                const GpuResult r =
                    factor_on_gpu(v.name, v.block, m, n, nullptr, v.update, v.knobs);
                ASSERT_TRUE(all_finite(r.lu));
                EXPECT_FALSE(r.singular.has_value());
                const double bound = 2.0 * gamma(n) * reference::abs_lu_norm_inf(r.lu, n) /
                                     reference::norm_inf(m, n);  // as in the random test
                EXPECT_LE(reference::factor_residual(m, r.lu, n, r.pivots), bound);
                // The anti-diagonal has one candidate per column (gap 1): always compared.
                if (report.min_pivot_gap > 0.25) {
                    EXPECT_EQ(r.pivots, ref_pivots);
                }
            }
        }
    }
}

TEST(LuGpu, SingularMatrixIsReportedNamingTheColumnWithoutNaN) {
    ADILAB_NEED_GL();
    for (const Variant& v : variants_under_test()) {
        SCOPED_TRACE(label(v));
        // Exact arithmetic: small integers. Column 7 is zero, so it stays zero under every
        // update (each subtracts l * U(k,7) = l * 0): the first zero pivot is at column 7.
        const int n = 20;
        std::vector<float> a = random_matrix(n, 500);
        for (float& x : a) x = std::round(x * 8.0f);
        for (int i = 0; i < n; ++i) a[i * n + 7] = 0.0f;
        std::vector<double> ref(a.begin(), a.end());
        std::vector<int> ref_pivots(n);
        ASSERT_EQ(reference::lu_factor<double>(ref, n, ref_pivots).singular_column, 7);
        lu::Factors f;
        const GpuResult r = factor_on_gpu(v.name, v.block, a, n, &f, v.update, v.knobs);
        ASSERT_TRUE(all_finite(r.lu));
        ASSERT_TRUE(r.singular.has_value());
        EXPECT_EQ(*r.singular, 7);
        gl::Buffer b(n * sizeof(float)), x(n * sizeof(float));
        b.fill(1.0f);
        try {
            lu::solve(f, b, x);
            ADD_FAILURE() << "solve of a singular matrix did not throw";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("column 7"), std::string::npos) << e.what();
        }
        const lu::Determinant d = lu::determinant(f);
        EXPECT_EQ(d.sign, 0);
        EXPECT_EQ(d.value(), 0.0);
        // Exact singular 2 x 2: [[1, 2], [2, 4]]: pivot row 1, then 2 - 0.5 * 4 = 0 at column 1.
        const std::vector<float> two = {1, 2, 2, 4};
        const GpuResult s = factor_on_gpu(v.name, v.block, two, 2, nullptr, v.update, v.knobs);
        ASSERT_TRUE(all_finite(s.lu));
        ASSERT_TRUE(s.singular.has_value());
        EXPECT_EQ(*s.singular, 1);
        EXPECT_EQ(s.pivots, (std::vector<int>{1, 1}));
    }
}

TEST(LuGpu, DeterminantSignAndLogFromPivots) {
    ADILAB_NEED_GL();
    for (const Variant& v : variants_under_test()) {
        SCOPED_TRACE(label(v));
        // A permuted diagonal: det = sign(permutation) * prod(diagonal), exact in fp32.
        const int n = 5;
        const std::vector<int> perm = {2, 0, 4, 1, 3};  // its sign from the inversions below
        const std::vector<float> diag = {2, -3, 0.5f, 4, -1};
        std::vector<float> a(n * n, 0.0f);
        for (int i = 0; i < n; ++i) a[i * n + perm[i]] = diag[i];
        int inversions = 0;
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) inversions += perm[i] > perm[j];
        const double expected = (inversions % 2 ? -1.0 : 1.0) * 2 * -3 * 0.5 * 4 * -1;
        lu::Factors f;
        factor_on_gpu(v.name, v.block, a, n, &f, v.update, v.knobs);
        const lu::Determinant d = lu::determinant(f);
        EXPECT_EQ(d.sign, expected > 0 ? 1 : -1);
        EXPECT_NEAR(d.log_abs, std::log(std::abs(expected)), 1e-6);
        EXPECT_NEAR(d.value(), expected, 1e-5 * std::abs(expected));

        // Large n: det overflows float and double's exp range is not needed for log|det|.
        // Compared with the reduction done on the host over the GPU's own factors: each log is
        // computed in float (relative 2^-23 of |log|u||, plus an ulp), summed in double.
        const int m = 100;
        const std::vector<float> big = random_matrix(m, 600);
        std::vector<float> scaled(big);
        for (float& x : scaled) x *= 1e3f;  // |det| ~ 1e300 * ...: beyond float
        lu::Factors g;
        const GpuResult r = factor_on_gpu(v.name, v.block, scaled, m, &g, v.update, v.knobs);
        const lu::Determinant dg = lu::determinant(g);
        const reference::Determinant dr = reference::lu_determinant<float>(r.lu, m, r.pivots);
        EXPECT_EQ(dg.sign, dr.sign);
        double max_log = 0;
        for (int k = 0; k < m; ++k)
            max_log = std::max(max_log, std::abs(std::log(std::abs(double(r.lu[k * m + k])))));
        EXPECT_NEAR(dg.log_abs, dr.log_abs, m * (max_log + 1.0) * 0x1p-22);
        EXPECT_FALSE(std::isnan(dg.value()));
    }
}

TEST(LuGpu, UnknownVariantAndBadBlockAreErrors) {
    EXPECT_THROW(lu::make_solver("gpu-magic"), Error);
    EXPECT_THROW(lu::make_solver("gpu-blocked", 12), Error);
    EXPECT_NO_THROW(lu::make_solver("gpu-blocked", 32));
}

}  // namespace
}  // namespace adilab
