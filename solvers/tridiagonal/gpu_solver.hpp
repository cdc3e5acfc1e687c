#pragma once
// What the GPU variants share: input validation, the line addressing of
// shaders/tridiagonal/lines.glsl (uniforms and bindings), the 2-D spread of lines over work
// groups, and the pivot-failure flag buffer that check_pivots() reads.
#include <optional>

#include "solvers/gl/shaders.hpp"
#include "solvers/tridiagonal/solver.hpp"

namespace adilab::tridiag {

// How the lines of a grid in one direction lie in memory (see lines.glsl).
struct LineLayout {
    unsigned n = 0;               // unknowns per line
    unsigned lines = 0;           // number of lines
    unsigned line_stride = 0;     // elements between the first elements of two lines
    unsigned element_stride = 0;  // elements between two unknowns of a line
};
LineLayout line_layout(Grid grid, Direction direction);

// Throws adilab::Error naming the problem: empty grid, buffers smaller than nx * ny floats,
// missing general coefficient buffers, solution aliasing rhs.
void validate(Grid grid, const Coefficients& coefficients, const gl::Buffer& rhs,
              const gl::Buffer& solution);

bool is_constant(const Coefficients& coefficients);
// {"CONSTANT_COEFFICIENTS", "1" or "0"} for the shader prelude.
gl::Defines coefficient_defines(const Coefficients& coefficients);

// Dispatches `groups` work groups spread over x and y (at most 65535 per axis); shaders read
// their index with work_group_line().
void dispatch_spread(unsigned groups);

class GpuSolver : public Solver {
  public:
    std::optional<PivotFailure> check_pivots() override;

  protected:
    // Sets the layout and coefficient uniforms of `program` and binds rhs, solution, the
    // coefficient buffers and the pivot flag at the bindings of lines.glsl.
    void bind_lines(const gl::Program& program, const LineLayout& layout,
                    const Coefficients& coefficients, const gl::Buffer& rhs,
                    const gl::Buffer& solution);
    gl::Buffer& pivot_flag();
    // This solver's pivot failure, else the one of the solver it falls back to (null: none).
    std::optional<PivotFailure> check_pivots_and(Solver* fallback);

  private:
    gl::Buffer pivot_flag_;
};

}  // namespace adilab::tridiag
