// Heat's whole Peaceman–Rachford step in ONE dispatch (the `fused` solver's default on grids of
// at most 256^2 cells with halos <= 16: the measured rule in sim/heat.cpp; ADILAB_HEAT_TILE=1
// wherever the tile fits in shared memory): each work group computes an output tile of
// TILE_X x TILE_Y cells of T^(n+1) from T^n alone, through the intermediate T* kept in shared
// memory. Same maths as
// heat_scan.glsl (its header: the closed-form inverse g rho^|m| of the constant PR matrix, walls
// as mirrors, both recurrences cut after HALO terms), so the result is the two-dispatch path's
// up to fp32 round-off and the truncation bound:
//     T*      = T^n + dT_x,  (1 - lambda d_xx) dT_x = lambda (d_xx + d_yy) T^n
//     T^(n+1) = T*  + dT_y,  (1 - lambda d_yy) dT_y = lambda (d_xx + d_yy) T*
//     dT_p = g (F_p + B_p - d_p),  F_p = d_p + rho F_(p-1),  B_p = d_p + rho B_(p+1).
// Dependencies: T^(n+1)(i, j) needs T*(i +- 1, j - HALO - 1 .. j + HALO + 1); T*(i, j) needs
// T^n(i - HALO - 1 .. i + HALO + 1, j +- 1). So a group, with barriers between the stages:
//   1. loads T^n on (TILE_X + 2 HALO + 4) x (TILE_Y + 2 HALO + 4) cells around its tile into
//      shared memory, every load of an invocation issued before any is used (one round trip
//      to L2; positions folded by the mirrors, heater cells held: heat_scan.glsl's conventions,
//      so walls and heaters need no other case);
//   2. computes d_x on the T* rows (all invocations, cells spread over them), then T* := T^n;
//   3. x half step: one invocation per segment of a T* row (SPLIT_X segments a row): the HALO
//      terms before the segment as 4 independent Horner chains in rho^4, then the forward
//      recurrence over the segment (F in registers), the same backward, T* += dT_x;
//   4. computes d_y on the tile's columns from T*;
//   5. y half step likewise, one invocation per segment of a tile column (SPLIT_Y a column),
//      T^(n+1) stored to the output (coalesced: invocations are columns) and flagged.
// Every output takes >= HALO terms either side (a segment's first output exactly HALO), so the
// truncation bound of heat_scan.glsl holds. Read T^n from binding 0, write T^(n+1) to binding 1
// (sim/heat.cpp ping-pongs the two buffers: tiles read their neighbours' halos).
//
// Measured on the H200 (2026-11-21, see sim/heat.cpp): the time follows the work each
// invocation does in sequence far more than the cells or the bytes: at 256^2 (one group per SM)
// a step took 61 / 41 / 27 / 23 us with 43 / 27 / 14 / 14 loads an invocation and segments of
// 33 / 22 / 22 / 10 cells (64x32 tiles; groups of 160 / 256 / 512 / 512), 19 us with 32x32
// tiles split 6x8 (416). A first form whose loads were not batched took ~1 us per load an
// invocation. Hence many invocations a group, few loads and short segments each.
//
// Needs: TILE_X, TILE_Y, HALO, SPLIT_X, SPLIT_Y (they need not divide the lines: the last
// segment is shifted back and stores only its own cells), GROUP_SIZE. Shared memory (floats):
// (TILE_Y + 2 HALO + 4) T_PITCH + (TILE_Y + 2 HALO + 2) S_PITCH; sim/heat.cpp checks it fits.
#define DIRECTION 0

layout(local_size_x = GROUP_SIZE) in;

// restrict: the input is never written during the dispatch (the output is the other buffer).
layout(std430, binding = 0) restrict readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) restrict writeonly buffer FieldOut { float field_out[]; };

#include "sim/heat_scan.glsl"

// T^n around the tile: row r, column c is extended position origin - (HALO + 2) + (c, r).
const int T_WIDTH = TILE_X + 2 * HALO + 4;
const int T_HEIGHT = TILE_Y + 2 * HALO + 4;
const int T_PITCH = T_WIDTH | 1;
// T*: row r, column k is extended position origin + (k - 1, r - HALO - 1).
const int S_WIDTH = TILE_X + 2;
const int S_HEIGHT = TILE_Y + 2 * HALO + 2;
// Odd pitches: where the invocations of a subgroup are consecutive rows at one column (the x
// half step), an odd pitch puts them in 32 different banks.
const int S_PITCH = S_WIDTH | 1;
// The x half step's right-hand side d_x: row r (T* row r), position p = T* column p - HALO.
const int DX_WIDTH = S_WIDTH + 2 * HALO;
const int DX_PITCH = DX_WIDTH | 1;
// The y half step's d_y: row q = output row q - HALO (T* row q + 1), column i, pitch TILE_X
// (there the invocations are consecutive columns).
const int DY_HEIGHT = TILE_Y + 2 * HALO;
// a_tile holds T^n, then d_x, then d_y (each dead before the next is written); all fit in T^n's.
shared float a_tile[T_HEIGHT * T_PITCH];
shared float s_tile[S_HEIGHT * S_PITCH];

