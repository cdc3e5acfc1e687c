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

// Both fields are constant along each line in the direction of the line (the uniform flow; the
// rotation's x velocity depends on y only and its y velocity on x only): the face velocities of
// a line are all equal, which the window kernels use (window_rows) and their bound needs
// (sim/advection.cpp, resolve_window).
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

// Whether positions p0 .. p0 + count - 1 of `line` can hold a cell where source_at is not 0: the
// source's support (3 radii) widened by a cell, against the segment's nearest point to its centre.
bool source_near(int line, int p0, int count) {
    if (source_rate == 0.0 || step_index > source_steps) return false;
    const vec2 first = vec2(cell_of(line, p0)) + 0.5;
    const vec2 last = vec2(cell_of(line, p0 + count - 1)) + 0.5;
    const vec2 nearest = clamp(source_center, min(first, last), max(first, last));
    const float reach = 3.0 * source_radius + 1.0;
    const vec2 gap = nearest - source_center;
    return dot(gap, gap) < reach * reach;
}

float field_global(int field, int index) { return field_in[index]; }

float concentration(ivec2 cell) {
#ifdef TILED
    return tiled_field(clamp(cell, ivec2(0), ivec2(nx - 1, ny - 1)));
#else
    return field_in[clamped_index(cell)];
#endif
}

// A face between two cells of a line as the implicit sweep sees it, per unit of a cell's
// concentration over the sweep: the advective transfer out of the cell before it (x,
// implicit_dt max(w, 0) / dh) and out of the cell after it (y, -implicit_dt min(w, 0) / dh),
// upwind in the face velocity w (the mean of the two cells'); the diffusive transfer either way
// (z, implicit_dt D / dh^2); and in the fourth component 1 where the face is open. A wall face
// carries nothing.
vec4 face_transfer(float w, bool open) {
    return open ? vec4(implicit_dt * vec3(max(w, 0.0) / dh, -min(w, 0.0) / dh,
                                          diffusivity / (dh * dh)),
                       1.0)
                : vec4(0.0);
}

// Face `pos` of a line: between its positions pos - 1 and pos; closed at the walls.
vec4 line_face(int line, int pos) {
    const float w = 0.5 * (velocity_at(cell_of(line, pos - 1))[DIRECTION] +
                           velocity_at(cell_of(line, pos))[DIRECTION]);
    return face_transfer(w, pos > 0 && pos < LINE_LENGTH);
}

// The implicit part of a cell's row, between its faces `before` and `after` (face_transfer),
// from its concentration c and its neighbours' along the line. Delta form: (I + L) dC = -L C +
// E(C) + source, C* = C + dC, where L C is the net transfer out of the cell: the same scheme as
// (I + L) C* = C + E(C) + source, but fp32 round-off no longer biases the mass. So
//     a = -(before.x + before.z), c = -(after.y + after.z), b = 1 + the transfers out of it
// (every column sums to 1: what leaves a cell arrives in its neighbour, so sum(C) changes only by
// the source). Between two open faces -L C is written as neighbour differences, with the faces'
// advective imbalance as a separate term (zero for the scenes' velocity fields, which are
// constant along each line): transfers of size |w| C cancel before rounding, so fp32 does not
// lose the cell's own value to round-off of order |w| dt / dh times it. Beside a wall, the one
// face's inflow minus outflow.
void face_row(vec4 before, vec4 after, float c_before, float c, float c_after, out float a_row,
              out float b_row, out float c_row, out float d_row) {
    a_row = -(before.x + before.z);
    c_row = -(after.y + after.z);
    b_row = 1.0 + ((before.y + before.z) + (after.x + after.z));
    const float diffusive = before.z * (c_before - c) + after.z * (c_after - c);
    if (before.w != 0.0 && after.w != 0.0)
        d_row = before.x * (c_before - c) + after.y * (c_after - c) +
                ((before.x - before.y) - (after.x - after.y)) * c + diffusive;
    else
        d_row = (before.x * c_before - before.y * c) - (after.x * c - after.y * c_after) +
                diffusive;
}

#ifdef EXPLICIT_ACROSS
// Kim & Lee's explicit half across the line: the divergence of the central fluxes through the
// cell's two faces across it (per unit dt and cell), advective minus D dC/dn, a missing face (a
// wall) carrying nothing; neighbour differences first, as face_row's.
float central_divergence(float w_low, float w_high, float c_low, float c, float c_high,
                         bool has_low, bool has_high) {
    const float k = diffusivity / (dh * dh);
    if (has_low && has_high)
        return 0.5 * (w_high * (c_high - c_low) + (w_high - w_low) * (c_low + c)) / dh -
               k * ((c_high - c) + (c_low - c));
    float divergence = 0.0;
    if (has_high) divergence += 0.5 * w_high * (c + c_high) / dh - k * (c_high - c);
    if (has_low) divergence -= 0.5 * w_low * (c_low + c) / dh - k * (c - c_low);
    return divergence;
}
#endif

