// The CPU side of the power method: generators, the PageRank construction (checked against
// Google's formula computed directly), the host method on known spectra, and input checks.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "solvers/common/csr.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/power/power.hpp"
#include "solvers/reference/power_reference.hpp"

namespace adilab {
namespace {

CsrMatrix from_dense(int n, const std::vector<double>& dense) {
    return csr_from_dense(n, dense);
}

TEST(RandomCsr, SeededSortedAndWithinBounds) {
    CsrMatrix a = random_csr(1000, 7, 3), b = random_csr(1000, 7, 3), c = random_csr(1000, 7, 4);
    EXPECT_EQ(a.columns, b.columns);
    EXPECT_EQ(a.values, b.values);
    EXPECT_NE(a.columns, c.columns);
    ASSERT_EQ(a.row_offsets.size(), 1001u);
    for (int r = 0; r < a.rows; ++r) {
        const int count = a.row_offsets[r + 1] - a.row_offsets[r];
        EXPECT_GE(count, 1);
        EXPECT_LE(count, 7);
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) {
            EXPECT_GE(a.columns[k], 0);
            EXPECT_LT(a.columns[k], 1000);
            if (k > a.row_offsets[r]) {
                EXPECT_LT(a.columns[k - 1], a.columns[k]);
            }
            EXPECT_GE(a.values[k], 0.0);
            EXPECT_LT(a.values[k], 2.0 * 7);  // duplicates add at most per_row values < 1
        }
    }
}

TEST(RandomCsr, BandKeepsColumnsNearTheDiagonal) {
    CsrMatrix a = random_csr(500, 6, 2, 3);
    for (int r = 0; r < a.rows; ++r)
        for (int k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k) {
            EXPECT_LE(std::abs(a.columns[k] - r), 3);
            EXPECT_GE(a.columns[k], 0);
            EXPECT_LT(a.columns[k], 500);
        }
}

TEST(PageRank, ColumnStochasticAndEqualToGooglesFormula) {
    const int n = 300;
    const double d = 0.85;
    CsrMatrix a = pagerank_csr(n, d, 9);
    ASSERT_EQ(a.rows, n + 1);
    std::vector<double> column_sums(static_cast<std::size_t>(n) + 1, 0.0);
    for (std::size_t k = 0; k < a.columns.size(); ++k) column_sums[a.columns[k]] += a.values[k];
    for (double s : column_sums) EXPECT_NEAR(s, 1.0, 1e-12);  // a sum of <= 1000 terms

    // Google's PageRank straight from the graph: dangling pages spread evenly.
    // Recover the graph from A's page block (A[j][i] = d / outdeg(i) for a link i -> j).
    std::vector<std::vector<int>> links(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j)
        for (int k = a.row_offsets[j]; k < a.row_offsets[j + 1]; ++k)
            if (a.columns[k] < n) links[static_cast<std::size_t>(a.columns[k])].push_back(j);
    int dangling = 0;
    for (const auto& l : links) dangling += l.empty();
    EXPECT_GT(dangling, 0);  // the generator makes some, so the test covers them
    std::vector<double> p(static_cast<std::size_t>(n), 1.0 / n), next(p.size());
    for (int it = 0; it < 500; ++it) {
        double dangling_mass = 0.0;
        for (int i = 0; i < n; ++i)
            if (links[i].empty()) dangling_mass += p[i];
        std::fill(next.begin(), next.end(), (1.0 - d) / n + d * dangling_mass / n);
        for (int i = 0; i < n; ++i)
            for (int j : links[i]) next[j] += d * p[i] / links[i].size();
        p.swap(next);
    }
    auto outcome = reference::power_method(a, {}, 1e-14, 5000);
    ASSERT_TRUE(outcome.result.converged);
    EXPECT_NEAR(outcome.result.lambda, 1.0, 1e-12);
    const double mass = std::accumulate(outcome.vector.begin(), outcome.vector.end() - 1, 0.0);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(outcome.vector[i] / mass, p[i], 1e-10) << "page " << i;
}

TEST(HostPower, KnownSpectra) {
    // Diagonal with a negative dominant eigenvalue: the signed normalisation finds -5.
    auto diag = from_dense(3, {2, 0, 0, 0, -5, 0, 0, 0, 1});
    auto r = reference::power_method(diag, {}, 1e-13, 1000);
    EXPECT_TRUE(r.result.converged);
    EXPECT_DOUBLE_EQ(r.result.lambda, -5.0);
    EXPECT_LT(power::residual(diag, r.result.lambda, r.vector), 1e-12);

    // Symmetric tridiagonal (-1, 2, -1), n = 8: lambda_max = 2 + 2 cos(pi / 9).
    std::vector<double> t(64, 0.0);
    for (int i = 0; i < 8; ++i) {
        t[static_cast<std::size_t>(i * 8 + i)] = 2;
        if (i > 0) t[static_cast<std::size_t>(i * 8 + i - 1)] = -1;
        if (i < 7) t[static_cast<std::size_t>(i * 8 + i + 1)] = -1;
    }
    // The all-ones start is orthogonal to the dominant (alternating) eigenvector, so the method
    // would find it only through rounding; a skewed start has a component along it.
    std::vector<double> start = {1, 0.5, 0.25, 0.125, 0.1, 0.2, 0.3, 0.4};
    auto tri = reference::power_method(from_dense(8, t), start, 1e-13, 20000);
    EXPECT_TRUE(tri.result.converged);
    EXPECT_NEAR(tri.result.lambda, 2 + 2 * std::cos(M_PI / 9), 1e-10);
}

TEST(HostPower, BreakdownNonConvergenceAndBadInput) {
    auto shift = from_dense(3, {0, 1, 0, 0, 0, 1, 0, 0, 0});  // nilpotent: A^3 = 0
    auto r = reference::power_method(shift, {}, 1e-12, 100);
    EXPECT_TRUE(r.result.breakdown);
    EXPECT_FALSE(r.result.converged);
    EXPECT_EQ(r.result.iterations, 3);
    EXPECT_EQ(r.result.lambda, 0.0);

    auto flip = from_dense(2, {1, 0, 0, -1});  // |lambda_1| = |lambda_2|: x oscillates forever
    auto f = reference::power_method(flip, {}, 1e-12, 50);
    EXPECT_FALSE(f.result.converged);
    EXPECT_EQ(f.result.iterations, 50);

    const std::vector<double> zero(3, 0.0);
    EXPECT_THROW(reference::power_method(shift, zero, 1e-12, 10), Error);
    CsrMatrix rect;
    rect.rows = 2;
    rect.cols = 3;
    rect.row_offsets = {0, 0, 0};
    EXPECT_THROW(reference::power_method(rect, {}, 1e-12, 10), Error);
    EXPECT_THROW(power::make_variant("gpu-fastest"), Error);
}

// Every knob of the GPU variants is a listed field, so a report that records the fields records
// the complete tuning; the defaults fit the device's shared memory.
TEST(HostPower, TuningListsEveryFieldWithItsDefault) {
    power::Tuning t;
    EXPECT_EQ(power::describe(t),
              "power.threads_per_row=0 power.stream_chunk=1024 power.max_groups=8192 "
              "power.x_image=1 power.x_block_gobs=0 power.unroll=8 power.subgroups=1 "
              "power.step3_groups=1024 power.check_every=16 power.flag_lag=1 power.flag_poll=1 "
              "power.flush_every=1 power.atomic_max=1 power.emulate_atomic_max=0 "
              "power.key_slots=8");
    for (const TuningField& f : power::tuning_fields(t)) {
        EXPECT_GE(*f.value, f.min) << f.name;
        EXPECT_LE(*f.value, f.max) << f.name;
        EXPECT_FALSE(f.help.empty()) << f.name;
    }
    gl::DeviceInfo small;
    small.max_shared_memory_bytes = 8192;  // (chunk + 256) doubles must fit: 768
    EXPECT_EQ(power::Tuning::defaults(small).stream_chunk, 768);
}

TEST(HostPower, LayoutFollowsTheRowLength) {
    using Layout = power::Options::Layout;
    EXPECT_EQ(power::choose_layout(random_csr(1000, 10)), Layout::rows);
    EXPECT_EQ(power::choose_threads_per_row(random_csr(1000, 10)), 4);
    EXPECT_EQ(power::choose_threads_per_row(random_csr(1000, 50)), 16);
    EXPECT_EQ(power::choose_threads_per_row(random_csr(1000, 3)), 1);
    EXPECT_EQ(power::choose_threads_per_row(random_csr(2000, 1000)), 32);
    // PageRank's teleport row holds every page: far longer than the mean.
    EXPECT_EQ(power::choose_layout(pagerank_csr(5000)), Layout::stream);
}

}  // namespace
}  // namespace adilab
