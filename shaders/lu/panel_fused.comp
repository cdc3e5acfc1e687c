// The panel factorisation of blocked LU (seed 003 §2.3) in ONE dispatch, beyond the paper: the
// panel (rows k0..n-1, columns k0..k0+width-1) is split over `groups` work groups, each holding
// its rows (at most ROWS_MAX) in shared memory for the whole panel. For every column j of the
// panel, with exact partial pivoting (the same pivots as column-by-column LU):
//   1. each group finds its candidate (largest |a(i,j)|, i >= k0+j, ties: smallest row) and
//      publishes it; the owner of row k0+j publishes that row;
//   2. every group waits until all candidates of column j are out, picks the same winner,
//      swaps in its own rows (the winner's row goes to k0+j, row k0+j to the winner's place),
//      scales its part of the column and applies the rank-1 update to its part of the panel.
// One exchange per column instead of 2-4 dispatches (4-5 us each on the GPU machine).
//
// The exchange needs no barrier instruction across groups and no counter: every published
// word carries an epoch, unique per (panel, column) within a factorisation (the host zeroes the
// slots first). A candidate is one 16-byte header (|value|, row, label, epoch), written and read
// as one uvec4 (NVIDIA performs aligned 16-byte accesses whole); its row's values are uvec2s
// (value, epoch). A reader spins until the epochs it reads are the expected one, so only the
// latency of one store and one load separates the groups (about 2 L2 round trips per column,
// where a counter barrier with memoryBarrier() cost 4-5). Floats travel as their bits (uint),
// so nothing on the way can flush or canonicalise them. Slots alternate between two sets by
// column parity: a group can only write column j+2's slots after every group published column
// j+1, hence after they all finished reading column j's.
//
// Labels: each row carries the index of the row it started the panel as; at the end `origin`
// gets, for every row of the panel, where its content came from, so that swap_trsm.comp applies
// all of the panel's interchanges to the other columns with independent loads.
//
// Limits: all `groups` work groups must be resident at once (the host keeps groups <= 128 and
// uses it on hardware GPUs only; a software renderer runs groups one after another, so there it
// is used with groups == 1). A wait that spins too long sets `failed` instead of hanging.
#if SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#if REDUX
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
layout(local_size_x = WG_SIZE) in;

// Spins of a wait before giving up (~1 s: a real wait is a microsecond).
const uint SPIN_LIMIT = 1u << 22;

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) writeonly buffer Pivots { int pivots[]; };
layout(std430, binding = 2) coherent buffer Status { int first_singular; int failed; };
// [parity][slot] headers and [parity][slot][NB] values; slot GROUPS_MAX is the diagonal row.
layout(std430, binding = 3) coherent volatile buffer Headers { uvec4 headers[]; };
layout(std430, binding = 4) coherent volatile buffer Values { uvec2 values[]; };
layout(std430, binding = 6) writeonly buffer Origin { int origin[]; };

uniform int n;
uniform int k0;
uniform int width;            // panel columns, <= NB
uniform int groups;           // work groups taking part, <= GROUPS_MAX
uniform int rows_per_group;   // <= ROWS_MAX
uniform int epoch_base;       // epoch of column j is epoch_base + j (>= 1)

shared float rows[ROWS_MAX * NB];
shared int label[ROWS_MAX];
shared float pivot_row[NB];
shared float diagonal_row[NB];
shared int diagonal_label;
shared bool abandoned;

int slot(int parity, int s) { return parity * (GROUPS_MAX + 1) + s; }

// Reduces every invocation's candidate (|value|, row, slot) to the group's best: the largest
// |value|, then the smallest row. The result is in best_abs, best_row, best_slot for everyone.
// With subgroups: shuffles within each subgroup, then within the first over the subgroups' bests
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

// The best of (v, row, slot) over the invocations of this subgroup, in every one of them.
#if REDUX
// ADILAB_LU_PANEL_REDUX: three subgroup reductions of 32-bit integers (one instruction each on
// NVIDIA since sm_80) instead of log2(subgroup size) rounds of three shuffles and a compare.
// The key orders candidates like better(): |value| >= 0 as its bits + 1 (order-preserving for
// non-negative floats), "no candidate" (v < 0) as 0; ties go to the smallest row, then slot.
void subgroup_best(inout float v, inout int row, inout int slot) {
    const uint key = v >= 0.0 ? floatBitsToUint(v) + 1u : 0u;
    const uint top = subgroupMax(key);
    const int top_row = subgroupMin(key == top ? row : 0x7fffffff);
    slot = subgroupMin(key == top && row == top_row ? slot : 0x7fffffff);
    row = top_row;
    v = top == 0u ? -1.0 : uintBitsToFloat(top - 1u);
}
#else
void subgroup_best(inout float v, inout int row, inout int slot) {
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
}
#endif

