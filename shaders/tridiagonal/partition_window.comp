// partition_window.comp — `partition`'s guarded window for general coefficients:
// window_lines.glsl with its rows read from the coefficients and the right-hand side (16 bytes
// at a time along x where the rows allow), the solution stored, and WINDOW_GUARD's check of the
// truncation bound.
// Where the bound fails, the last window on the line solves it exactly (bindings 7 and 8: that
// solve's carries and the windows' counts), and this solve's word of bound_broken is set for
// last_path().
// Prelude: DIRECTION, CHUNK, GROUP_SIZE, HALO_LOW, HALO_HIGH; along x ROW_WINDOW_CHUNKS, and
// WHOLE_LINES where a window holds its whole line.
#define CONSTANT_COEFFICIENTS 0
#include "tridiagonal/lines.glsl"

#define LINE_LENGTH int(n)
#define LINE_COUNT int(line_count)
#define WINDOW_GUARD
#define WINDOW_PIVOT_FAILED(line) report_pivot_failure(uint(line))

// A word a solve, alternating: this solve's (`broken_set`), and the next one's, which the first
// invocation clears here.
layout(std430, binding = 6) buffer BoundBroken { uint bound_broken[2]; };
uniform int broken_set;

void window_guard_failed() { bound_broken[broken_set] = 1u; }

int line_index(int line, int pos) { return int(element_index(uint(line), uint(pos))); }

#if DIRECTION == 0
layout(std430, binding = 0) readonly buffer Rhs4 { vec4 rhs4[]; };
layout(std430, binding = 2) readonly buffer CoefA4 { vec4 coef_a4[]; };
layout(std430, binding = 3) readonly buffer CoefB4 { vec4 coef_b4[]; };
layout(std430, binding = 4) readonly buffer CoefC4 { vec4 coef_c4[]; };
#endif

void window_rows(int line, int p0, out float a[CHUNK], out float b[CHUNK], out float c[CHUNK],
                 out float d[CHUNK], out vec2 inputs[CHUNK]) {
    if (gl_GlobalInvocationID.x == 0u && gl_GlobalInvocationID.y == 0u)
        bound_broken[1 - broken_set] = 0u;
    const int length = LINE_LENGTH;
#if DIRECTION == 0
    // Whole quads inside the line (its ends' a_0 and c_{n-1} read as 0 below).
    if ((length & 3) == 0 && p0 >= 1 && p0 + CHUNK < length) {
        const int quad = line_index(line, p0) >> 2;
        for (int q = 0; q < CHUNK / 4; ++q) {
            const vec4 aq = coef_a4[quad + q], bq = coef_b4[quad + q], cq = coef_c4[quad + q];
            const vec4 dq = rhs4[quad + q];
            for (int e = 0; e < 4; ++e) {
                const int k = 4 * q + e;
                a[k] = aq[e];
                b[k] = bq[e];
                c[k] = cq[e];
                d[k] = dq[e];
                inputs[k] = vec2(0.0);
            }
        }
        return;
    }
#endif
    for (int k = 0; k < CHUNK; ++k) {
        const uint pos = uint(clamp(p0 + k, 0, length - 1));
        load_coefficients(uint(line), pos, a[k], b[k], c[k]);
        d[k] = rhs[element_index(uint(line), pos)];
        inputs[k] = vec2(0.0);
    }
}

float store_value(int line, int pos, float x, vec2 old_state) { return x; }

void store(int line, int pos, float x, vec2 old_state) {
    solution[element_index(uint(line), uint(pos))] = x;
}

#include "tridiagonal/window_lines.glsl"
