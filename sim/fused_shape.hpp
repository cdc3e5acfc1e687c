#pragma once
// The fused kernel's shape (internal to sim/): how shaders/tridiagonal/fused_lines.glsl splits
// each line of a half step among invocations and work groups, what the x half step adds (its rows
// tiled or stored 16 bytes at a time), and when the y half step takes the split solve
// (shaders/tridiagonal/split_solve.glsl) instead.
#include "sim/simulation.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/tridiagonal/fused_lines.hpp"
#include "solvers/tridiagonal/split.hpp"

namespace adilab::sim::detail {

// The line solve's shape (solvers/tridiagonal/fused_lines.hpp) and the x half step's rows.
struct FusedShape : tridiag::FusedLinesShape {
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
