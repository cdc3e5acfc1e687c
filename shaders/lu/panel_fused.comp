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
#if SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
layout(local_size_x = WG_SIZE) in;

// Spins of a grid-barrier wait before giving up (~1 s: a real wait is microseconds).
const uint SPIN_LIMIT = 1u << 22;

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) writeonly buffer Pivots { int pivots[]; };
// failed: set when a grid barrier waited too long (the groups were not all resident): the
// factorisation is then wrong, and the host turns the flag into an error instead of hanging.
layout(std430, binding = 2) coherent buffer Status { int first_singular; int failed; };
layout(std430, binding = 3) coherent volatile buffer Arrivals { uint arrived[]; };
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
shared float pivot_row[NB];
shared float diagonal_row[NB];

const int SLOT = NB + 2;

int slot_base(int parity, int slot) { return (parity * (GROUPS_MAX + 1) + slot) * SLOT; }

// Reduces every invocation's candidate (|value|, row, slot) to the group's best: the largest
// |value|, then the smallest row. The result is in best_abs, best_row, best_slot for everyone.
// With subgroups: shuffles within each subgroup, then one invocation over the subgroups' bests
// (2 barriers); without (llvmpipe): a tree over shared memory (log2(WG_SIZE) barriers).
shared float best_abs;
shared int best_row;
shared int best_slot;

bool better(float v, int row, float than_v, int than_row) {
    return v > than_v || (v == than_v && row < than_row);
}

#if SUBGROUPS
shared float sub_abs[WG_SIZE];
shared int sub_row[WG_SIZE];
shared int sub_slot[WG_SIZE];

void reduce_candidates(int t, float v, int row, int slot) {
    for (uint offset = gl_SubgroupSize / 2u; offset > 0u; offset >>= 1u) {
        float o = subgroupShuffleXor(v, offset);
        int o_row = subgroupShuffleXor(row, offset);
        int o_slot = subgroupShuffleXor(slot, offset);
        if (better(o, o_row, v, row)) {
            v = o;
            row = o_row;
            slot = o_slot;
        }
    }
    if (subgroupElect()) {
        sub_abs[gl_SubgroupID] = v;
        sub_row[gl_SubgroupID] = row;
        sub_slot[gl_SubgroupID] = slot;
    }
    barrier();
    if (t == 0) {
        for (uint s = 1u; s < gl_NumSubgroups; ++s) {
            if (better(sub_abs[s], sub_row[s], v, row)) {
                v = sub_abs[s];
                row = sub_row[s];
                slot = sub_slot[s];
            }
        }
        best_abs = v;
        best_row = row;
        best_slot = slot;
    }
    barrier();
}
#else
shared float red_abs[WG_SIZE];
shared int red_row[WG_SIZE];
shared int red_slot[WG_SIZE];

void reduce_candidates(int t, float v, int row, int slot) {
    red_abs[t] = v;
    red_row[t] = row;
    red_slot[t] = slot;
    barrier();
    for (int s = WG_SIZE / 2; s > 0; s >>= 1) {
        if (t < s && better(red_abs[t + s], red_row[t + s], red_abs[t], red_row[t])) {
            red_abs[t] = red_abs[t + s];
            red_row[t] = red_row[t + s];
            red_slot[t] = red_slot[t + s];
        }
        barrier();
    }
    if (t == 0) {
        best_abs = red_abs[0];
        best_row = red_row[0];
        best_slot = red_slot[0];
    }
    barrier();
}
#endif

shared bool abandoned;

// Returns false when the wait timed out (some group never arrived); then the group gives up.
bool grid_barrier(uint target) {
    memoryBarrier();  // this invocation's slot writes, visible before the arrival is counted
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        atomicAdd(arrived[panel], 1u);
        uint spins = 0u;
        while (arrived[panel] < target) {  // a volatile coherent load: L2, never hoisted
            if (++spins > SPIN_LIMIT) {
                atomicMax(failed, 1);
                abandoned = true;
                break;
            }
        }
    }
    barrier();
    memoryBarrier();
    return !abandoned;
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int g = int(gl_WorkGroupID.x);
    const int row_begin = k0 + g * rows_per_group;
    const int count = clamp(n - row_begin, 0, rows_per_group);
    if (t == 0) abandoned = failed != 0;  // an earlier panel failed: do nothing more
    barrier();
    if (abandoned) return;

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
        reduce_candidates(t, b_abs, b_row, 0);
        const int mine = slot_base(parity, g);
        if (t == 0) {
            slots[mine] = best_abs;
            slots[mine + 1] = intBitsToFloat(best_row);
        }
        const int local_best = best_row - row_begin;
        if (t < width && best_row < n) slots[mine + 2 + t] = rows[local_best * NB + t];
        if (d >= row_begin && d < row_begin + count && t < width)
            slots[slot_base(parity, GROUPS_MAX) + 2 + t] = rows[(d - row_begin) * NB + t];
        // 2. Everyone's candidates are out.
        if (!grid_barrier(uint((j + 1) * groups))) return;
        // 3. The same winner in every group.
        float c_abs = -1.0;
        int c_row = n;
        if (t < groups) {
            c_abs = slots[slot_base(parity, t)];
            c_row = floatBitsToInt(slots[slot_base(parity, t) + 1]);
        }
        reduce_candidates(t, c_abs, c_row, t);
        const int p = best_row;
        const int winner = slot_base(parity, best_slot);
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
