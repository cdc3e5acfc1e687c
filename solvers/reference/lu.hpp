#pragma once
// LU decomposition with partial pivoting on the CPU (Kim, Kim & Yu, Fig. 2, right-looking, column
// by column): P A = L U with L unit lower triangular and U upper triangular, stored packed in A (L
// below the diagonal, U on and above it), row-major n x n.
//
// Pivots follow LAPACK's convention, 0-based: at step k rows k and pivots[k] (>= k) were
// interchanged, in order k = 0, 1, ... The pivot is the largest |a(i,k)| over i >= k; a tie goes
// to the smallest row index (the GPU kernels use the same rule, so pivot sequences compare).
//
// A zero pivot (the whole remaining column is zero) does not stop the factorisation: the
// column of L is left zero (no division, so no NaN), U(k,k) = 0, and the first such column is
// reported. This is LAPACK getrf's INFO > 0.
//
// float64 is the reference every GPU result is checked against; float32 is the `cpu` variant.
#include <span>
#include <vector>

namespace adilab::reference {

template <class T>
struct LuReport {
    int singular_column = -1;  // first column with a zero pivot, -1 if none
    // Smallest ratio (|best| - |second best|) / |best| among the pivot candidates of any step:
    // how close the matrix came to a tie. Tests use it to show a matrix has no ties.
    double min_pivot_gap = 1.0;
};

// Factors `a` (n*n, row-major) in place; `pivots` gets n entries.
template <class T>
LuReport<T> lu_factor(std::span<T> a, int n, std::span<int> pivots);

// Solves A x = b with the packed factors: x = U^-1 L^-1 P b. `b` is overwritten with x.
// Precondition: no zero pivot.
template <class T>
void lu_solve(std::span<const T> lu, int n, std::span<const int> pivots, std::span<T> b);

// Sign (+1, -1 or 0 for singular) and log|det A| (-inf when singular) from the factors.
struct Determinant {
    int sign = 1;
    double log_abs = 0.0;
    double value() const;  // sign * exp(log_abs): inf when it overflows double, never NaN
};
template <class T>
Determinant lu_determinant(std::span<const T> lu, int n, std::span<const int> pivots);

// Norms and residuals, all in float64, infinity norms (max row sum).
double norm_inf(std::span<const float> a, int n);
// ||P A - L U||_inf / ||A||_inf, exact, O(n^3): for tests and small benches.
double factor_residual(std::span<const float> a, std::span<const float> lu, int n,
                       std::span<const int> pivots);
// An O(n^2) estimate of the same: max over `probes` random vectors v (entries +-1) of
// ||(P A - L U) v||_inf / (||A||_inf ||v||_inf). A lower bound of the exact value, close in
// practice; used by the bench for large n.
double factor_residual_estimate(std::span<const float> a, std::span<const float> lu, int n,
                                std::span<const int> pivots, int probes = 4);
// || |L| |U| ||_inf computed as max_i (|L| (|U| 1))_i in O(n^2): Wilkinson's backward error bound
// for LU is |P A - L U| <= gamma_n |L| |U| (Higham, Accuracy and Stability, Thm 9.3), with the
// growth factor hidden inside |U|.
double abs_lu_norm_inf(std::span<const float> lu, int n);
// ||A x - b||_inf / (||A||_inf ||x||_inf)
double solve_residual(std::span<const float> a, int n, std::span<const float> x,
                      std::span<const float> b);

}  // namespace adilab::reference
