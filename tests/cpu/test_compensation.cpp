// Shallow water's compensation in 16 bits on the host (sim/compensation.hpp): the binary16
// conversions the state file and the volume total go through, and the words' layout, which
// must match shaders/sim/shallow_water.comp's (the GL tests resume saved runs bit for bit
// through it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "sim/compensation.hpp"

namespace adilab::sim {
namespace {

bool finite_half(std::uint32_t bits) {
    return ((bits >> 10) & 0x1f) != 0x1f;
}

TEST(Compensation, EveryFiniteHalfRoundTrips) {
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
        if (!finite_half(bits)) continue;
        const float value = half_value(std::uint16_t(bits));
        ASSERT_EQ(half_bits(value), bits) << std::hex << bits << " = " << value;
    }
    EXPECT_EQ(half_value(0x3c00), 1.0f);
    EXPECT_EQ(half_value(0x7bff), 65504.0f);
    EXPECT_EQ(half_value(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(half_value(0x0400), std::ldexp(1.0f, -14));
}

// A fresh float, log-uniform in magnitude from 2^-30 to 2^17, either sign: past the largest half
// and below the smallest subnormal.
TEST(Compensation, FloatsRoundToTheNearestHalfTiesToEven) {
    std::mt19937_64 random(std::random_device{}());
    std::uniform_real_distribution<double> exponent(-30, 17);
    for (int i = 0; i < 200000; ++i) {
        const float x = float((random() & 1 ? -1 : 1) * std::exp2(exponent(random)));
        const std::uint16_t bits = half_bits(x);
        const double magnitude = std::min(std::fabs(double(x)), 65504.0);
        const double chosen = std::fabs(double(half_value(bits)));
        ASSERT_EQ(bits >> 15, std::signbit(x) ? 1 : 0) << x;
        // Its neighbours among the finite halves of the same sign: none is nearer, and a tie
        // goes to the even bits.
        const std::uint16_t magnitude_bits = bits & 0x7fff;
        for (int step : {-1, 1}) {
            const int other = int(magnitude_bits) + step;
            if (other < 0 || !finite_half(std::uint32_t(other))) continue;
            const double neighbour = half_value(std::uint16_t(other));
            const double ours = std::fabs(magnitude - chosen);
            const double theirs = std::fabs(magnitude - neighbour);
            ASSERT_LE(ours, theirs) << x;
            if (ours == theirs) {
                ASSERT_EQ(magnitude_bits % 2, 0) << x;
            }
        }
    }
}

TEST(Compensation, PastTheLargestHalfClampsInsteadOfInfinity) {
    EXPECT_EQ(half_bits(65519.0f), 0x7bff);  // IEEE rounds this to Inf
    EXPECT_EQ(half_bits(1e30f), 0x7bff);
    EXPECT_EQ(half_bits(-70000.0f), 0xfbff);
    EXPECT_EQ(half_bits(0.0f), 0x0000);
    EXPECT_EQ(half_bits(-0.0f), 0x8000);
    EXPECT_EQ(half_bits(std::ldexp(1.0f, -26)), 0x0000);  // under half the smallest subnormal
}

// Cells (x, 2j) and (x, 2j + 1) share word j nx + x, the even row in the low half; an odd ny's
// last row fills the low halves of its words. Values that 16 bits hold (c = half / 2^24) come
// back exactly.
TEST(Compensation, WordsHoldTwoRowsOfACellColumn) {
    const int nx = 5, ny = 3;
    ASSERT_EQ(compensation_words(nx, ny), 10u);
    std::mt19937_64 random(std::random_device{}());
    std::vector<float> c(std::size_t(nx * ny));
    for (float& value : c) {
        std::uint16_t bits;
        do bits = std::uint16_t(random());
        while (!finite_half(bits));
        value = half_value(bits) / 16777216.0f;
    }
    const std::vector<std::uint32_t> words = encode_compensation(c, nx, ny);
    ASSERT_EQ(words.size(), 10u);
    EXPECT_EQ(words[1 * nx + 3] & 0xffff, half_bits(c[2 * nx + 3] * 16777216.0f));
    EXPECT_EQ(words[0 * nx + 2] >> 16, half_bits(c[1 * nx + 2] * 16777216.0f));
    EXPECT_EQ(words[1 * nx + 4] >> 16, 0u);
    EXPECT_EQ(decode_compensation(words, nx, ny), c);
}

}  // namespace
}  // namespace adilab::sim
