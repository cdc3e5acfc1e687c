// The fused kernel's shape for each line length and device (shaders/tridiagonal/fused_lines.glsl):
// chunk, work-group shape, reduced solve, x rows tiled or stored 16 bytes at a time, and when the y
// half step takes the split solve. docs/performance.md has the measurements behind each rule.
#include "sim/fused_shape.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim {

namespace detail {

namespace {
// Floats of shared scratch (adi_common.glsl): the reduced systems, or with TILED first the x
// half step's rows; and bytes of shared memory in all.
int scratch_floats(const FusedShape& s) {
    const int tile =
        s.tiled ? s.tile_fields * (s.lines + 2 * s.tile_halo) * s.threads_per_line * (s.chunk + 1)
                : 0;
    return std::max(tridiag::fused_lines_reduced_floats(s), tile);
}
int shared_bytes(const FusedShape& s) {
    return 4 * scratch_floats(s) + tridiag::fused_lines_exchange_bytes(s);
}
}  // namespace

}  // namespace detail

std::vector<TuningField> tuning_fields(FusedTuning& t) {
    return {
        {"chunk", "cells per invocation: 4, 8, 16 or 32 (0: by line length)", &t.chunk, 0, 32},
        {"lines", "lines per work group (0: as many as fit, at most 8)", &t.lines, 0, 32},
        {"solve",
         "reduced system: 0 by line length, 1 subgroup solve, 2 shared-memory PCR, 3 warp "
         "hierarchy",
         &t.solve, 0, 3},
        {"tile", "x rows staged in shared memory: 0 where it pays, 1 wherever it fits, 2 never",
         &t.tile, 0, 2},
        {"subgroups",
         "subgroup operations where the device has them (0: shared memory instead): the line "
         "solve's shuffles, shallow water's sums",
         &t.subgroups, 0, 1},
        {"heater_lines",
         "heat with heaters: 0 by grid size, 1 window + exact heater lines, 2 exact "
         "line solve everywhere",
         &t.heater_lines, 0, 2},
        {"store4", "x half step: 16-byte stores where the rows allow them (0: 4-byte stores)",
         &t.store4, 0, 1},
        {"split", "y half step by the split solve: 0 by line length, 1 always, 2 never", &t.split,
         0, 2},
        {"split_chunk", "split solve: unknowns per invocation", &t.split_chunk, 2, 32},
        {"split_warps", "split solve: chunks per work group along the line", &t.split_warps, 1, 32},
        {"window",
         "heat, advection and shallow water: the windowed half steps wherever the implicit weight "
         "allows (0: the exact line solve)",
         &t.window, 0, 1},
        {"window_row_chunk", "x window: positions per lane, a multiple of 4 (0: the model's, 8)",
         &t.window_row_chunk, 0, 16},
        {"window_row_warps", "x window: subgroups per work group (0: the model's, 4)",
         &t.window_row_warps, 0, 32},
        {"window_row_span",
         "advection and shallow water: x window's chunks, 32, 64 or 128 whole subgroups of a work "
         "group (0: the fewest whose warm-up is at most a quarter of them)",
         &t.window_row_span, 0, 128},
        {"window_column_lanes",
         "advection: y window's columns a work group, 16 or 32 (0: 16 where 32 leave over a "
         "quarter of the window to warm-up)",
         &t.window_column_lanes, 0, 32},
        {"line_streams",
         "advection's vortex where its lines need window bands: 2 both sweeps by line streams, 1 "
         "the y sweep only, 0 neither (the bands' windows)",
         &t.line_streams, 0, 2},
        {"line_stream_lines",
         "advection's vortex: line streams only on sweeps of at least this many lines (0: any)",
         &t.line_stream_lines, 0, 65536},
        {"window_column_chunk",
         "y window: rows per invocation (0: the model's, heat 16, advection and shallow water 10)",
         &t.window_column_chunk, 0, 32},
        {"window_column_warps",
         "y window: subgroups per work group (0: the model's, heat 8, advection and shallow water "
         "32)",
         &t.window_column_warps, 0, 32},
        {"settle_groups",
         "shallow water: settling's work groups at most, which claim its tiles of 32 x 40 cells "
         "(by default) until none is left (one on a CPU renderer)",
         &t.settle_groups, 1, 65535},
        {"guard_storage_cells",
         "shallow water: on grids of at most this many cells the window and the line solve of a "
         "half step are dispatched whole and read the guard's choice as storage (0: never)",
         &t.guard_storage_cells, 0, 8192 * 8192},
    };
}

