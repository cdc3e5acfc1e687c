// Shallow water after Kass & Miller (1990), seed 001 simulation 3: h_tt = g d (h_xx + h_yy),
// d = max(h - b, 0) (dry cells have no depth and so no coupling). ADI: the x sweep solves
//     (I - g dt^2 A_x(d)) h* = h^{n-1} + (1 - damping) (h^{n-1} - h^{n-2}) + forcing,
// the y sweep (I - g dt^2 A_y(d)) h^n = h*, with d from h^{n-1} in both (rebuilt every step).
// Row i of a line: e_i = 1 + g dt^2 (d_{i-1} + 2 d_i + d_{i+1}) / (2 dh^2),
// f_i = -g dt^2 (d_i + d_{i+1}) / (2 dh^2) between i and i+1; the end rows keep only their one
// edge. Every row and column sums to 1, which conserves the volume sum(h).
// After the y sweep the surface is clamped to the bottom (no negative depth).
#include "sim/adi_common.glsl"

layout(std430, binding = 0) readonly buffer Height { float height[]; };      // h^{n-1}
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };
layout(std430, binding = 2) readonly buffer Previous { float previous[]; };  // h^{n-2}
layout(std430, binding = 8) readonly buffer Bottom { float bottom[]; };
layout(std430, binding = 9) readonly buffer Intermediate { float intermediate[]; };  // h*

uniform float coupling;   // g dt^2 / (2 dh^2)
uniform float damping;    // tau in [0, 1]
// Forcing added to the x sweep's right-hand side (a push of the surface, m per step).
uniform int forcing_kind;       // 0 none, 1 diagonal band, 2 drop
uniform float forcing_strength;
uniform float forcing_width;    // cells
uniform vec2 forcing_center;    // cells (drop)

float depth(ivec2 cell) {
    const int id = index_of(cell);
    return max(height[id] - bottom[id], 0.0);
}

float forcing(ivec2 cell) {
    if (forcing_kind == 0) return 0.0;
    const vec2 p = vec2(cell) + 0.5;
    float r2;
    if (forcing_kind == 1) {
        // distance from the diagonal x = y of the domain (scaled to a square)
        const vec2 q = p / vec2(nx, ny) * float(min(nx, ny));
        const float s = (q.x - q.y) * 0.70710678;
        r2 = s * s / (forcing_width * forcing_width);
    } else {
        const vec2 r = (p - forcing_center) / forcing_width;
        r2 = dot(r, r);
    }
    return r2 < 9.0 ? forcing_strength * exp(-r2) : 0.0;
}

void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    const ivec2 cell = cell_of(line, pos);
#if DIRECTION == 0
    const ivec2 along = ivec2(1, 0);
#else
    const ivec2 along = ivec2(0, 1);
#endif
    const float here = depth(cell);
    const float left_edge = pos > 0 ? depth(cell - along) + here : 0.0;
    const float right_edge = pos < LINE_LENGTH - 1 ? here + depth(cell + along) : 0.0;
    a = -coupling * left_edge;
    c = -coupling * right_edge;
    b = 1.0 + coupling * (left_edge + right_edge);
    const int id = index_of(cell);
#if DIRECTION == 0
    const float h1 = height[id];
    d = h1 + (1.0 - damping) * (h1 - previous[id]) + forcing(cell);
#else
    d = intermediate[id];
#endif
}

void store(int line, int pos, float x) {
    const ivec2 cell = cell_of(line, pos);
    const int id = index_of(cell);
#if DIRECTION == 1
    x = max(x, bottom[id]);
    flag_if_not_finite(x);
#endif
    field_out[id] = x;
}

float solved_value(int id) { return field_out[id]; }

#if defined(KERNEL_FUSED)
#include "sim/adi_fused.glsl"
#elif defined(KERNEL_ROWS)
#define WRITE_COEFFICIENTS
#include "sim/adi_rows.glsl"
#else
#include "sim/adi_finish.glsl"
#endif
