// The GPU matmul variants and the reusable gemm() on a real context, against the float64
// reference, outputs poisoned (NaN) first. Sizes stay small for llvmpipe; 1000 only for gpu-fast.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/matmul/matmul.hpp"
#include "solvers/reference/matmul_reference.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab {
namespace {

using matmul::Shape;

struct Inputs {
    std::vector<float> a, b;
    reference::ProductF64 ref;
};

Inputs make_inputs(Shape s, std::uint64_t seed) {
    Inputs in;
    in.a = reference::random_matrix(static_cast<std::size_t>(s.m) * s.n, seed);
    in.b = reference::random_matrix(static_cast<std::size_t>(s.n) * s.l, seed + 1);
    in.ref = reference::matmul_f64(in.a.data(), in.b.data(), s.m, s.n, s.l);
    return in;
}

std::string text(Shape s) {
    return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.l);
}

// multiply_gpu into a poisoned C. Bound: fp32 dot products of length n in any order (tiles,
// FMA) err by at most gamma_n (|A||B|)_ij (Higham eq. 3.5); a skipped or doubled tile, a wrong
// index, or an unwritten (NaN) entry breaks it by orders of magnitude.
void expect_gpu_matches(matmul::Multiplier& mult, Shape s) {
    const Inputs in = make_inputs(s, 100u + s.m * 7u + s.l);
    gl::Buffer a = gl::Buffer::from(in.a), b = gl::Buffer::from(in.b);
    gl::Buffer c(sizeof(float) * static_cast<std::size_t>(s.m) * s.l);
    c.poison();
    mult.multiply_gpu(s, a, b, c);
    const auto result = c.read_all<float>();
    EXPECT_LE(reference::max_scaled_error(result.data(), in.ref), reference::fp32_dot_gamma(s.n))
        << mult.name() << " " << text(s);
}

TEST(MatmulGl, Tiled32MatchesReference) {
    ADILAB_NEED_GL();
    auto mult = matmul::make_multiplier("gpu-tiled32");
    for (int n : {1, 7, 31, 33, 100}) expect_gpu_matches(*mult, {n, n, n});
    for (Shape s : {Shape{33, 70, 5}, Shape{3, 40, 65}, Shape{65, 1, 2}})
        expect_gpu_matches(*mult, s);
}

TEST(MatmulGl, FastMatchesReference) {
    ADILAB_NEED_GL();
    auto mult = matmul::make_multiplier("gpu-fast");
    // 1..100 take the guarded strip kernel only; 257 and the shapes over 128 mix whole blocks and
    // strips; 13 and 5 leave an N % 8 remainder tile; 256x260x132 is vec4-aligned throughout.
    for (int n : {1, 7, 31, 33, 100, 257}) expect_gpu_matches(*mult, {n, n, n});
    for (Shape s :
         {Shape{300, 13, 260}, Shape{129, 300, 5}, Shape{256, 260, 132}, Shape{1, 9, 300}})
        expect_gpu_matches(*mult, s);
}

TEST(MatmulGl, EveryTunedTileConfigurationAnd1000AreCorrect) {
    ADILAB_NEED_GL();
    for (const matmul::GemmTiles& t : matmul::tuned_tiles()) {
        auto mult = matmul::make_multiplier("gpu-fast", t);
        // Whole blocks (vec4: n and l multiples of 4), a bottom and a right strip, 2 full k-tiles
        // and a remainder of 4. One shape per configuration: llvmpipe compiles each slowly.
        expect_gpu_matches(*mult, {t.bm + 3, 20, 2 * t.bn + 4});
    }
    // 1000 (with the automatic choice, 64x128 blocks plus strips): long dot products, in the same
    // test so llvmpipe compiles the configuration once.
    auto mult = matmul::make_multiplier("gpu-fast");
    expect_gpu_matches(*mult, {1000, 1000, 1000});
}

TEST(MatmulGl, HostEntriesIncludingCpgpuMatchReference) {
    ADILAB_NEED_GL();
    const Shape s{150, 90, 140};
    const Inputs in = make_inputs(s, 77);
    for (const char* name : {"gpu-tiled32", "gpu-fast", "cpgpu"}) {
        auto mult = matmul::make_multiplier(name);
        for (int run = 0; run < 2; ++run) {  // the second run reuses buffers / calibration
            std::vector<float> c(static_cast<std::size_t>(s.m) * s.l,
                                 std::numeric_limits<float>::quiet_NaN());
            mult->multiply_host(s, in.a.data(), in.b.data(), c.data());
            // fp32 dot-product bound as above
            EXPECT_LE(reference::max_scaled_error(c.data(), in.ref), reference::fp32_dot_gamma(s.n))
                << name;
        }
        if (std::string(name) == "cpgpu") {
            const matmul::SplitReport split = mult->split();
            EXPECT_GE(split.g, 0);
            EXPECT_LE(split.g, s.m);
            EXPECT_GT(split.rates.gpu_gflops, 0.0);
            EXPECT_GT(split.rates.cpu_gflops, 0.0);
            EXPECT_GT(split.rates.transfer_gb_per_s, 0.0);
        }
    }
}

