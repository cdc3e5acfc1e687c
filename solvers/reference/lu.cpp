#include "solvers/reference/lu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace adilab::reference {

template <class T>
LuReport<T> lu_factor(std::span<T> a, int n, std::span<int> pivots) {
    LuReport<T> report;
    const std::size_t size = static_cast<std::size_t>(n);
    auto at = [&](int i, int j) -> T& { return a[static_cast<std::size_t>(i) * size + j]; };
    for (int k = 0; k < n; ++k) {
        int p = k;
        T best = std::abs(at(k, k)), second = 0;
        for (int i = k + 1; i < n; ++i) {
            const T v = std::abs(at(i, k));
            if (v > best) {
                second = best;
                best = v;
                p = i;
            } else if (v > second) {
                second = v;
            }
        }
        if (n - k > 1 && best > 0)
            report.min_pivot_gap =
                std::min(report.min_pivot_gap, double(best - second) / double(best));
        pivots[k] = p;
        if (p != k)
            for (int j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
        const T pivot = at(k, k);
        if (pivot == T(0)) {
            if (report.singular_column < 0) report.singular_column = k;
            continue;  // the column below is all zero: L's column stays zero, nothing to update
        }
        for (int i = k + 1; i < n; ++i) {
            const T l = at(i, k) / pivot;
            at(i, k) = l;
            if (l == T(0)) continue;
            T* row = &at(i, 0);
            const T* pivot_row = &at(k, 0);
            for (int j = k + 1; j < n; ++j) row[j] -= l * pivot_row[j];
        }
    }
    return report;
}

template <class T>
void lu_solve(std::span<const T> lu, int n, std::span<const int> pivots, std::span<T> b) {
    const std::size_t size = static_cast<std::size_t>(n);
    for (int k = 0; k < n; ++k) std::swap(b[k], b[pivots[k]]);
    for (int i = 0; i < n; ++i) {  // L y = P b, unit diagonal
        T sum = b[i];
        for (int j = 0; j < i; ++j) sum -= lu[i * size + j] * b[j];
        b[i] = sum;
    }
    for (int i = n - 1; i >= 0; --i) {  // U x = y
        T sum = b[i];
        for (int j = i + 1; j < n; ++j) sum -= lu[i * size + j] * b[j];
        b[i] = sum / lu[i * size + i];
    }
}

double Determinant::value() const {
    if (sign == 0) return 0.0;
    return sign * std::exp(log_abs);
}

template <class T>
Determinant lu_determinant(std::span<const T> lu, int n, std::span<const int> pivots) {
    Determinant d;
    for (int k = 0; k < n; ++k) {
        const double u = lu[static_cast<std::size_t>(k) * n + k];
        if (u == 0.0) return {0, -std::numeric_limits<double>::infinity()};
        if (u < 0) d.sign = -d.sign;
        if (pivots[k] != k) d.sign = -d.sign;
        d.log_abs += std::log(std::abs(u));
    }
    return d;
}

double norm_inf(std::span<const float> a, int n) {
    double best = 0;
    for (int i = 0; i < n; ++i) {
        double sum = 0;
        for (int j = 0; j < n; ++j) sum += std::abs(double(a[std::size_t(i) * n + j]));
        best = std::max(best, sum);
    }
    return best;
}

namespace {

// P A as rows: row i of P A is row perm[i] of A, where perm applies the interchanges in order.
std::vector<int> row_permutation(std::span<const int> pivots, int n) {
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int k = 0; k < n; ++k) std::swap(perm[k], perm[pivots[k]]);
    return perm;
}

// (L U) v for the packed factors, in double.
std::vector<double> lu_times(std::span<const float> lu, int n, const std::vector<double>& v) {
    const std::size_t size = static_cast<std::size_t>(n);
    std::vector<double> uv(size), out(size);
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = i; j < n; ++j) s += double(lu[i * size + j]) * v[j];
        uv[i] = s;
    }
    for (int i = 0; i < n; ++i) {
        double s = uv[i];
        for (int j = 0; j < i; ++j) s += double(lu[i * size + j]) * uv[j];
        out[i] = s;
    }
    return out;
}

}  // namespace

