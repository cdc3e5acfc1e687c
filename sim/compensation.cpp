#include "sim/compensation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace adilab::sim {

namespace {
constexpr float kScale = 16777216.0f;  // 2^24, the shader's kCompensationScale
constexpr float kLargestHalf = 65504.0f;

// A vector of T from raw bytes, and raw bytes from a vector of T.
template <typename T>
std::vector<T> from_bytes(const std::vector<char>& bytes) {
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
}
template <typename T>
std::vector<char> to_bytes(const std::vector<T>& values) {
    std::vector<char> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

std::uint64_t word_of(int nx, int x, int y) {
    return std::uint64_t(y / 2) * std::uint64_t(nx) + std::uint64_t(x);
}
}  // namespace

std::uint64_t compensation_words(int nx, int ny) {
    return std::uint64_t(nx) * std::uint64_t((ny + 1) / 2);
}

std::uint16_t half_bits(float x) {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
    const std::uint16_t sign = std::uint16_t((f >> 16) & 0x8000u);
    const float magnitude = std::min(std::fabs(x), kLargestHalf);
    if (!(magnitude > 0)) return sign;  // zero (and NaN, which c never is)
    int exponent = 0;
    std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent - 1), 2^exponent)
    // The binary16 unit at this magnitude: 2^(exponent - 11) for normals (11 significant bits),
    // 2^-24 below 2^-14 (subnormals). Scaling by a power of two is exact, and nearbyint rounds
    // to nearest, ties to even. A normal's bits are its biased exponent (unit exponent + 25) and
    // its units past 2^10; a carry to 2^11 units lands on the next binade's first value, and a
    // subnormal's bits are its units (2^10 of them: the smallest normal).
    const int unit_exponent = std::max(exponent - 11, -24);
    const auto units = std::uint32_t(std::nearbyint(std::ldexp(magnitude, -unit_exponent)));
    const std::uint32_t bits =
        exponent <= -14 ? units : (std::uint32_t(unit_exponent + 25) << 10) + units - 1024u;
    return std::uint16_t(sign | bits);
}

float half_value(std::uint16_t bits) {
    const float sign = (bits & 0x8000u) != 0 ? -1.0f : 1.0f;
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    if (exponent == 0) return sign * std::ldexp(float(mantissa), -24);
    return sign * std::ldexp(float(mantissa + 1024), exponent - 25);
}

std::vector<float> decode_compensation(const std::vector<std::uint32_t>& words, int nx, int ny) {
    std::vector<float> c(std::size_t(nx) * std::size_t(ny));
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
            const std::uint32_t word = words[word_of(nx, x, y)];
            const auto bits = std::uint16_t(y % 2 == 0 ? word & 0xffffu : word >> 16);
            c[std::size_t(y) * std::size_t(nx) + std::size_t(x)] = half_value(bits) / kScale;
        }
    return c;
}

std::vector<std::uint32_t> encode_compensation(const std::vector<float>& c, int nx, int ny) {
    std::vector<std::uint32_t> words(compensation_words(nx, ny), 0u);
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
            const float value = c[std::size_t(y) * std::size_t(nx) + std::size_t(x)];
            const std::uint32_t bits = half_bits(value * kScale);
            words[word_of(nx, x, y)] |= y % 2 == 0 ? bits : bits << 16;
        }
    return words;
}

std::vector<char> compensation_file_bytes(const std::vector<char>& words, int nx, int ny) {
    return to_bytes(decode_compensation(from_bytes<std::uint32_t>(words), nx, ny));
}

std::vector<char> compensation_buffer_bytes(const std::vector<char>& floats, int nx, int ny) {
    return to_bytes(encode_compensation(from_bytes<float>(floats), nx, ny));
}

}  // namespace adilab::sim