namespace detail {

FusedShape fused_shape(int direction, int nx, int ny, int tile, const FusedTuning& tuning,
                       int hierarchy_chunks) {
    const int length = direction == 0 ? nx : ny;
    // Cells per invocation (registers): long enough that the reduced system stays small, short
    // enough for the registers; lines of more cells take longer chunks, so that a line still
    // fits one work group (docs/performance.md: the chunk and lines sweep).
    // x lines of 2048 cells and more take chunks of 8 and one line a group (256 to 1024
    // invocations): at 4096 and 8192 cells that ran the x half step 1.3-2x faster than chunks of
    // 16 or 32 with more lines a group (fewer registers a thread, no spills), at 2048 cells
    // 1.25-1.6x faster than chunks of 16 with 8 lines; at 1024 cells it lost for advection.
    const bool long_x = direction == 0 && length >= 2048;
    int chunk = long_x ? 8 : length <= 256 ? 4 : length <= 1024 ? 8 : length <= 4096 ? 16 : 32;
    if (tuning.chunk != 0) {
        if (tuning.chunk != 4 && tuning.chunk != 8 && tuning.chunk != 16 && tuning.chunk != 32)
            throw Error("fused.chunk = " + std::to_string(tuning.chunk) +
                        ": the fused kernel takes 4, 8, 16 or 32 cells per invocation");
        chunk = tuning.chunk;
    }
    // Reduced solve: the subgroup solve (2 barriers) beats the shared-memory PCR (2 log2 2P
    // barriers) while each lane owns few reduced rows (lines up to 1024 cells); on longer lines
    // its per-lane register arrays make it slower than PCR. x lines of at least
    // hierarchy_chunks chunks (the model's; 1024: a PCR of 11 levels over the whole group) take
    // the warp hierarchy where the device has subgroup shuffles: its x kernels ran 13-20% faster
    // at 8192 cells on the H100 and the H200, while at 4096 cells they lost for advection and
    // heat and won for shallow water, and at 2048 cells lost for all three.
    bool subgroups = false;
    const int warp = tridiag::fused_lines_warp(tuning.subgroups != 0, subgroups);
    const int chunks = int(std::bit_ceil(unsigned(std::max((length + chunk - 1) / chunk, 1))));
    const bool hierarchy =
        direction == 0 && chunks >= hierarchy_chunks && subgroups && chunks <= warp * warp;
    using tridiag::ReducedSolve;
    const ReducedSolve solve = tuning.solve == 1   ? ReducedSolve::subgroup
                               : tuning.solve == 2 ? ReducedSolve::pcr
                               : tuning.solve == 3 ? ReducedSolve::hierarchy
                               : hierarchy         ? ReducedSolve::hierarchy
                               : length <= 1024    ? ReducedSolve::subgroup
                                                   : ReducedSolve::pcr;
    // Registers: about 3 * chunk floats per invocation; the work group shrinks as they grow.
    const int max_threads = chunk <= 16 ? 1024 : 512;
    const int lines = tuning.lines != 0 ? tuning.lines
                      : long_x          ? 1
                                        : std::max(1, std::min(8, max_threads / chunks));
    FusedShape shape;
    static_cast<tridiag::FusedLinesShape&>(shape) =
        tridiag::fused_lines_shape(length, chunk, solve, lines, tuning.subgroups != 0);
    if (shape.lines != lines)
        throw Error("fused.lines = " + std::to_string(tuning.lines) + ": " +
                    std::to_string(tuning.lines * shape.threads_per_line) +
                    " invocations per work group on lines of " + std::to_string(length) +
                    " cells (at most 1024)");
    // The x half step's rows leave in 16-byte stores (X_STORE4) where every row starts on 16
    // bytes and every chunk is whole quads: with one float a lane, each of a warp's store
    // instructions writes 4 bytes into 32 different 32-byte sectors, four times the L2 write
    // requests. That made the x kernel 1.2-1.6x faster from 512 to 8192 cells.
    const bool quad_stores = direction == 0 && tuning.store4 != 0 && chunk % 4 == 0 && nx % 4 == 0;
    // Or the x half step can stage its rows through shared memory (TILED), so that each lane of
    // a warp no longer reads its own 32-byte sector, with as many lines a group as the tile
    // leaves room for. Without 16-byte stores it pays on lines of 512 cells and more, and only
    // where the tile leaves at least 5 lines a group; on short lines or with few lines a group it
    // costs time. With them, untiled rows were as fast or faster at 512 and 1024 cells.
    const int limit = gl::Context::current().info().max_shared_memory_bytes;
    if (direction == 0 && tile != 0 && tuning.tile != 2 &&
        (tuning.tile == 1 || (length >= 512 && !quad_stores))) {
        shape.tiled = true;
        shape.tile_fields = tile == 2 ? 2 : 1;
        shape.tile_halo = tile == 2 ? 0 : 1;
        const int untiled_lines = shape.lines;
        while (shape.lines > 1 && shared_bytes(shape) > limit) --shape.lines;
        if (shared_bytes(shape) > limit || (tuning.tile != 1 && shape.lines < 5)) {
            shape.tiled = false;
            shape.lines = untiled_lines;
        }
    }
    while (shape.lines > 1 && shared_bytes(shape) > limit) --shape.lines;
    shape.quad_stores = quad_stores && !shape.tiled;
    return shape;
}

gl::Defines fused_defines(int direction, int nx, int ny, int tile, const FusedTuning& tuning,
                          int hierarchy_chunks) {
    const FusedShape shape = fused_shape(direction, nx, ny, tile, tuning, hierarchy_chunks);
    gl::Defines defines = tridiag::fused_lines_defines(shape);
    defines.push_back({"DIRECTION", std::to_string(direction)});
    defines.push_back({"KERNEL_FUSED", "1"});
    defines.push_back({"SCRATCH_FLOATS", std::to_string(scratch_floats(shape))});
    if (shape.quad_stores) defines.push_back({"X_STORE4", "1"});
    if (shape.tiled) {
        defines.push_back({"TILED", "1"});
        defines.push_back({"TILE_FIELDS", std::to_string(shape.tile_fields)});
        defines.push_back({"TILE_HALO", std::to_string(shape.tile_halo)});
    }
    return defines;
}

unsigned fused_groups(int direction, int nx, int ny, int tile, const FusedTuning& tuning,
                      int hierarchy_chunks) {
    const int count = direction == 0 ? ny : nx;
    const FusedShape shape = fused_shape(direction, nx, ny, tile, tuning, hierarchy_chunks);
    return unsigned((count + shape.lines - 1) / shape.lines);
}

bool split_y_sweep(int ny, int min_rows, const FusedTuning& tuning) {
    return tuning.split == 1 || (tuning.split == 0 && ny >= min_rows);
}

tridiag::SplitShape split_y_shape(int ny, const FusedTuning& tuning) {
    return tridiag::split_shape(ny, tuning.split_chunk, tuning.split_warps);
}

}  // namespace detail

}  // namespace adilab::sim
