// cr_levels.glsl — the packed level storage of `cr-pingpong` (Kim & Lee 2005, the paper's PC_s/PS_s
// layout generalised to any N). Level 0 is the system itself (read from the inputs, lines.glsl);
// level s >= 1 holds count_s = floor(count_{s-1} / 2) equations (a, b, c, k) as vec4, packed one
// level after another per line: level s starts at PS_s = count_1 + ... + count_{s-1}. For
// N = 2^q - 1 this is exactly the paper's PC_s = N'/2^s - 1 and PS_s.
// Level s index j is level s-1 index 2j+1 (0-based; the paper's 1-based index i <-> i-1).
// Two layouts: x lines are contiguous, so a line's levels are contiguous ([line][packed]); y lines
// are columns, so the packed index is the slow one ([packed][line]) and neighbouring invocations
// (neighbouring lines) touch neighbouring words: loads coalesce in both directions.
uniform uint packed_total;   // equations of all levels >= 1, per line
uniform uint lines_fastest;  // 1: [packed][line] layout and line-fastest invocation order

uint level_index(uint line, uint k) {
    return lines_fastest != 0u ? k * line_count + line : line * packed_total + k;
}

// Invocation -> (line, index within the level) for `count` equations per line; false past the end.
bool split_invocation(uint count, out uint line, out uint j) {
    const uint id = work_group_line() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (count == 0u || id >= count * line_count) return false;
    if (lines_fastest != 0u) {
        line = id % line_count;
        j = id / line_count;
    } else {
        line = id / count;
        j = id % count;
    }
    return true;
}

bool pivot_ok(float pivot) { return pivot != 0.0 && !isnan(pivot) && !isinf(pivot); }
