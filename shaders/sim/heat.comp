#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// Heat conduction dT/dt = c (T_xx + T_yy) by ADI line sweeps with insulated walls: the ghost
// cell beyond a wall mirrors the edge cell, so the wall rows have the diagonal 1 + lambda.
// Two schemes share this kernel through two weights (sim/heat.cpp sets them):
//   implicit Euler splitting (the default): each sweep is a backward-Euler step over the whole
//     dt in its own direction, (1 - mu d_xx) T* = T, then (1 - mu d_yy) T' = T*, mu = c dt / dh^2:
//     lambda = mu, no explicit part. Every sweep's matrix is an M-matrix whose rows sum to 1,
//     so T' is a convex combination of T: no new extrema at any dt (the maximum principle);
//   Peaceman–Rachford (Kim & Lee 2005, eq. 3): the x sweep implicit in x and explicit in
//     y over dt / 2, then the reverse: lambda = lambda_across = c (dt / 2) / dh^2, compiled in
//     with EXPLICIT_ACROSS (sim/heat.cpp's specialization()). Second order, but its explicit
//     half overshoots where lambda is large and the field has sharp edges.
// Heater cells (two discs, paper Fig. 12-13) are Dirichlet constraints: identity rows of the
// implicit systems in both sweeps (increment 0, the value held) and heater_temperature wherever
// a neighbour reads them. Pinning them only after a solve that treated them as free unknowns
// made the two sweeps inconsistent and blew up above dt ~ 4 (c = dh = 1).
//
// Delta form: each sweep solves for the increment, (1 - lambda d_xx) dT = lambda d_xx T +
// lambda_across d_yy T, then T* = T + dT: the same scheme, but the solve works on small
// increments and the right-hand side is a sum of neighbour differences, so fp32 round-off no
// longer biases the total heat (the full-value form drifts ~1e-7 per step).
//
// KERNEL_FUSED: row build + line solve (tridiagonal/fused_lines.glsl); KERNEL_ROWS: right-hand
// side and the rows' coefficients for a tridiagonal Solver; KERNEL_FINISH: T + dT, heaters and
// flag after a Solver wrote dT into the output buffer.
#include "sim/adi_common.glsl"

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };

uniform float lambda;              // implicit weight along the line (see above)
#ifdef EXPLICIT_ACROSS
uniform float lambda_across;       // explicit weight across it (Peaceman–Rachford)
#endif
uniform vec2 heater_left;          // centres, in cells
uniform vec2 heater_right;
uniform float heater_radius;       // in cells; <= 0: no heaters
uniform float heater_temperature;

bool in_heater(ivec2 cell) {
    if (heater_radius <= 0.0) return false;
    const vec2 p = vec2(cell) + 0.5;
    const vec2 l = p - heater_left, r = p - heater_right;
    const float r2 = heater_radius * heater_radius;
    return dot(l, l) <= r2 || dot(r, r) <= r2;
}

float field_global(int field, int index) { return field_in[index]; }

#ifdef SEGMENT
// Whether position pos of the segment is one of its ends inside the grid, whose value the
// window's dispatch wrote already.
bool segment_end(int pos) {
    return (pos == 0 && segment_first > 0) ||
           (pos == LINE_LENGTH - 1 && segment_first + pos < GRID_LINE_LENGTH - 1);
}
#endif

float temperature(ivec2 cell) {
    cell = clamp(cell, ivec2(0), ivec2(nx - 1, ny - 1));
#ifdef TILED
    return in_heater(cell) ? heater_temperature : tiled_field(cell);
#else
    return in_heater(cell) ? heater_temperature : field_in[index_of(cell)];
#endif
}

void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    const ivec2 cell = cell_of(line, pos);
#if DIRECTION == 0
    const ivec2 across = ivec2(0, 1);
#else
    const ivec2 across = ivec2(1, 0);
#endif
#if DIRECTION == 0
    const ivec2 along = ivec2(1, 0);
#else
    const ivec2 along = ivec2(0, 1);
#endif
    // Mirrored ghosts: the difference across a wall is zero.
    const float centre = temperature(cell);
    if (in_heater(cell)) {  // a Dirichlet row: the increment is 0
        a = 0.0;
        b = 1.0;
        c = 0.0;
        d = 0.0;
        return;
    }
    d = lambda * ((temperature(cell - along) - centre) + (temperature(cell + along) - centre));
#ifdef EXPLICIT_ACROSS
    d += lambda_across *
         ((temperature(cell - across) - centre) + (temperature(cell + across) - centre));
#endif
#ifdef SEGMENT
    // A segment's end that is not a wall keeps the window's solution (sim/heat.cpp ends the
    // segment where it is exact): an identity row with the window's increment.
    if (segment_end(pos)) {
        a = 0.0;
        b = 1.0;
        c = 0.0;
        d = field_out[index_of(cell)] - centre;
        return;
    }
#endif
    a = -lambda;
    c = -lambda;
    b = 1.0 + 2.0 * lambda;
    const int at = segment_first + pos;  // on the grid's line
    if (at == 0) b -= lambda;
    if (at == GRID_LINE_LENGTH - 1) b -= lambda;
}

// The old value store() adds the increment to, read before the solve (the fused kernel issues
// these loads with the row loads, so the store does not wait for another L2 round trip).
vec2 store_input(int line, int pos) { return vec2(temperature(cell_of(line, pos)), 0.0); }

float store_value(int line, int pos, float increment, vec2 old_state) {
    return in_heater(cell_of(line, pos)) ? heater_temperature : old_state.x + increment;
}

void store_flat(int index, float x) { field_out[index] = x; }  // x half step (no flag)

void store(int line, int pos, float increment, vec2 old_state) {
#ifdef SEGMENT
    if (segment_end(pos)) return;  // the window's value stays, unrounded
#endif
    const ivec2 cell = cell_of(line, pos);
    const float x = store_value(line, pos, increment, old_state);
#if DIRECTION == 1
    check_value(x);
#endif
    field_out[index_of(cell)] = x;
}

float solved_value(int id) { return field_out[id]; }

#if defined(KERNEL_FUSED)
#include "tridiagonal/fused_lines.glsl"
#elif defined(KERNEL_SPLIT)
#define COARSE_BINDING 13
#include "tridiagonal/split_solve.glsl"
#elif defined(KERNEL_ROWS)
#define WRITE_COEFFICIENTS
#include "sim/adi_rows.glsl"
#else
#include "sim/adi_finish.glsl"
#endif