const int T_CELLS = T_WIDTH * T_HEIGHT;
const int LOADS = (T_CELLS + GROUP_SIZE - 1) / GROUP_SIZE;
// Loads in flight together per invocation: all of them up to 32 (one round trip to L2; on the
// H200 each dependent round trip measured ~1 us in this kernel's first form), else batches of 16.
const int BATCH = LOADS <= 32 ? LOADS : 16;
const int DX_CELLS = S_HEIGHT * DX_WIDTH;
const int DX_PER = (DX_CELLS + GROUP_SIZE - 1) / GROUP_SIZE;
const int S_CELLS = S_HEIGHT * S_WIDTH;
const int DY_CELLS = DY_HEIGHT * TILE_X;
const int OUT_X = (S_WIDTH + SPLIT_X - 1) / SPLIT_X;  // T* columns a segment
const int OUT_Y = (TILE_Y + SPLIT_Y - 1) / SPLIT_Y;   // output rows a segment

// sum_{m < HALO} rho^m a_tile[base + stride m]: the HALO terms of a recurrence before a segment,
// as 4 independent Horner chains in rho^4 (a chain of HALO / 4 instead of HALO).
float warm_up(int base, int stride, float rho4) {
    float s[4] = float[4](0.0, 0.0, 0.0, 0.0);
    for (int b = (HALO + 3) / 4 - 1; b >= 0; --b)
        for (int a = 0; a < 4; ++a)
            if (4 * b + a < HALO) s[a] = a_tile[base + stride * (4 * b + a)] + rho4 * s[a];
    return s[0] + rho * (s[1] + rho * (s[2] + rho * s[3]));
}

ivec2 load_cell(int e, ivec2 lo, bool inside) {
    const int r = e / T_WIDTH, c = e - r * T_WIDTH;
    const ivec2 p = lo + ivec2(c, r);
    return inside ? p : ivec2(mirrored(p.x, nx), mirrored(p.y, ny));
}

