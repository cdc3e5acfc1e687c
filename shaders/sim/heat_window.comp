// Heat's windowed half step in shared tiles: the maths of heat_rowscan.comp and
// heat_colscan.comp (the `fused` solver's defaults, which were faster on the H200 in every
// shape tried); used where those are switched off (ADILAB_HEAT_ROWSCAN / _COLSCAN = 0).
// Open: on the H200 (2026-11-21) SimHeatWindow.InteriorTilesOfTheDefaultShapeMatch failed with
// this kernel (291 x 173, 32 x 64 x 8 tiles, T tile and DIRECT_RHS alike, error ~0.65), while it
// passes on llvmpipe and every smaller-grid test passed on the H200; not understood yet.
//
// The system: the same Peaceman–Rachford increment system as heat.comp,
//     (1 - lambda d_xx) dT = lambda (d_xx + d_yy) T   (x half step; y the reverse),
// but solved through the closed-form inverse of its constant matrix instead of a line solve.
//
// The matrix: off-diagonals -lambda, diagonal 1 + 2 lambda, 1 + lambda in the wall rows (mirrored
// ghosts). On the infinite line it factors as (lambda / rho)(1 - rho S)(1 - rho S^T) with
//     rho = 2 lambda / (1 + 2 lambda + sqrt(1 + 4 lambda)) < 1,
// so its inverse is the two-sided exponential G_m = g rho^|m|, g = (1 - rho) / (1 + rho) (each
// row sums to 1). The insulated walls are mirrors: the Neumann system's solution is the
// infinite-line solution for the right-hand side extended evenly about both walls (period 2n),
// exactly, near the walls too. So
//     dT_p = g (F_p + B_p - d_p),  F_p = d_p + rho F_{p-1},  B_p = d_p + rho B_{p+1}
// over the mirrored d. Truncating both recurrences to HALO terms before p leaves out at most
//     2 rho^(HALO+1) / (1 + rho) * max |d|,
// which sim/heat.cpp keeps below 2^-26 max |d| (under fp32 round-off of dT) by its choice of
// HALO; where that needs HALO > 48 (lambda > ~7) heat uses the exact fused line solve instead.
// The truncated operator still has equal column sums, so heat stays conserved to round-off.
//
// Each work group owns a tile of LINES lines x SPAN positions along them: no reduced system, no
// divisions, one pass. Stage 1: T over the tile plus HALO + 1 positions along and 1 line across
// on each side (mirrored / clamped, heaters applied) into shared memory, read coalesced along x;
// stage 2: d there; stage 3: each invocation runs both recurrences over CHUNK positions of one
// line after HALO warm-up terms; stage 4: T + dT out, coalesced along x.
//
// Needs: DIRECTION, LINES, SPAN, CHUNK (divides SPAN), HALO, GROUP_SIZE = LINES * SPAN / CHUNK.
// Invocation t of stage 3 takes line t % LINES, chunk t / LINES: a warp's lanes are 32 lines, so
// its shared reads hit 32 banks (odd pitch across lines for x, lines innermost for y).
#include "sim/adi_common.glsl"

#pragma optionNV(unroll all)

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };

uniform float lambda;  // c (dt / 2) / dh^2
uniform float rho;     // decay of the inverse, see above
uniform float gain;    // g = (1 - rho) / (1 + rho)
uniform vec2 heater_left;
uniform vec2 heater_right;
uniform float heater_radius;  // in cells; <= 0: no heaters
uniform float heater_temperature;

bool in_heater(ivec2 cell) {
    if (heater_radius <= 0.0) return false;
    const vec2 p = vec2(cell) + 0.5;
    const vec2 l = p - heater_left, r = p - heater_right;
    const float r2 = heater_radius * heater_radius;
    return dot(l, l) <= r2 || dot(r, r) <= r2;
}

