#include <algorithm>
#include <vector>

#include "solvers/gl/error.hpp"
#include "solvers/tridiagonal/solver.hpp"

namespace adilab::tridiag {

std::span<const VariantInfo> variants() {
    static const std::vector<VariantInfo> all = {};
    return all;
}

std::unique_ptr<Solver> make_solver(const std::string& name) {
    std::string known;
    for (const VariantInfo& v : variants()) known += (known.empty() ? "" : ", ") + v.name;
    throw Error("unknown tridiagonal solver '" + name + "' (available: " + known + ")");
}

}  // namespace adilab::tridiag
