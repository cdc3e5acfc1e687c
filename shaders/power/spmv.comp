#ifndef ATOMIC_MAX
#define ATOMIC_MAX 0
#endif
#ifndef KEY_SLOTS
#define KEY_SLOTS 1
#endif
#if USE_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#if ATOMIC_MAX
#extension GL_ARB_gpu_shader_int64 : require
#endif
#if ATOMIC_MAX == 1
#extension GL_NV_shader_atomic_int64 : require
#endif
// y = A x for a CSR matrix in float64 (the power-method paper's SpMV). TPR threads per row:
// TPR = 1 is the paper's one-thread-per-row kernel; TPR = 2..32 lets a cluster of one subgroup
// walk a row, so that the column and value loads of neighbouring lanes coalesce and long rows
// are split.
// Work groups stride over the rows (at most a few thousand groups), so that the fused first
// reduction stage leaves few partial results for Step2.
// STREAM = 1 (CSR-stream, after Greathouse & Daga's CSR-Adaptive): a work group takes WG_SIZE
// consecutive rows; its threads walk the rows' nonzeros as one contiguous range, CHUNK entries
// at a time, so that every column and value load is coalesced and each thread has CHUNK/WG_SIZE
// independent gathers of x in flight; the products go to shared memory, and then each thread
// adds up its own row's products left to right (the host's order); a row that covers a whole
// chunk is added up by the whole group as a tree.
// X_IMAGE = 1: x is gathered from a 2D texture (power/x_image.glsl: the texture path's cache
// serves random columns better); else from the storage buffer.
// UNROLL = R (TPR = 1 only): R gathers per thread in flight at once.
// FUSE_MAX = 1 is gpu-opt's Step1: each work group also writes the max-magnitude element of its
// rows to partials[group], and the kernel does nothing once the method is frozen.
// ATOMIC_MAX = 1 (with FUSE_MAX): instead of a partial, each group's leader atomicMax-es the
// group's maxmag_key into c_key[iteration & 1] (power/control.glsl): one relaxed atomic per
// group, no fence, and no Step2.
// KEY_SLOTS = S > 1 (with ATOMIC_MAX): group g atomicMax-es into slot g % S of the slot set of
// iteration j's parity (power/key_slots.glsl, 128 bytes apart: one L2 line each), so that the
// ~8192..31000 atomics of a dispatch no longer queue at one address; Step3 takes the max of
// the S slots, which (the key orders exactly as maxmag) is the key one slot would hold.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) restrict readonly buffer RowOffsets { int row_offsets[]; };
layout(std430, binding = 1) restrict readonly buffer Columns { int columns[]; };
layout(std430, binding = 2) restrict readonly buffer Values { double values[]; };
#if X_IMAGE
#define X_IMAGE_READ
#include "power/x_image.glsl"
#else
layout(std430, binding = 3) restrict readonly buffer X { double x[]; };
double x_at(int i) { return x[i]; }
#endif
layout(std430, binding = 4) writeonly buffer Y { double y[]; };
#if FUSE_MAX && ATOMIC_MAX && KEY_SLOTS > 1
#include "power/control.glsl"
#include "power/key_slots.glsl"
#elif FUSE_MAX
layout(std430, binding = 5) writeonly buffer Partials { double partials[]; };
#include "power/control.glsl"
#endif

uniform uint rows;

#include "power/reduce.glsl"

#if ATOMIC_MAX
uniform uint iteration;  // j, counted by the host from 1 in each solve

#if ATOMIC_MAX == 2
// The key's words and the lock through 32-bit atomics (coherent: they bypass any cache).
layout(std430, binding = 6) coherent buffer ControlWords {
    double w_lambda;
    uint w_iteration, w_not_converged, w_converged_at, w_breakdown_at;
    uint w_key[4];  // little-endian halves of c_key[0], c_key[1]
    uint w_flag[2];
    uint w_lock;
};
void emulated_max(uint slot, uint64_t key) {
    while (atomicCompSwap(w_lock, 0u, 1u) != 0u) {
    }
    const uint64_t current =
        packUint2x32(uvec2(atomicAdd(w_key[2u * slot], 0u), atomicAdd(w_key[2u * slot + 1u], 0u)));
    if (key > current) {
        atomicExchange(w_key[2u * slot], unpackUint2x32(key).x);
        atomicExchange(w_key[2u * slot + 1u], unpackUint2x32(key).y);
    }
    memoryBarrierBuffer();
    atomicExchange(w_lock, 0u);
}
#endif

#if KEY_SLOTS > 1
void publish_max(double best) {
    if (gl_WorkGroupID.x == 0u && gl_LocalInvocationIndex < uint(KEY_SLOTS)) {
        // The slot set of j + 1 (its last readers, Step3 of j - 1, are done), as c_key below.
        slot_key[key_slot_index(iteration + 1u, gl_LocalInvocationIndex)] = uint64_t(0u);
        if (gl_LocalInvocationIndex == 0u) c_flag[iteration & 1u] = 0u;
    }
    if (!group_leader()) return;
    const uint slot = key_slot_index(iteration, gl_WorkGroupID.x % uint(KEY_SLOTS));
    const uint64_t key = maxmag_key(best);
#if ATOMIC_MAX == 2
    emulated_slot_max(slot, key);
#else
    atomicMax(slot_key[slot], key);
#endif
}
#else
void publish_max(double best) {
    if (!group_leader()) return;
#if ATOMIC_MAX == 2
    emulated_max(iteration & 1u, maxmag_key(best));
#else
    atomicMax(c_key[iteration & 1u], maxmag_key(best));
#endif
    if (gl_WorkGroupID.x == 0u) {
        // Their last readers (Step3 of j - 1) are done; Step1 of j + 1 and Step3 of j are next.
        c_key[(iteration + 1u) & 1u] = uint64_t(0u);
        c_flag[iteration & 1u] = 0u;
    }
}
#endif
#elif FUSE_MAX
void publish_max(double best) {
    if (group_leader()) partials[gl_WorkGroupID.x] = best;
}
#endif