void reduce_candidates(int t, float v, int row, int slot) {
    subgroup_best(v, row, slot);
    if (subgroupElect()) {
        sub_abs[gl_SubgroupID] = v;
        sub_row[gl_SubgroupID] = row;
        sub_slot[gl_SubgroupID] = slot;
    }
    barrier();
    if (gl_SubgroupID == 0u) {  // the subgroups' bests, reduced by the first subgroup
        float w = -2.0;
        int w_row = 0x7fffffff, w_slot = 0;
        for (uint s = gl_SubgroupInvocationID; s < gl_NumSubgroups; s += gl_SubgroupSize) {
            if (better(sub_abs[s], sub_row[s], w, w_row)) {
                w = sub_abs[s];
                w_row = sub_row[s];
                w_slot = sub_slot[s];
            }
        }
        subgroup_best(w, w_row, w_slot);
        if (subgroupElect()) {
            best_abs = w;
            best_row = w_row;
            best_slot = w_slot;
        }
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


void give_up() {
    atomicMax(failed, 1);
    abandoned = true;
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
    for (int r = t; r < count; r += WG_SIZE) label[r] = row_begin + r;
    barrier();

#if DEFERRED_SCALE
    int scale_column = -1, scale_first = 0;  // the previous column's scaling, still to do
    float scale_pivot = 1.0;
#endif
    for (int j = 0; j < width; ++j) {
#if DEFERRED_SCALE
        if (scale_column >= 0)
            for (int r = scale_first + t; r < count; r += WG_SIZE)
                rows[r * NB + scale_column] = rows[r * NB + scale_column] / scale_pivot;
#endif
        const int d = k0 + j;  // the diagonal row of this column
        const int parity = j & 1;
        const uint epoch = uint(epoch_base + j);
        const bool own_d = d >= row_begin && d < row_begin + count;
        // 1. This group's candidate, published.
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
        const int local_best = best_row - row_begin;
        const bool has_candidate = best_row < n;
        if (t < width && has_candidate)
            values[slot(parity, g) * NB + t] =
                uvec2(floatBitsToUint(rows[local_best * NB + t]), epoch);
        if (t == 0)
            headers[slot(parity, g)] = uvec4(floatBitsToUint(best_abs), uint(best_row),
                                             uint(has_candidate ? label[local_best] : -1), epoch);
        if (own_d) {
            if (t < width)
                values[slot(parity, GROUPS_MAX) * NB + t] =
                    uvec2(floatBitsToUint(rows[(d - row_begin) * NB + t]), epoch);
            if (t == 0)
                headers[slot(parity, GROUPS_MAX)] =
                    uvec4(0u, uint(d), uint(label[d - row_begin]), epoch);
        }
        // 2. Everyone's candidates, once they are out; the same winner in every group.
        float c_abs = -1.0;
        int c_row = n, c_label = -1;
        if (t < groups) {
            uvec4 h = headers[slot(parity, t)];
            uint spins = 0u;
            while (h.w != epoch) {
                if (++spins > SPIN_LIMIT) {
                    give_up();
                    break;
                }
                h = headers[slot(parity, t)];
            }
            c_abs = uintBitsToFloat(h.x);
            c_row = int(h.y);
            c_label = int(h.z);
        }
        reduce_candidates(t, c_abs, c_row, t);  // best_slot: the winning group
        if (abandoned) return;
        const int p = best_row;
        const bool own_p = p >= row_begin && p < row_begin + count;
#if DEFERRED_SCALE
        // 3. The winner's row, and the interchange by the invocations that fetched the values
        //    (no barrier in between); only the winner's owner needs the diagonal row.
        if (t < width) {
            const int at = slot(parity, best_slot) * NB + t;
            uvec2 v = values[at];
            uint spins = 0u;
            while (v.y != epoch && ++spins < SPIN_LIMIT) v = values[at];
            const float u = uintBitsToFloat(v.x);
            pivot_row[t] = u;
            if (p != d) {
                if (own_d) rows[(d - row_begin) * NB + t] = u;
                if (own_p) {
                    const int at_d = slot(parity, GROUPS_MAX) * NB + t;
                    uvec2 w = values[at_d];
                    uint spins_d = 0u;
                    while (w.y != epoch && ++spins_d < SPIN_LIMIT) w = values[at_d];
                    rows[(p - row_begin) * NB + t] = uintBitsToFloat(w.x);
                }
            }
        }
        if (own_p && p != d && t == 0) {  // the invocation that writes it when one group owns both
            uvec4 h = headers[slot(parity, GROUPS_MAX)];
            uint spins = 0u;
            while (h.w != epoch && ++spins < SPIN_LIMIT) h = headers[slot(parity, GROUPS_MAX)];
            label[p - row_begin] = int(h.z);
        }
        // The winner's label: the invocation that read the winning header has it.
        if (t < groups && t == best_slot && own_d) label[d - row_begin] = c_label;
        barrier();
        const float pivot = pivot_row[j];
        if (g == 0 && t == 0) {
            pivots[d] = p;
            if (pivot == 0.0) atomicMin(first_singular, d);
        }
        // 4. The rank-1 update, each invocation dividing by the pivot itself (the same division,
        //    so the same multiplier); column j keeps a(i,j) until the next column's first phase
        //    scales it, so nobody waits here for the scaling. A zero pivot means the column is
        //    all zero below d: nothing is updated or scaled (no division by zero).
        const int first = max(d + 1 - row_begin, 0);
        const int c = t % NB;  // NB divides WG_SIZE: no integer division in the loop
        if (pivot != 0.0 && c > j && c < width) {
            const float u = pivot_row[c];
            for (int r = first + t / NB; r < count; r += WG_SIZE / NB)
                rows[r * NB + c] -= (rows[r * NB + j] / pivot) * u;
        }
        barrier();
        scale_column = pivot != 0.0 ? j : -1;
        scale_first = first;
        scale_pivot = pivot;
#else
        if (t < width) {
            const int at = slot(parity, best_slot) * NB + t;
            uvec2 v = values[at];
            uint spins = 0u;
            while (v.y != epoch && ++spins < SPIN_LIMIT) v = values[at];
            pivot_row[t] = uintBitsToFloat(v.x);
        }
        if (own_p && p != d) {  // only the winner's owner needs the diagonal row
            if (t < width) {
                const int at = slot(parity, GROUPS_MAX) * NB + t;
                uvec2 v = values[at];
                uint spins = 0u;
                while (v.y != epoch && ++spins < SPIN_LIMIT) v = values[at];
                diagonal_row[t] = uintBitsToFloat(v.x);
            }
            if (t == 0) {  // the invocation that writes it when one group owns both
                uvec4 h = headers[slot(parity, GROUPS_MAX)];
                uint spins = 0u;
                while (h.w != epoch && ++spins < SPIN_LIMIT) h = headers[slot(parity, GROUPS_MAX)];
                diagonal_label = int(h.z);
            }
        }
        // The winner's label: the thread that read the winning header has it.
        if (t < groups && t == best_slot && own_d) label[d - row_begin] = c_label;
        barrier();
        const float pivot = pivot_row[j];
        if (g == 0 && t == 0) {
            pivots[d] = p;
            if (pivot == 0.0) atomicMin(first_singular, d);
        }
        if (p != d && t < width) {
            if (own_d) rows[(d - row_begin) * NB + t] = pivot_row[t];
            if (own_p) rows[(p - row_begin) * NB + t] = diagonal_row[t];
        }
        if (p != d && own_p && t == 0) label[p - row_begin] = diagonal_label;
        barrier();
        // Scale, then update: a zero pivot means the column is all zero below d, so both are
        // skipped (no division by zero). `pivot` is the same in the whole group.
        const int first = max(d + 1 - row_begin, 0);
        if (pivot != 0.0)
            for (int r = first + t; r < count; r += WG_SIZE)
                rows[r * NB + j] = rows[r * NB + j] / pivot;
        barrier();
        // Thread t keeps column t % NB (NB divides WG_SIZE): no integer division in the loop,
        // consecutive threads on consecutive banks.
        const int c = t % NB;
        if (pivot != 0.0 && c > j && c < width) {
            const float u = pivot_row[c];
            for (int r = first + t / NB; r < count; r += WG_SIZE / NB)
                rows[r * NB + c] -= rows[r * NB + j] * u;
        }
        barrier();
#endif
    }

#if DEFERRED_SCALE
    if (scale_column >= 0)
        for (int r = scale_first + t; r < count; r += WG_SIZE)
            rows[r * NB + scale_column] = rows[r * NB + scale_column] / scale_pivot;
    barrier();
#endif
    for (int e = t; e < count * NB; e += WG_SIZE) {
        int r = e / NB, c = e % NB;
        if (c < width) a[(row_begin + r) * n + k0 + c] = rows[e];
    }
    for (int r = t; r < count; r += WG_SIZE) origin[row_begin + r] = label[r];
}
