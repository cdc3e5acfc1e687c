#include "solvers/tridiagonal/split.hpp"

#include <algorithm>
#include <string>

#include "solvers/gl/error.hpp"

namespace adilab::tridiag {

namespace {
constexpr int kLanes = 32;  // lines per work group (split_solve.glsl: SPLIT_LANES)
}

SplitShape split_shape(int length, int chunk, int warps) {
    if (chunk < 2 || chunk > 32)
        throw Error("split line solve: " + std::to_string(chunk) +
                    " unknowns per invocation (takes 2 to 32)");
    if (warps < 1 || warps > 32)
        throw Error("split line solve: " + std::to_string(warps) +
                    " chunks per work group (takes 1 to 32)");
    SplitShape shape;
    shape.chunk = chunk;
    shape.warps = warps;
    const int span = chunk * warps;
    shape.spans = (std::max(length, 1) + span - 1) / span;
    // Coarse rows per invocation: 16 (48 registers of rows) while 32 blocks cover the line,
    // doubled for longer lines.
    const int rows = 2 * shape.spans;
    int block = 16;
    while (block * 32 < rows) block *= 2;
    if (block > 128)
        throw Error("split line solve: a line of " + std::to_string(length) +
                    " unknowns has more coarse rows than one work group solves");
    shape.coarse_block = block;
    shape.coarse_warps = (rows + block - 1) / block;
    return shape;
}

gl::Defines split_defines(const SplitShape& shape, SplitStage stage, bool spans_first,
                          bool substitute_from_last) {
    gl::Defines defines = {{"CHUNK", std::to_string(shape.chunk)},
                           {"WARPS", std::to_string(shape.warps)}};
    if (spans_first && stage != SplitStage::coarse) defines.push_back({"SPLIT_SPANS_FIRST", "1"});
    switch (stage) {
        case SplitStage::reduce:
            defines.push_back({"SPLIT_REDUCE", "1"});
            break;
        case SplitStage::coarse:
            defines.push_back({"SPLIT_COARSE", "1"});
            defines.push_back({"COARSE_BLOCK", std::to_string(shape.coarse_block)});
            defines.push_back({"COARSE_WARPS", std::to_string(shape.coarse_warps)});
            break;
        case SplitStage::substitute:
            defines.push_back({"SPLIT_SUBSTITUTE", "1"});
            if (substitute_from_last) defines.push_back({"SPLIT_SUBSTITUTE_FROM_LAST", "1"});
            break;
    }
    return defines;
}

std::size_t split_coarse_bytes(const SplitShape& shape, int lines) {
    return 2 * std::size_t(shape.spans) * std::size_t(lines) * 4 * sizeof(float);
}

SplitGroups split_groups(const SplitShape& shape, SplitStage stage, int lines, bool spans_first) {
    const unsigned line_groups = unsigned((lines + kLanes - 1) / kLanes);
    if (stage == SplitStage::coarse) return {line_groups, 1};
    if (spans_first) return {unsigned(shape.spans), line_groups};
    return {line_groups, unsigned(shape.spans)};
}

}  // namespace adilab::tridiag
