// The panel factorisation of blocked LU (seed 003 §2.3) in ONE dispatch, beyond the paper: the
// panel (rows k0..n-1, columns k0..k0+width-1) is split over `groups` work groups, each holding
// its rows (at most ROWS_MAX) in shared memory for the whole panel. For every column j of the
// panel, with exact partial pivoting (the same pivots as column-by-column LU):
//   1. each group finds its candidate (largest |a(i,j)|, i >= k0+j, ties: smallest row) and
//      publishes the candidate's row, and the owner of row k0+j publishes that row;
//   2. a grid-wide barrier (an atomic counter every group spins on);
//   3. every group picks the same winner from the published candidates, swaps in its own rows
//      (the winner's row goes to k0+j, row k0+j goes to the winner's place), scales its part
//      of the column and applies the rank-1 update to its part of the panel.
// One grid barrier per column instead of 2-4 dispatches (4-5 us each on the GPU machine).
//
// Limits: all `groups` work groups must be resident at once (the host keeps groups <= 128 and
// uses it on hardware GPUs only; a software renderer runs groups one after another, so there it
// is used with groups == 1). The exchange slots alternate between two sets by column parity: a
// group can only write column j+2's slots after every group has passed column j+1's barrier,
// hence after they all finished reading column j's.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) writeonly buffer Pivots { int pivots[]; };
layout(std430, binding = 2) buffer Status { int first_singular; };
layout(std430, binding = 3) coherent buffer Arrivals { uint arrived[]; };
// Slot s of parity q starts at (q * (GROUPS_MAX + 1) + s) * (NB + 2): [|value|, row as bits,
// the row's NB values]. Slot GROUPS_MAX holds the diagonal row.
layout(std430, binding = 4) coherent buffer Exchange { float slots[]; };

uniform int n;
uniform int k0;
uniform int width;            // panel columns, <= NB
uniform int groups;           // work groups taking part, <= GROUPS_MAX
uniform int rows_per_group;   // <= ROWS_MAX
uniform int panel;            // which arrival counter (zeroed by the host before the factorisation)

shared float rows[ROWS_MAX * NB];
shared float red_abs[WG_SIZE];
shared int red_row[WG_SIZE];
shared int red_slot[WG_SIZE];
shared float pivot_row[NB];
shared float diagonal_row[NB];

const int SLOT = NB + 2;

int slot_base(int parity, int slot) { return (parity * (GROUPS_MAX + 1) + slot) * SLOT; }

// Tree reduction of (red_abs, red_row, red_slot) to element 0: largest |value|, then smallest row.
void reduce_candidates(int t) {
    barrier();
    for (int s = WG_SIZE / 2; s > 0; s >>= 1) {
        if (t < s) {
            float o = red_abs[t + s];
            int o_row = red_row[t + s];
            if (o > red_abs[t] || (o == red_abs[t] && o_row < red_row[t])) {
                red_abs[t] = o;
                red_row[t] = o_row;
                red_slot[t] = red_slot[t + s];
            }
        }
        barrier();
    }
}

void grid_barrier(uint target) {
    memoryBarrier();  // this invocation's slot writes, visible before the arrival is counted
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        atomicAdd(arrived[panel], 1u);
        while (atomicAdd(arrived[panel], 0u) < target) {
        }
    }
    barrier();
    memoryBarrier();
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int g = int(gl_WorkGroupID.x);
    const int row_begin = k0 + g * rows_per_group;
    const int count = clamp(n - row_begin, 0, rows_per_group);

    for (int e = t; e < count * NB; e += WG_SIZE) {
        int r = e / NB, c = e % NB;
        rows[e] = c < width ? a[(row_begin + r) * n + k0 + c] : 0.0;
    }
    barrier();

    for (int j = 0; j < width; ++j) {
        const int d = k0 + j;  // the diagonal row of this column
        const int parity = j & 1;
        // 1. This group's candidate.
        float b_abs = -1.0;
        int b_row = n;
        for (int r = max(d - row_begin, 0) + t; r < count; r += WG_SIZE) {
            float v = abs(rows[r * NB + j]);
            if (v > b_abs) {
                b_abs = v;
                b_row = row_begin + r;
            }
        }
        red_abs[t] = b_abs;
        red_row[t] = b_row;
        red_slot[t] = 0;
        reduce_candidates(t);
        const int mine = slot_base(parity, g);
        if (t == 0) {
            slots[mine] = red_abs[0];
            slots[mine + 1] = intBitsToFloat(red_row[0]);
        }
        const int local_best = red_row[0] - row_begin;
        if (t < width && red_row[0] < n) slots[mine + 2 + t] = rows[local_best * NB + t];
        if (d >= row_begin && d < row_begin + count && t < width)
            slots[slot_base(parity, GROUPS_MAX) + 2 + t] = rows[(d - row_begin) * NB + t];
        // 2. Everyone's candidates are out.
        grid_barrier(uint((j + 1) * groups));
        // 3. The same winner in every group.
        if (t < groups) {
            red_abs[t] = slots[slot_base(parity, t)];
            red_row[t] = floatBitsToInt(slots[slot_base(parity, t) + 1]);
            red_slot[t] = t;
        } else {
            red_abs[t] = -1.0;
            red_row[t] = n;
            red_slot[t] = 0;
        }
        reduce_candidates(t);
        const int p = red_row[0];
        const int winner = slot_base(parity, red_slot[0]);
        if (t < width) {
            pivot_row[t] = slots[winner + 2 + t];
            diagonal_row[t] = slots[slot_base(parity, GROUPS_MAX) + 2 + t];
        }
        barrier();
        const float pivot = pivot_row[j];
        if (g == 0 && t == 0) {
            pivots[d] = p;
            if (pivot == 0.0) atomicMin(first_singular, d);
        }
        if (p != d && t < width) {
            if (d >= row_begin && d < row_begin + count) rows[(d - row_begin) * NB + t] = pivot_row[t];
            if (p >= row_begin && p < row_begin + count) rows[(p - row_begin) * NB + t] = diagonal_row[t];
        }
        barrier();
        // Scale, then update: a zero pivot means the column is all zero below d, so both are
        // skipped (no division by zero). `pivot` is the same in the whole group.
        const int first = max(d + 1 - row_begin, 0);
        if (pivot != 0.0)
            for (int r = first + t; r < count; r += WG_SIZE) rows[r * NB + j] = rows[r * NB + j] / pivot;
        barrier();
        // Thread t keeps column t % NB (NB divides WG_SIZE): no integer division in the loop,
        // consecutive threads on consecutive banks.
        const int c = t % NB;
        if (pivot != 0.0 && c > j && c < width) {
            const float u = pivot_row[c];
            for (int r = first + t / NB; r < count; r += WG_SIZE / NB) rows[r * NB + c] -= rows[r * NB + j] * u;
        }
        barrier();
    }

    for (int e = t; e < count * NB; e += WG_SIZE) {
        int r = e / NB, c = e % NB;
        if (c < width) a[(row_begin + r) * n + k0 + c] = rows[e];
    }
}