#if STREAM
const int kPerThread = CHUNK / WG_SIZE;
shared double s_product[CHUNK];
// The thread whose row covers a whole chunk, or -1, double-buffered by chunk parity so that the
// reset of one slot and the next write of the other never race (see the barriers below).
shared int s_whole_row[2];

void main() {
#if FUSE_MAX
    if (group_frozen()) return;  // one load of the books per group (control.glsl)
#endif
    const int lid = int(gl_LocalInvocationIndex);
    if (lid == 0) {
        s_whole_row[0] = -1;
        s_whole_row[1] = -1;
    }
    barrier();
    int parity = 0;
    double best = 0.0;
    for (uint first = gl_WorkGroupID.x * uint(WG_SIZE); first < rows;
         first += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        const uint last = min(first + uint(WG_SIZE), rows);
        const int base = row_offsets[first], end = row_offsets[last];
        const uint row = first + uint(lid);
        const int my_begin = row < rows ? row_offsets[row] : end;
        const int my_end = row < rows ? row_offsets[row + 1u] : end;
        double sum = 0.0;
        for (int chunk = base; chunk < end; chunk += CHUNK) {
            // Unrolled: the column loads, then the x gathers, all independent.
            int column[kPerThread];
            for (int u = 0; u < kPerThread; ++u) {
                int k = chunk + lid + u * WG_SIZE;
                column[u] = k < end ? columns[k] : -1;
            }
            for (int u = 0; u < kPerThread; ++u) {
                int k = chunk + lid + u * WG_SIZE;
                s_product[lid + u * WG_SIZE] = column[u] >= 0 ? values[k] * x_at(column[u]) : 0.0;
            }
            if (my_begin <= chunk && my_end >= chunk + CHUNK) s_whole_row[parity] = lid;
            barrier();
            // Uniform: every thread reads the same slot after the barrier. The other slot was
            // last read before the previous chunk's closing barrier and is next written after
            // this chunk's: resetting it here is safe.
            const int owner = s_whole_row[parity];
            if (lid == 0) s_whole_row[1 - parity] = -1;
            if (owner >= 0) {
                // One row holds the whole chunk (a long row, e.g. PageRank's teleport row):
                // the work group adds it up as a tree instead of leaving it to one thread.
                double part = 0.0;
                for (int u = 0; u < kPerThread; ++u) part += s_product[lid + u * WG_SIZE];
                s_partial[lid] = part;
                for (int m = WG_SIZE / 2; m > 0; m >>= 1) {
                    barrier();
                    if (lid < m) s_partial[lid] += s_partial[lid + m];
                }
                barrier();
                if (lid == owner) sum += s_partial[0];
            } else {
                const int lo = max(my_begin, chunk), hi = min(my_end, chunk + CHUNK);
                for (int k = lo; k < hi; ++k) sum += s_product[k - chunk];
            }
            barrier();
            parity ^= 1;
        }
        if (row < rows) {
            y[row] = sum;
            best = maxmag(best, sum);
        }
    }
#if FUSE_MAX
    publish_max(group_maxmag(best));
#endif
}

#else

void main() {
#if FUSE_MAX
    if (group_frozen()) return;  // one load of the books per group (control.glsl)
#endif
    const uint rows_per_group = uint(WG_SIZE) / uint(TPR);
    const uint lane = cluster_lane();
    const uint cluster = cluster_index();
    double best = 0.0;
    for (uint first = gl_WorkGroupID.x * rows_per_group; first < rows;
         first += gl_NumWorkGroups.x * rows_per_group) {
        uint row = first + cluster;
        double sum = 0.0;
        if (row < rows) {
            const int end = row_offsets[row + 1u];
#if UNROLL > 0 && TPR == 1
            // UNROLL column indices and values into registers, then UNROLL independent gathers,
            // then the products left to right (faster than the plain loop; 16 in flight
            // costs more registers than it hides latency).
            for (int k = row_offsets[row]; k < end; k += UNROLL) {
                int c[UNROLL];
                double v[UNROLL], g[UNROLL];
                for (int u = 0; u < UNROLL; ++u) {
                    const bool inside = k + u < end;
                    c[u] = inside ? columns[k + u] : -1;
                    v[u] = inside ? values[k + u] : 0.0;
                }
                for (int u = 0; u < UNROLL; ++u) g[u] = c[u] >= 0 ? x_at(c[u]) : 0.0;
                for (int u = 0; u < UNROLL; ++u) sum += v[u] * g[u];
            }
#else
            for (int k = row_offsets[row] + int(lane); k < end; k += TPR)
                sum += values[k] * x_at(columns[k]);
#endif
        }
        sum = cluster_sum(sum);
        if (row < rows && lane == 0u) {
            y[row] = sum;
            best = maxmag(best, sum);
        }
    }
#if FUSE_MAX
    publish_max(group_maxmag(best));
#endif
}

#endif
