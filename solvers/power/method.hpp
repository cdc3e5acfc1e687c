#pragma once
// The power method for the dominant eigenpair of a square sparse matrix (the power-method
// paper, "Power method on the GPU"), as every variant and the float64 reference compute it:
//   y = A x_k;  lambda_k = the element of y of largest magnitude (sign kept);
//   x_{k+1} = y / lambda_k;  converged when max_i |x_{k+1,i} - x_{k,i}| < tol.
// Keeping lambda's sign lets a negative dominant eigenvalue converge too (normalising by
// max |y_i| would flip x every iteration). Ties in magnitude pick the positive element, so
// every variant and every reduction order picks the same element.
//
// Breakdown: when A x_k = 0 (lambda = 0: a zero start, a nilpotent or zero matrix), the method
// stops with lambda = 0, x = x_k, converged = false and breakdown = true. A zero start vector is
// refused up front (adilab::Error).
//
// This header holds what the GPU variants (power.hpp) and the reference
// (solvers/reference/power_reference.hpp) share, so that neither includes the other: the
// result, the element of largest magnitude and the problem's checks.
#include <span>

#include "solvers/common/csr.hpp"

namespace adilab::power {

struct Result {
    double lambda = 0.0;
    int iterations = 0;  // y = A x products done until the stop
    bool converged = false;
    bool breakdown = false;  // A x = 0 met
    double error = 0.0;      // max |x_{k+1} - x_k| of the last iteration (NaN where the
                             // variant never computes it: gpu-opt has no norm)
    int queued = 0;          // gpu-opt(-async): iterations the host queued before it stopped,
                             // frozen ones past the stop included (0 for the other variants)
};

// The element of largest magnitude, ties to the positive one (0 for an empty span).
double max_magnitude(std::span<const double> y);

// Checks a square matrix and a start vector (length n, not all zero, finite; empty = ones);
// throws adilab::Error naming the problem.
void check_problem(const CsrMatrix& a, std::span<const double> start);

}  // namespace adilab::power
