// Heat's whole Peaceman–Rachford step in ONE dispatch (the `fused` solver's default where the
// tile fits, see sim/heat.cpp): each work group computes an output tile of TILE_X x TILE_Y cells
// of T^(n+1) from T^n alone, through the intermediate T* kept in shared memory. Same maths as
// heat_scan.glsl (its header: the closed-form inverse g rho^|m| of the constant PR matrix, walls
// as mirrors, both recurrences cut after HALO terms), so the result is the two-dispatch path's
// up to fp32 round-off and the truncation bound:
//     T*      = T^n + dT_x,  (1 - lambda d_xx) dT_x = lambda (d_xx + d_yy) T^n
//     T^(n+1) = T*  + dT_y,  (1 - lambda d_yy) dT_y = lambda (d_xx + d_yy) T*
//     dT_p = g (F_p + B_p - d_p),  F_p = d_p + rho F_(p-1),  B_p = d_p + rho B_(p+1).
// Dependencies: T^(n+1)(i, j) needs T*(i +- 1, j - HALO - 1 .. j + HALO + 1); T*(i, j) needs
// T^n(i - HALO - 1 .. i + HALO + 1, j +- 1). So a group
//   1. loads T^n on (TILE_X + 2 HALO + 4) x (TILE_Y + 2 HALO + 4) cells around its tile into
//      shared memory (positions folded by the mirrors, heater cells held: heat_scan.glsl's
//      conventions, so walls and heaters need no other case);
//   2. x half step: T* on (TILE_X + 2) x (TILE_Y + 2 HALO + 2) cells, one invocation per segment
//      of a T* row (SPLIT_X segments a row): the forward recurrence from HALO cells before the
//      segment (F kept in the T* slots), then the backward one from HALO cells after it;
//   3. y half step: one invocation per segment of a tile column (SPLIT_Y a column), F in
//      registers, T^(n+1) stored to the output (coalesced: invocations are columns), flagged.
// Every output takes >= HALO terms either side (a segment's first output exactly HALO), so the
// truncation bound of heat_scan.glsl holds. Read T^n from binding 0, write T^(n+1) to binding 1
// (sim/heat.cpp ping-pongs the two buffers: tiles read their neighbours' halos).
//
// Needs: TILE_X, TILE_Y, HALO, SPLIT_X (divides nothing: the last segment is shifted back and
// stores only its own cells), SPLIT_Y, GROUP_SIZE. Shared memory (floats):
// (TILE_Y + 2 HALO + 4) T_PITCH + (TILE_Y + 2 HALO + 2) S_PITCH; sim/heat.cpp checks it fits.
#define DIRECTION 0

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) writeonly buffer FieldOut { float field_out[]; };

#include "sim/heat_scan.glsl"

// T^n around the tile: row r, column c is extended position origin - (HALO + 2) + (c, r).
const int T_WIDTH = TILE_X + 2 * HALO + 4;
const int T_HEIGHT = TILE_Y + 2 * HALO + 4;
// Odd pitches: in the x half step the invocations of a subgroup are consecutive rows reading the
// same column, so an odd pitch puts them in 32 different banks.
const int T_PITCH = T_WIDTH | 1;
// T*: row r, column k is extended position origin + (k - 1, r - HALO - 1).
const int S_WIDTH = TILE_X + 2;
const int S_HEIGHT = TILE_Y + 2 * HALO + 2;
const int S_PITCH = S_WIDTH | 1;
shared float t_tile[T_HEIGHT * T_PITCH];
shared float s_tile[S_HEIGHT * S_PITCH];

const int LOADS = (T_WIDTH * T_HEIGHT + GROUP_SIZE - 1) / GROUP_SIZE;
const int OUT_X = (S_WIDTH + SPLIT_X - 1) / SPLIT_X;  // T* columns a segment
const int OUT_Y = (TILE_Y + SPLIT_Y - 1) / SPLIT_Y;   // output rows a segment

// d of the x half step at T row tr, column c (same association as heat_scan.glsl's row_scan).
float x_rhs(int tr, int c) {
    const int at = tr * T_PITCH + c;
    const float centre = t_tile[at];
    return lambda * ((t_tile[at - T_PITCH] - centre) + (t_tile[at + T_PITCH] - centre) +
                     (t_tile[at - 1] - centre) + (t_tile[at + 1] - centre));
}

