#pragma once
// The float64 CPU power method every GPU variant is checked against (seed 004, HOST), and the
// float64 dense helpers the tests build known spectra with.
#include <span>
#include <vector>

#include "solvers/common/csr.hpp"
#include "solvers/power/power.hpp"

namespace adilab::reference {

struct PowerOutcome {
    power::Result result;
    std::vector<double> vector;
};

// The method as power.hpp defines it, sequential sums, x = ones when `start` is empty.
PowerOutcome power_method(const CsrMatrix& a, std::span<const double> start, double tol,
                          int max_iter);

}  // namespace adilab::reference
