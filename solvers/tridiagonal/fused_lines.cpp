#include "solvers/tridiagonal/fused_lines.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::tridiag {

int fused_lines_warp(bool allow_subgroups, bool& subgroups) {
    const gl::DeviceInfo& info = gl::Context::current().info();
    const int size = info.subgroup_size;
    subgroups = allow_subgroups && info.subgroups && size >= 4 && size <= 128 &&
                std::has_single_bit(unsigned(size));
    return subgroups ? size : 32;
}

FusedLinesShape fused_lines_shape(int length, int chunk, ReducedSolve solve, int lines,
                                  bool allow_subgroups) {
    if (chunk < 2 || chunk > 32)
        throw Error("line solve: " + std::to_string(chunk) +
                    " unknowns per invocation (takes 2 to 32)");
    FusedLinesShape shape;
    shape.chunk = chunk;
    shape.solve = solve;
    shape.threads_per_line =
        int(std::bit_ceil(unsigned(std::max((length + chunk - 1) / chunk, 1))));
    if (solve != ReducedSolve::pcr) {
        shape.warp = fused_lines_warp(allow_subgroups, shape.subgroups);
        shape.threads_per_line = std::max(shape.threads_per_line, shape.warp);
    }
    if (solve == ReducedSolve::hierarchy && shape.threads_per_line > shape.warp * shape.warp)
        throw Error("warp hierarchy: lines of " + std::to_string(length) + " unknowns need " +
                    std::to_string(shape.threads_per_line / shape.warp) +
                    " subgroups, more than the " + std::to_string(shape.warp) +
                    " one subgroup can join");
    if (shape.threads_per_line > 1024)
        throw Error("line of " + std::to_string(length) +
                    " unknowns is too long for one work group (" +
                    std::to_string(shape.threads_per_line) + " invocations of " +
                    std::to_string(chunk) + ")");
    shape.lines = std::clamp(lines, 1, 1024 / shape.threads_per_line);
    return shape;
}

int fused_lines_reduced_floats(const FusedLinesShape& s) {
    const int pitch = s.solve == ReducedSolve::subgroup    ? 2 * s.threads_per_line
                      : s.solve == ReducedSolve::hierarchy ? 2 * s.threads_per_line / s.warp
                                                           : 2 * s.threads_per_line + 1;
    return 3 * s.lines * pitch;
}

int fused_lines_exchange_bytes(const FusedLinesShape& s) {
    if (s.subgroups) return 0;
    return s.solve == ReducedSolve::subgroup    ? s.lines * s.warp * 12
           : s.solve == ReducedSolve::hierarchy ? s.lines * s.threads_per_line * 4
                                                : 0;
}

gl::Defines fused_lines_defines(const FusedLinesShape& s) {
    gl::Defines defines = {{"LINES", std::to_string(s.lines)},
                           {"THREADS_PER_LINE", std::to_string(s.threads_per_line)},
                           {"CHUNK", std::to_string(s.chunk)},
                           {"GROUP_SIZE", std::to_string(s.lines * s.threads_per_line)},
                           {"REDUCED_SOLVE", std::to_string(int(s.solve))},
                           {"WARP", std::to_string(s.warp)}};
    if (s.subgroups) defines.push_back({"SUBGROUPS", "1"});
    return defines;
}

}  // namespace adilab::tridiag
