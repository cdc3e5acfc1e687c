// `partition`: lines of any length and any coefficients in three dispatches, the partition
// method with its coarse system in memory (shaders/tridiagonal/split_solve.glsl says how and
// why). Each work group takes 32 lines side by side, so that y lines read whole 128-byte rows,
// and a span of warps * chunk unknowns along them; the coarse system holds two rows per line and
// span, and the last pass reads the coefficients again rather than keeping the eliminated rows
// in memory. fp32, no pivoting (diagonally dominant systems); a zero or non-finite pivot in a
// chunk sets the flag that check_pivots() reads.
#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "solvers/gl/commands.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

constexpr unsigned kLanes = 32;  // lines per work group (split_solve.glsl: SPLIT_LANES)

class PartitionSolver final : public GpuSolver {
  public:
    explicit PartitionSolver(const PartitionTuning& tuning)
        : chunk_(unsigned(tuning.chunk)), warps_(unsigned(tuning.warps)) {}

    std::string name() const override { return "partition"; }

    std::vector<gl::BufferNeed> scratch_needs(Grid grid) const override {
        const std::size_t x = coarse_bytes(line_layout(grid, Direction::x));
        const std::size_t y = coarse_bytes(line_layout(grid, Direction::y));
        return {{"partition's coarse system", std::max(x, y)}};
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const LineLayout layout = line_layout(grid, direction);
        const std::size_t bytes = coarse_bytes(layout);
        if (coarse_.size() < bytes) coarse_ = gl::Buffer(bytes);
        const unsigned spans = (layout.n + span() - 1) / span();
        const unsigned line_groups = (layout.lines + kLanes - 1) / kLanes;

        const gl::Program& reduce = program(Stage::reduce, coefficients);
        bind_lines(reduce, layout, coefficients, rhs, solution);
        coarse_.bind_storage(6);
        gl::dispatch(line_groups, spans);
        gl::memory_barrier(gl::Barrier::storage);

        const gl::Program& coarse = program(Stage::coarse, coefficients);
        bind_lines(coarse, layout, coefficients, rhs, solution);
        gl::dispatch((layout.lines + 63) / 64);
        gl::memory_barrier(gl::Barrier::storage);

        const gl::Program& substitute = program(Stage::substitute, coefficients);
        bind_lines(substitute, layout, coefficients, rhs, solution);
        gl::dispatch(line_groups, spans);
        gl::memory_barrier(gl::Barrier::storage);
    }

    std::optional<PivotFailure> check_pivots() override { return GpuSolver::check_pivots(); }

  private:
    enum class Stage { reduce, coarse, substitute };

    unsigned span() const { return chunk_ * warps_; }

    // Two vec4 rows per line and span.
    std::size_t coarse_bytes(const LineLayout& layout) const {
        const std::size_t spans = (layout.n + span() - 1) / span();
        return 2 * spans * layout.lines * 4 * sizeof(float);
    }

    const gl::Program& program(Stage stage, const Coefficients& coefficients) {
        const bool constant = is_constant(coefficients);
        const gl::Program*& cached = programs_[int(stage) * 2 + (constant ? 1 : 0)];
        if (cached == nullptr) {
            gl::Defines defines = coefficient_defines(coefficients);
            defines.push_back({"CHUNK", std::to_string(chunk_)});
            defines.push_back({"WARPS", std::to_string(warps_)});
            defines.push_back({stage == Stage::reduce   ? "SPLIT_REDUCE"
                               : stage == Stage::coarse ? "SPLIT_COARSE"
                                                        : "SPLIT_SUBSTITUTE",
                               "1"});
            cached = &gl::compute_program("tridiagonal/partition.comp", defines);
        }
        return *cached;
    }

    unsigned chunk_, warps_;
    gl::Buffer coarse_;
    std::unordered_map<int, const gl::Program*> programs_;  // current context's
};

}  // namespace

std::unique_ptr<Solver> make_partition(const PartitionTuning& tuning) {
    return std::make_unique<PartitionSolver>(tuning);
}

}  // namespace adilab::tridiag
