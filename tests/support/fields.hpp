#pragma once
// Fields shared by the simulation tests: random starts and the comparison with a float64
// reference.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace adilab::test {

// nx * ny values uniform in [lo, hi), row-major, reproducible from `seed`.
inline std::vector<float> random_field(int nx, int ny, float lo, float hi, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(std::size_t(nx) * ny);
    for (float& x : v) x = dist(rng);
    return v;
}

// The largest |gpu - ref|; a NaN or Inf on the GPU side counts as infinitely far.
inline double max_abs_diff(const std::vector<float>& gpu, const std::vector<double>& ref) {
    double worst = 0;
    for (std::size_t k = 0; k < gpu.size(); ++k)
        worst = std::max(worst, std::isfinite(gpu[k]) ? std::abs(gpu[k] - ref[k]) : INFINITY);
    return worst;
}

}  // namespace adilab::test
