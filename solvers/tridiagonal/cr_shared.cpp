// `cr-shared`: every line of the grid solved in ONE dispatch, one work group per line, the line
// held in shared memory and solved by shaders/tridiagonal/line_solve.glsl — cyclic reduction
// (Kim & Lee's odd-even reduction, any N) switching to PCR when at most 32 equations are left
// (Zhang, Cohen & Owens 2010). fp32, no pivoting (diagonally dominant systems); pivot failures
// set the flag that check_pivots() reads.
// Limits: a line needs 16.5 bytes of shared memory per unknown (2974 unknowns in 48 KiB); longer
// lines are solved by the global-memory path (cr-pingpong), not refused.
// In the strided y direction each work group reads a column, so loads do not coalesce: the
// constant-coefficient fast variants exist for that (see registry.cpp).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <unordered_map>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

class CrSharedSolver final : public GpuSolver {
  public:
    std::string name() const override { return "cr-shared"; }

    // Lines longer than shared memory holds go to cr-pingpong, with its scratch (taken for
    // both directions: exact for square grids, a little over otherwise).
    std::vector<gl::BufferNeed> scratch_needs(Grid grid) const override {
        const unsigned capacity = shared_line_capacity();
        if (unsigned(grid.nx) <= capacity && unsigned(grid.ny) <= capacity) return {};
        return make_cr_pingpong()->scratch_needs(grid);
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const LineLayout layout = line_layout(grid, direction);
        const unsigned capacity = shared_line_capacity();
        if (layout.n > capacity) {
            if (!fallback_) fallback_ = make_cr_pingpong();
            fallback_->solve(grid, direction, coefficients, rhs, solution);
            return;
        }
        // Shared arrays sized to the next power of two (capped at the capacity) so that a few
        // programs cover every n and short lines do not pay a big shared footprint (occupancy).
        const unsigned max_n = std::min(capacity, std::max(32u, std::bit_ceil(layout.n)));
        const unsigned wg = std::clamp(std::bit_ceil(layout.n) / 4u, 32u, 256u);
        // Looked up once per shape: the registry's key building costs about what a small
        // solve costs on the GPU.
        const gl::Program*& cached =
            programs_[std::uint64_t(max_n) << 32 | wg << 1 | (is_constant(coefficients) ? 1 : 0)];
        if (cached == nullptr) {
            gl::Defines defines = coefficient_defines(coefficients);
            defines.push_back({"WG_SIZE", std::to_string(wg)});
            defines.push_back({"MAX_N", std::to_string(max_n)});
            cached = &gl::compute_program("tridiagonal/cr_shared.comp", defines);
        }
        const gl::Program& program = *cached;
        bind_lines(program, layout, coefficients, rhs, solution);
        dispatch_spread(layout.lines);
        gl::memory_barrier(gl::Barrier::storage);
    }

    std::optional<PivotFailure> check_pivots() override {
        return check_pivots_and(fallback_.get());
    }

  private:
    static unsigned shared_line_capacity() {
        // Four padded arrays: 16 bytes per unknown plus one word per 32 each (line_solve.glsl).
        const int bytes = gl::Context::current().info().max_shared_memory_bytes;
        return static_cast<unsigned>((std::max(bytes, 1024) - 64) * 2 / 33);
    }
    std::unordered_map<std::uint64_t, const gl::Program*> programs_;  // current context's
    std::unique_ptr<Solver> fallback_;  // cr-pingpong, for lines longer than shared memory
};

}  // namespace

std::unique_ptr<Solver> make_cr_shared() {
    return std::make_unique<CrSharedSolver>();
}

}  // namespace adilab::tridiag
