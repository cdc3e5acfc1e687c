#include "solvers/power/method.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "solvers/gl/error.hpp"

namespace adilab::power {

double max_magnitude(std::span<const double> y) {
    double best = 0.0;
    for (double v : y) {
        const double a = std::abs(v), b = std::abs(best);
        best = a > b ? v : (b > a ? best : std::max(v, best));
    }
    return best;
}

void check_problem(const CsrMatrix& a, std::span<const double> start) {
    if (a.rows != a.cols)
        throw Error("the power method needs a square matrix, this one is " +
                    std::to_string(a.rows) + " x " + std::to_string(a.cols));
    if (a.rows < 1) throw Error("the power method needs at least one row");
    if (a.row_offsets.size() != static_cast<std::size_t>(a.rows) + 1 ||
        a.columns.size() != a.values.size() ||
        a.row_offsets.back() != static_cast<std::int64_t>(a.columns.size()))
        throw Error("inconsistent CSR matrix (offsets, columns and values disagree)");
    if (start.empty()) return;
    if (start.size() != static_cast<std::size_t>(a.rows))
        throw Error("the start vector has " + std::to_string(start.size()) +
                    " entries, the matrix " + std::to_string(a.rows) + " rows");
    if (std::all_of(start.begin(), start.end(), [](double v) { return v == 0.0; }))
        throw Error("the start vector is zero: the power method needs a nonzero start");
    if (!std::all_of(start.begin(), start.end(), [](double v) { return std::isfinite(v); }))
        throw Error("the start vector has a non-finite entry");
}

}  // namespace adilab::power
