// `partition`: lines of any length and any coefficients in three dispatches, the partition
// method with its coarse system in memory (shaders/tridiagonal/split_solve.glsl says how and
// why). Each work group takes 32 lines side by side, so that y lines read whole 128-byte rows,
// and a span of warps * chunk unknowns along them; the coarse system holds two rows per line and
// span, and the last pass reads the coefficients again rather than keeping the eliminated rows
// in memory. Along x the 32 lines are 32 rows, so each group stages its rows' segments through
// shared memory first (partition.comp, X_TILE). fp32, no pivoting (diagonally dominant systems); a
// zero or non-finite pivot in a chunk sets the flag that check_pivots() reads.
//
// Lines that fit one work group (up to 8192 unknowns; PartitionTuning says up to which length in
// each direction) take one dispatch instead (partition_lines.comp, the simulations' fused line
// solve, shaders/tridiagonal/fused_lines.glsl): a work group holds whole lines, each invocation a
// chunk of consecutive unknowns of one line, and the reduced system stays in shared memory and
// subgroups, so nothing but the rows and the solution crosses memory; along x the solution
// leaves 16 bytes at a time where rows allow.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/tridiagonal/fused_lines.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/split.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

class PartitionSolver final : public GpuSolver {
  public:
    explicit PartitionSolver(const PartitionTuning& tuning) : tuning_(tuning) {}

    std::string name() const override { return "partition"; }