double factor_residual(std::span<const float> a, std::span<const float> lu, int n,
                       std::span<const int> pivots) {
    const std::size_t size = static_cast<std::size_t>(n);
    const std::vector<int> perm = row_permutation(pivots, n);
    // Row i of L U = sum_k L(i,k) U(k,:), k <= i, with L(i,i) = 1.
    std::vector<double> row(size);
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int k = 0; k <= i; ++k) {
            const double l = k == i ? 1.0 : double(lu[i * size + k]);
            if (l == 0.0) continue;
            const float* u = &lu[k * size];
            for (int j = k; j < n; ++j) row[j] += l * double(u[j]);
        }
        double sum = 0;
        for (int j = 0; j < n; ++j) sum += std::abs(double(a[perm[i] * size + j]) - row[j]);
        worst = std::max(worst, sum);
    }
    const double norm = norm_inf(a, n);
    return norm == 0 ? worst : worst / norm;
}

double factor_residual_estimate(std::span<const float> a, std::span<const float> lu, int n,
                                std::span<const int> pivots, int probes) {
    const std::size_t size = static_cast<std::size_t>(n);
    const std::vector<int> perm = row_permutation(pivots, n);
    std::mt19937 rng(12345);
    double worst = 0;
    for (int p = 0; p < probes; ++p) {
        std::vector<double> v(size);
        for (double& x : v) x = (rng() & 1) ? 1.0 : -1.0;
        const std::vector<double> luv = lu_times(lu, n, v);
        for (int i = 0; i < n; ++i) {
            double s = 0;
            const float* row = &a[perm[i] * size];
            for (int j = 0; j < n; ++j) s += double(row[j]) * v[j];
            worst = std::max(worst, std::abs(s - luv[i]));
        }
    }
    const double norm = norm_inf(a, n);
    return norm == 0 ? worst : worst / norm;
}

double abs_lu_norm_inf(std::span<const float> lu, int n) {
    const std::size_t size = static_cast<std::size_t>(n);
    std::vector<double> u1(size);
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int j = i; j < n; ++j) s += std::abs(double(lu[i * size + j]));
        u1[i] = s;
    }
    double best = 0;
    for (int i = 0; i < n; ++i) {
        double s = u1[i];
        for (int k = 0; k < i; ++k) s += std::abs(double(lu[i * size + k])) * u1[k];
        best = std::max(best, s);
    }
    return best;
}

double solve_residual(std::span<const float> a, int n, std::span<const float> x,
                      std::span<const float> b) {
    const std::size_t size = static_cast<std::size_t>(n);
    double worst = 0, x_norm = 0;
    for (int i = 0; i < n; ++i) {
        double s = -double(b[i]);
        for (int j = 0; j < n; ++j) s += double(a[i * size + j]) * double(x[j]);
        worst = std::max(worst, std::abs(s));
        x_norm = std::max(x_norm, std::abs(double(x[i])));
    }
    const double denominator = norm_inf(a, n) * x_norm;
    return denominator == 0 ? worst : worst / denominator;
}

template LuReport<double> lu_factor<double>(std::span<double>, int, std::span<int>);
template LuReport<float> lu_factor<float>(std::span<float>, int, std::span<int>);
template void lu_solve<double>(std::span<const double>, int, std::span<const int>,
                               std::span<double>);
template void lu_solve<float>(std::span<const float>, int, std::span<const int>, std::span<float>);
template Determinant lu_determinant<double>(std::span<const double>, int, std::span<const int>);
template Determinant lu_determinant<float>(std::span<const float>, int, std::span<const int>);

}  // namespace adilab::reference
