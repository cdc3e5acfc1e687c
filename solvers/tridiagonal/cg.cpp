// `cg` (to tolerance), `cg-1`, `cg-2` (fixed iterations, the paper's Fig. 11 comparators):
// conjugate gradient on the GPU over every line of the grid in ONE dispatch
// (shaders/tridiagonal/cg.comp). Needs symmetric positive definite lines (c_i = a_{i+1},
// b_i > 0): the heat and shallow-water systems are; a non-symmetric system (e.g. upwind
// advection) is not solved by CG — the GPU checks symmetry and positivity and reports the line
// through check_pivots() instead of returning a quietly wrong answer. Constant coefficients with
// a != c are refused up front (adilab::Error), since that is known on the host.
// Tolerance mode: max|r| <= 1e-6 max|k|. For a row diagonally dominant by delta the error
// obeys max|x - x*| <= max|r| / delta (the inverse's infinity norm is <= 1/delta), so the
// stopping rule bounds every unknown's error, not just an average.
// Limits: a line lives in shared memory (4 bytes per unknown) and in registers (ELEMENTS per
// invocation); lines longer than 64 * work-group size are refused with a clear error.
#include <algorithm>
#include <bit>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

constexpr float kTolerance = 1e-6f;
constexpr unsigned kMaxElements = 64;

class CgSolver final : public GpuSolver {
  public:
    explicit CgSolver(int iterations) : iterations_(iterations) {}

    std::string name() const override {
        return iterations_ > 0 ? "cg-" + std::to_string(iterations_) : "cg";
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        if (const auto* k = std::get_if<ConstantCoefficients>(&coefficients); k && k->a != k->c)
            throw Error(name() +
                        ": conjugate gradient needs a symmetric matrix, but the constant "
                        "coefficients have a = " +
                        std::to_string(k->a) + " != c = " + std::to_string(k->c) +
                        "; use cr-shared or lu-scan");
        const LineLayout layout = line_layout(grid, direction);
        const auto& info = gl::Context::current().info();
        const unsigned wg = std::clamp(std::bit_ceil(layout.n), 32u,
                                       std::min(256u, unsigned(info.max_work_group_invocations)));
        const unsigned elements = std::bit_ceil((layout.n + wg - 1) / wg);
        const std::size_t shared = std::size_t(wg) * elements * 4 + std::size_t(wg) * 8;
        if (elements > kMaxElements || shared > std::size_t(info.max_shared_memory_bytes))
            throw Error(
                name() + ": lines of " + std::to_string(layout.n) +
                " unknowns exceed what one work group holds (" +
                std::to_string(std::min<std::size_t>(std::size_t(wg) * kMaxElements,
                                                     (info.max_shared_memory_bytes - wg * 8) / 4)) +
                "); use cr-shared");
        gl::Defines defines = coefficient_defines(coefficients);
        defines.push_back({"WG_SIZE", std::to_string(wg)});
        defines.push_back({"ELEMENTS", std::to_string(elements)});
        const gl::Program& program = gl::compute_program("tridiagonal/cg.comp", defines);
        bind_lines(program, layout, coefficients, rhs, solution);
        // Tolerance mode caps the iterations at N (exact in exact arithmetic) plus a margin
        // for fp32; the diagonally dominant systems converge in a few dozen.
        program.set("iterations",
                    iterations_ > 0 ? unsigned(iterations_) : std::max(2 * layout.n, 50u));
        program.set("to_tolerance", iterations_ > 0 ? 0u : 1u);
        program.set("tolerance", kTolerance);
        dispatch_spread(layout.lines);
        gl::memory_barrier(gl::Barrier::storage);
    }

  private:
    int iterations_;
};

}  // namespace

std::unique_ptr<Solver> make_cg(int iterations) {
    return std::make_unique<CgSolver>(iterations);
}

}  // namespace adilab::tridiag