// What a cell's right-hand side has besides the line's implicit part: the source, and with
// EXPLICIT_ACROSS the explicit half across the line.
float row_extra(ivec2 cell, float centre) {
    float extra = source_dt * source_at(cell);
#ifdef EXPLICIT_ACROSS
    const ivec2 across = DIRECTION == 0 ? ivec2(0, 1) : ivec2(1, 0);
    const int across_length = DIRECTION == 0 ? ny : nx, across_pos = cell[1 - DIRECTION];
    const bool has_low = across_pos > 0, has_high = across_pos < across_length - 1;
    const float e_here = velocity_at(cell)[1 - DIRECTION];
    const ivec2 low = cell - across, high = cell + across;
    const float e_low = has_low ? 0.5 * (e_here + velocity_at(low)[1 - DIRECTION]) : 0.0;
    const float e_high = has_high ? 0.5 * (e_here + velocity_at(high)[1 - DIRECTION]) : 0.0;
    const float c_low = has_low ? concentration(low) : centre;
    const float c_high = has_high ? concentration(high) : centre;
    extra -= explicit_dt * central_divergence(e_low, e_high, c_low, centre, c_high, has_low,
                                              has_high);
#endif
    return extra;
}

// The row of position `pos` of `line` (the fused and generic paths; the window kernels build
// theirs from the same functions in window_rows).
void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    const ivec2 cell = cell_of(line, pos);
    const ivec2 along = DIRECTION == 0 ? ivec2(1, 0) : ivec2(0, 1);
    const float centre = concentration(cell);
    face_row(line_face(line, pos), line_face(line, pos + 1), concentration(cell - along), centre,
             concentration(cell + along), a, b, c, d);
    d += row_extra(cell, centre);
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
// The window kernels' rows (tridiagonal/window_lines.glsl): positions p0 .. p0 + CHUNK - 1 of
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
    // Every open face of the line carries the same transfer (velocity_at): computed once, the
    // value line_face gives each (0.5 (w + w) = w exactly).
    const vec4 open_face = face_transfer(velocity_at(cell_of(line, clamp(p0, 0, n - 1)))[DIRECTION],
                                         true);
    const bool source = source_near(line, p0, CHUNK);
    const bool interior = p0 >= 1 && p0 + CHUNK < n;  // both faces of every row open
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = p0 + k;
        if (interior) {
            face_row(open_face, open_face, v[k], v[k + 1], v[k + 2], a[k], b[k], c[k], d[k]);
        } else {
            const vec4 before = pos > 0 && pos < n ? open_face : vec4(0.0);
            const vec4 after = pos + 1 > 0 && pos + 1 < n ? open_face : vec4(0.0);
            face_row(before, after, v[k], v[k + 1], v[k + 2], a[k], b[k], c[k], d[k]);
        }
        const ivec2 cell = cell_of(line, clamp(pos, 0, n - 1));
#ifdef EXPLICIT_ACROSS
        d[k] += row_extra(cell, v[k + 1]);
#else
        if (source) d[k] += row_extra(cell, v[k + 1]);  // the source alone
#endif
        inputs[k] = vec2(v[k + 1], 0.0);
    }
}
// Every open face of a line carries the same transfer (velocity_at), so the rows of a chunk
// away from both walls are the same all along it: with LINE_SCAN (where the host found the
// pivots settled within a chunk of the walls, sim/advection.cpp) the windows solve by LU with
// the pivots' limit and scans (window_scan.glsl), else as general lines (window_lines.glsl);
// with LINE_STREAM (the vortex, in place of its window bands) work groups walk whole lines by
// the same scans (line_stream.glsl).
void interior_row(int line, out float a, out float b, out float c) {
    const vec4 open_face = face_transfer(velocity_at(cell_of(line, 0))[DIRECTION], true);
    float d;
    face_row(open_face, open_face, 0.0, 0.0, 0.0, a, b, c, d);
}
// The row at position `pos` of `line` without its right-hand side (line_stream.glsl: the pivots
// at the walls): the open faces' transfers, none through the walls, identity rows past them.
void line_row(int line, int pos, out float a, out float b, out float c) {
    const int n = LINE_LENGTH;
    if (pos < 0 || pos >= n) {
        a = c = 0.0;
        b = 1.0;
        return;
    }
    const vec4 open_face = face_transfer(velocity_at(cell_of(line, 0))[DIRECTION], true);
    const vec4 before = pos > 0 ? open_face : vec4(0.0);
    const vec4 after = pos + 1 < n ? open_face : vec4(0.0);
    float d;
    face_row(before, after, 0.0, 0.0, 0.0, a, b, c, d);
}
#if defined(LINE_STREAM)
#include "tridiagonal/line_stream.glsl"
#elif defined(LINE_SCAN)
#include "tridiagonal/window_scan.glsl"
#else
#include "tridiagonal/window_lines.glsl"
#endif
#elif defined(KERNEL_SPLIT)
#define COARSE_BINDING 13
#include "tridiagonal/split_solve.glsl"
#elif defined(KERNEL_ROWS)
#define WRITE_COEFFICIENTS
#include "sim/adi_rows.glsl"
#else
#include "sim/adi_finish.glsl"
#endif