// Whether any cell of the box lo .. hi (inclusive) can be in a heater: the discs against the
// box. Uniform per work group, so that tiles away from the heaters skip the per-cell test.
bool box_touches_heater(ivec2 lo, ivec2 hi) {
    if (heater_radius <= 0.0) return false;
    const vec2 a = vec2(lo), b = vec2(hi) + 1.0;
    const vec2 l = clamp(heater_left, a, b) - heater_left;
    const vec2 r = clamp(heater_right, a, b) - heater_right;
    const float r2 = heater_radius * heater_radius;
    return dot(l, l) <= r2 || dot(r, r) <= r2;
}

// Tile coordinates: line l (0 .. LINES + 1 for T, the group's first line at l = 1), along a.
// T's a = 0 is position first - HALO - 1; d's a = 0 is position first - HALO.
const int T_LINES = LINES + 2;
const int T_ALONG = SPAN + 2 * HALO + 2;
const int D_ALONG = SPAN + 2 * HALO;
#if DIRECTION == 0
// Lines are grid rows: row-major tiles with an odd pitch, so that 32 lines at one position (the
// lanes of stage 3) fall in 32 banks, and consecutive positions (stages 1, 2, 4) in consecutive.
const int T_PITCH = T_ALONG + 1 - T_ALONG % 2;
const int D_PITCH = D_ALONG + 1 - D_ALONG % 2;
int t_slot(int l, int a) { return l * T_PITCH + a; }
int d_slot(int l, int a) { return l * D_PITCH + a; }
const int T_FLOATS = T_LINES * T_PITCH;
const int D_FLOATS = LINES * D_PITCH;
#else
// Lines are grid columns: lines innermost, which is memory order too.
int t_slot(int l, int a) { return a * T_LINES + l; }
int d_slot(int l, int a) { return a * LINES + l; }
const int T_FLOATS = T_LINES * T_ALONG;
const int D_FLOATS = LINES * D_ALONG;
#endif
#ifndef DIRECT_RHS
shared float t_tile[T_FLOATS];
#endif
shared float d_tile[D_FLOATS];

// Position p of a line of n cells, folded by the mirrors at both walls (period 2n): the even
// extension that makes the infinite-line inverse the Neumann one.
int mirrored(int p, int n) {
    if (p >= 0 && p < n) return p;
    const int period = 2 * n;
    // p mod period from non-negative operands (GLSL leaves % of negatives undefined)
    const int m = p >= 0 ? p % period : period - 1 - (-p - 1) % period;
    return m < n ? m : period - 1 - m;
}

// Index steps between neighbours along and across the lines.
#if DIRECTION == 0
#define ALONG_STRIDE 1
#define ACROSS_STRIDE nx
#else
#define ALONG_STRIDE nx
#define ACROSS_STRIDE 1
#endif