// d of the y half step at T* row r, column k (as column_scan's).
float y_rhs(int r, int k) {
    const int at = r * S_PITCH + k;
    const float centre = s_tile[at];
    return lambda * ((s_tile[at - 1] - centre) + (s_tile[at + 1] - centre) +
                     (s_tile[at - S_PITCH] - centre) + (s_tile[at + S_PITCH] - centre));
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
    const bool heaters = box_touches_heater(inside ? lo : ivec2(0), inside ? hi : ivec2(nx - 1, ny - 1));

    // 1. T^n around the tile (all loads independent: unrolled, they are in flight together).
    for (int n = 0; n < LOADS; ++n) {
        const int e = t + n * GROUP_SIZE;
        if (e < T_WIDTH * T_HEIGHT) {
            const int r = e / T_WIDTH, c = e - r * T_WIDTH;
            const ivec2 p = lo + ivec2(c, r);
            const ivec2 cell = inside ? p : ivec2(mirrored(p.x, nx), mirrored(p.y, ny));
            t_tile[r * T_PITCH + c] =
                heaters && in_heater(cell) ? heater_temperature : field_in[index_of(cell)];
        }
    }
    memoryBarrierShared();
    barrier();

    // 2. The x half step: T* row r (T row r + 1), columns [first, first + OUT_X), stores its own
    // [own, ..). T* column k is T column k + HALO + 1.
    for (int item = t; item < S_HEIGHT * SPLIT_X; item += GROUP_SIZE) {
        const int r = item % S_HEIGHT, own = (item / S_HEIGHT) * OUT_X;
        const int first = min(own, S_WIDTH - OUT_X);
        const int tr = r + 1;
        const int row_slot = r * S_PITCH;
        float f = 0.0;
        for (int q = 0; q < OUT_X + HALO; ++q) {
            const int k = first - HALO + q;
            f = x_rhs(tr, k + HALO + 1) + rho * f;
            if (q >= HALO && k >= own) s_tile[row_slot + k] = f;
        }
        const int y = mirrored(origin.y - HALO - 1 + r, ny);
        float b = 0.0;
        for (int q = 0; q < OUT_X + HALO; ++q) {
            const int k = first + OUT_X - 1 + HALO - q;
            const float d = x_rhs(tr, k + HALO + 1);
            b = d + rho * b;
            if (q >= HALO && k >= own) {
                const float centre = t_tile[tr * T_PITCH + k + HALO + 1];
                const float value = centre + gain * (s_tile[row_slot + k] + b - d);
                s_tile[row_slot + k] =
                    heaters && in_heater(ivec2(mirrored(origin.x - 1 + k, nx), y))
                        ? heater_temperature : value;
            }
        }
    }
    memoryBarrierShared();
    barrier();

    // 3. The y half step: tile column i (T* column i + 1), output rows [first, first + OUT_Y),
    // stores its own [own, ..). Output row j is T* row j + HALO + 1.
    for (int item = t; item < TILE_X * SPLIT_Y; item += GROUP_SIZE) {
        const int i = item % TILE_X, own = (item / TILE_X) * OUT_Y;
        const int first = min(own, TILE_Y - OUT_Y);
        const int k = i + 1;
        float forward[OUT_Y];
        float f = 0.0;
        for (int q = 0; q < OUT_Y + HALO; ++q) {
            const int r = first - HALO + q + HALO + 1;
            f = y_rhs(r, k) + rho * f;
            if (q >= HALO) forward[q - HALO] = f;
        }
        const int x = origin.x + i;
        float b = 0.0;
        for (int q = 0; q < OUT_Y + HALO; ++q) {
            const int j = first + OUT_Y - 1 + HALO - q;
            const int r = j + HALO + 1;
            const float d = y_rhs(r, k);
            b = d + rho * b;
            if (q >= HALO && j >= own && x < nx && origin.y + j < ny) {
                const ivec2 cell = ivec2(x, origin.y + j);
                const float value = heaters && in_heater(cell)
                    ? heater_temperature
                    : s_tile[r * S_PITCH + k] + gain * (forward[OUT_Y - 1 + HALO - q] + b - d);
                flag_value(value);
                field_out[index_of(cell)] = value;
            }
        }
    }
}
