// Matmul on the CPU: the float64 reference itself, the CPU variants against it, cpgpu's split
// formula, and the checks that run before any work (sizes, names, tile configurations).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "solvers/gl/error.hpp"
#include "solvers/matmul/matmul.hpp"
#include "solvers/reference/matmul_reference.hpp"

namespace adilab {
namespace {

using matmul::Shape;

TEST(MatmulReference, SmallProductByHand) {
    // [1 2 3; 4 5 6] * [7 8; 9 10; 11 12] = [58 64; 139 154]; |A||B| equals it (all positive).
    const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {7, 8, 9, 10, 11, 12};
    const auto ref = reference::matmul_f64(a, b, 2, 3, 2);
    EXPECT_EQ(ref.c, (std::vector<double>{58, 64, 139, 154}));
    EXPECT_EQ(ref.abs_c, ref.c);
    const float b_signed[] = {7, -8, 9, 10, -11, 12};
    const auto mixed = reference::matmul_f64(a, b_signed, 2, 3, 2);
    EXPECT_EQ(mixed.c, (std::vector<double>{-8, 48, 7, 90}));
    EXPECT_EQ(mixed.abs_c, (std::vector<double>{58, 64, 139, 154}));
}

TEST(MatmulReference, ErrorMeasureSeesWrongAndUnwrittenEntries) {
    const float a[] = {1, 2, 3, 4}, b[] = {1, 0, 0, 1};
    const auto ref = reference::matmul_f64(a, b, 2, 2, 2);
    float c[] = {1, 2, 3, 4};
    EXPECT_EQ(reference::max_scaled_error(c, ref), 0.0);
    c[3] = 4.5f;
    EXPECT_DOUBLE_EQ(reference::max_scaled_error(c, ref), 0.5 / 4.0);
    c[1] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(std::isinf(reference::max_scaled_error(c, ref)));
    EXPECT_TRUE(std::isinf(reference::sampled_scaled_error(a, b, c, 2, 2, 2, 100)));
}

// Every CPU variant against the float64 product, C poisoned with NaN first. Bound: an fp32 dot
// product of length n in any summation order errs by at most gamma_n * (|A||B|)_ij
// (Higham eq. 3.5); a wrong index or a missed term errs by O(1) relative to that scale.
void expect_matches_reference(const std::string& name, Shape s) {
    const auto a = reference::random_matrix(static_cast<std::size_t>(s.m) * s.n, 11u + s.m);
    const auto b = reference::random_matrix(static_cast<std::size_t>(s.n) * s.l, 23u + s.l);
    std::vector<float> c(static_cast<std::size_t>(s.m) * s.l,
                         std::numeric_limits<float>::quiet_NaN());
    matmul::make_multiplier(name)->multiply_host(s, a.data(), b.data(), c.data());
    const auto ref = reference::matmul_f64(a.data(), b.data(), s.m, s.n, s.l);
    EXPECT_LE(reference::max_scaled_error(c.data(), ref), reference::fp32_dot_gamma(s.n))
        << name << " " << s.m << "x" << s.n << "x" << s.l;
}

TEST(MatmulCpu, VariantsMatchReferenceOnAwkwardSizes) {
    for (const char* name : {"cpu-ijk", "cpu-ikj", "cpu-blocked"}) {
        for (int n : {1, 7, 31, 33, 100, 257}) expect_matches_reference(name, {n, n, n});
        for (Shape s : {Shape{3, 50, 7}, Shape{64, 1, 130}, Shape{1, 300, 2}, Shape{129, 260, 5},
                        Shape{37, 5, 300}})
            expect_matches_reference(name, s);
    }
}

TEST(MatmulCpu, BlockedLargeMatchesReference) {
    expect_matches_reference("cpu-blocked", {1000, 1000, 1000});
}

TEST(MatmulCpu, BlockedRowRangeLeavesOtherRowsAlone) {
    const Shape s{23, 17, 19};
    const auto a = reference::random_matrix(23 * 17, 5), b = reference::random_matrix(17 * 19, 6);
    std::vector<float> c(23 * 19, -7.0f);
    matmul::multiply_rows_blocked(s, a.data(), b.data(), c.data(), 5, 18, 3);
    const auto ref = reference::matmul_f64(a.data(), b.data(), s.m, s.n, s.l);
    for (int i = 0; i < s.m; ++i)
        for (int j = 0; j < s.l; ++j) {
            const float got = c[i * s.l + j];
            if (i < 5 || i >= 18)
                EXPECT_EQ(got, -7.0f) << i << "," << j;
            else  // fp32 dot-product bound, as above
                EXPECT_LE(std::abs(got - ref.c[i * s.l + j]),
                          reference::fp32_dot_gamma(s.n) * ref.abs_c[i * s.l + j]);
        }
}

TEST(MatmulSplit, BalancesMeasuredRates) {
    const Shape s{2048, 2048, 2048};
    // Kwon & Lee's example: 34 and 18 GFLOPS with free transfers give g = 34/52 N = 0.654 N.
    const int g = matmul::balanced_gpu_rows(s, {34.0, 18.0, 1e12});
    EXPECT_NEAR(g, 34.0 / 52.0 * 2048, 8.0 + 1e-9);  // rounding to 16 rows moves it by <= 8
    EXPECT_EQ(g % 16, 0);
    // A slow link shifts rows to the CPU; a useless CPU gives the GPU everything.
    EXPECT_LT(matmul::balanced_gpu_rows(s, {34.0, 18.0, 1.0}), g);
    EXPECT_EQ(matmul::balanced_gpu_rows(s, {34.0, 0.0, 1.0}), 2048);
    // A GPU 1000x faster than the CPU takes (nearly) all rows; the result stays within [0, m].
    EXPECT_GE(matmul::balanced_gpu_rows(s, {18000.0, 18.0, 1e12}), 2032);
    for (double rate : {1e-3, 1.0, 1e3})
        for (int m : {1, 5, 100}) {
            const int rows = matmul::balanced_gpu_rows({m, 64, 64}, {rate, 1.0, 1.0});
            EXPECT_GE(rows, 0);
            EXPECT_LE(rows, m);
        }
}

TEST(MatmulChecks, RejectBadShapesNamesAndTiles) {
    gl::DeviceInfo device;
    device.max_storage_block_bytes = std::int64_t{1} << 30;
    device.available_memory_mib = 4096;
    device.max_work_group_invocations = 1024;
    device.max_work_group_size[0] = 1024;
    device.max_shared_memory_bytes = 49152;
    EXPECT_NO_THROW(matmul::check_shape({4096, 4096, 4096}, true, device));
    EXPECT_THROW(matmul::check_shape({0, 5, 5}, false, device), Error);
    EXPECT_THROW(matmul::check_shape({5, 5, -1}, true, device), Error);
    try {
        matmul::check_shape({20000, 20000, 20000}, true, device);  // 1.6 GB per matrix
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("20000x20000x20000"), std::string::npos) << e.what();
    }
    EXPECT_THROW(matmul::check_shape({50000, 50000, 1}, true, device), Error);  // > 2^31 elements
    EXPECT_NO_THROW(matmul::check_shape({50000, 50000, 1}, false, device));     // CPU: no GPU limit
    try {
        matmul::make_multiplier("gpu-fastest");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'gpu-fastest'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("gpu-tiled32"), std::string::npos) << e.what();
    }
    EXPECT_EQ(matmul::GemmTiles::parse("128x64x8x8x16").label(), "128x64x8x8x16");
    EXPECT_EQ(matmul::GemmTiles::parse("256x128x16x8x16x0").apad, 0);
    EXPECT_EQ(matmul::GemmTiles::parse("256x128x16x8x16x0").label(), "256x128x16x8x16x0");
    for (const char* bad : {"", "128", "128x128x8x8", "128x128x8x8x8x", "axbxcxdxe"})
        EXPECT_THROW(matmul::GemmTiles::parse(bad), Error) << bad;
    for (const matmul::GemmTiles& t : matmul::tuned_tiles())
        EXPECT_NO_THROW(matmul::check_tiles(t, device));
    for (const char* bad :
         {"100x128x8x8x8", "128x128x6x8x8", "128x128x8x6x8", "256x256x8x4x4", "256x256x32x8x8"})
        EXPECT_THROW(matmul::check_tiles(matmul::GemmTiles::parse(bad), device), Error) << bad;
}

TEST(MatmulChecks, TileChoiceFillsTheGpu) {
    EXPECT_EQ(matmul::choose_tiles(4096, 4096).label(), matmul::tuned_tiles().front().label());
    EXPECT_EQ(matmul::choose_tiles(16, 16).label(), matmul::tuned_tiles().back().label());
}

}  // namespace
}  // namespace adilab