// T at a line (clamped: the walls across) and a position (mirrored), heaters held.
float temperature_at(int line, int p, bool heaters) {
    const ivec2 cell = cell_of(clamp(line, 0, LINE_COUNT - 1), mirrored(p, LINE_LENGTH));
    return heaters && in_heater(cell) ? heater_temperature : field_in[index_of(cell)];
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int n = LINE_LENGTH;
    const int first = int(gl_WorkGroupID.x) * SPAN;        // first position owned
    const int first_line = int(gl_WorkGroupID.y) * LINES;  // first line owned

    // The cells the tile reads: near a wall the mirrored positions may be anywhere on the line.
    bool heaters;
    {
        const int p0 = first - HALO - 1, p1 = first + SPAN + HALO;
        const bool folded = p0 < 0 || p1 >= n;
        const ivec2 c0 = cell_of(max(first_line - 1, 0), folded ? 0 : p0);
        const ivec2 c1 = cell_of(min(first_line + LINES, LINE_COUNT - 1), folded ? n - 1 : p1);
        heaters = box_touches_heater(min(c0, c1), max(c0, c1));
    }
    // Most tiles read neither across a wall nor a heater: plain indexing there (uniform per
    // group, so the general path's clamps and folds cost nothing elsewhere).
    const bool plain = !heaters && first - HALO - 1 >= 0 && first + SPAN + HALO < n &&
                       first_line >= 1 && first_line + LINES < LINE_COUNT;
    const int origin = first_line * ACROSS_STRIDE + (first - HALO) * ALONG_STRIDE;  // d's (0, 0)

    // Every loop below has a compile-time trip count and issues its global loads before it
    // uses them: a loop that waits for each load in turn (an L2 round trip per element) ran
    // 2-5x slower on the H200.
    const int D_COUNT = LINES * D_ALONG;
    const int D_STEPS = (D_COUNT + GROUP_SIZE - 1) / GROUP_SIZE;
    const int OUT_STEPS = LINES * SPAN / GROUP_SIZE;  // = CHUNK
#ifdef DIRECT_RHS
    // Variant (ADILAB_HEAT_DIRECT=1): d straight from the field through the L1 cache, no T tile
    // and one barrier less (H200: 1.1-2.3x faster than the T tile).
    if (plain) {
        for (int s = 0; s < D_STEPS; ++s) {
            const int f = min(t + s * GROUP_SIZE, D_COUNT - 1);  // duplicates past the end
#if DIRECTION == 0
            const int l = f / D_ALONG, a = f % D_ALONG;
#else
            const int a = f / LINES, l = f % LINES;
#endif
            const int id = origin + l * ACROSS_STRIDE + a * ALONG_STRIDE;
            const float centre = field_in[id];
            d_tile[d_slot(l, a)] = lambda * ((field_in[id - ACROSS_STRIDE] - centre) +
                                             (field_in[id + ACROSS_STRIDE] - centre) +
                                             (field_in[id - ALONG_STRIDE] - centre) +
                                             (field_in[id + ALONG_STRIDE] - centre));
        }
    } else {
        for (int s = 0; s < D_STEPS; ++s) {
            const int f = min(t + s * GROUP_SIZE, D_COUNT - 1);
#if DIRECTION == 0
            const int l = f / D_ALONG, a = f % D_ALONG;
#else
            const int a = f / LINES, l = f % LINES;
#endif
            const int line = first_line + l, p = first - HALO + a;
            const float centre = temperature_at(line, p, heaters);
            d_tile[d_slot(l, a)] = lambda * ((temperature_at(line - 1, p, heaters) - centre) +
                                             (temperature_at(line + 1, p, heaters) - centre) +
                                             (temperature_at(line, p - 1, heaters) - centre) +
                                             (temperature_at(line, p + 1, heaters) - centre));
        }
    }
    // The old values of the cells this invocation stores (stage 4's mapping), loaded now.
    float old[OUT_STEPS];
    for (int s = 0; s < OUT_STEPS; ++s) {
#if DIRECTION == 0
        const int f = t + s * GROUP_SIZE;
        const int line = first_line + f / SPAN, pos = first + f % SPAN;
#else
        const int line = first_line + t % LINES, pos = first + (t / LINES) * CHUNK + s;
#endif
        old[s] = field_in[index_of(cell_of(min(line, LINE_COUNT - 1), min(pos, n - 1)))];
    }
    memoryBarrierShared();
    barrier();
#else
    // Stage 1: T, heaters held, mirrored along the lines, clamped across them (Neumann).
    {
        const int T_COUNT = T_LINES * T_ALONG;
        const int T_STEPS = (T_COUNT + GROUP_SIZE - 1) / GROUP_SIZE;
        float staged[T_STEPS];
        if (plain) {
            const int corner = origin - ACROSS_STRIDE - ALONG_STRIDE;  // T's (0, 0)
            for (int s = 0; s < T_STEPS; ++s) {
                const int f = min(t + s * GROUP_SIZE, T_COUNT - 1);  // duplicates past the end
#if DIRECTION == 0
                const int l = f / T_ALONG, a = f % T_ALONG;
#else
                const int a = f / T_LINES, l = f % T_LINES;
#endif
                staged[s] = field_in[corner + l * ACROSS_STRIDE + a * ALONG_STRIDE];
            }
        } else {
            for (int s = 0; s < T_STEPS; ++s) {
                const int f = min(t + s * GROUP_SIZE, T_COUNT - 1);
#if DIRECTION == 0
                const int l = f / T_ALONG, a = f % T_ALONG;
#else
                const int a = f / T_LINES, l = f % T_LINES;
#endif
                const int line = clamp(first_line - 1 + l, 0, LINE_COUNT - 1);
                const ivec2 cell = cell_of(line, mirrored(first - HALO - 1 + a, n));
                const float value = field_in[index_of(cell)];
                staged[s] = heaters && in_heater(cell) ? heater_temperature : value;
            }
        }
        for (int s = 0; s < T_STEPS; ++s) {
            const int f = min(t + s * GROUP_SIZE, T_COUNT - 1);
#if DIRECTION == 0
            const int l = f / T_ALONG, a = f % T_ALONG;
#else
            const int a = f / T_LINES, l = f % T_LINES;
#endif
            t_tile[t_slot(l, a)] = staged[s];
        }
    }
    memoryBarrierShared();
    barrier();

    // Stage 2: the right-hand side, neighbour differences first (delta form, as heat.comp).
    for (int s = 0; s < D_STEPS; ++s) {
        const int f = min(t + s * GROUP_SIZE, D_COUNT - 1);
#if DIRECTION == 0
        const int l = f / D_ALONG, a = f % D_ALONG;
#else
        const int a = f / LINES, l = f % LINES;
#endif
        const float centre = t_tile[t_slot(l + 1, a + 1)];
        d_tile[d_slot(l, a)] =
            lambda * ((t_tile[t_slot(l, a + 1)] - centre) + (t_tile[t_slot(l + 2, a + 1)] - centre) +
                      (t_tile[t_slot(l + 1, a)] - centre) + (t_tile[t_slot(l + 1, a + 2)] - centre));
    }
    memoryBarrierShared();
    barrier();
#endif

    // Stage 3: both recurrences over this invocation's chunk, HALO warm-up terms each.
    const int l = t % LINES;
    const int a0 = (t / LINES) * CHUNK;  // d's a of the chunk's first output is a0 + HALO
    float x[CHUNK];
    {
        float y = 0.0;
        for (int k = 0; k < HALO + CHUNK; ++k) {
            y = d_tile[d_slot(l, a0 + k)] + rho * y;
            if (k >= HALO) x[k - HALO] = y;
        }
        float z = 0.0;
        for (int k = HALO + CHUNK - 1; k >= 0; --k) {
            const float d = d_tile[d_slot(l, a0 + HALO + k)];
            z = d + rho * z;
            if (k < CHUNK) x[k] = gain * (x[k] + z - d);
        }
    }

#if DIRECTION == 1
    // Lines are columns: the lanes' stores of one position are one coalesced row segment.
    const int line = first_line + l;
    if (line >= LINE_COUNT) return;
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = first + a0 + k;
        if (pos >= n) break;
        const ivec2 cell = cell_of(line, pos);
#ifdef DIRECT_RHS
        const float before = old[k];
#else
        const float before = t_tile[t_slot(l + 1, HALO + 1 + a0 + k)];
#endif
        const float value = heaters && in_heater(cell) ? heater_temperature : before + x[k];
        flag_if_not_finite(value);
        field_out[index_of(cell)] = value;
    }
#else
    // Lines are rows: the increments go through the d tile so that rows leave coalesced.
    barrier();  // every d is read
    for (int k = 0; k < CHUNK; ++k) d_tile[d_slot(l, HALO + a0 + k)] = x[k];
    memoryBarrierShared();
    barrier();
    for (int s = 0; s < OUT_STEPS; ++s) {
        const int f = t + s * GROUP_SIZE;
        const int fl = f / SPAN, a = f % SPAN;
        const int line = first_line + fl, pos = first + a;
        if (line >= LINE_COUNT || pos >= n) continue;
        const ivec2 cell = cell_of(line, pos);
#ifdef DIRECT_RHS
        const float before = old[s];
#else
        const float before = t_tile[t_slot(fl + 1, HALO + 1 + a)];
#endif
        field_out[index_of(cell)] = heaters && in_heater(cell)
                                        ? heater_temperature
                                        : before + d_tile[d_slot(fl, HALO + a)];
    }
#endif
}
