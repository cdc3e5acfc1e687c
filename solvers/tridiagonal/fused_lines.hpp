#pragma once
// The shape of shaders/tridiagonal/fused_lines.glsl, the one-dispatch line solve whose rows the
// includer builds and stores: `partition`'s x lines and the simulations' fused half steps
// (sim/fused_shape.cpp) both take it from here.
#include "solvers/gl/shaders.hpp"

namespace adilab::tridiag {

// How the reduced system of the chunks' end rows is solved (REDUCED_SOLVE).
enum class ReducedSolve { pcr = 0, subgroup = 1, hierarchy = 2 };

// CHUNK rows per invocation (registers), THREADS_PER_LINE invocations per line (a power of
// two), LINES lines per work group.
struct FusedLinesShape {
    int chunk = 8;
    int threads_per_line = 128;
    int lines = 8;
    ReducedSolve solve = ReducedSolve::subgroup;
    int warp = 32;           // subgroup width of the subgroup solve and the hierarchy
    bool subgroups = false;  // real subgroup shuffles (else a shared-memory exchange)
};

// The subgroup width the reduced solves take: the device's subgroup size where it has shuffles
// (a power of two, 4 .. 128) and `allow_subgroups`; else 32 invocations that exchange through
// shared memory. `subgroups` says which.
int fused_lines_warp(bool allow_subgroups, bool& subgroups);

// The shape for lines of `length` unknowns in chunks of `chunk` with `solve` and `lines` lines a
// work group: threads per line rounded up to a power of two and widened to what the reduced
// solve needs (a subgroup a line for the subgroup solve; whole subgroups, at most warp^2, for
// the hierarchy). Throws adilab::Error naming the length when a line does not fit one work
// group or the hierarchy cannot join its subgroups, and for a chunk outside 2 .. 32; `lines` is
// cut to fit 1024 invocations.
FusedLinesShape fused_lines_shape(int length, int chunk, ReducedSolve solve, int lines,
                                  bool allow_subgroups);

// Floats of shared scratch the reduced systems take (the includer's `scratch` holds at least
// this many), and the bytes of the shuffles' shared-memory stand-in where there are none.
int fused_lines_reduced_floats(const FusedLinesShape& shape);
int fused_lines_exchange_bytes(const FusedLinesShape& shape);

// LINES, THREADS_PER_LINE, CHUNK, GROUP_SIZE, REDUCED_SOLVE, WARP and SUBGROUPS.
gl::Defines fused_lines_defines(const FusedLinesShape& shape);

}  // namespace adilab::tridiag
