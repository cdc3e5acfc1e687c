#include "solvers/reference/matmul_reference.hpp"

#include <cmath>
#include <limits>
#include <random>

namespace adilab::reference {

ProductF64 matmul_f64(const float* a, const float* b, int m, int n, int l) {
    ProductF64 out;
    const std::size_t ml = static_cast<std::size_t>(m) * static_cast<std::size_t>(l);
    out.c.assign(ml, 0.0);
    out.abs_c.assign(ml, 0.0);
    // i-k-j order: the inner loop runs along rows of B and C (contiguous).
    for (int i = 0; i < m; ++i) {
        double* c_row = &out.c[static_cast<std::size_t>(i) * l];
        double* abs_row = &out.abs_c[static_cast<std::size_t>(i) * l];
        for (int k = 0; k < n; ++k) {
            const double aik = a[static_cast<std::size_t>(i) * n + k];
            const double abs_aik = std::abs(aik);
            const float* b_row = &b[static_cast<std::size_t>(k) * l];
            for (int j = 0; j < l; ++j) {
                c_row[j] += aik * b_row[j];
                abs_row[j] += abs_aik * std::abs(static_cast<double>(b_row[j]));
            }
        }
    }
    return out;
}

namespace {

double scaled(double value, double exact, double scale) {
    if (std::isnan(value)) return std::numeric_limits<double>::infinity();
    const double diff = std::abs(value - exact);
    return scale > 0.0 ? diff / scale : diff;
}

}  // namespace

double max_scaled_error(const float* c, const ProductF64& ref) {
    double worst = 0.0;
    for (std::size_t i = 0; i < ref.c.size(); ++i)
        worst = std::max(worst, scaled(c[i], ref.c[i], ref.abs_c[i]));
    return worst;
}

double sampled_scaled_error(const float* a, const float* b, const float* c, int m, int n, int l,
                            int samples, std::uint64_t seed) {
    const std::size_t ml = static_cast<std::size_t>(m) * static_cast<std::size_t>(l);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, ml - 1);
    const bool all = ml <= static_cast<std::size_t>(samples);
    const std::size_t count = all ? ml : static_cast<std::size_t>(samples);
    double worst = 0.0;
    for (std::size_t s = 0; s < count; ++s) {
        const std::size_t index = all ? s : pick(rng);
        const std::size_t i = index / static_cast<std::size_t>(l), j = index % l;
        double sum = 0.0, abs_sum = 0.0;
        for (int k = 0; k < n; ++k) {
            const double p =
                static_cast<double>(a[i * n + k]) * b[static_cast<std::size_t>(k) * l + j];
            sum += p;
            abs_sum += std::abs(p);
        }
        worst = std::max(worst, scaled(c[index], sum, abs_sum));
    }
    return worst;
}

double fp32_dot_gamma(int n) {
    const double u = std::ldexp(1.0, -24);
    return n * u / (1.0 - n * u);
}

std::vector<float> random_matrix(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> out(count);
    for (float& x : out) x = value(rng);
    return out;
}

}  // namespace adilab::reference
