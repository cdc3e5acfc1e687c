// Every GPU power-method variant against the float64 host method: random matrices of awkward
// sizes, each SpMV layout, known spectra, empty rows, breakdown, non-convergence, and the exact
// iteration count of gpu-opt-async. Sizes stay small for llvmpipe.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "solvers/common/csr.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/power/power.hpp"
#include "solvers/reference/power_reference.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab {
namespace {

const std::vector<std::string> kGpuVariants = {"gpu-naive", "gpu-full", "gpu-opt", "gpu-opt-async"};

CsrMatrix from_dense(int n, const std::vector<double>& dense) {
    return csr_from_dense(n, dense);
}

// With one entry per row a random matrix is often a permutation-like, reducible one whose
// eigenvalues share the top magnitude. A diagonal entry a_00 = 4p + 1 (p entries per row) puts
// one eigenvalue alone in Gershgorin disc 0 ([3p + 1, 5p + 1]), apart from the others
// (|z| <= 2p): a strictly dominant eigenvalue, whatever the random part.
CsrMatrix with_dominant_entry(CsrMatrix a, int per_row) {
    const double big = 4.0 * per_row + 1.0;
    if (a.row_offsets[1] > 0 && a.columns[0] == 0) {
        a.values[0] += big;
        return a;
    }
    a.columns.insert(a.columns.begin(), 0);
    a.values.insert(a.values.begin(), big);
    for (std::size_t r = 1; r < a.row_offsets.size(); ++r) ++a.row_offsets[r];
    return a;
}

// 0: automatic; > 0: stream with that chunk; < 0: rows with -layout threads per row.
void set_layout(power::Options& options, int layout) {
    using Layout = power::Options::Layout;
    options.layout = layout == 0 ? Layout::automatic : layout > 0 ? Layout::stream : Layout::rows;
    if (layout > 0) options.tuning.stream_chunk = layout;
    if (layout < 0) options.tuning.threads_per_row = -layout;
}

power::Solution run(const std::string& variant, const CsrMatrix& a, power::Options options,
                    std::span<const double> start = {}) {
    auto v = power::make_variant(variant);
    return power::solve(*v, a, options, start);
}

// Relative difference of two eigenvalue estimates.
double relative(double a, double b) {
    return std::abs(a - b) / std::max(std::abs(b), 1e-300);
}

TEST(PowerGpu, AgreesWithHostOnRandomMatrices) {
    ADILAB_NEED_GL();
    power::Options options;
    options.tol = 1e-12;
    options.max_iter = 500;
    options.tuning.check_every = 5;
    for (int n : {1, 2, 3, 31, 33, 1000, 1025}) {
        for (int per_row : {1, 5, 40}) {
            CsrMatrix a = random_csr(n, per_row, static_cast<std::uint64_t>(n * 100 + per_row));
            if (per_row == 1) a = with_dominant_entry(std::move(a), per_row);
            auto host = reference::power_method(a, {}, options.tol, options.max_iter);
            ASSERT_TRUE(host.result.converged) << n << " " << per_row;
            for (const auto& name : kGpuVariants) {
                // Every layout on the small sizes, the automatic one on the large (llvmpipe time);
                // OneProductMatchesTheHostSpmv covers each layout at n = 777.
                for (int layout :
                     n <= 33 ? std::vector<int>{0, 256, -1, -4, -32} : std::vector<int>{0}) {
                    set_layout(options, layout);
                    const int tpr = layout;
                    auto s = run(name, a, options);
                    SCOPED_TRACE(name + " n=" + std::to_string(n) + " per_row=" +
                                 std::to_string(per_row) + " layout=" + std::to_string(tpr));
                    // fp64 sums in another order differ by ~1e-16 relative per product; the
                    // requirement is 1e-10.
                    EXPECT_LT(relative(s.result.lambda, host.result.lambda), 1e-10);
                    EXPECT_TRUE(s.result.converged);
                    EXPECT_FALSE(s.result.breakdown);
                    // The same arithmetic up to rounding stops at the same step, give or take
                    // one where the last update sits at tol.
                    EXPECT_NEAR(s.result.iterations, host.result.iterations, 1);
                    ASSERT_EQ(s.vector.size(), host.vector.size());
                    for (std::size_t i = 0; i < s.vector.size(); ++i)
                        ASSERT_NEAR(s.vector[i], host.vector[i], 1e-9) << "entry " << i;
                    // ||Ax - lambda x|| is about |lambda| * tol at convergence.
                    EXPECT_LT(s.residual, 1e-9 * std::max(1.0, std::abs(s.result.lambda)));
                }
            }
        }
    }
}

TEST(PowerGpu, OneProductMatchesTheHostSpmv) {
    ADILAB_NEED_GL();
    // One iteration: x_1 = A x_0 / lambda, so this checks SpMV (every layout) entry by entry,
    // empty rows included (they must come out 0, not the NaN the buffers are poisoned with),
    // and a full row (777 entries) that spans several stream chunks.
    CsrMatrix a = random_csr(777, 6, 5);
    {
        const int r = 5, removed = a.row_offsets[r + 1] - a.row_offsets[r];
        a.columns.erase(a.columns.begin() + a.row_offsets[r],
                        a.columns.begin() + a.row_offsets[r + 1]);
        a.values.erase(a.values.begin() + a.row_offsets[r],
                       a.values.begin() + a.row_offsets[r + 1]);
        std::vector<std::int32_t> full(777);
        std::vector<double> full_values(777);
        for (int c = 0; c < 777; ++c) {
            full[c] = c;
            full_values[c] = 0.001 * (c % 13);
        }
        a.columns.insert(a.columns.begin() + a.row_offsets[r], full.begin(), full.end());
        a.values.insert(a.values.begin() + a.row_offsets[r], full_values.begin(),
                        full_values.end());
        for (int q = r + 1; q <= a.rows; ++q) a.row_offsets[q] += 777 - removed;
    }
    for (int r = 0; r < a.rows; r += 10) {  // empty every tenth row
        const int removed = a.row_offsets[r + 1] - a.row_offsets[r];
        a.columns.erase(a.columns.begin() + a.row_offsets[r],
                        a.columns.begin() + a.row_offsets[r + 1]);
        a.values.erase(a.values.begin() + a.row_offsets[r],
                       a.values.begin() + a.row_offsets[r + 1]);
        for (int q = r + 1; q <= a.rows; ++q) a.row_offsets[q] -= removed;
    }
    power::Options options;
    options.max_iter = 1;
    auto host = reference::power_method(a, {}, 0.0, 1);
    // x from the 2D texture (default) and the storage buffer; one thread per row with the
    // unrolled gathers (default 8, 3: a remainder in most rows) and the plain loop.
    for (const auto& name : kGpuVariants)
        for (int source : {0, 1})
            for (int layout : source != 1
                                  ? std::vector<int>{1024, -1, -32}
                                  : std::vector<int>{256, 512, 1024, 2048, -1, -2, -8, -16, -32})
                for (int unroll : layout == -1 ? std::vector<int>{8, 3, 0} : std::vector<int>{8}) {
                    set_layout(options, layout);
                    options.tuning.x_image = source == 0 ? 1 : 0;
                    options.tuning.unroll = unroll;
                    auto s = run(name, a, options);
                    SCOPED_TRACE(name + " layout=" + std::to_string(layout) + " source=" +
                                 std::to_string(source) + " unroll=" + std::to_string(unroll));
                    EXPECT_FALSE(s.result.converged);
                    EXPECT_EQ(s.result.iterations, 1);
                    for (std::size_t i = 0; i < s.vector.size(); ++i) {
                        // Sums in another order: a few ulps of the row's magnitude (the full row
                        // adds 777 terms: 777 * 2^-53 * |sum| < 1e-13).
                        ASSERT_NEAR(s.vector[i], host.vector[i], 1e-13) << "row " << i;
                        if (i % 10 == 0) {
                            ASSERT_EQ(s.vector[i], 0.0);
                        }
                    }
                }
}

TEST(PowerGpu, XTextureCarriesEveryBitPattern) {
    ADILAB_NEED_GL();
    // x reaches the SpMV through a 2D RGBA32F texture as raw 32-bit words: words that read as
    // float NaNs, infinities, denormals or -0 must arrive unchanged (no canonicalising, no
    // flush to zero). A start vector whose low (and some high) words are such patterns goes
    // through the mirror kernel (iteration 1); x_1's arbitrary words go through Step3's image
    // store (iteration 2). A flushed low word moves a double by up to 2^-29 relative, far above
    // the 1e-13 tolerance of sums in another order.
    const int n = 1531;
    CsrMatrix a = random_csr(n, 9, 77);
    const std::uint32_t low_words[] = {0x00000001u, 0x007FFFFFu, 0x7F800000u, 0xFF800000u,
                                       0x7FC00001u, 0x7F800001u, 0x80000000u, 0xFFFFFFFFu};
    std::vector<double> start(n);
    for (int i = 0; i < n; ++i) {
        // High word: sign, an exponent near 2^0 and mantissa bits (a finite, moderate double).
        const std::uint32_t high = (i % 3 == 0 ? 0xBFF00000u : 0x3FF00000u) |
                                   ((static_cast<std::uint32_t>(i) * 2654435761u) & 0x000FFFFFu);
        const std::uint64_t bits = (static_cast<std::uint64_t>(high) << 32) | low_words[i % 8];
        std::memcpy(&start[static_cast<std::size_t>(i)], &bits, sizeof(double));
    }
    for (int iterations : {1, 2}) {
        auto host = reference::power_method(a, start, 0.0, iterations);
        for (const auto& name : kGpuVariants) {
            power::Options options;
            options.max_iter = iterations;
            options.tol = 0.0;
            auto s = run(name, a, options, start);
            SCOPED_TRACE(name + " iterations=" + std::to_string(iterations));
            ASSERT_EQ(s.vector.size(), host.vector.size());
            // |x| <= 1 after the max-magnitude scaling; 9 products in another order differ by
            // ~1e-15, a flushed or canonicalised word by ~1e-10.
            for (std::size_t i = 0; i < s.vector.size(); ++i)
                ASSERT_NEAR(s.vector[i], host.vector[i], 1e-13) << "row " << i;
        }
    }
}

TEST(PowerGpu, PageRankAgreesWithHost) {
    ADILAB_NEED_GL();
    // The teleport row holds all 2000 pages: it covers whole stream chunks, which the work group
    // adds up as a tree.
    const CsrMatrix a = pagerank_csr(2000, 0.85, 4);
    power::Options options;
    options.tol = 1e-12;
    options.max_iter = 1000;
    auto host = reference::power_method(a, {}, options.tol, options.max_iter);
    ASSERT_TRUE(host.result.converged);
    for (int layout : {0, 256, 1024, -4}) {
        set_layout(options, layout);
        auto s = run("gpu-opt", a, options);
        SCOPED_TRACE(layout);
        EXPECT_TRUE(s.result.converged);
        EXPECT_LT(relative(s.result.lambda, host.result.lambda), 1e-10);
        EXPECT_NEAR(s.result.iterations, host.result.iterations, 1);
        for (std::size_t i = 0; i < s.vector.size(); ++i)
            ASSERT_NEAR(s.vector[i], host.vector[i], 1e-9) << "entry " << i;
    }
}

TEST(PowerGpu, KnownSpectra) {
    ADILAB_NEED_GL();
    power::Options options;
    options.tol = 1e-13;
    options.max_iter = 5000;
    // Row-stochastic: A 1 = 1, so lambda = 1 (a positive matrix: simple and dominant).
    CsrMatrix stochastic = random_csr(300, 7, 77);
    for (int r = 0; r < stochastic.rows; ++r) {
        double sum = 0.0;
        for (int k = stochastic.row_offsets[r]; k < stochastic.row_offsets[r + 1]; ++k)
            sum += stochastic.values[k];
        for (int k = stochastic.row_offsets[r]; k < stochastic.row_offsets[r + 1]; ++k)
            stochastic.values[k] /= sum;
    }
    // Diagonal with a negative dominant entry; constructed: tridiagonal (-1, 2, -1), n = 8.
    CsrMatrix diagonal = from_dense(4, {3, 0, 0, 0, 0, -7, 0, 0, 0, 0, 1, 0, 0, 0, 0, 6.5});
    std::vector<double> t(64, 0.0);
    for (int i = 0; i < 8; ++i) {
        t[static_cast<std::size_t>(i * 8 + i)] = 2;
        if (i > 0) t[static_cast<std::size_t>(i * 8 + i - 1)] = -1;
        if (i < 7) t[static_cast<std::size_t>(i * 8 + i + 1)] = -1;
    }
    CsrMatrix tridiagonal = from_dense(8, t);
    const std::vector<double> skewed = {1, 0.5, 0.25, 0.125, 0.1, 0.2, 0.3, 0.4};
    for (const auto& name : kGpuVariants) {
        SCOPED_TRACE(name);
        auto s = run(name, stochastic, options);
        EXPECT_TRUE(s.result.converged);
        EXPECT_NEAR(s.result.lambda, 1.0, 1e-12);
        for (double v : s.vector) EXPECT_NEAR(v, 1.0, 1e-10);
        auto d = run(name, diagonal, options);
        EXPECT_TRUE(d.result.converged);
        EXPECT_NEAR(d.result.lambda, -7.0, 1e-12);
        auto c = run(name, tridiagonal, options, skewed);
        EXPECT_TRUE(c.result.converged);
        // |lambda2 / lambda1| = 0.91: the eigenvalue error is ~ tol-level in the quotient.
        EXPECT_NEAR(c.result.lambda, 2 + 2 * std::cos(M_PI / 9), 1e-10);
    }
}

TEST(PowerGpu, BreakdownNonConvergenceAndEdgeCases) {
    ADILAB_NEED_GL();
    power::Options options;
    options.tol = 1e-12;
    options.max_iter = 40;
    options.tuning.check_every = 6;
    const CsrMatrix shift = from_dense(3, {0, 1, 0, 0, 0, 1, 0, 0, 0});  // nilpotent
    const CsrMatrix flip = from_dense(2, {1, 0, 0, -1});                 // |l1| = |l2|
    const CsrMatrix one = from_dense(1, {-2.5});
    CsrMatrix empty_rows = from_dense(3, {0, 0, 0, 0, 0, 0, 0, 0, 0});  // the zero matrix
    for (const auto& name : kGpuVariants) {
        SCOPED_TRACE(name);
        auto b = run(name, shift, options);
        EXPECT_TRUE(b.result.breakdown);
        EXPECT_FALSE(b.result.converged);
        EXPECT_EQ(b.result.iterations, 3);
        EXPECT_EQ(b.result.lambda, 0.0);
        // x stays the x that met A x = 0: (1, 0, 0) from x_0 = 1 (exact in any order).
        EXPECT_EQ(b.vector, (std::vector<double>{1.0, 0.0, 0.0}));

        auto f = run(name, flip, options);
        EXPECT_FALSE(f.result.converged);  // reported, not hidden
        EXPECT_FALSE(f.result.breakdown);
        EXPECT_EQ(f.result.iterations, 40);

        auto o = run(name, one, options);
        EXPECT_TRUE(o.result.converged);
        EXPECT_EQ(o.result.lambda, -2.5);
        EXPECT_EQ(o.result.iterations, 1);  // the signed lambda leaves x = 1 unchanged

        auto z = run(name, empty_rows, options);
        EXPECT_TRUE(z.result.breakdown);
        EXPECT_EQ(z.result.iterations, 1);

        const std::vector<double> zero(3, 0.0);
        auto v = power::make_variant(name);
        EXPECT_THROW(power::solve(*v, shift, options, zero), Error);
    }
}

// The stops a lagged or Step2-free gpu-opt must still make exactly: breakdown at iteration 3
// (nilpotent `shift`, two solves on one variant, so the books start over), convergence at 1
// (`one`, n = 1) and breakdown at 1 (`zero`), the host queueing at most `late` iterations past
// each.
void expect_exact_stops(const std::string& variant, const power::Options& options, int late) {
    const CsrMatrix shift = from_dense(3, {0, 1, 0, 0, 0, 1, 0, 0, 0});  // nilpotent
    const CsrMatrix one = from_dense(1, {-2.5});
    const CsrMatrix zero = from_dense(3, {0, 0, 0, 0, 0, 0, 0, 0, 0});
    auto v = power::make_variant(variant);
    v->prepare(shift, options);
    for (int round = 0; round < 2; ++round) {
        const power::Result b = v->solve({}, options);
        EXPECT_TRUE(b.breakdown);
        EXPECT_FALSE(b.converged);
        EXPECT_EQ(b.iterations, 3);
        EXPECT_EQ(b.lambda, 0.0);
        EXPECT_EQ(v->eigenvector(), (std::vector<double>{1.0, 0.0, 0.0}));
        EXPECT_LE(b.queued, b.iterations + late);
    }
    auto o = run(variant, one, options);
    EXPECT_TRUE(o.result.converged);
    EXPECT_EQ(o.result.lambda, -2.5);
    EXPECT_EQ(o.result.iterations, 1);
    EXPECT_LE(o.result.queued, o.result.iterations + late);
    auto z = run(variant, zero, options);
    EXPECT_TRUE(z.result.breakdown);
    EXPECT_EQ(z.result.iterations, 1);
    EXPECT_LE(z.result.queued, z.result.iterations + late);
}

TEST(PowerGpu, OptLaggedReadsStopAtBreakdownAndConvergence) {
    ADILAB_NEED_GL();
    // The host reading the books L iterations late (fence or polled stamp) queues frozen
    // iterations past a breakdown or convergence: they must change nothing. Breakdown at
    // iteration 3 and at 1, convergence at 1, and a second solve on the same variant (an
    // older solve's stamp must not pass for this one's).
    for (int lag : {2, 3, 7}) {
        for (bool poll : {false, true}) {
            SCOPED_TRACE("lag=" + std::to_string(lag) + (poll ? " poll" : " fence"));
            power::Options options;
            options.tol = 1e-12;
            options.max_iter = 40;
            options.tuning.flag_lag = lag;
            options.tuning.flag_poll = poll;
            options.tuning.flush_every = lag == 7 ? 2 : 1;
            expect_exact_stops("gpu-opt", options, lag);
        }
    }
}

// The no-Step2 paths of gpu-opt that run here: the 64-bit atomics where the GPU has them, and
// the emulated max (a lock) everywhere with 64-bit integers, so that a GPU-less CI runs the
// books Step3 keeps. Each entry: emulate_atomic_max.
std::vector<bool> no_step2_paths() {
    const auto& info = gl::Context::current().info();
    std::vector<bool> paths;
    if (info.atomic_int64) paths.push_back(false);
    if (info.int64) paths.push_back(true);
    return paths;
}

TEST(PowerGpu, OptWithoutStep2IsBitForBit) {
    ADILAB_NEED_GL();
    // Step1's groups atomicMax a key that orders as maxmag, Step3 decodes lambda and keeps the
    // books (two dispatches an iteration): lambda, x and the iterations must equal the Step2
    // path's bit for bit (the same element is chosen, ties to +v included: at iteration 1 of
    // the tie matrix y holds +3 in row 0's group and -3 in the last row's), in every loop
    // (fence, polled stamp, lags, the paper's drain, async), with the host to its tolerance.
    const auto paths = no_step2_paths();
    if (paths.empty()) GTEST_SKIP() << "no 64-bit integers in GLSL";
    std::vector<std::pair<std::string, CsrMatrix>> cases;
    for (int n : {1, 2, 37, 998, 1001})
        cases.emplace_back("random n=" + std::to_string(n),
                           with_dominant_entry(random_csr(n, 4, 900 + n), 4));
    {
        const int n = 1500;  // diagonal: +3 first and -3 last (a tie), the rest below 1.5
        std::vector<double> dense(static_cast<std::size_t>(n) * n, 0.0);
        for (int i = 0; i < n; ++i)
            dense[static_cast<std::size_t>(i) * n + i] = 1.0 + 0.5 * std::sin(i);
        dense[0] = 3.0;
        dense[static_cast<std::size_t>(n) * n - 1] = -3.0;
        cases.emplace_back("tie", from_dense(n, dense));
        dense[0] = -3.0;
        dense[static_cast<std::size_t>(n) * n - 1] = 3.0;          // -3 first, +3 last: lambda +3
        cases.emplace_back("tie reversed", from_dense(n, dense));  // (+3 not in group/slot 0)
        dense[static_cast<std::size_t>(n) * n - 1] = -3.0;
        dense[0] = -3.0;  // -3 twice: lambda -3, no tie
        cases.emplace_back("negative", from_dense(n, dense));
    }
    struct Loop {
        const char* variant;
        int lag;
        bool poll;
        // Tuning::key_slots: the groups' keys spread over S slots, Step3 takes their max (the
        // tie's +3 and -3 then lie in different slots; 7 and 3 leave several groups a slot).
        int key_slots = 1;
    };
    const Loop loops[] = {{"gpu-opt", 1, false},          {"gpu-opt", 0, false},
                          {"gpu-opt", 3, true},           {"gpu-opt", 2, false},
                          {"gpu-opt-async", 1, false},    {"gpu-opt", 1, true, 64},
                          {"gpu-opt-async", 1, false, 7}, {"gpu-opt", 2, true, 3}};
    for (const auto& [label, a] : cases) {
        for (double tol : {1e-11, 0.0}) {
            for (int layout : {0, 512, -1}) {
                power::Options options;
                options.tol = tol;
                options.max_iter = tol == 0.0 ? 9 : 300;
                options.tuning.check_every = 4;
                set_layout(options, layout);
                options.tuning.atomic_max = 0;
                const auto reference = run("gpu-opt", a, options);
                const auto host = reference::power_method(a, {}, tol, options.max_iter);
                options.tuning.atomic_max = 1;
                for (bool emulate : paths) {
                    for (const Loop& loop : loops) {
                        options.tuning.emulate_atomic_max = emulate;
                        options.tuning.flag_lag = loop.lag;
                        options.tuning.flag_poll = loop.poll;
                        options.tuning.key_slots = loop.key_slots;
                        const auto s = run(loop.variant, a, options);
                        SCOPED_TRACE(label + " tol=" + std::to_string(tol) +
                                     " layout=" + std::to_string(layout) +
                                     (emulate ? " emulated " : " atomic ") + loop.variant +
                                     " lag=" + std::to_string(loop.lag) +
                                     (loop.poll ? " poll" : "") +
                                     " slots=" + std::to_string(loop.key_slots));
                        EXPECT_EQ(s.result.converged, reference.result.converged);
                        EXPECT_EQ(s.result.breakdown, reference.result.breakdown);
                        EXPECT_EQ(s.result.iterations, reference.result.iterations);
                        EXPECT_EQ(s.result.lambda, reference.result.lambda);
                        ASSERT_EQ(s.vector.size(), reference.vector.size());
                        EXPECT_EQ(0, std::memcmp(s.vector.data(), reference.vector.data(),
                                                 s.vector.size() * sizeof(double)));
                        // fp64 sums in another order: ~1e-16 relative; required 1e-10.
                        EXPECT_LT(relative(s.result.lambda, host.result.lambda), 1e-10);
                        if (s.result.converged) {
                            const int late = loop.variant == std::string("gpu-opt-async")
                                                 ? options.tuning.check_every
                                                 : std::max(loop.lag, 1);
                            EXPECT_LE(s.result.queued, s.result.iterations + late);
                        }
                        if (label == "tie" || label == "tie reversed") {
                            EXPECT_EQ(s.result.lambda, 3.0);
                        }
                        if (label == "negative") {
                            EXPECT_EQ(s.result.lambda, -3.0);
                        }
                    }
                }
            }
        }
    }
}

TEST(PowerGpu, OptWithoutStep2StopsAtBreakdownAndConvergence) {
    ADILAB_NEED_GL();
    // The books Step3 keeps: breakdown at iteration 3 (nilpotent) and 1 (zero matrix, y = +0
    // everywhere), convergence at 1 (n = 1), non-convergence reported (|l1| = |l2|), a second
    // solve on the same variant (the keys and flags start over), every loop.
    const auto paths = no_step2_paths();
    if (paths.empty()) GTEST_SKIP() << "no 64-bit integers in GLSL";
    const CsrMatrix flip = from_dense(2, {1, 0, 0, -1});
    for (bool emulate : paths) {
        for (int lag : {0, 1, 3}) {
            for (const char* variant : {"gpu-opt", "gpu-opt-async"}) {
                SCOPED_TRACE(std::string(variant) + (emulate ? " emulated" : " atomic") +
                             " lag=" + std::to_string(lag));
                power::Options options;
                options.tol = 1e-12;
                options.max_iter = 40;
                options.tuning.check_every = 6;
                options.tuning.flag_lag = lag;
                options.tuning.flag_poll = lag == 3;
                options.tuning.emulate_atomic_max = emulate;
                // The slot sets must start over in each solve as the one key does.
                options.tuning.key_slots = lag == 1 ? 5 : lag == 3 ? 128 : 1;
                // How late the host may stop: it reads the books L iterations late (at least
                // one: the drain of lag 0 sees a convergence at the next read), async every
                // check_every iterations.
                const int late = std::string(variant) == "gpu-opt-async"
                                     ? options.tuning.check_every
                                     : std::max(lag, 1);
                expect_exact_stops(variant, options, late);
                auto f = run(variant, flip, options);
                EXPECT_FALSE(f.result.converged);
                EXPECT_FALSE(f.result.breakdown);
                EXPECT_EQ(f.result.iterations, 40);
                EXPECT_EQ(f.result.lambda, 1.0);  // y = (1, -1) or (1, 1): ties to +1
            }
        }
    }
}

TEST(PowerGpu, AsyncReportsTheExactIteration) {
    ADILAB_NEED_GL();
    const CsrMatrix a = random_csr(500, 3, 21);
    power::Options options;
    options.tol = 1e-11;
    options.max_iter = 300;
    auto sync = run("gpu-opt", a, options);
    ASSERT_TRUE(sync.result.converged);
    for (int k : {1, 2, 7, 64, 1000}) {
        options.tuning.check_every = k;
        auto async = run("gpu-opt-async", a, options);
        SCOPED_TRACE(k);
        EXPECT_EQ(async.result.iterations, sync.result.iterations);
        EXPECT_EQ(async.result.lambda, sync.result.lambda);  // the same kernels: bit for bit
        EXPECT_EQ(async.vector, sync.vector);
    }
}

TEST(PowerGpu, OptKeepsXInTheTextureBitForBit) {
    ADILAB_NEED_GL();
    // gpu-opt's Step3 keeps x only in the SpMV's 2D texture (one texel = two rows, y read as
    // dvec2, the odd last row apart) and the eigenvector is copied back on request. Against
    // the storage-buffer path (x_image 0: the SpMV reads x there, Step3 writes it there) the
    // arithmetic is the same, so lambda, the iteration count and x must agree bit for bit:
    // odd and even n, converging (flag path) and tol 0 (max_iter), sync and async.
    for (int n : {1001, 998, 1}) {
        const CsrMatrix a = with_dominant_entry(random_csr(n, 4, 300 + n), 4);
        for (double tol : {1e-11, 0.0}) {
            for (const std::string name : {"gpu-opt", "gpu-opt-async"}) {
                power::Options options;
                options.tol = tol;
                options.max_iter = tol == 0.0 ? 7 : 400;
                options.tuning.check_every = 3;
                options.tuning.x_image = 0;
                auto reference = run(name, a, options);
                options.tuning.x_image = 1;
                auto texture = run(name, a, options);
                SCOPED_TRACE(name + " n=" + std::to_string(n) + " tol=" + std::to_string(tol));
                if (tol > 0.0 && n > 1) {
                    EXPECT_TRUE(texture.result.converged);
                }
                EXPECT_EQ(texture.result.converged, reference.result.converged);
                EXPECT_EQ(texture.result.iterations, reference.result.iterations);
                EXPECT_EQ(texture.result.lambda, reference.result.lambda);
                ASSERT_EQ(texture.vector.size(), static_cast<std::size_t>(n));
                EXPECT_EQ(0, std::memcmp(texture.vector.data(), reference.vector.data(),
                                         texture.vector.size() * sizeof(double)));
            }
        }
    }
}

TEST(PowerGpu, OptStep3ShapesAndLaggedFlagReadAreBitForBit) {
    ADILAB_NEED_GL();
    // gpu-opt's Step3 with any number of work groups (one pass or several, partial passes) and
    // the host reading the books one step behind (flag_lag 1: Step2's copy behind a fence, one
    // frozen SpMV queued past the stop) do the same divisions and stop at the same iteration as
    // the paper's loop on the storage path (x_image 0, flag_lag 0): lambda, iterations and x
    // agree bit for bit,
    // and with the host to its tolerance. Odd and even n, several passes and partial passes.
    // Lags of 2 and more, the stamp polled instead of a fence and flushes every few
    // iterations only: the host stops later (frozen iterations queued), never elsewhere; lag
    // 16 exceeds the 7 iterations of tol 0 (the host never reads the books in the loop).
    struct Shape {
        int lag, groups;
        bool poll = false;
        int flush_every = 1;
    };
    const Shape shapes[] = {{1, 1024},
                            {0, 1},
                            {1, 3},
                            {0, 7},
                            {1, 1},
                            {2, 1024},
                            {3, 1024, true},
                            {1, 1024, true},
                            {4, 1024, true, 3},
                            {16, 1024, true, 2},
                            {5, 1024, false, 4},
                            {0, 3, false, 1},
                            {4, 1, true, 2}};
    for (int n : {1001, 998, 1}) {
        const CsrMatrix a = with_dominant_entry(random_csr(n, 4, 700 + n), 4);
        for (double tol : {1e-11, 0.0}) {
            power::Options options;
            options.tol = tol;
            options.max_iter = tol == 0.0 ? 7 : 400;
            options.tuning.x_image = 0;
            options.tuning.flag_lag = 0;
            auto reference = run("gpu-opt", a, options);
            auto host = reference::power_method(a, {}, tol, options.max_iter);
            for (const Shape& shape : shapes) {
                options.tuning.x_image = 1;
                options.tuning.flag_lag = shape.lag;
                options.tuning.step3_groups = shape.groups;
                options.tuning.flag_poll = shape.poll;
                options.tuning.flush_every = shape.flush_every;
                auto s = run("gpu-opt", a, options);
                SCOPED_TRACE("n=" + std::to_string(n) + " tol=" + std::to_string(tol) + " lag=" +
                             std::to_string(shape.lag) + " groups=" + std::to_string(shape.groups) +
                             (shape.poll ? " poll" : "") +
                             " flush=" + std::to_string(shape.flush_every));
                if (tol > 0.0 && n > 1) {
                    EXPECT_TRUE(s.result.converged);
                }
                if (tol == 0.0) {
                    EXPECT_FALSE(s.result.converged);
                    EXPECT_EQ(s.result.iterations, options.max_iter);
                }
                if (s.result.converged) {
                    EXPECT_LE(s.result.queued, s.result.iterations + std::max(shape.lag, 1));
                }
                EXPECT_EQ(s.result.converged, reference.result.converged);
                EXPECT_EQ(s.result.iterations, reference.result.iterations);
                EXPECT_EQ(s.result.lambda, reference.result.lambda);
                ASSERT_EQ(s.vector.size(), static_cast<std::size_t>(n));
                EXPECT_EQ(0, std::memcmp(s.vector.data(), reference.vector.data(),
                                         s.vector.size() * sizeof(double)));
                // fp64 products in another order: ~1e-16 relative each; the requirement is
                // 1e-10 on lambda. The stop may differ from the host's by one iteration where
                // the last update sits at tol.
                EXPECT_LT(relative(s.result.lambda, host.result.lambda), 1e-10);
                EXPECT_NEAR(s.result.iterations, host.result.iterations, 1);
            }
        }
    }
}

TEST(PowerGpu, XTexelMapsAreBitForBit) {
    ADILAB_NEED_GL();
    // Which texel of x's 2D texture holds which pair of rows is free (the SpMV gathers at
    // random), so the GOB map (32 pairs fill a 4 x 8-texel GOB, GOBs down block columns of B
    // GOBs) must give exactly what the storage path of the same variant gives: lambda,
    // iterations and x bit for bit. A map that
    // sent two pairs to one texel, or a pair outside the texture (a store dropped, a fetch of 0),
    // changes x.
    // Sizes: n = 1 and 2 (one texel), odd n, n smaller than one GOB (64 rows), n not a multiple
    // of a GOB or of a block, and 70001 rows: 1095 GOBs, more than one row of 1024 GOBs, so
    // block columns (B = 2, 32 and the automatic 2) and a second block row are walked (5
    // iterations at tol 0; the smaller sizes also converging at 1e-11). The
    // storage-buffer x is poisoned after each texture solve (Options::poison_x), so the
    // copy-back must write every row; the Step2 path and, where it exists, the no-Step2 path;
    // gpu-full (x through the mirror kernel each iteration) at two sizes.
    struct Case {
        int n, block_gobs;
    };
    const Case cases[] = {{1, 0},    {2, 0},    {63, 0},    {65, 32},   {999, 0},
                          {1001, 2}, {4097, 0}, {70001, 0}, {70001, 2}, {70001, 32}};
    for (const Case& c : cases) {
        const CsrMatrix a = with_dominant_entry(random_csr(c.n, 3, 900 + c.n), 3);
        for (double tol : {1e-11, 0.0}) {
            if (tol > 0.0 && c.n > 10000) continue;  // the map, not the stop: llvmpipe's time
            power::Options options;
            options.tol = tol;
            options.max_iter = tol == 0.0 ? 5 : 400;
            options.tuning.x_image = 0;
            options.tuning.flag_lag = 0;
            auto host = reference::power_method(a, {}, tol, options.max_iter);
            const bool big = c.n > 10000;
            for (const std::string name : {"gpu-opt", "gpu-opt-async", "gpu-full"}) {
                if (name == "gpu-full" && c.n != 1001 && c.n != 70001) continue;
                if (name == "gpu-opt-async" && big && c.block_gobs != 2) continue;
                // The storage path of the same variant (x never in the texture).
                auto reference = run(name, a, options);
                EXPECT_LT(relative(reference.result.lambda, host.result.lambda), 1e-10);
                {
                    for (int no_step2 = 0; no_step2 < 2; ++no_step2) {
                        if (no_step2 && (name != "gpu-opt" || no_step2_paths().empty())) continue;
                        power::Options o = options;
                        o.tuning.x_image = 1;
                        o.tuning.flag_lag = 1;
                        o.tuning.check_every = 3;
                        o.tuning.x_block_gobs = c.block_gobs;
                        o.poison_x = true;
                        o.tuning.atomic_max = no_step2;
                        o.tuning.emulate_atomic_max = no_step2 && no_step2_paths().front();
                        auto v = power::make_variant(name);
                        auto s = power::solve(*v, a, o);
                        SCOPED_TRACE(
                            name + " n=" + std::to_string(c.n) + " tol=" + std::to_string(tol) +
                            " map=" + "gob" + std::to_string(c.block_gobs) +
                            " no_step2=" + std::to_string(no_step2) + " " + v->spmv_layout());
                        EXPECT_NE(v->spmv_layout().find("-gob"), std::string::npos);
                        EXPECT_EQ(s.result.converged, reference.result.converged);
                        EXPECT_EQ(s.result.iterations, reference.result.iterations);
                        EXPECT_EQ(s.result.lambda, reference.result.lambda);
                        ASSERT_EQ(s.vector.size(), static_cast<std::size_t>(c.n));
                        EXPECT_EQ(0, std::memcmp(s.vector.data(), reference.vector.data(),
                                                 s.vector.size() * sizeof(double)));
                    }
                }
            }
        }
    }
}

TEST(PowerGpu, OptEigenvectorAfterRepeatedSolves) {
    ADILAB_NEED_GL();
    // The storage-buffer x is stale while Step3 keeps x in the texture: asking twice, and
    // solving again from a new start on the same prepared variant, must give the host's x.
    const int n = 777;
    const CsrMatrix a = with_dominant_entry(random_csr(n, 5, 91), 5);
    std::vector<double> start(n);
    for (int i = 0; i < n; ++i) start[static_cast<std::size_t>(i)] = 1.0 + 0.25 * std::sin(i);
    power::Options options;
    options.tol = 0.0;
    options.max_iter = 6;
    auto v = power::make_variant("gpu-opt");
    v->prepare(a, options);
    for (int round = 0; round < 2; ++round) {
        std::span<const double> from = round == 0 ? std::span<const double>() : start;
        const auto host = reference::power_method(
            a, round == 0 ? std::vector<double>(n, 1.0) : start, 0.0, options.max_iter);
        v->solve(from, options);
        const auto first = v->eigenvector();
        const auto second = v->eigenvector();
        SCOPED_TRACE(round);
        EXPECT_EQ(first, second);
        ASSERT_EQ(first.size(), host.vector.size());
        // |x| <= 1; 6 products of 6 terms in another order differ by ~1e-15.
        for (std::size_t i = 0; i < first.size(); ++i)
            ASSERT_NEAR(first[i], host.vector[i], 1e-13) << "row " << i;
    }
}

}  // namespace
}  // namespace adilab
