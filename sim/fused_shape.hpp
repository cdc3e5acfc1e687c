#pragma once
// The fused kernel's shape (internal to sim/): how shaders/sim/adi_fused.glsl splits each line of
// a half step among invocations and work groups, and when the y half step takes the split solve
// (shaders/tridiagonal/split_solve.glsl) instead.
#include "sim/simulation.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/tridiagonal/split.hpp"

namespace adilab::sim::detail {

// How the fused kernel splits a line of `length` unknowns: CHUNK rows per thread (registers),
// THREADS_PER_LINE threads per line (a power of two), LINES lines per work group. Larger chunks
// need more registers, so they get smaller work groups.
struct FusedShape {
    int chunk = 8;
    int threads_per_line = 128;
    int lines = 8;
    int solve = 1;  // REDUCED_SOLVE: 1 subgroup solve, 0 shared-memory PCR, 2 warp hierarchy
    int warp = 32;  // subgroup width of the subgroup solve
    bool subgroups = false;    // real subgroup shuffles (else shared-memory exchange)
    bool tiled = false;        // x half step staged through shared memory
    bool quad_stores = false;  // x half step's rows stored 16 bytes at a time (X_STORE4)
    int tile_fields = 1;       // fields in the tile
    int tile_halo = 1;         // rows above and below the group's lines in the tile
};
// tile: how the model's x half step can stage its rows in shared memory (TILED): 0 not, 1 one
// field with the rows above and below (heat, advection), 2 two fields, no halo (shallow water).
// hierarchy_chunks: the fewest chunks a line from which the x half step's reduced system takes
// the warp hierarchy (AdiModel::x_hierarchy_chunks).
FusedShape fused_shape(int direction, int nx, int ny, int tile = 0, const FusedTuning& tuning = {},
                       int hierarchy_chunks = 1024);
// The #defines of a model's fused kernel for one direction (0 = x, 1 = y) on an nx x ny grid.
gl::Defines fused_defines(int direction, int nx, int ny, int tile = 0,
                          const FusedTuning& tuning = {}, int hierarchy_chunks = 1024);
// Work groups of the fused kernel for one direction.
unsigned fused_groups(int direction, int nx, int ny, int tile = 0, const FusedTuning& tuning = {},
                      int hierarchy_chunks = 1024);
// Whether the fused path's y half step on a grid of ny rows takes the split solve
// (shaders/tridiagonal/split_solve.glsl: three dispatches, 32 columns a work group, a coarse
// system in memory) instead of the one-dispatch fused kernel: from the model's min_rows
// (AdiModel::split_min_rows) unless the tuning says otherwise. And its shape.
bool split_y_sweep(int ny, int min_rows, const FusedTuning& tuning = {});
tridiag::SplitShape split_y_shape(int ny, const FusedTuning& tuning = {});

}  // namespace adilab::sim::detail
