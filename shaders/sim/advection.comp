#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// Advection–diffusion C_t + div(u C) = D (C_xx + C_yy) + S by ADI line sweeps in flux form:
// each sweep's implicit operator is upwind advection plus diffusion along the line, written as
// fluxes through the faces between cells (face velocity: the mean of the two cells'), so every
// column of its matrix sums to 1 and the mass sum(C) changes only by the source. The walls are
// closed: no flux through them, so mass = initial + what the source injected, always.
// Two schemes through three weights (sim/advection.cpp sets them):
//   implicit Euler splitting (the default): each sweep is a backward-Euler step over dt in its
//     own direction (implicit_dt = dt, no explicit part). Its matrix is an M-matrix, so C stays
//     non-negative for any dt and any velocity, and a pulse spreads but never oscillates;
//   Kim & Lee (2005), eq. (8): dt / 2 per sweep, upwind implicit along the line and central
//     explicit across it (implicit_dt = explicit_dt = dt / 2, EXPLICIT_ACROSS). Second order
//     across, but its explicit central half overshoots (negative C) where a cell's Courant
//     number is large.
// Velocity: uniform (u, v), or with ROTATION solid-body rotation omega about the domain centre
// (vortex). The explicit half across the line is compiled in only with EXPLICIT_ACROSS (Kim &
// Lee's scheme): sim/advection.cpp's specialization() sets both.
// Source S: a Gaussian of source_radius cells around source_center, rate source_rate (C/s, >= 0),
// active while step_index <= source_steps; each sweep adds source_dt = dt / 2 of it.
#include "sim/adi_common.glsl"

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };

uniform float implicit_dt;    // s: the implicit weight of a sweep
#ifdef EXPLICIT_ACROSS
uniform float explicit_dt;    // s: the explicit weight of the other direction
#endif
uniform float source_dt;      // s: the source's share of a sweep
uniform float dh;             // m
uniform float diffusivity;    // D, m^2/s
#ifdef ROTATION
uniform float omega;          // rad/s
uniform vec2 rotation_center; // m
#else
uniform vec2 flow;            // (u, v), m/s
#endif
uniform vec2 source_center;   // cells
uniform float source_radius;  // cells
uniform float source_rate;    // C per second at the centre
uniform int source_steps;     // the source is on while step_index <= source_steps

