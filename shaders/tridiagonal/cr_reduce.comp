// cr_reduce.comp — `cr-pingpong` reduction, one dispatch per level s (Kim & Lee 2005):
// for each level-s equation j (level s-1 index p = 2j+1, neighbours p-1 and p+1):
//   alpha = -a_p / b_{p-1}, gamma = -c_p / b_{p+1},
//   a' = alpha a_{p-1}, c' = gamma c_{p+1}, b' = b_p + alpha c_{p-1} + gamma a_{p+1},
//   k' = k_p + alpha k_{p-1} + gamma k_{p+1}.
// p+1 past the end of level s-1 (any N, not only 2^q - 1) is an absent neighbour: gamma = 0.
// Reads level s-1 from one buffer, writes level s to the other (ping-pong).
// Prelude: WG_SIZE, CONSTANT_COEFFICIENTS, FROM_INPUT (1: level s-1 is the system itself).
layout(local_size_x = WG_SIZE) in;
#include "tridiagonal/lines.glsl"
#include "tridiagonal/cr_levels.glsl"

layout(std430, binding = 6) readonly buffer SourceLevel { vec4 source_level[]; };
layout(std430, binding = 7) writeonly buffer DestinationLevel { vec4 destination_level[]; };
layout(std430, binding = 8) writeonly buffer TopSolution { float top_x[]; };

uniform uint count_fine;     // equations of level s-1
uniform uint count_coarse;   // equations of level s
uniform uint offset_fine;    // PS_{s-1}
uniform uint offset_coarse;  // PS_s
uniform uint solve_top;      // 1: level s is the last (one equation): write x = k / b instead

vec4 fine_equation(uint line, uint i) {
#if FROM_INPUT
    float a, b, c;
    load_coefficients(line, i, a, b, c);
    return vec4(a, b, c, rhs[element_index(line, i)]);
#else
    return source_level[level_index(line, offset_fine + i)];
#endif
}

void main() {
    uint line, j;
    if (!split_invocation(count_coarse, line, j)) return;
    const uint p = 2u * j + 1u;
    const vec4 left = fine_equation(line, p - 1u);
    const vec4 centre = fine_equation(line, p);
    bool ok = pivot_ok(left.y);
    const float alpha = -centre.x / left.y;
    vec4 reduced = vec4(alpha * left.x, centre.y + alpha * left.z, 0.0, centre.w + alpha * left.w);
    if (p + 1u < count_fine) {
        const vec4 right = fine_equation(line, p + 1u);
        ok = ok && pivot_ok(right.y);
        const float gamma = -centre.z / right.y;
        reduced.z = gamma * right.z;
        reduced.y += gamma * right.x;
        reduced.w += gamma * right.w;
    }
    if (solve_top != 0u) {
        ok = ok && pivot_ok(reduced.y);
        top_x[level_index(line, offset_coarse + j)] = reduced.w / reduced.y;
    } else {
        destination_level[level_index(line, offset_coarse + j)] = reduced;
    }
    if (!ok) report_pivot_failure(line);
}