// gemm() on sub-blocks: C = alpha A B + beta C inside larger buffers with offsets and leading
// dimensions; everything outside C's block keeps its sentinel. Aligned (vec4) and unaligned.
TEST(MatmulGl, GemmOnSubBlocksWithAlphaBeta) {
    ADILAB_NEED_GL();
    struct Case {
        int m, n, l;
        std::size_t a_off, b_off, c_off;
        int lda, ldb, ldc;
    };
    for (const Case& k :
         {Case{130, 19, 133, 8, 4, 12, 24, 140, 136}, Case{131, 17, 129, 3, 5, 7, 21, 133, 131},
          Case{9, 300, 6, 1, 0, 2, 301, 7, 9}}) {
        const Shape s{k.m, k.n, k.l};
        const Inputs in = make_inputs(s, 500u + k.m);
        const auto c0 = reference::random_matrix(static_cast<std::size_t>(k.m) * k.l, 9);
        const float alpha = -0.75f, beta = 0.5f, sentinel = 12345.0f;
        std::vector<float> ha(k.a_off + static_cast<std::size_t>(k.m) * k.lda, sentinel);
        std::vector<float> hb(k.b_off + static_cast<std::size_t>(k.n) * k.ldb, sentinel);
        std::vector<float> hc(k.c_off + static_cast<std::size_t>(k.m) * k.ldc + 5, sentinel);
        for (int i = 0; i < k.m; ++i)
            for (int j = 0; j < k.n; ++j) ha[k.a_off + i * k.lda + j] = in.a[i * k.n + j];
        for (int i = 0; i < k.n; ++i)
            for (int j = 0; j < k.l; ++j) hb[k.b_off + i * k.ldb + j] = in.b[i * k.l + j];
        for (int i = 0; i < k.m; ++i)
            for (int j = 0; j < k.l; ++j) hc[k.c_off + i * k.ldc + j] = c0[i * k.l + j];
        gl::Buffer a = gl::Buffer::from(ha), b = gl::Buffer::from(hb), c = gl::Buffer::from(hc);
        matmul::gemm(k.m, k.n, k.l, alpha, {&a, k.a_off, k.lda}, {&b, k.b_off, k.ldb}, beta,
                     {&c, k.c_off, k.ldc});
        const auto out = c.read_all<float>();
        for (std::size_t i = 0; i < out.size(); ++i) {
            const std::size_t rel = i - k.c_off;
            const bool inside = i >= k.c_off && rel / k.ldc < static_cast<std::size_t>(k.m) &&
                                rel % k.ldc < static_cast<std::size_t>(k.l);
            if (!inside) {
                ASSERT_EQ(out[i], sentinel) << "outside C at " << i;
                continue;
            }
            const std::size_t ij = (rel / k.ldc) * k.l + rel % k.ldc;
            const double exact = alpha * in.ref.c[ij] + beta * static_cast<double>(c0[ij]);
            // gamma_n on the product's scale |alpha| |A||B|, plus the rounding of the final
            // alpha * acc + beta * c (two more fp32 operations: 2u on their magnitude).
            const double u = std::ldexp(1.0, -24);
            const double scale = std::abs(alpha) * in.ref.abs_c[ij] + std::abs(beta * c0[ij]);
            ASSERT_LE(std::abs(out[i] - exact),
                      reference::fp32_dot_gamma(k.n) * std::abs(alpha) * in.ref.abs_c[ij] +
                          2 * u * scale + 1e-30)
                << text(s) << " entry " << ij;
        }
    }
}

// LU's use: C and A in one buffer (disjoint regions), C -= A * B in place.
TEST(MatmulGl, GemmWithAAndCInOneBuffer) {
    ADILAB_NEED_GL();
    const int size = 40;  // a 40 x 40 matrix M; C = M[8:, 8:], A = M[8:, 0:8], B = M[0:8, 8:]
    auto host = reference::random_matrix(size * size, 31);
    gl::Buffer matrix = gl::Buffer::from(host);
    const int k = 8, rest = size - k;
    matmul::gemm(rest, k, rest, -1.0f, {&matrix, static_cast<std::size_t>(k * size), size},
                 {&matrix, static_cast<std::size_t>(k), size}, 1.0f,
                 {&matrix, static_cast<std::size_t>(k * size + k), size});
    const auto out = matrix.read_all<float>();
    for (int i = 0; i < size; ++i)
        for (int j = 0; j < size; ++j) {
            if (i < k || j < k) {
                ASSERT_EQ(out[i * size + j], host[i * size + j]);
                continue;
            }
            double exact = host[i * size + j], scale = std::abs(exact);
            for (int p = 0; p < k; ++p) {
                exact -= static_cast<double>(host[i * size + p]) * host[p * size + j];
                scale += std::abs(static_cast<double>(host[i * size + p]) * host[p * size + j]);
            }
            // k + 1 fp32 terms: gamma_{k+1} on their magnitudes
            ASSERT_LE(std::abs(out[i * size + j] - exact),
                      reference::fp32_dot_gamma(k + 1) * scale);
        }
}

TEST(MatmulGl, CpuVariantsHaveNoGpuEntry) {
    ADILAB_NEED_GL();
    gl::Buffer a(4), b(4), c(4);
    EXPECT_THROW(matmul::make_multiplier("cpu-ikj")->multiply_gpu({1, 1, 1}, a, b, c), Error);
    EXPECT_THROW(matmul::gemm(2, 2, 2, 1.0f, {&a, 0, 2}, {&b, 0, 2}, 0.0f, {&c, 0, 2}),
                 Error);  // too small
}

}  // namespace
}  // namespace adilab
