#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// Advection–diffusion C_t + u C_x + v C_y = D (C_xx + C_yy) + S, ADI after seed 001 eq. (8):
// in each half step (dt/2) the implicit direction takes the upwind first derivative (an
// M-matrix: unconditionally stable, no new extrema) and the explicit direction the central one.
// Walls: zero-gradient ghost cells (the ghost equals the edge cell), folded into the first and
// last diagonals; matter leaves through an outflow wall and the edge value enters through an
// inflow one, so mass is conserved while the cloud stays off the walls.
// Velocity: uniform (u, v), or solid-body rotation omega about the domain centre (vortex).
// Source S: a Gaussian of source_radius cells around source_center, rate source_rate (C/s),
// active while step_index <= source_steps.
#include "sim/adi_common.glsl"

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };

uniform float half_dt;        // s
uniform float dh;             // m
uniform float diffusivity;    // D, m^2/s
uniform int rotation;         // 0: uniform velocity, 1: solid-body rotation
uniform vec2 flow;            // (u, v), m/s
uniform float omega;          // rad/s
uniform vec2 rotation_center; // m
uniform vec2 source_center;   // cells
uniform float source_radius;  // cells
uniform float source_rate;    // C per second at the centre
uniform int source_steps;     // the source is on while step_index <= source_steps

vec2 velocity_at(ivec2 cell) {
    if (rotation == 0) return flow;
    const vec2 p = (vec2(cell) + 0.5) * dh - rotation_center;
    return omega * vec2(-p.y, p.x);
}

float source_at(ivec2 cell) {
    if (source_rate == 0.0 || step_index > source_steps) return 0.0;
    const vec2 r = (vec2(cell) + 0.5 - source_center) / source_radius;
    const float r2 = dot(r, r);
    return r2 < 9.0 ? source_rate * exp(-r2) : 0.0;
}

float field_global(int field, int index) { return field_in[index]; }

float concentration(ivec2 cell) {
#ifdef TILED
    return tiled_field(clamp(cell, ivec2(0), ivec2(nx - 1, ny - 1)));
#else
    return field_in[clamped_index(cell)];
#endif
}

void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    const ivec2 cell = cell_of(line, pos);
    const vec2 velocity = velocity_at(cell);
#if DIRECTION == 0
    const float w = velocity.x, e = velocity.y;
    const ivec2 across = ivec2(0, 1), along = ivec2(1, 0);
#else
    const float w = velocity.y, e = velocity.x;
    const ivec2 across = ivec2(1, 0), along = ivec2(0, 1);
#endif
    const float k = diffusivity / (dh * dh);
    // Implicit: upwind u C_x (backward difference for u > 0, forward for u < 0) and D C_xx.
    a = -half_dt * (max(w, 0.0) / dh + k);
    c = -half_dt * (-min(w, 0.0) / dh + k);
    b = 1.0 + half_dt * (abs(w) / dh + 2.0 * k);
    if (pos == 0) b += a;                // ghost C_-1 = C_0
    if (pos == LINE_LENGTH - 1) b += c;  // ghost C_N = C_N-1
    // Delta form: solve (I + L) dC = E(C) - L C + (dt/2) S for the increment, C* = C + dC, where
    // E is the explicit central v C_y, D C_yy part and L C the implicit operator applied to C,
    // written as neighbour differences (its coefficients sum to zero). Same scheme as
    // (I + L) C* = C + E(C) + (dt/2) S, but fp32 round-off no longer biases the mass.
    const float centre = concentration(cell);
    const float low = concentration(cell - across), high = concentration(cell + across);
    const float before = concentration(cell - along), after = concentration(cell + along);
    const float a_line = -half_dt * (max(w, 0.0) / dh + k);   // unfolded, with mirrored ghosts
    const float c_line = -half_dt * (-min(w, 0.0) / dh + k);
    d = half_dt * (-e * (high - low) / (2.0 * dh) + k * ((low - centre) + (high - centre)) +
                   source_at(cell)) -
        (a_line * (before - centre) + c_line * (after - centre));
}

// The old value, read before the solve (see heat.comp).
vec2 store_input(int line, int pos) { return vec2(concentration(cell_of(line, pos)), 0.0); }

float store_value(int line, int pos, float increment, vec2 old_state) {
    return old_state.x + increment;
}

void store_flat(int index, float x) { field_out[index] = x; }  // x half step (no flag)

void store(int line, int pos, float increment, vec2 old_state) {
    const ivec2 cell = cell_of(line, pos);
    const int id = index_of(cell);
    const float x = store_value(line, pos, increment, old_state);
#if DIRECTION == 1
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