void main() {
    scan_step = step_index;
    const int t = int(gl_LocalInvocationID.x);
    const ivec2 origin = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y);
    const ivec2 lo = origin - (HALO + 2);
    const ivec2 hi = lo + ivec2(T_WIDTH, T_HEIGHT) - 1;
    // Away from the walls the positions need no folding; near one they may be anywhere on the
    // grid (lines shorter than the halo), so the heater test then takes the whole grid.
    const bool inside = lo.x >= 0 && lo.y >= 0 && hi.x < nx && hi.y < ny;
    const bool heaters =
        box_touches_heater(inside ? lo : ivec2(0), inside ? hi : ivec2(nx - 1, ny - 1));
    const float rho4 = (rho * rho) * (rho * rho);

    // 1. T^n around the tile, BATCH unconditional loads in flight per invocation (indices past
    // the region repeat its last cell and are not stored).
    for (int n0 = 0; n0 < LOADS; n0 += BATCH) {
        float v[BATCH];
        for (int j = 0; j < BATCH; ++j) {
            const int e = min(t + (n0 + j) * GROUP_SIZE, T_CELLS - 1);
            v[j] = field_in[index_of(load_cell(e, lo, inside))];
        }
        for (int j = 0; j < BATCH; ++j) {
            const int e = t + (n0 + j) * GROUP_SIZE;
            if (n0 + j < LOADS && e < T_CELLS) {
                const int r = e / T_WIDTH, c = e - r * T_WIDTH;
                a_tile[r * T_PITCH + c] =
                    heaters && in_heater(load_cell(e, lo, inside)) ? heater_temperature : v[j];
            }
        }
    }
    memoryBarrierShared();
    barrier();

    // 2. d_x on every T* row, positions -HALO .. S_WIDTH - 1 + HALO (into registers: a_tile is
    // read by the others), and T* := T^n on its cells.
    float dx[DX_PER];
    for (int n = 0; n < DX_PER; ++n) {
        const int e = min(t + n * GROUP_SIZE, DX_CELLS - 1);
        const int r = e / DX_WIDTH, p = e - r * DX_WIDTH;
        const int at = (r + 1) * T_PITCH + p + 1;  // T row r + 1, T column p + 1
        const float centre = a_tile[at];
        // (same association as heat_scan.glsl's row_scan)
        dx[n] = lambda * ((a_tile[at - T_PITCH] - centre) + (a_tile[at + T_PITCH] - centre) +
                          (a_tile[at - 1] - centre) + (a_tile[at + 1] - centre));
    }
    for (int e = t; e < S_CELLS; e += GROUP_SIZE) {
        const int r = e / S_WIDTH, k = e - r * S_WIDTH;
        s_tile[r * S_PITCH + k] = a_tile[(r + 1) * T_PITCH + k + HALO + 1];
    }
    memoryBarrierShared();
    barrier();
    for (int n = 0; n < DX_PER; ++n) {
        const int e = t + n * GROUP_SIZE;
        if (e < DX_CELLS) {
            const int r = e / DX_WIDTH, p = e - r * DX_WIDTH;
            a_tile[r * DX_PITCH + p] = dx[n];
        }
    }
    memoryBarrierShared();
    barrier();

    // 3. The x half step: T* row r, columns [first, first + OUT_X), stores its own [own, ..)
    // (the last segment is shifted back). d_x of T* column k at a_tile[row + k + HALO].
    for (int item = t; item < S_HEIGHT * SPLIT_X; item += GROUP_SIZE) {
        const int r = item % S_HEIGHT, own = (item / S_HEIGHT) * OUT_X;
        const int first = min(own, S_WIDTH - OUT_X);
        const int row = r * DX_PITCH + HALO;
        float f = warm_up(row + first - 1, -1, rho4);
        float forward[OUT_X];
        for (int j = 0; j < OUT_X; ++j) {
            f = a_tile[row + first + j] + rho * f;
            forward[j] = f;
        }
        float b = warm_up(row + first + OUT_X, 1, rho4);
        const int y = mirrored(origin.y - HALO - 1 + r, ny);
        for (int j = OUT_X - 1; j >= 0; --j) {
            const float d = a_tile[row + first + j];
            b = d + rho * b;
            const int k = first + j;
            if (k >= own) {
                const int slot = r * S_PITCH + k;
                s_tile[slot] = heaters && in_heater(ivec2(mirrored(origin.x - 1 + k, nx), y))
                    ? heater_temperature : s_tile[slot] + gain * (forward[j] + b - d);
            }
        }
    }
    memoryBarrierShared();
    barrier();

    // 4. d_y on the tile's columns, output rows -HALO .. TILE_Y - 1 + HALO (a_tile's d_x is dead).
    for (int e = t; e < DY_CELLS; e += GROUP_SIZE) {
        const int q = e / TILE_X, i = e - q * TILE_X;
        const int at = (q + 1) * S_PITCH + i + 1;
        const float centre = s_tile[at];
        // (same association as heat_scan.glsl's column_scan)
        a_tile[q * TILE_X + i] = lambda * ((s_tile[at - 1] - centre) + (s_tile[at + 1] - centre) +
                                           (s_tile[at - S_PITCH] - centre) +
                                           (s_tile[at + S_PITCH] - centre));
    }
    memoryBarrierShared();
    barrier();

    // 5. The y half step: tile column i, output rows [first, first + OUT_Y), stores its own
    // [own, ..) to the output (invocations are consecutive columns: coalesced), flagged.
    for (int item = t; item < TILE_X * SPLIT_Y; item += GROUP_SIZE) {
        const int i = item % TILE_X, own = (item / TILE_X) * OUT_Y;
        const int first = min(own, TILE_Y - OUT_Y);
        const int column = HALO * TILE_X + i;  // d_y of output row j at a_tile[column + j TILE_X]
        float f = warm_up(column + (first - 1) * TILE_X, -TILE_X, rho4);
        float forward[OUT_Y];
        for (int j = 0; j < OUT_Y; ++j) {
            f = a_tile[column + (first + j) * TILE_X] + rho * f;
            forward[j] = f;
        }
        float b = warm_up(column + (first + OUT_Y) * TILE_X, TILE_X, rho4);
        const int x = origin.x + i;
        for (int j = OUT_Y - 1; j >= 0; --j) {
            const float d = a_tile[column + (first + j) * TILE_X];
            b = d + rho * b;
            const int row = first + j;
            if (row >= own && x < nx && origin.y + row < ny) {
                const ivec2 cell = ivec2(x, origin.y + row);
                const float value = heaters && in_heater(cell)
                    ? heater_temperature
                    : s_tile[(row + HALO + 1) * S_PITCH + i + 1] + gain * (forward[j] + b - d);
                flag_value(value);
                field_out[index_of(cell)] = value;
            }
        }
    }
}
