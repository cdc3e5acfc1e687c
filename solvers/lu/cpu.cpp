// `cpu`: LU with partial pivoting in float32 on the host (solvers/reference/lu.hpp, instantiated
// for float): the baseline of the bench. It reads the matrix back and uploads the factors, so
// its time includes both transfers; never use it in a per-step path.
#include <vector>

#include "solvers/lu/lu.hpp"
#include "solvers/lu/variants.hpp"
#include "solvers/reference/lu.hpp"

namespace adilab::lu {

namespace {

class CpuSolver final : public Solver {
  public:
    std::string name() const override { return "cpu"; }
    void factor(Factors& f) override {
        std::vector<float> a = f.values.read_all<float>();
        std::vector<int> pivots(static_cast<std::size_t>(f.n));
        const auto report = reference::lu_factor<float>(a, f.n, pivots);
        f.values.write(a);
        f.pivots.write(pivots);
        const int status[2] = {report.singular_column >= 0 ? report.singular_column : f.n, 0};
        f.status.upload(0, sizeof status, status);
    }
};

}  // namespace

std::unique_ptr<Solver> make_cpu_solver() {
    return std::make_unique<CpuSolver>();
}

}  // namespace adilab::lu
