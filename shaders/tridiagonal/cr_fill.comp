// cr_fill.comp — `cr-pingpong` back substitution ("filling"), one dispatch per level (Kim & Lee 2005):
// level s-1 unknowns from level s. Level s-1 index i odd is level s index (i-1)/2: copied.
// i even: x_i = (k_i - a_i x_{i-1} - c_i x_{i+1}) / b_i with the level s-1 coefficients, the
// neighbours taken from level s (indices i/2 - 1 and i/2); one outside the level is zero.
// Prelude: WG_SIZE, CONSTANT_COEFFICIENTS, FROM_INPUT (1: level s-1 is the system itself, and
// x goes to the solution buffer in the grid layout).
layout(local_size_x = WG_SIZE) in;
#include "tridiagonal/lines.glsl"
#include "tridiagonal/cr_levels.glsl"

layout(std430, binding = 6) readonly buffer FineLevel { vec4 fine_level[]; };
layout(std430, binding = 8) readonly buffer CoarseX { float coarse_x[]; };
layout(std430, binding = 9) writeonly buffer FineX { float fine_x[]; };

uniform uint count_fine;
uniform uint count_coarse;
uniform uint offset_fine;
uniform uint offset_coarse;

void main() {
    uint line, i;
    if (!split_invocation(count_fine, line, i)) return;
    float x;
    bool ok = true;
    if ((i & 1u) == 1u) {
        x = coarse_x[level_index(line, offset_coarse + (i - 1u) / 2u)];
    } else {
#if FROM_INPUT
        float a, b, c;
        load_coefficients(line, i, a, b, c);
        const vec4 equation = vec4(a, b, c, rhs[element_index(line, i)]);
#else
        const vec4 equation = fine_level[level_index(line, offset_fine + i)];
#endif
        float k = equation.w;
        if (i >= 2u) k -= equation.x * coarse_x[level_index(line, offset_coarse + i / 2u - 1u)];
        if (i / 2u < count_coarse)
            k -= equation.z * coarse_x[level_index(line, offset_coarse + i / 2u)];
        ok = pivot_ok(equation.y);
        x = k / equation.y;
    }
#if FROM_INPUT
    solution[element_index(line, i)] = x;
#else
    fine_x[level_index(line, offset_fine + i)] = x;
#endif
    if (!ok) report_pivot_failure(line);
}
