#pragma once
// The float64 CPU power method every GPU variant is checked against (the power-method paper's
// HOST), computing the method as solvers/power/method.hpp defines it with sequential sums.
#include <span>
#include <vector>

#include "solvers/common/csr.hpp"
#include "solvers/power/method.hpp"

namespace adilab::reference {

struct PowerOutcome {
    power::Result result;  // queued stays 0
    std::vector<double> vector;
};

// x = ones when `start` is empty. Throws adilab::Error as power::check_problem.
PowerOutcome power_method(const CsrMatrix& a, std::span<const double> start, double tol,
                          int max_iter);

}  // namespace adilab::reference
