// `partition`: lines of any length and any coefficients in three dispatches, the partition
// method with its coarse system in memory (shaders/tridiagonal/split_solve.glsl says how and
// why). Each work group takes 32 lines side by side, so that y lines read whole 128-byte rows,
// and a span of warps * chunk unknowns along them; the coarse system holds two rows per line and
// span, and the last pass reads the coefficients again rather than keeping the eliminated rows
// in memory. Along x the 32 lines are 32 rows, so each group stages its rows' segments through
// shared memory first (partition.comp, X_TILE). fp32, no pivoting (diagonally dominant systems); a
// zero or non-finite pivot in a chunk sets the flag that check_pivots() reads.
#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/split.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

class PartitionSolver final : public GpuSolver {
  public:
    explicit PartitionSolver(const PartitionTuning& tuning)
        : chunk_(tuning.chunk), warps_(tuning.warps) {}

    std::string name() const override { return "partition"; }

    std::vector<gl::BufferNeed> scratch_needs(Grid grid) const override {
        const std::size_t x = split_coarse_bytes(split_shape(grid.nx, chunk_, warps_), grid.ny);
        const std::size_t y = split_coarse_bytes(split_shape(grid.ny, chunk_, warps_), grid.nx);
        return {{"partition's coarse system", std::max(x, y)}};
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const LineLayout layout = line_layout(grid, direction);
        const SplitShape shape = split_shape(int(layout.n), chunk_, warps_);
        const std::size_t bytes = split_coarse_bytes(shape, int(layout.lines));
        if (coarse_.size() < bytes) coarse_ = gl::Buffer(bytes);
        const bool tiled = direction == Direction::x && x_tile_fits(shape, coefficients);
        for (SplitStage stage : {SplitStage::reduce, SplitStage::coarse, SplitStage::substitute}) {
            const gl::Program& stage_program =
                program(shape, stage, coefficients, direction == Direction::x, tiled);
            bind_lines(stage_program, layout, coefficients, rhs, solution);
            coarse_.bind_storage(6);
            const SplitGroups groups =
                split_groups(shape, stage, int(layout.lines), direction == Direction::x);
            gl::dispatch(groups.x, groups.y);
            gl::memory_barrier(gl::Barrier::storage);
        }
    }

    std::optional<PivotFailure> check_pivots() override { return GpuSolver::check_pivots(); }

  private:
    // Whether the x lines' tile (partition.comp, X_TILE: the span's rows of every field read,
    // one padding word a row) fits in shared memory beside split_solve.glsl's span rows.
    bool x_tile_fits(const SplitShape& shape, const Coefficients& coefficients) const {
        const std::size_t fields = is_constant(coefficients) ? 1 : 4;
        const std::size_t tile = fields * 32 * (shape.chunk * shape.warps + 1) * sizeof(float);
        const std::size_t span_rows = 2 * std::size_t(shape.warps) * 32 * (16 + 4);
        const int limit = gl::Context::current().info().max_shared_memory_bytes;
        return tile + span_rows <= std::size_t(std::max(limit, 0));
    }

    // Programs by stage, coefficient form, direction (x: spans first), x tile and coarse block
    // shape (which follows the length).
    const gl::Program& program(const SplitShape& shape, SplitStage stage,
                               const Coefficients& coefficients, bool along_x, bool tiled) {
        tiled = tiled && stage != SplitStage::coarse;
        const bool constant = is_constant(coefficients);
        const std::uint64_t key = std::uint64_t(shape.coarse_block) << 32 |
                                  std::uint64_t(shape.coarse_warps) << 8 | int(stage) << 3 |
                                  (along_x ? 4 : 0) | (tiled ? 2 : 0) | (constant ? 1 : 0);
        const gl::Program*& cached = programs_[key];
        if (cached == nullptr) {
            gl::Defines defines = coefficient_defines(coefficients);
            for (auto& define : split_defines(shape, stage, along_x)) defines.push_back(define);
            if (tiled) defines.push_back({"X_TILE", "1"});
            cached = &gl::compute_program("tridiagonal/partition.comp", defines);
        }
        return *cached;
    }

    int chunk_, warps_;
    gl::Buffer coarse_;
    std::unordered_map<std::uint64_t, const gl::Program*> programs_;  // current context's
};

}  // namespace

std::unique_ptr<Solver> make_partition(const PartitionTuning& tuning) {
    return std::make_unique<PartitionSolver>(tuning);
}

}  // namespace adilab::tridiag
