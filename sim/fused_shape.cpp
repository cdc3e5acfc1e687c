// The fused kernel's shape for each line length and device (shaders/sim/adi_fused.glsl): chunk,
// work-group shape, reduced solve, x rows tiled or stored 16 bytes at a time, and when the y
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
int next_power_of_two(int n) {
    return int(std::bit_ceil(unsigned(std::max(n, 1))));
}

// The subgroup width of the subgroup solve: the device's subgroup size when it has shuffles (a
// power of two, 4 .. 128) and the tuning allows them; else 32 invocations that exchange through
// shared memory.
int fused_warp(const FusedTuning& tuning, bool& subgroups) {
    const gl::DeviceInfo& info = gl::Context::current().info();
    const int size = info.subgroup_size;
    subgroups = info.subgroups && size >= 4 && size <= 128 && std::has_single_bit(unsigned(size)) &&
                tuning.subgroups != 0;
    return subgroups ? size : 32;
}

// Floats of shared scratch (adi_common.glsl) and bytes of shared memory in all.
int scratch_floats(const FusedShape& s) {
    const int pitch = s.solve == 1   ? 2 * s.threads_per_line
                      : s.solve == 2 ? 2 * s.threads_per_line / s.warp
                                     : 2 * s.threads_per_line + 1;
    const int reduced = 3 * s.lines * pitch;
    const int tile =
        s.tiled ? s.tile_fields * (s.lines + 2 * s.tile_halo) * s.threads_per_line * (s.chunk + 1)
                : 0;
    return std::max(reduced, tile);
}
int shared_bytes(const FusedShape& s) {
    const int exchange = s.subgroups    ? 0
                         : s.solve == 1 ? s.lines * s.warp * 12
                         : s.solve == 2 ? s.lines * s.threads_per_line * 4
                                        : 0;
    return 4 * scratch_floats(s) + exchange;
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
    FusedShape shape;
    shape.chunk = chunk;
    shape.threads_per_line = next_power_of_two((length + chunk - 1) / chunk);
    // Reduced solve: the subgroup solve (2 barriers) beats the shared-memory PCR (2 log2 2P
    // barriers) while each lane owns few reduced rows (lines up to 1024 cells); on longer lines
    // its per-lane register arrays make it slower than PCR. x lines of at least
    // hierarchy_chunks chunks (the model's; 1024: a PCR of 11 levels over the whole group) take
    // the warp hierarchy where the device has subgroup shuffles: its x kernels ran 13-20% faster
    // at 8192 cells on the H100 and the H200, while at 4096 cells they lost for advection and
    // heat and won for shallow water, and at 2048 cells lost for all three.
    bool subgroups = false;
    const int warp = fused_warp(tuning, subgroups);
    const bool hierarchy = direction == 0 && shape.threads_per_line >= hierarchy_chunks &&
                           subgroups && shape.threads_per_line <= warp * warp;
    shape.solve = tuning.solve == 1   ? 1
                  : tuning.solve == 2 ? 0
                  : tuning.solve == 3 ? 2
                  : hierarchy         ? 2
                  : length <= 1024    ? 1
                                      : 0;
    if (shape.solve == 2) {
        // The warp hierarchy: whole subgroups of chunks, and no more subgroups a line than one
        // subgroup can solve the top system of (2 rows a lane).
        shape.warp = warp;
        shape.subgroups = subgroups;
        shape.threads_per_line = std::max(shape.threads_per_line, warp);
        if (shape.threads_per_line > warp * warp)
            throw Error("fused.solve = 3: lines of " + std::to_string(length) + " cells need " +
                        std::to_string(shape.threads_per_line / warp) +
                        " subgroups, more than the " + std::to_string(warp) +
                        " one subgroup can join");
    }
    if (shape.solve == 1) {
        // The subgroup solve gives each line one subgroup whose lanes own >= 2 reduced rows.
        shape.warp = warp;
        shape.subgroups = subgroups;
        shape.threads_per_line = std::max(shape.threads_per_line, warp);
    }
    if (shape.threads_per_line > 1024)
        throw Error("line of " + std::to_string(length) +
                    " cells is too long for the fused kernel");
    // Registers: about 3 * chunk floats per invocation; the work group shrinks as they grow.
    const int max_threads = chunk <= 16 ? 1024 : 512;
    int lines = long_x ? 1 : std::max(1, std::min(8, max_threads / shape.threads_per_line));
    if (tuning.lines != 0) {
        if (tuning.lines * shape.threads_per_line > 1024)
            throw Error("fused.lines = " + std::to_string(tuning.lines) + ": " +
                        std::to_string(tuning.lines * shape.threads_per_line) +
                        " invocations per work group on lines of " + std::to_string(length) +
                        " cells (at most 1024)");
        lines = tuning.lines;
    }
    shape.lines = lines;
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
        while (shape.lines > 1 && shared_bytes(shape) > limit) --shape.lines;
        if (shared_bytes(shape) > limit || (tuning.tile != 1 && shape.lines < 5)) {
            shape.tiled = false;
            shape.lines = lines;
        }
    }
    while (shape.lines > 1 && shared_bytes(shape) > limit) --shape.lines;
    shape.quad_stores = quad_stores && !shape.tiled;
    return shape;
}

gl::Defines fused_defines(int direction, int nx, int ny, int tile, const FusedTuning& tuning,
                          int hierarchy_chunks) {
    const FusedShape shape = fused_shape(direction, nx, ny, tile, tuning, hierarchy_chunks);
    gl::Defines defines = {{"DIRECTION", std::to_string(direction)},
                           {"KERNEL_FUSED", "1"},
                           {"LINES", std::to_string(shape.lines)},
                           {"THREADS_PER_LINE", std::to_string(shape.threads_per_line)},
                           {"CHUNK", std::to_string(shape.chunk)},
                           {"GROUP_SIZE", std::to_string(shape.lines * shape.threads_per_line)},
                           {"REDUCED_SOLVE", std::to_string(shape.solve)},
                           {"WARP", std::to_string(shape.warp)},
                           {"SCRATCH_FLOATS", std::to_string(scratch_floats(shape))}};
    if (shape.subgroups) defines.push_back({"SUBGROUPS", "1"});
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
