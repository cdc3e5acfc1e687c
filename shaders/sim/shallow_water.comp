#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// Shallow water after Kass & Miller (1990), seed 001 simulation 3: h_tt = g d (h_xx + h_yy),
// d = max(h - b, 0) (dry cells have no depth and so no coupling). ADI: the x sweep solves
//     (I + L_x) h* = h^{n-1} + (1 - damping) (h^{n-1} - h^{n-2}) + forcing,
// the y sweep (I + L_y) h^n = h*, with L = -g dt^2 d d/dx^2 from the depths of h^{n-1} in both
// (rebuilt every step). Row i of a line: e_i = 1 + g dt^2 (d_{i-1} + 2 d_i + d_{i+1}) / (2 dh^2),
// f_i = -g dt^2 (d_i + d_{i+1}) / (2 dh^2) between i and i+1; the end rows keep only their one
// edge. Every row and column sums to 1, which conserves the volume sum(h).
//
// Round-off-safe form: the state is h = h^{n-1} and v = h^{n-1} - h^{n-2} (not h^{n-2}), and the
// sweeps solve for increments:
//     x: (I + L_x) dx = (1 - damping) v - L_x h + forcing,     h* = h + dx
//     y: (I + L_y) dv = dx - L_y h,                            h^n = h + dv, v^n = dv.
// Algebraically the same as above; but in fp32 the recurrence 2 h^{n-1} - h^{n-2} of full
// heights turns a rounding bias into a volume drift that grows with the square of the step
// count (1% after 1000 steps), while here only small increments are rounded.
// After the y sweep the surface is clamped to the bottom (no negative depth), and v follows.
#include "sim/adi_common.glsl"

layout(std430, binding = 0) readonly buffer Height { float height[]; };      // h^{n-1}
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };          // dx, or h^n
layout(std430, binding = 2) buffer Velocity { float velocity[]; };           // v (y sweep: v^n)
layout(std430, binding = 8) readonly buffer Bottom { float bottom[]; };
layout(std430, binding = 9) readonly buffer Intermediate { float intermediate[]; };  // dx

uniform float coupling;   // g dt^2 / (2 dh^2)
uniform float damping;    // tau in [0, 1]
// Forcing added to the x sweep's right-hand side (a push of the surface, m per step).
uniform int forcing_kind;       // 0 none, 1 diagonal band, 2 drop
uniform float forcing_strength;
uniform float forcing_width;    // cells
uniform vec2 forcing_center;    // cells (drop)

float depth(ivec2 cell) {
#ifdef TILED
    return tiled_value(1, cell);
#else
    const int id = index_of(cell);
    return max(height[id] - bottom[id], 0.0);
#endif
}

// The x half step's rows read h and the depth along the line: staged as fields 0 and 1 of the
// fused kernel's tile (TILED; the velocity term is one load per cell and stays global).
float field_global(int field, int index) {
    return field == 0 ? height[index] : max(height[index] - bottom[index], 0.0);
}
float height_at(ivec2 cell) {
#ifdef TILED
    return tiled_value(0, cell);
#else
    return height[index_of(cell)];
#endif
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
    const int id = index_of(cell);
    const float h = height_at(cell);
    float left_edge = 0.0, right_edge = 0.0, left_step = 0.0, right_step = 0.0;
    if (pos > 0) {
        const ivec2 left = cell - along;
        left_edge = depth(left) + here;
        left_step = h - height_at(left);
    }
    if (pos < LINE_LENGTH - 1) {
        const ivec2 right = cell + along;
        right_edge = here + depth(right);
        right_step = h - height_at(right);
    }
    a = -coupling * left_edge;
    c = -coupling * right_edge;
    b = 1.0 + coupling * (left_edge + right_edge);
    // L h along the line, as edge fluxes: sums to zero over the line.
    const float flux_divergence = coupling * (left_edge * left_step + right_edge * right_step);
#if DIRECTION == 0
    d = (1.0 - damping) * velocity[id] - flux_divergence + forcing(cell);
#else
    d = intermediate[id] - flux_divergence;
#endif
}

// The y sweep's h and bottom, read before the solve (see heat.comp).
vec2 store_input(int line, int pos) {
#if DIRECTION == 0
    return vec2(0.0);
#else
    const int id = index_of(cell_of(line, pos));
    return vec2(height[id], bottom[id]);
#endif
}

float store_value(int line, int pos, float increment, vec2 old_state) { return increment; }
void store_flat(int index, float x) { field_out[index] = x; }  // x half step: dx

void store(int line, int pos, float increment, vec2 old_state) {
    const ivec2 cell = cell_of(line, pos);
    const int id = index_of(cell);
#if DIRECTION == 0
    field_out[id] = increment;
#else
    const float h = old_state.x;
    const float wet = h + increment, floor_height = old_state.y;
    const float next = max(wet, floor_height);
    flag_if_not_finite(next);
    field_out[id] = next;
    // v keeps the solved increment, not next - h: the rounding of h + dv must not become
    // momentum that every later step re-applies (that made the volume drift as steps^1.5).
    velocity[id] = wet >= floor_height ? increment : next - h;
#endif
}

#if DIRECTION == 0
float solved_value(int id) { return field_out[id]; }
#else
float solved_value(int id) { return velocity[id]; }  // the generic y solve writes dv there
#endif

#if defined(KERNEL_FUSED)
#include "sim/adi_fused.glsl"
#elif defined(KERNEL_ROWS)
#define WRITE_COEFFICIENTS
#include "sim/adi_rows.glsl"
#else
#include "sim/adi_finish.glsl"
#endif
