#include "solvers/tridiagonal/gpu_solver.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::tridiag {

LineLayout line_layout(Grid grid, Direction direction) {
    const auto nx = static_cast<unsigned>(grid.nx), ny = static_cast<unsigned>(grid.ny);
    if (direction == Direction::x) return {nx, ny, nx, 1};
    return {ny, nx, 1, nx};
}

void validate(Grid grid, const Coefficients& coefficients, const gl::Buffer& rhs,
              const gl::Buffer& solution) {
    if (grid.nx < 1 || grid.ny < 1)
        throw Error("tridiagonal solve: the grid must be at least 1 x 1 (got " +
                    std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + ")");
    const std::size_t bytes = static_cast<std::size_t>(grid.nx) * grid.ny * sizeof(float);
    auto check = [&](const gl::Buffer* buffer, const char* what) {
        if (buffer == nullptr || buffer->empty())
            throw Error(std::string("tridiagonal solve: no ") + what + " buffer");
        if (buffer->size() < bytes)
            throw Error(std::string("tridiagonal solve: the ") + what + " buffer holds " +
                        std::to_string(buffer->size()) + " bytes, the grid needs " +
                        std::to_string(bytes));
    };
    check(&rhs, "right-hand side");
    check(&solution, "solution");
    if (rhs.id() == solution.id() && rhs.offset() == solution.offset())
        throw Error("tridiagonal solve: the solution buffer may not alias the right-hand side");
    if (const auto* general = std::get_if<GeneralCoefficients>(&coefficients)) {
        check(general->a, "coefficient a");
        check(general->b, "coefficient b");
        check(general->c, "coefficient c");
    }
}

bool is_constant(const Coefficients& coefficients) {
    return std::holds_alternative<ConstantCoefficients>(coefficients);
}

gl::Defines coefficient_defines(const Coefficients& coefficients) {
    return {{"CONSTANT_COEFFICIENTS", is_constant(coefficients) ? "1" : "0"}};
}

void dispatch_spread(unsigned groups) {
    if (groups == 0) return;
    const unsigned x = std::min(groups, 65535u);
    const unsigned y = (groups + x - 1) / x;
    gl::dispatch(x, y);
}

gl::Buffer& GpuSolver::pivot_flag() {
    if (pivot_flag_.empty()) {
        pivot_flag_ = gl::Buffer(2 * sizeof(std::uint32_t));
        pivot_flag_.zero();
    }
    return pivot_flag_;
}

std::optional<PivotFailure> GpuSolver::check_pivots() {
    if (pivot_flag_.empty()) return std::nullopt;
    const auto flag = pivot_flag_.read<std::uint32_t>(2);
    if (flag[0] == 0) return std::nullopt;
    pivot_flag_.zero();
    return PivotFailure{static_cast<int>(flag[1]) - 1};
}

std::optional<PivotFailure> GpuSolver::check_pivots_and(Solver* fallback) {
    auto own = GpuSolver::check_pivots();
    if (fallback) {
        // Read (and so clear) the fallback's flag too, even when this solver failed first.
        if (auto failure = fallback->check_pivots(); failure && !own) own = failure;
    }
    return own;
}

void GpuSolver::bind_lines(const gl::Program& program, const LineLayout& layout,
                           const Coefficients& coefficients, const gl::Buffer& rhs,
                           const gl::Buffer& solution) {
    program.use();
    rhs.bind_storage(0);
    solution.bind_storage(1);
    const auto* constant = std::get_if<ConstantCoefficients>(&coefficients);
    // Set on every call: programs are shared by every solver instance of the context (an x and
    // a y solver use the same cr-shared program with different strides), so a per-instance
    // "unchanged, skip" cache would leave the other instance's values in place.
    program.set("n", layout.n);
    program.set("line_count", layout.lines);
    program.set("line_stride", layout.line_stride);
    program.set("element_stride", layout.element_stride);
    if (constant != nullptr) {
        program.set("coef_a", constant->a);
        program.set("coef_b", constant->b);
        program.set("coef_c", constant->c);
        program.set("coef_b_first", constant->b_first);
        program.set("coef_b_last", constant->b_last);
    }
    if (constant == nullptr) {
        const auto& general = std::get<GeneralCoefficients>(coefficients);
        general.a->bind_storage(2);
        general.b->bind_storage(3);
        general.c->bind_storage(4);
    }
    pivot_flag().bind_storage(5);
}

}  // namespace adilab::tridiag
