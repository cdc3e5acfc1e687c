#include "solvers/reference/power_reference.hpp"

#include <cmath>

namespace adilab::reference {

PowerOutcome power_method(const CsrMatrix& a, std::span<const double> start, double tol,
                          int max_iter) {
    power::check_problem(a, start);
    const std::size_t n = static_cast<std::size_t>(a.rows);
    PowerOutcome out;
    std::vector<double>& x = out.vector;
    if (start.empty())
        x.assign(n, 1.0);
    else
        x.assign(start.begin(), start.end());
    std::vector<double> y(n);
    power::Result& r = out.result;
    for (int k = 0; k < max_iter; ++k) {
        csr_multiply(a, x, y);
        ++r.iterations;
        const double lambda = power::max_magnitude(y);
        if (lambda == 0.0 || !std::isfinite(lambda)) {
            r.lambda = lambda == 0.0 ? 0.0 : lambda;
            r.breakdown = true;
            return out;
        }
        r.lambda = lambda;
        double error = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            const double next = y[i] / lambda;
            const double d = std::abs(next - x[i]);
            // NaN counts as not converged, as the GPU's !(d < tol) test does.
            if (!(d <= error)) error = d;
            x[i] = next;
        }
        r.error = error;
        if (error < tol) {
            r.converged = true;
            return out;
        }
    }
    return out;
}

}  // namespace adilab::reference