vec2 velocity_at(ivec2 cell) {
#ifdef ROTATION
    const vec2 p = (vec2(cell) + 0.5) * dh - rotation_center;
    return omega * vec2(-p.y, p.x);
#else
    return flow;
#endif
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

// The divergence of the fluxes through the two faces of a cell along one direction (per unit dt
// and cell): advective (upwind in the face velocities, or central) minus D dC/dn, with a missing
// face (a wall) carrying nothing. Written as neighbour differences, with the faces' velocity
// difference as a separate term (zero for the scenes' velocity fields, which are constant along
// each line): the flux terms of size |w| C cancel before rounding, so fp32 does not lose the
// cell's own value to round-off of order |w| dt / dh times it.
float flux_divergence(float w_low, float w_high, float c_low, float c, float c_high, bool has_low,
                      bool has_high, float k, bool central) {
    if (has_low && has_high) {
        float advective;
        if (central) {
            advective = 0.5 * (w_high * (c_high - c_low) + (w_high - w_low) * (c_low + c));
        } else {
            const float up_high = max(w_high, 0.0), up_low = max(w_low, 0.0);
            const float down_high = min(w_high, 0.0), down_low = min(w_low, 0.0);
            advective = up_high * (c - c_low) + (up_high - up_low) * c_low +
                        down_high * (c_high - c) + (down_high - down_low) * c;
        }
        return advective / dh - k * ((c_high - c) + (c_low - c));
    }
    float divergence = 0.0;
    if (has_high) {  // only the face above: its outflow
        const float advective = central ? 0.5 * w_high * (c + c_high)
                                        : max(w_high, 0.0) * c + min(w_high, 0.0) * c_high;
        divergence += advective / dh - k * (c_high - c);
    }
    if (has_low) {  // only the face below: minus its inflow
        const float advective = central ? 0.5 * w_low * (c_low + c)
                                        : max(w_low, 0.0) * c_low + min(w_low, 0.0) * c;
        divergence -= advective / dh - k * (c - c_low);
    }
    return divergence;
}

// The row at `cell`, position `pos` of its line, from the concentrations along the line (the
// cell's and its neighbours', `before` and `after` ignored at a wall): shared by row_system (the
// fused and generic paths) and the window kernels' rows (window_rows), which load them their own
// way.
void line_row(ivec2 cell, int pos, float before, float centre, float after, out float a,
              out float b, out float c, out float d) {
#if DIRECTION == 0
    const ivec2 across = ivec2(0, 1), along = ivec2(1, 0);
    const int across_length = ny, across_pos = cell.y;
#else
    const ivec2 across = ivec2(1, 0), along = ivec2(0, 1);
    const int across_length = nx, across_pos = cell.x;
#endif
    const int w_axis = DIRECTION == 0 ? 0 : 1, e_axis = 1 - w_axis;
    const float k = diffusivity / (dh * dh);
    // Faces along the line (implicit): closed at the walls.
    const bool has_before = pos > 0, has_after = pos < LINE_LENGTH - 1;
    const vec2 velocity = velocity_at(cell);
    const float w_here = velocity[w_axis];
    const float w_before = has_before ? 0.5 * (w_here + velocity_at(cell - along)[w_axis]) : 0.0;
    const float w_after = has_after ? 0.5 * (w_here + velocity_at(cell + along)[w_axis]) : 0.0;
    if (!has_before) before = centre;
    if (!has_after) after = centre;
    a = has_before ? -implicit_dt * (max(w_before, 0.0) / dh + k) : 0.0;
    c = has_after ? -implicit_dt * (-min(w_after, 0.0) / dh + k) : 0.0;
    b = 1.0 + implicit_dt * ((has_after ? max(w_after, 0.0) / dh + k : 0.0) +
                             (has_before ? -min(w_before, 0.0) / dh + k : 0.0));
    // Delta form: (I + L) dC = -L C + E(C) + source, C* = C + dC, where L C is the implicit
    // operator applied to C (the divergence of the face fluxes) and E the explicit central part
    // across the line: the same scheme as (I + L) C* = C + E(C) + source, but fp32 round-off no
    // longer biases the mass.
    d = -implicit_dt * flux_divergence(w_before, w_after, before, centre, after, has_before,
                                       has_after, k, false) +
        source_dt * source_at(cell);
#ifdef EXPLICIT_ACROSS
    {
        const bool has_low = across_pos > 0, has_high = across_pos < across_length - 1;
        const float e_here = velocity[e_axis];
        const ivec2 low = cell - across, high = cell + across;
        const float e_low = has_low ? 0.5 * (e_here + velocity_at(low)[e_axis]) : 0.0;
        const float e_high = has_high ? 0.5 * (e_here + velocity_at(high)[e_axis]) : 0.0;
        const float c_low = has_low ? concentration(low) : centre;
        const float c_high = has_high ? concentration(high) : centre;
        d -= explicit_dt *
             flux_divergence(e_low, e_high, c_low, centre, c_high, has_low, has_high, k, true);
    }
#endif
}

void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    const ivec2 cell = cell_of(line, pos);
#if DIRECTION == 0
    const ivec2 along = ivec2(1, 0);
#else
    const ivec2 along = ivec2(0, 1);
#endif
    line_row(cell, pos, concentration(cell - along), concentration(cell), concentration(cell + along),
             a, b, c, d);
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
    check_value(x);
#endif
    field_out[id] = x;
}

float solved_value(int id) { return field_out[id]; }

#if defined(KERNEL_FUSED)
#include "tridiagonal/fused_lines.glsl"
#elif defined(KERNEL_WINDOW)
// The window kernels' rows (sim/window_lines.glsl): positions p0 .. p0 + CHUNK - 1 of
// `line`, from the concentrations there and either side, each loaded once (16 bytes at a time
// along rows that allow it); positions off the line are clamped onto it (the window replaces
// their rows).
layout(std430, binding = 4) readonly buffer FieldIn4 { vec4 field_in4[]; };
void window_rows(int line, int p0, out float a[CHUNK], out float b[CHUNK],
                 out float c[CHUNK], out float d[CHUNK],
                 out vec2 inputs[CHUNK]) {
    const int n = LINE_LENGTH;
    float v[CHUNK + 2];  // positions p0 - 1 .. p0 + CHUNK
#if DIRECTION == 0
    if ((nx & 3) == 0 && p0 >= 1 && p0 + CHUNK < n) {
        const int id = index_of(cell_of(line, p0));  // a multiple of 4: so are nx and p0
        for (int q = 0; q < CHUNK / 4; ++q) {
            const vec4 quad = field_in4[(id >> 2) + q];
            for (int e = 0; e < 4; ++e) v[1 + 4 * q + e] = quad[e];
        }
        v[0] = field_in[id - 1];
        v[CHUNK + 1] = field_in[id + CHUNK];
    } else
#endif
    {
        for (int k = 0; k < CHUNK + 2; ++k)
            v[k] = field_in[index_of(cell_of(line, clamp(p0 - 1 + k, 0, n - 1)))];
    }
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = clamp(p0 + k, 0, n - 1);
        line_row(cell_of(line, pos), pos, v[k], v[k + 1], v[k + 2], a[k], b[k], c[k], d[k]);
        inputs[k] = vec2(v[k + 1], 0.0);
    }
}
#include "sim/window_lines.glsl"
#elif defined(KERNEL_SPLIT)
#define COARSE_BINDING 13
#include "tridiagonal/split_solve.glsl"
#elif defined(KERNEL_ROWS)
#define WRITE_COEFFICIENTS
#include "sim/adi_rows.glsl"
#else
#include "sim/adi_finish.glsl"
#endif
