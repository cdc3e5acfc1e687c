// LU with partial pivoting on the GPU (solvers/lu) against the float64 CPU reference
// (solvers/reference/lu.hpp): factor residuals within Wilkinson's fp32 bound, pivot sequences,
// solve residuals, determinants, zero diagonals and singular matrices. Pivots and solutions are
// poisoned (NaN) before each run so an unwritten element fails. Sizes stay small: llvmpipe.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
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
    const std::size_t size = static_cast<std::size_t>(n);
    std::vector<double> l(size * size, 0.0), u(size * size, 0.0);
    for (int i = 0; i < n; ++i) {
        l[i * size + i] = 1.0;
        for (int j = 0; j < i; ++j) l[i * size + j] = one(rng) * (j == i - 1 ? 0.5 : 0.5 / n);
        u[i * size + i] = (rng() & 1 ? 1.0 : -1.0) * diag(rng);
        for (int j = i + 1; j < n; ++j) u[i * size + j] = one(rng) / n;
    }
    std::vector<int> order(size);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<float> a(size * size);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k <= std::min(i, j); ++k) s += l[i * size + k] * u[k * size + j];
            a[order[i] * size + j] = static_cast<float>(s);
        }
    return a;
}

struct GpuResult {
    std::vector<float> lu;
    std::vector<int> pivots;
    std::optional<int> singular;
};

GpuResult factor_on_gpu(const std::string& name, int block, const std::vector<float>& a, int n,
                        lu::Factors* keep = nullptr, const lu::Tuning& tuning = {}) {
    lu::Factors f = lu::Factors::upload(a, n);
    f.pivots.poison();
    std::unique_ptr<lu::Solver> solver = lu::make_solver(name, block, tuning);
    solver->factor(f);
    GpuResult r{f.values.read_all<float>(), f.pivots.read_all<int>(), lu::singular_column(f)};
    if (keep) *keep = std::move(f);
    return r;
}