    std::vector<gl::BufferNeed> scratch_needs(Grid grid) const override {
        const auto coarse = [&](Direction direction) -> std::size_t {
            if (one_pass(grid, direction)) return 0;  // no coarse system
            const LineLayout layout = line_layout(grid, direction);
            return split_coarse_bytes(split_shape(int(layout.n), tuning_.chunk, tuning_.warps),
                                      int(layout.lines));
        };
        const std::size_t x = coarse(Direction::x), y = coarse(Direction::y);
        return {{"partition's coarse system", std::max(x, y)}};
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const LineLayout layout = line_layout(grid, direction);
        if (const std::optional<FusedLinesShape> one = one_pass(grid, direction)) {
            const FusedLinesShape& shape = *one;
            const gl::Program& lines_program =
                one_pass_program(shape, grid, direction, coefficients);
            bind_lines(lines_program, layout, coefficients, rhs, solution);
            gl::dispatch((layout.lines + unsigned(shape.lines) - 1) / unsigned(shape.lines));
            gl::memory_barrier(gl::Barrier::storage);
            return;
        }
        const SplitShape shape = split_shape(int(layout.n), tuning_.chunk, tuning_.warps);
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
    // The one-pass lines' shape. Along x, chunks of 4 on lines of up to 256 unknowns, else 8,
    // and lines of 2048 and more one to a work group; along y, chunks of 4, 8, 16 and 32 up to
    // 256, 512, 4096 and 8192 unknowns; else up to 8 lines a group (the simulations' half steps
    // measured these; y lines of 1024 ran 10% faster in chunks of 16 than of 8 on the H100 and
    // the H200, docs/performance.md). The reduced system, as measured on these lines on
    // the H100 and the H200 (docs/performance.md): the subgroup solve on lines of up to 512
    // unknowns, the warp hierarchy on x lines of 4096 and more where the device has shuffles
    // (12% faster than the PCR at 4096, 24% at 8192), else the shared-memory PCR.
    FusedLinesShape one_pass_shape(int n, Direction direction) const {
        const bool along_x = direction == Direction::x;
        const int chunk = tuning_.one_pass_chunk != 0 ? tuning_.one_pass_chunk
                          : n <= 256                  ? 4
                          : n <= 512 || along_x       ? 8
                          : n <= 4096                 ? 16
                                                      : 32;
        const int chunks = int(std::bit_ceil(unsigned((n + chunk - 1) / chunk)));
        bool subgroups = false;
        const int warp = fused_lines_warp(tuning_.one_pass_subgroups != 0, subgroups);
        const bool hierarchy = along_x && n >= 4096 && subgroups && chunks <= warp * warp;
        const int forced = tuning_.one_pass_solve;
        const ReducedSolve solve = forced == 1   ? ReducedSolve::subgroup
                                   : forced == 2 ? ReducedSolve::pcr
                                   : forced == 3 ? ReducedSolve::hierarchy
                                   : n <= 512    ? ReducedSolve::subgroup
                                   : hierarchy   ? ReducedSolve::hierarchy
                                                 : ReducedSolve::pcr;
        const int lines = tuning_.one_pass_lines != 0 ? tuning_.one_pass_lines
                          : along_x && n >= 2048      ? 1
                                                 : std::min(8, (chunk <= 16 ? 1024 : 512) / chunks);
        return fused_lines_shape(n, chunk, solve, std::max(lines, 1),
                                 tuning_.one_pass_subgroups != 0);
    }

    // The one dispatch's shape where lines take it: asked for at their length, short enough for
    // one work group (its shared memory included), and few enough for one row of work groups.
    std::optional<FusedLinesShape> one_pass(Grid grid, Direction direction) const {
        const LineLayout layout = line_layout(grid, direction);
        const int most = direction == Direction::x ? tuning_.one_pass_x : tuning_.one_pass_y;
        if (int(layout.n) > std::min(most, 8192)) return std::nullopt;
        const FusedLinesShape shape = one_pass_shape(int(layout.n), direction);
        const gl::DeviceInfo& info = gl::Context::current().info();
        const int shared =
            4 * fused_lines_reduced_floats(shape) + fused_lines_exchange_bytes(shape);
        const unsigned groups = (layout.lines + unsigned(shape.lines) - 1) / unsigned(shape.lines);
        if (shared > info.max_shared_memory_bytes ||
            groups > unsigned(info.max_work_group_count[0]))
            return std::nullopt;
        return shape;
    }

    const gl::Program& one_pass_program(const FusedLinesShape& shape, Grid grid,
                                        Direction direction, const Coefficients& coefficients) {
        // 16-byte stores: x lines whose rows start on 16 bytes, in chunks of whole quads.
        const bool quads = direction == Direction::x && grid.nx % 4 == 0 && shape.chunk % 4 == 0;
        const bool constant = is_constant(coefficients);
        const std::uint64_t key = std::uint64_t(shape.threads_per_line) << 32 |
                                  std::uint64_t(shape.chunk) << 16 | shape.lines << 4 |
                                  int(shape.solve) << 2 | (quads ? 2 : 0) | (constant ? 1 : 0);
        const gl::Program*& cached = one_pass_programs_[key];
        if (cached == nullptr) {
            gl::Defines defines = coefficient_defines(coefficients);
            for (auto& define : fused_lines_defines(shape)) defines.push_back(define);
            defines.push_back(
                {"SCRATCH_FLOATS", std::to_string(fused_lines_reduced_floats(shape))});
            if (quads) defines.push_back({"X_STORE4", "1"});
            cached = &gl::compute_program("tridiagonal/partition_lines.comp", defines);
        }
        return *cached;
    }

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
            // The bench's solves read the same rows in reduce and substitute, nothing between.
            for (auto& define : split_defines(shape, stage, along_x, true))
                defines.push_back(define);
            if (tiled) defines.push_back({"X_TILE", "1"});
            cached = &gl::compute_program("tridiagonal/partition.comp", defines);
        }
        return *cached;
    }

    PartitionTuning tuning_;
    gl::Buffer coarse_;
    std::unordered_map<std::uint64_t, const gl::Program*> programs_;  // current context's
    std::unordered_map<std::uint64_t, const gl::Program*> one_pass_programs_;
};

}  // namespace

std::unique_ptr<Solver> make_partition(const PartitionTuning& tuning) {
    return std::make_unique<PartitionSolver>(tuning);
}

}  // namespace adilab::tridiag
