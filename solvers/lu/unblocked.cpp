// `gpu-unblocked`: LU with partial pivoting column by column, right-looking (the LU paper, Fig. 2),
// in compute shaders. Step k is two dispatches:
//   shaders/lu/pivot_column.comp — pivot search as a parallel reduction over rows k..n-1 (one
//     work group), the row interchange over all columns, the scaling of column k;
//   shaders/lu/rank1_update.comp — a(i,j) -= a(i,k) a(k,j), i, j > k, one thread per element.
// Pivots stay on the GPU. 2n dispatches: at 4-5 us each the dispatch count alone is
// ~10 us * n, and every step streams the whole trailing matrix, so it is the slow baseline the
// paper's blocked version is compared with. Any n >= 1 (n*n floats must fit one buffer).
#include <string>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/lu/variants.hpp"

namespace adilab::lu {

namespace {

class UnblockedSolver final : public Solver {
  public:
    std::string name() const override { return "gpu-unblocked"; }
    void factor(Factors& f) override {
        const gl::Program& pivot =
            gl::compute_program("lu/pivot_column.comp", {{"WG_SIZE", "1024"}});
        const gl::Program& update = gl::compute_program("lu/rank1_update.comp");
        const int n = f.n;
        f.values.bind_storage(0);
        f.pivots.bind_storage(1);
        f.status.bind_storage(2);
        for (int k = 0; k < n; ++k) {
            pivot.use();
            pivot.set("n", n);
            pivot.set("k", k);
            pivot.set("col_begin", 0);
            pivot.set("col_end", n);
            gl::dispatch(1);
            gl::memory_barrier(gl::Barrier::storage);
            const unsigned rest = static_cast<unsigned>(n - k - 1);
            if (rest == 0) continue;
            update.use();
            update.set("n", n);
            update.set("k", k);
            update.set("col_end", n);
            gl::dispatch((rest + 15) / 16, (rest + 15) / 16);
            gl::memory_barrier(gl::Barrier::storage);
        }
    }
};

}  // namespace

std::unique_ptr<Solver> make_unblocked_solver() {
    return std::make_unique<UnblockedSolver>();
}

}  // namespace adilab::lu