bool all_finite(const std::vector<float>& v) {
    return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

// gpu-blocked's tuning (lu::Tuning) with some fields changed from the defaults.
lu::Tuning tuned(std::initializer_list<std::pair<const char*, int>> changes) {
    lu::Tuning t;
    std::vector<TuningField> fields = lu::tuning_fields(t);
    for (const auto& [name, value] : changes) {
        // `name` captured by an init-capture: clang before 16 (clang-tidy's parser in .ci/tidy)
        // cannot capture a structured binding itself.
        auto it = std::find_if(fields.begin(), fields.end(),
                               [name = name](const TuningField& f) { return f.name == name; });
        if (it == fields.end()) throw std::invalid_argument(std::string("no lu.") + name);
        *it->value = value;
    }
    return t;
}

struct Variant {
    std::string name;
    int block;
    std::vector<int> sizes;
    lu::Tuning tuning = {};
};

std::string label(const Variant& v) {
    return v.name + (v.name == "gpu-blocked"
                         ? " block " + std::to_string(v.block) + " " + lu::describe(v.tuning)
                         : "");
}

// Unblocked is n dispatch pairs over the whole trailing matrix: small sizes only on llvmpipe.
// Blocked takes the big ones, with block sizes that exercise both panel paths there (the
// one-dispatch panel for panels that fit a work group, the column-by-column fallback
// otherwise). The block-row solve is X = L11^-1 then a GEMM at every block size; on llvmpipe
// block 128's L11 does not fit shared memory (32 KiB) in trtri.comp and is read from the matrix.
const std::vector<Variant>& variants_under_test() {
    static const std::vector<Variant> all = {
        {"cpu", 0, {1, 2, 3, 17, 100}},
        {"gpu-unblocked", 0, {1, 2, 3, 17, 100}},
        // The defaults (registers panel, look-ahead): every block size; block 8 takes the
        // singular matrix (n = 20) over 3 panels.
        {"gpu-blocked", 8, {1, 2, 3, 17, 100}},
        {"gpu-blocked", 16, {1, 3, 17, 100, 1000}},
        {"gpu-blocked", 32, {1, 2, 3, 17, 100, 257, 1025}},
        {"gpu-blocked", 64, {3, 17, 100, 257}},
        {"gpu-blocked", 128, {3, 17, 200, 257}},
        // Without look-ahead (panel, block row, trailing update one after the other).
        {"gpu-blocked", 32, {100, 257}, tuned({{"lookahead", 0}})},
        {"gpu-blocked", 64, {17, 257, 1025}, tuned({{"lookahead", 0}})},
        {"gpu-blocked", 128, {200, 257}, tuned({{"lookahead", 0}})},
        // `lean` (the registers panel's fallback past 64 rows an invocation, which these sizes do
        // not reach), also without subgroups, with few rows a group, 128-invocation groups and
        // a cap on the groups. On llvmpipe one group takes a panel (block 128: 49 rows, so
        // n = 150 goes column by column, then one dispatch; n = 200 column by column); on a GPU,
        // 1025 and 1000 spread it over 4-33 groups and exchange across them.
        {"gpu-blocked",
         32,
         {1, 2, 3, 100, 1025},
         tuned({{"registers_panel", 0}, {"panel_rows", 32}, {"subgroups", 0}})},
        {"gpu-blocked", 64, {17, 257}, tuned({{"registers_panel", 0}})},
        {"gpu-blocked", 128, {3, 150, 200}, tuned({{"registers_panel", 0}})},
        {"gpu-blocked", 8, {17, 100}, tuned({{"registers_panel", 0}, {"panel_group_size", 128}})},
        {"gpu-blocked",
         32,
         {1000},
         tuned({{"registers_panel", 0}, {"panel_groups", 4}, {"subgroups", 0}})},
        // `registers` where its layout changes: few rows a part (panel_rows 32 at nb 32: 16
        // parts of 4 rows, so on a GPU 1025 takes 17 groups), fewer than 32 columns a warp (nb 8,
        // 16), one and eight invocations a column (work groups of 128 and 1024), without
        // subgroups.
        {"gpu-blocked", 32, {1, 2, 3, 100, 1025}, tuned({{"panel_rows", 32}})},
        {"gpu-blocked", 16, {17, 257}, tuned({{"subgroups", 0}})},
        {"gpu-blocked", 128, {3, 257}, tuned({{"panel_group_size", 128}})},
        {"gpu-blocked", 128, {200, 1025}, tuned({{"panel_group_size", 1024}, {"panel_rows", 64}})},
    };
    return all;
}

// The bench names the panel that ran, not the one asked for: registers falls back to lean past
// 64 rows an invocation, and a panel taller than the resident groups hold goes column by column.
TEST(LuTuning, PanelThatRunsFollowsTheRowsAnInvocationHolds) {
    gl::DeviceInfo gpu;
    gpu.max_shared_memory_bytes = 48 * 1024;
    gpu.max_work_group_invocations = 1024;
    const lu::Tuning t = lu::Tuning::defaults(gpu);
    // nb 128: 4 invocations a column, 128 groups; 64 rows each hold 4 x 64 x 128 = 32768 rows.
    EXPECT_EQ(lu::panel_that_runs(gpu, 8192, 128, t), "registers");
    EXPECT_EQ(lu::panel_that_runs(gpu, 32768, 128, t), "registers");
    // Past that, lean: 80 rows a group of 48 KiB, 10240 in all, so the first panels of so
    // tall a matrix go column by column.
    EXPECT_EQ(lu::panel_that_runs(gpu, 32769, 128, t), "columns+lean");
    EXPECT_EQ(lu::panel_that_runs(gpu, 8192, 128, tuned({{"registers_panel", 0}})), "lean");
    // A software renderer runs one group: lean at nb 128 holds 49 rows of its 32 KiB.
    gl::DeviceInfo software = gpu;
    software.software = true;
    software.max_shared_memory_bytes = 32 * 1024;
    EXPECT_EQ(lu::panel_that_runs(software, 150, 128, tuned({{"registers_panel", 0}})),
              "columns+lean");  // the second panel's 22 rows fit
    EXPECT_EQ(lu::panel_that_runs(software, 200, 128, tuned({{"registers_panel", 0}})),
              "columns");  // 200 and 72 rows: neither fits
    EXPECT_EQ(lu::panel_that_runs(software, 200, 128, t), "registers");
    EXPECT_EQ(lu::describe(t),
              "lu.registers_panel=1 lu.panel_rows=64 lu.panel_groups=128 lu.panel_group_size=512 "
              "lu.swap_columns=64 lu.lookahead=1 lu.subgroups=1");
}

TEST(LuGpu, FactorResidualWithinTheFp32BoundOnRandomMatrices) {
    ADILAB_NEED_GL();
    unsigned seed = 100;
    for (const Variant& v : variants_under_test()) {
        for (int n : v.sizes) {
            SCOPED_TRACE(label(v) + " n=" + std::to_string(n));
            const std::vector<float> a = random_matrix(n, ++seed);
            const GpuResult r = factor_on_gpu(v.name, v.block, a, n, nullptr, v.tuning);
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
            const GpuResult r = factor_on_gpu(v.name, v.block, a, m, nullptr, v.tuning);
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
            const GpuResult r = factor_on_gpu(v.name, v.block, a, n, &f, v.tuning);
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
                const GpuResult r = factor_on_gpu(v.name, v.block, m, n, nullptr, v.tuning);
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
        const GpuResult r = factor_on_gpu(v.name, v.block, a, n, &f, v.tuning);
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
        const GpuResult s = factor_on_gpu(v.name, v.block, two, 2, nullptr, v.tuning);
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
        factor_on_gpu(v.name, v.block, a, n, &f, v.tuning);
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
        const GpuResult r = factor_on_gpu(v.name, v.block, scaled, m, &g, v.tuning);
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
