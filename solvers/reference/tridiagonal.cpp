#include "solvers/reference/tridiagonal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace adilab::reference {

namespace {

bool usable_pivot(double p) {
    return p != 0.0 && std::isfinite(p);
}

// Thomas with coefficient getters: forward elimination keeps c'_i = c_i / m_i and
// k'_i = (k_i - a_i k'_{i-1}) / m_i with m_i = b_i - a_i c'_{i-1}; back substitution
// x_i = k'_i - c'_i x_{i+1}. The scratch c' lives in x's caller-provided vector.
template <class A, class B, class C, class K>
bool thomas(std::size_t n, A a, B b, C c, K k, double* x, std::size_t first, std::size_t stride,
            std::vector<double>& c_prime) {
    if (n == 0) return true;
    c_prime.resize(n);
    double m = b(0);
    if (!usable_pivot(m)) return false;
    c_prime[0] = (n > 1 ? c(0) : 0.0) / m;
    x[first] = k(0) / m;
    for (std::size_t i = 1; i < n; ++i) {
        m = b(i) - a(i) * c_prime[i - 1];
        if (!usable_pivot(m)) return false;
        c_prime[i] = (i + 1 < n ? c(i) : 0.0) / m;
        x[first + i * stride] = (k(i) - a(i) * x[first + (i - 1) * stride]) / m;
    }
    for (std::size_t i = n - 1; i-- > 0;)
        x[first + i * stride] -= c_prime[i] * x[first + (i + 1) * stride];
    return true;
}

}  // namespace

bool thomas_line(std::size_t n, const float* a, const float* b, const float* c, const float* k,
                 double* x, std::size_t first, std::size_t stride) {
    std::vector<double> scratch;
    auto at = [&](const float* v) {
        return [=](std::size_t i) { return double(v[first + i * stride]); };
    };
    return thomas(n, at(a), at(b), at(c), at(k), x, first, stride, scratch);
}

bool thomas_line_constant(std::size_t n, double a, double b, double c, double b_first,
                          double b_last, const float* k, double* x, std::size_t first,
                          std::size_t stride) {
    std::vector<double> scratch;
    return thomas(
        n, [=](std::size_t) { return a; },
        [=](std::size_t i) { return constant_diagonal(i, n, b, b_first, b_last); },
        [=](std::size_t) { return c; },
        [=](std::size_t i) { return double(k[first + i * stride]); }, x, first, stride, scratch);
}

namespace {

template <class SolveLine>
GridSolveResult solve_grid(int nx, int ny, bool direction_x, SolveLine solve_line) {
    GridSolveResult result;
    result.x.assign(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny), 0.0);
    const int lines = direction_x ? ny : nx;
    const std::size_t n = static_cast<std::size_t>(direction_x ? nx : ny);
    const std::size_t stride = direction_x ? 1 : static_cast<std::size_t>(nx);
    for (int line = 0; line < lines; ++line) {
        const std::size_t first =
            direction_x ? static_cast<std::size_t>(line) * nx : static_cast<std::size_t>(line);
        if (!solve_line(n, result.x.data(), first, stride) && result.failed_line < 0)
            result.failed_line = line;
    }
    return result;
}

}  // namespace

GridSolveResult solve_grid_general(int nx, int ny, bool direction_x, std::span<const float> a,
                                   std::span<const float> b, std::span<const float> c,
                                   std::span<const float> k) {
    return solve_grid(
        nx, ny, direction_x, [&](std::size_t n, double* x, std::size_t first, std::size_t stride) {
            return thomas_line(n, a.data(), b.data(), c.data(), k.data(), x, first, stride);
        });
}

GridSolveResult solve_grid_constant(int nx, int ny, bool direction_x, double a, double b, double c,
                                    double b_first, double b_last, std::span<const float> k) {
    return solve_grid(
        nx, ny, direction_x, [&](std::size_t n, double* x, std::size_t first, std::size_t stride) {
            return thomas_line_constant(n, a, b, c, b_first, b_last, k.data(), x, first, stride);
        });
}

Problem random_dominant_problem(int nx, int ny, bool direction_x, unsigned seed, double margin,
                                bool symmetric) {
    Problem p;
    p.nx = nx;
    p.ny = ny;
    const std::size_t size = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> off(-1.0, 1.0), extra(1.0, 2.0);
    std::bernoulli_distribution negative(0.5);
    p.a.resize(size);
    p.b.resize(size);
    p.c.resize(size);
    p.k.resize(size);
    for (std::size_t e = 0; e < size; ++e) {
        p.a[e] = static_cast<float>(off(rng));
        p.c[e] = static_cast<float>(off(rng));
        p.k[e] = static_cast<float>(off(rng));
    }
    const std::size_t step = direction_x ? 1 : static_cast<std::size_t>(nx);
    if (symmetric) {
        // c_i = a_{i+1}: the upper off-diagonal mirrors the lower one within each line.
        for (std::size_t e = 0; e < size; ++e)
            if (e + step < size) p.c[e] = p.a[e + step];
    }
    for (std::size_t e = 0; e < size; ++e) {
        const double dominant =
            std::abs(double(p.a[e])) + std::abs(double(p.c[e])) + margin * extra(rng);
        const bool flip = !symmetric && negative(rng);
        p.b[e] = static_cast<float>(flip ? -dominant : dominant);
    }
    p.const_a = static_cast<float>(off(rng));
    p.const_c = symmetric ? p.const_a : static_cast<float>(off(rng));
    const double sign = !symmetric && negative(rng) ? -1.0 : 1.0;
    p.const_b = static_cast<float>(
        sign * (std::abs(p.const_a) + std::abs(p.const_c) + margin * extra(rng)));
    p.const_b_first = static_cast<float>(sign * (std::abs(p.const_c) + margin * extra(rng)));
    p.const_b_last = static_cast<float>(sign * (std::abs(p.const_a) + margin * extra(rng)));
    return p;
}

double max_relative_error(std::span<const float> x, std::span<const double> reference) {
    double scale = 0.0, error = 0.0;
    for (double r : reference) scale = std::max(scale, std::abs(r));
    if (scale == 0.0) scale = 1.0;
    const std::size_t n = std::min(x.size(), reference.size());
    if (x.size() != reference.size()) return std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(x[i])) return std::numeric_limits<double>::infinity();
        error = std::max(error, std::abs(double(x[i]) - reference[i]));
    }
    return error / scale;
}

}  // namespace adilab::reference
