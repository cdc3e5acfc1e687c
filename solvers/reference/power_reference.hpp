#pragma once
// The float64 CPU power method every GPU variant is checked against (the power-method paper's
// HOST), with the definitions the solvers share: the problem's checks and the element of
// largest magnitude. solvers/power depends on this file, not the other way round.
#include <span>
#include <vector>

#include "solvers/common/csr.hpp"

namespace adilab::reference {

struct PowerResult {
    double lambda = 0.0;
    int iterations = 0;      // y = A x products done until the stop
    bool converged = false;
    bool breakdown = false;  // A x = 0 met
    double error = 0.0;      // max |x_{k+1} - x_k| of the last iteration
};

struct PowerOutcome {
    PowerResult result;
    std::vector<double> vector;
};

// The method as solvers/power/power.hpp defines it, sequential sums, x = ones when `start` is
// empty. Throws adilab::Error as check_power_problem.
PowerOutcome power_method(const CsrMatrix& a, std::span<const double> start, double tol,
                          int max_iter);

// The element of largest magnitude, ties to the positive one (0 for an empty span).
double max_magnitude(std::span<const double> y);

// Checks a square matrix and a start vector (length n, not all zero, finite; empty = ones);
// throws adilab::Error naming the problem.
void check_power_problem(const CsrMatrix& a, std::span<const double> start);

}  // namespace adilab::reference
