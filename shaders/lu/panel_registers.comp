// The panel factorisation of blocked LU (the LU paper, §2.3) in ONE dispatch, with the panel's
// rows in REGISTERS (Tuning::registers_panel, the default): the exchange of `lean`
// (panel_lean.comp: per column, the groups' candidates, then the winner's row, three
// barriers), but each invocation keeps ONE column of ROWS_PER_PART rows of its group in
// registers instead of the group keeping its rows in shared memory.
//
// Why: in `lean` the rank-1 update cost ~40% of a column's time (docs/performance.md, "LU"),
// far more than its arithmetic:
// each element took two shared loads, a division, a store and the address arithmetic, and
// batching the loads or spreading the warps over the schedulers did not change it. Here an
// element of the update is one fused multiply-add on a register, with its multiplier read from
// shared memory four rows at a time (a broadcast: a warp's invocations share their rows).
//
// Layout: invocation t holds column c of rows part + PARTS i (i < ROWS_PER_PART) of its group;
// PARTS = WG_SIZE / NB invocations share a column. Where NB >= 32 a warp takes 32 consecutive
// columns of one part, and the warps of a column block are consecutive, so the warps with
// columns right of j (the busy ones) sit on all of an SM's schedulers. Registers can only be
// indexed by constants: every loop over i is unrolled, and the few places that need row r's
// register (publishing a row, the interchange) pick it by comparing i with r's index.
//
// Per column j, every group (invocations that hold the needed values do each step):
//   1. publishes its candidate (the largest |a(r, j)|, r > the diagonal row d, ties: smallest
//      row; found during the previous column's update) in a header word (|value|, row, label,
//      epoch), and the candidate's row one value a word (value, epoch) from the registers of
//      its part; the owner of row d publishes that row in the diagonal slot.
//   2. gathers the headers (one L2 round trip, spinning until each carries the column's epoch),
//      every subgroup reduces them to the same winner p;
//   3. fetches the winner's row (and, in p's group, row d, which moves to p), the second round
//      trip, into shared memory;
//   4. interchanges rows d and p in the registers of their owners, scales column j (the column
//      of L: its owners divide their rows below d by the pivot), and updates every column right
//      of j: a(r, c) -= m(r) * (u(c) / pivot), m(r) the unscaled a(r, j) that column j's owners
//      left in shared memory during the previous update (the multiplier l = m / pivot, applied
//      as m * (u / pivot): the same product up to rounding, one multiply-add an element).
//      Column j+1's owners then leave their rows in shared memory for the next column and find
//      their candidates.
// Same partial pivoting and pivots as column-by-column LU (ties aside), same slots and epochs as
// the earlier panels: headers uvec4 [parity][slot], rows uvec2 [parity][slot][NB + 1] (the extra
// word carries the diagonal row's label). Slots alternate by column parity: a group writes
// column j+2's slots only after every group published column j+1, which each does only after it
// finished reading column j's.
//
// Limits as panel_lean.comp: all `groups` work groups resident at once (groups <=
// GROUPS_MAX, groups <= WG_SIZE, hardware GPUs only; a software renderer runs groups == 1, with
// a barrier between publishing and gathering, SOFTWARE); a wait that spins too long sets
// `failed` instead of hanging.
#if SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

const uint SPIN_LIMIT = 1u << 22;  // ~1 s: a real wait is a microsecond

#define PARTS (WG_SIZE / NB)              // invocations a column
#define ROWS_MAX (PARTS * ROWS_PER_PART)  // rows a group
#define QUADS (ROWS_PER_PART / 4)         // ROWS_PER_PART is a multiple of 4
#define ROW_WORDS (NB + 1)                // a row slot: NB values, then the label

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) writeonly buffer Pivots { int pivots[]; };
layout(std430, binding = 2) coherent buffer Status { int first_singular; int failed; };
// [parity][slot]; slot GROUPS_MAX is the diagonal row's.
layout(std430, binding = 3) coherent volatile buffer Headers { uvec4 headers[]; };
layout(std430, binding = 4) coherent volatile buffer Rows { uvec2 row_words[]; };
layout(std430, binding = 6) writeonly buffer Origin { int origin[]; };

uniform int n;
uniform int k0;
uniform int width;            // panel columns, <= NB
uniform int groups;           // work groups taking part, <= GROUPS_MAX, <= WG_SIZE
uniform int rows_per_group;   // <= ROWS_MAX
uniform int epoch_base;       // epoch of column j is epoch_base + j (>= 1)

