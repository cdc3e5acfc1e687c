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
//
// General coefficients on lines of at least PartitionTuning::window_min unknowns take the guarded
// window instead (partition_window.comp, shaders/tridiagonal/window_lines.glsl): one dispatch
// that solves each position from the rows within a halo of it, reads each row about 1.3 times
// and writes the solution once, and checks from the rows it loaded that the halo's truncation
// stays below 2^-27 max |x|. Where that bound breaks, the window does not store, and the last
// window to end on the line solves it exactly, block after block, so that nothing follows the
// window: an exact solve dispatched behind it, its work groups ending at once unless the bound
// broke, cost about 4 us a solve at 1024^2, and an indirect dispatch of it, with the command
// barrier it needs, 22 us (docs/performance.md).
// x lines of up to PartitionTuning::window_whole_x unknowns (8192 by default) take windows of
// whole lines: a work group holds each of its lines whole and reads each row once, 30% faster
// than the windows of runs of chunks at 1024^2, 6-7% at 2048^2, 3% at 8192^2, and at 4096^2 3%
// faster on the H100 and 1% slower on the H200 (docs/performance.md).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
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
        return {{"partition's coarse system", std::max(x, y)},
                {"partition's window carries",
                 std::max(carry_bytes(grid, Direction::x), carry_bytes(grid, Direction::y))},
                {"partition's window counts",
                 std::size_t(std::max(grid.nx, grid.ny)) * sizeof(unsigned)}};
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const std::optional<WindowShape> window = window_shape(grid, direction, coefficients);
        last_windowed_ = window.has_value();
        last_whole_ = window && window->whole;
        last_one_pass_ = !window && one_pass(grid, direction).has_value();
        if (!window) {
            solve_exactly(grid, direction, coefficients, rhs, solution);
            return;
        }
        if (bound_broken_.size() == 0)
            bound_broken_ = gl::Buffer::from(std::vector<unsigned>{0, 0});
        const std::size_t carries = std::max(carry_bytes(grid, direction), sizeof(float));
        if (window_carries_.size() < carries) window_carries_ = gl::Buffer(carries);
        // Zero at first; every solve leaves the counts zero (window_lines.glsl, exact_windows).
        const LineLayout layout = line_layout(grid, direction);
        if (window_counts_.size() < layout.lines * sizeof(unsigned))
            window_counts_ = gl::Buffer::from(std::vector<unsigned>(layout.lines, 0));
        const gl::Program& p = window_program(*window, direction);
        bind_lines(p, layout, coefficients, rhs, solution);
        p.set("broken_set", broken_set_);
        bound_broken_.bind_storage(6);
        window_carries_.bind_storage(7);
        window_counts_.bind_storage(8);
        gl::dispatch(window->groups_x, window->groups_y);
        gl::memory_barrier(gl::Barrier::storage);
        broken_set_ = 1 - broken_set_;
    }

    std::optional<PivotFailure> check_pivots() override { return GpuSolver::check_pivots(); }

    std::string last_path() override {
        if (!last_windowed_) return last_one_pass_ ? "one pass" : "three stages";
        // The last solve's word (broken_set_ has moved on to the next solve's).
        const bool broken = bound_broken_.read_all<unsigned>()[std::size_t(1 - broken_set_)] != 0;
        const std::string window = last_whole_ ? "whole-line window" : "window";
        return broken ? window + ", exact in its work groups: bound broken" : window;
    }

  private:
    // The exact solve: one pass or the three stages.
    void solve_exactly(Grid grid, Direction direction, const Coefficients& coefficients,
                       const gl::Buffer& rhs, gl::Buffer& solution) {
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

    // The guarded window's shape along a direction, and its work groups (window_lines.glsl).
    struct WindowShape {
        int chunk = 0, group_size = 0;
        int row_window_chunks = 32;  // x: chunks a window
        bool whole = false;          // a window holds its whole line
        unsigned groups_x = 0, groups_y = 0;
    };
    // Where the window takes the lines: general coefficients, lines of at least window_min
    // unknowns, and a halo whose warm-up leaves chunks to store, or x lines short enough for a
    // window of the whole line (whole_row_window). Along x, 32 chunks a window (one subgroup),
    // 4 windows a work group, numbered row by row; along y, a work group takes 32 columns and
    // window_column_warps chunks down them, as many as the shared memory holds (8 floats an
    // invocation and the group's vote: 31 in the 32 KiB of Mesa's llvmpipe).
    std::optional<WindowShape> window_shape(Grid grid, Direction direction,
                                            const Coefficients& coefficients) const {
        const LineLayout layout = line_layout(grid, direction);
        if (is_constant(coefficients) || tuning_.window_min == 0 ||
            int(layout.n) < tuning_.window_min)
            return std::nullopt;
        const bool along_x = direction == Direction::x;
        if (along_x && tuning_.window_row_chunk % 4 != 0)
            throw Error(
                "tridiag.partition_window_row_chunk = " + std::to_string(tuning_.window_row_chunk) +
                ": the x window loads 16 bytes at a time, a multiple of 4 unknowns");
        if (along_x)
            if (std::optional<WindowShape> whole = whole_row_window(layout)) return whole;
        WindowShape w;
        w.chunk = along_x ? tuning_.window_row_chunk : tuning_.window_column_chunk;
        const int shared_warps =
            (gl::Context::current().info().max_shared_memory_bytes - 4) / (8 * 4 * 32);
        const int warps = along_x ? 4 : std::min(tuning_.window_column_warps, shared_warps);
        w.group_size = 32 * warps;
        const int warm_up = 2 * ((tuning_.window_halo + w.chunk - 1) / w.chunk);
        const int chunks = along_x ? 32 : warps;  // a window's
        if (warm_up >= chunks) return std::nullopt;
        const long long segment = (chunks - warm_up) * w.chunk;
        const long long segments = (layout.n + segment - 1) / segment;
        if (along_x) {
            spread_groups(w, (segments * layout.lines + warps - 1) / warps);
        } else {
            w.groups_x = (layout.lines + 31) / 32;
            w.groups_y = unsigned(segments);
        }
        return w;
    }

    // The bytes of the carries of the exact solve where the bound breaks (window_lines.glsl,
    // solve_lines_exactly): 2 floats a line and block of a window's chunks; none for windows of
    // whole lines, whose exact solve has one block.
    std::size_t carry_bytes(Grid grid, Direction direction) const {
        const std::optional<WindowShape> w = window_shape(grid, direction, GeneralCoefficients{});
        if (!w || w->whole) return 0;
        const LineLayout layout = line_layout(grid, direction);
        const std::size_t window_chunks =
            direction == Direction::x ? std::size_t(w->row_window_chunks) : w->group_size / 32;
        const std::size_t block = window_chunks * std::size_t(w->chunk);
        return std::size_t(layout.lines) * ((layout.n + block - 1) / block) * 2 * sizeof(float);
    }

    // A window of each whole x line: the line's chunks (rounded up to whole subgroups)
    // consecutive, at least 4 subgroups a work group, up to 1024 invocations and the shared
    // memory of 8 floats each (window_lines.glsl's reduced rows and decay products) and one word.
    // Along y a work group of whole lines takes too few columns to fill the device or to load
    // whole sectors, and it ran slower than the windows of runs of chunks at every size
    // (docs/performance.md).
    std::optional<WindowShape> whole_row_window(const LineLayout& layout) const {
        const int n = int(layout.n);
        if (n > tuning_.window_whole_x) return std::nullopt;
        const gl::DeviceInfo& info = gl::Context::current().info();
        const int most = std::min(
            {1024, info.max_work_group_invocations, (info.max_shared_memory_bytes - 4) / (8 * 4)});
        WindowShape w;
        w.whole = true;
        w.chunk = tuning_.window_row_chunk;
        w.row_window_chunks = ((n + w.chunk - 1) / w.chunk + 31) / 32 * 32;
        if (w.row_window_chunks > most) return std::nullopt;
        const int windows = std::max(1, 128 / w.row_window_chunks);
        w.group_size = windows * w.row_window_chunks;
        spread_groups(w, (layout.lines + unsigned(windows) - 1) / unsigned(windows));
        return w;
    }

    // `groups` work groups numbered row by row over as few rows as the device's limit allows.
    static void spread_groups(WindowShape& w, long long groups) {
        const long long most = std::max(1, gl::Context::current().info().max_work_group_count[0]);
        w.groups_y = unsigned((groups + most - 1) / most);
        w.groups_x = unsigned((groups + w.groups_y - 1) / w.groups_y);
    }

    const gl::Program& window_program(const WindowShape& w, Direction direction) {
        const bool along_x = direction == Direction::x;
        const std::uint64_t key =
            std::uint64_t(w.chunk) << 48 | std::uint64_t(w.row_window_chunks) << 36 |
            std::uint64_t(w.group_size) << 20 | std::uint64_t(tuning_.window_halo) << 2 |
            (w.whole ? 2 : 0) | (along_x ? 0 : 1);
        const gl::Program*& cached = window_programs_[key];
        if (cached == nullptr) {
            const std::string halo = std::to_string(tuning_.window_halo);
            gl::Defines defines = {{"DIRECTION", along_x ? "0" : "1"},
                                   {"CHUNK", std::to_string(w.chunk)},
                                   {"GROUP_SIZE", std::to_string(w.group_size)},
                                   {"HALO_LOW", halo},
                                   {"HALO_HIGH", halo}};
            if (along_x)
                defines.push_back({"ROW_WINDOW_CHUNKS", std::to_string(w.row_window_chunks)});
            if (w.whole) defines.push_back({"WHOLE_LINES", "1"});
            cached = &gl::compute_program("tridiagonal/partition_window.comp", defines);
        }
        return *cached;
    }

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

    // Programs by stage, coefficient form, direction (x: spans first), x tile, coarse block
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
    // One word a solve, alternating (broken_set_): set where the window found its bound broken;
    // the window clears the other solve's word for the next.
    gl::Buffer bound_broken_;
    int broken_set_ = 0;
    // Where the bound breaks: the exact solve's carries (carry_bytes), and the windows' counts,
    // a word a line.
    gl::Buffer window_carries_, window_counts_;
    // The last solve's path (last_path).
    bool last_windowed_ = false, last_whole_ = false, last_one_pass_ = false;
    std::unordered_map<std::uint64_t, const gl::Program*> window_programs_;
    std::unordered_map<std::uint64_t, const gl::Program*> programs_;  // current context's
    std::unordered_map<std::uint64_t, const gl::Program*> one_pass_programs_;
};

}  // namespace

std::unique_ptr<Solver> make_partition(const PartitionTuning& tuning) {
    return std::make_unique<PartitionSolver>(tuning);
}

}  // namespace adilab::tridiag
