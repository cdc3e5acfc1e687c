#pragma once
// The shape of shaders/tridiagonal/split_solve.glsl's three dispatches for lines of one length:
// what the `partition` variant and the simulations' split sweeps (sim/model.cpp) both need.
#include <cstddef>

#include "solvers/gl/shaders.hpp"

namespace adilab::tridiag {

enum class SplitStage { reduce, coarse, substitute };

struct SplitShape {
    int chunk = 8;         // unknowns per invocation
    int warps = 4;         // chunks per work group along the line
    int spans = 0;         // work groups along a line (each span reduces to two coarse rows)
    int coarse_block = 0;  // coarse rows per invocation of the coarse stage
    int coarse_warps = 0;  // blocks per line in the coarse stage's work group (<= 32)
};

// Throws adilab::Error when chunk or warps is out of range (chunk 2..32, warps 1..32) or the
// line is too long for one coarse work group.
SplitShape split_shape(int length, int chunk, int warps);
// The stage's #defines (CHUNK, WARPS, the stage, and the coarse block for SPLIT_COARSE);
// spans_first: SPLIT_SPANS_FIRST, the work groups along a line numbered first (for lines whose
// elements are adjacent in memory, split_solve.glsl says why); substitute_from_last:
// SPLIT_SUBSTITUTE_FROM_LAST, the substitute stage's work groups in reverse order (for a solve
// whose reduce stage ran just before it on the same rows, split_solve.glsl says why).
gl::Defines split_defines(const SplitShape& shape, SplitStage stage, bool spans_first = false,
                          bool substitute_from_last = false);
// Bytes of the coarse system for `lines` lines: two vec4 rows per line and span.
std::size_t split_coarse_bytes(const SplitShape& shape, int lines);
// Work groups of a stage for `lines` lines: {x, y} of the dispatch.
struct SplitGroups {
    unsigned x = 0, y = 0;
};
SplitGroups split_groups(const SplitShape& shape, SplitStage stage, int lines,
                         bool spans_first = false);

}  // namespace adilab::tridiag