// Column j's unscaled values, [parity][part][ROWS_PER_PART] as vec4s: the multipliers' source.
shared vec4 column_quads[2 * PARTS * QUADS];
shared int label[ROWS_MAX];
shared float pivot_row[NB];
shared float moved_row[NB];  // row d's content, taken by row p (in p's group)
shared float part_abs[PARTS];  // the next column's candidates, one per part
shared int part_row[PARTS];
shared float head_abs[GROUPS_MAX];  // the gathered headers
shared int head_row[GROUPS_MAX];
shared int head_label[GROUPS_MAX];
shared bool abandoned;

float held[ROWS_PER_PART];  // this invocation's column: rows part + PARTS i of the group

int header_word(int parity, int slot) { return parity * (GROUPS_MAX + 1) + slot; }
int row_word(int parity, int slot, int col) {
    return (parity * (GROUPS_MAX + 1) + slot) * ROW_WORDS + col;
}

#include "lu/panel_exchange.glsl"

// Row i's register: four independent chains of selects (q = k mod 4), then one of the four:
// the depth is QUADS + 4 selects, not ROWS_PER_PART (publishing a row is on every column's
// critical path).
float held_at(int i) {
    float v[4] = float[4](0.0, 0.0, 0.0, 0.0);
    for (int q = 0; q < ROWS_PER_PART; ++q)
        if (q == i) v[q % 4] = held[q];
    const int k = i % 4;
    return k == 0 ? v[0] : k == 1 ? v[1] : k == 2 ? v[2] : v[3];
}

void set_held(int i, float v) {
    for (int q = 0; q < ROWS_PER_PART; ++q)
        if (q == i) held[q] = v;
}

// The next column's owners (one invocation a part) leave its rows, unscaled, in shared memory
// for the next column's multipliers, and find its candidates among the local rows from `first`.
void leave_column(int parity, int part, int first, int row_begin, int count) {
    for (int q = 0; q < QUADS; ++q)
        column_quads[(parity * PARTS + part) * QUADS + q] =
            vec4(held[4 * q], held[4 * q + 1], held[4 * q + 2], held[4 * q + 3]);
    // Four independent chains (rows 4q + k), then the best of the four: a depth of QUADS + 3
    // compares instead of ROWS_PER_PART. Rows rise with q, so a chain keeps its first best;
    // across chains `better` breaks ties by the smaller row.
    float k_abs[4] = float[4](-1.0, -1.0, -1.0, -1.0);
    int k_row[4] = int[4](n, n, n, n);
    for (int q = 0; q < QUADS; ++q)
        for (int k = 0; k < 4; ++k) {
            const int r = part + PARTS * (4 * q + k);
            const float v = abs(held[4 * q + k]);
            if (r >= first && r < count && v > k_abs[k]) {
                k_abs[k] = v;
                k_row[k] = row_begin + r;
            }
        }
    float s_abs = k_abs[0];
    int s_row = k_row[0];
    for (int k = 1; k < 4; ++k)
        if (better(k_abs[k], k_row[k], s_abs, s_row)) {
            s_abs = k_abs[k];
            s_row = k_row[k];
        }
    part_abs[part] = s_abs;
    part_row[part] = s_row;
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int g = int(gl_WorkGroupID.x);
    const int row_begin = k0 + g * rows_per_group;
    const int count = clamp(n - row_begin, 0, rows_per_group);
#if NB >= 32
    const int c = 32 * (t / 32 / PARTS) + t % 32;
    const int part = t / 32 % PARTS;
#else
    const int c = t % NB;
    const int part = t / NB;
#endif
    if (t == 0) abandoned = failed != 0;  // an earlier panel failed: do nothing more
    barrier();
    if (abandoned) return;

    for (int i = 0; i < ROWS_PER_PART; ++i) {
        const int r = part + PARTS * i;
        held[i] = c < width && r < count ? a[(row_begin + r) * n + k0 + c] : 0.0;
    }
    for (int r = t; r < count; r += WG_SIZE) label[r] = row_begin + r;
    if (c == 0) leave_column(0, part, 0, row_begin, count);
    barrier();

    for (int j = 0; j < width; ++j) {
        const int d = k0 + j;  // the diagonal row of this column
        const int d_local = d - row_begin;
        const int parity = j & 1;
        const uint epoch = uint(epoch_base + j);
        const bool own_d = d_local >= 0 && d_local < count;
        // 1. Publish: this group's candidate with its row, and the diagonal row.
        float b_abs = -1.0;
        int b_row = n;
        for (int k = 0; k < PARTS; ++k)
            if (better(part_abs[k], part_row[k], b_abs, b_row)) {
                b_abs = part_abs[k];
                b_row = part_row[k];
            }
        const int b_local = b_row - row_begin;
        if (t == 0)
            headers[header_word(parity, g)] =
                uvec4(floatBitsToUint(b_abs), uint(b_row), uint(b_row < n ? label[b_local] : -1),
                      epoch);
        if (b_row < n && part == b_local % PARTS)
            row_words[row_word(parity, g, c)] =
                uvec2(floatBitsToUint(held_at(b_local / PARTS)), epoch);
        if (own_d && part == d_local % PARTS) {
            row_words[row_word(parity, GROUPS_MAX, c)] =
                uvec2(floatBitsToUint(held_at(d_local / PARTS)), epoch);
            if (c == 0)
                row_words[row_word(parity, GROUPS_MAX, NB)] = uvec2(uint(label[d_local]), epoch);
        }
#if SOFTWARE
        // A software renderer runs a group's invocations one after another between barriers:
        // without this one, an invocation would spin on a word that a later one publishes.
        barrier();
#endif
        // 2. Gather the headers, every stale one re-read in the same round.
        if (t < groups) {
            uvec4 h = headers[header_word(parity, t)];
            for (uint spins = 0u; h.w != epoch; ++spins) {
                if (spins > SPIN_LIMIT) break;
                h = headers[header_word(parity, t)];
            }
            // Checked after the loop: a compiler may bound a loop's iterations by itself
            // (llvmpipe ends any loop after 65535), leaving it with a stale word.
            if (h.w != epoch) give_up();
            head_abs[t] = uintBitsToFloat(h.x);
            head_row[t] = int(h.y);
            head_label[t] = int(h.z);
        }
        barrier();
        if (abandoned) return;
        // 3. The same winner everywhere; its row (and row d for p's group) into shared memory.
        float w;
        int p, w_slot;
        best_header(w, p, w_slot);
        const int p_local = p - row_begin;
        const bool own_p = p_local >= 0 && p_local < count;
        const bool swap = p != d;
        for (int e = t; e < 2 * NB + 1; e += WG_SIZE) {
            const bool moved = e >= NB;
            if (moved && !(own_p && swap)) break;
            const int at = moved ? row_word(parity, GROUPS_MAX, e - NB) : row_word(parity, w_slot, e);
            uvec2 v = row_words[at];
            for (uint spins = 0u; v.y != epoch; ++spins) {
                if (spins > SPIN_LIMIT) break;
                v = row_words[at];
            }
            if (v.y != epoch) give_up();
            if (!moved) {
                pivot_row[e] = uintBitsToFloat(v.x);
            } else if (e == 2 * NB) {
                label[p_local] = int(v.x);
            } else {
                moved_row[e - NB] = uintBitsToFloat(v.x);
                if (e - NB == j)  // row p's multiplier is now row d's value
                    column_quads[(parity * PARTS + p_local % PARTS) * QUADS + p_local / PARTS / 4]
                                [p_local / PARTS % 4] = uintBitsToFloat(v.x);
            }
        }
        if (t == 0 && swap && own_d) label[d_local] = head_label[w_slot];
        if (g == 0 && t == 0) {
            pivots[d] = p;
            if (w == 0.0) atomicMin(first_singular, d);
        }
        barrier();
        if (abandoned) return;
        // 4. The interchange, column j of L, the update right of it, the next column's
        //    candidates. A zero pivot means the column is all zero below d: nothing is updated or
        //    scaled.
        if (swap) {
            if (own_d && part == d_local % PARTS) set_held(d_local / PARTS, pivot_row[c]);
            if (own_p && part == p_local % PARTS) set_held(p_local / PARTS, moved_row[c]);
        }
        const float pivot = pivot_row[j];
        const int first = d_local + 1;  // local rows below d
        if (pivot != 0.0 && c >= j && c < width) {
            if (c == j) {
                for (int i = 0; i < ROWS_PER_PART; ++i)
                    if (part + PARTS * i >= first) held[i] = held[i] / pivot;
            } else {
                const float factor = pivot_row[c] / pivot;
                for (int q = 0; q < QUADS; ++q) {
                    const vec4 m = column_quads[(parity * PARTS + part) * QUADS + q];
                    for (int k = 0; k < 4; ++k)
                        if (part + PARTS * (4 * q + k) >= first)
                            held[4 * q + k] = fma(-m[k], factor, held[4 * q + k]);
                }
            }
        }
        if (c == j + 1) leave_column(parity ^ 1, part, first, row_begin, count);
        barrier();
    }

    for (int i = 0; i < ROWS_PER_PART; ++i) {
        const int r = part + PARTS * i;
        if (c < width && r < count) a[(row_begin + r) * n + k0 + c] = held[i];
    }
    for (int r = t; r < count; r += WG_SIZE) origin[row_begin + r] = label[r];
}
