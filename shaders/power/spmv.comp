#if USE_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// y = A x for a CSR matrix in float64 (seed 004's SpMV). TPR threads per row: TPR = 1 is the
// paper's one-thread-per-row kernel; TPR = 2..32 lets a cluster of one subgroup walk a row, so
// that the column and value loads of neighbouring lanes coalesce and long rows are split.
// Work groups stride over the rows (at most a few thousand groups), so that the fused first
// reduction stage leaves few partial results for Step2.
// STREAM = 1 (CSR-stream, after Greathouse & Daga's CSR-Adaptive): a work group takes WG_SIZE
// consecutive rows; its threads walk the rows' nonzeros as one contiguous range, CHUNK entries
// at a time, so that every column and value load is coalesced and each thread has CHUNK/WG_SIZE
// independent gathers of x in flight; the products go to shared memory, and then each thread
// adds up its own row's products left to right (the host's order); a row that covers a whole
// chunk is added up by the whole group as a tree.
// X_IMAGE = 1: x is gathered from a 2D texture (power/x_image.glsl: twice as fast on the H200
// for random columns); X_TEXTURE = 1: from a buffer texture; else from the storage buffer.
// UNROLL = R (TPR = 1 only): R gathers per thread in flight at once.
// FUSE_MAX = 1 is gpu-opt's Step1 (+ Step2): each work group also writes the max-magnitude
// element of its rows to partials[group]; the last work group to finish (an atomic counter in
// the control block) reduces the partials into lambda and keeps the books (the paper's Step2,
// without a dispatch of its own). The kernel does nothing once the method is frozen.
// DEFER_SCALE = 1 (FUSE_MAX with X_IMAGE): the texture holds y of the previous iteration, not
// x, and each gather divides by that iteration's lambda: x_at(c) / lambda_prev is the same IEEE
// division Step3 used to do, so the gathered values are bit for bit the x of the paper's
// method. Step1 stores its y into the other texture of a pair (x_image_out), two rows a texel,
// so that Step3 writes nothing but the flag.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) restrict readonly buffer RowOffsets { int row_offsets[]; };
layout(std430, binding = 1) restrict readonly buffer Columns { int columns[]; };
layout(std430, binding = 2) restrict readonly buffer Values { double values[]; };
#if X_IMAGE
#define X_IMAGE_READ
#if DEFER_SCALE
#define X_IMAGE_WRITE
#endif
#include "power/x_image.glsl"
#elif X_TEXTURE
// x through the texture path: texel i = x[i] as two 32-bit words (a GL_RG32UI buffer texture).
uniform usamplerBuffer x_texture;
double x_at(int i) { return packDouble2x32(texelFetch(x_texture, i).xy); }
#else
layout(std430, binding = 3) restrict readonly buffer X { double x[]; };
double x_at(int i) { return x[i]; }
#endif
layout(std430, binding = 4) writeonly buffer Y { double y[]; };
#if FUSE_MAX
// Coherent: the last work group reads what the others wrote in this dispatch.
layout(std430, binding = 5) coherent buffer Partials { double partials[]; };
#include "power/control.glsl"
#endif
#if DEFER_SCALE
bool g_scaled = false;  // set in main: false in the first iteration (the texture holds x_0)
double g_scale = 1.0;   // lambda of the previous iteration
double x_in(int i) {
    const double t = x_at(i);
    return g_scaled ? t / g_scale : t;
}
#else
double x_in(int i) { return x_at(i); }
#endif

uniform uint rows;
#if DEFER_SCALE
shared double s_y[STREAM == 1 ? WG_SIZE : WG_SIZE / TPR];
#endif

#include "power/reduce.glsl"

#if FUSE_MAX
shared bool s_last;
// Step1's prologue: false when the kernel must do nothing. Step3 of the previous iteration left
// the flag clear: the method converged there, which group 0 records (every group sees the same
// books, so all return together). Called in uniform control flow.
bool begin_iteration() {
    if (frozen()) return false;
    if (c_iteration > 0u && c_not_converged == 0u) {
        if (gl_WorkGroupID.x == 0u && gl_LocalInvocationIndex == 0u) c_converged_at = c_iteration;
        return false;
    }
#if DEFER_SCALE
    g_scaled = c_iteration > 0u;
    g_scale = c_lambda;
#endif
    return true;
}
// The paper's Step2 in the last work group to finish: lambda = maxmag of the partials; a zero
// (or non-finite) lambda is a breakdown (A x = 0) and freezes. Uniform control flow.
void end_iteration(double best) {
    best = group_maxmag(best);
    if (group_leader()) {
        partials[gl_WorkGroupID.x] = best;
        memoryBarrierBuffer();  // the partial is visible before the count says so
        s_last = atomicAdd(c_arrived, 1u) == gl_NumWorkGroups.x - 1u;
    }
    barrier();
    if (!s_last) return;
    memoryBarrierBuffer();
    double lambda = 0.0;
    for (uint i = gl_LocalInvocationIndex; i < gl_NumWorkGroups.x; i += uint(WG_SIZE))
        lambda = maxmag(lambda, partials[i]);
    lambda = group_maxmag(lambda);
    if (group_leader()) {
        c_iteration += 1u;
        if (lambda == 0.0 || isnan(lambda) || isinf(lambda)) {
            c_breakdown_at = c_iteration;
        } else {
            c_lambda_prev = c_lambda;
            c_lambda = lambda;
            c_not_converged = 0u;  // Step3 raises it
        }
        atomicExchange(c_arrived, 0u);  // for the next dispatch
    }
}
#endif

#if DEFER_SCALE
// y of the rows [first, first + count) (count even, first a multiple of it) from s_y into the
// texture, two rows a texel; the pad word of an odd last row is 0 (as x_mirror.comp writes it).
// Called in uniform control flow; s_y is free again when it returns.
void store_y_pairs(uint first, uint count) {
    barrier();
    const uint t = gl_LocalInvocationIndex;
    const uint r = first + 2u * t;
    if (t < count / 2u && r < rows)
        store_x_pair(int(r / 2u), s_y[2u * t], r + 1u < rows ? s_y[2u * t + 1u] : 0.0);
    barrier();
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
    if (!begin_iteration()) return;
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
                s_product[lid + u * WG_SIZE] = column[u] >= 0 ? values[k] * x_in(column[u]) : 0.0;
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
#if DEFER_SCALE
        s_y[lid] = sum;
        store_y_pairs(first, uint(WG_SIZE));
#endif
    }
#if FUSE_MAX
    end_iteration(best);
#endif
}

#else

void main() {
#if FUSE_MAX
    if (!begin_iteration()) return;
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
            // then the products left to right (measured 5% faster than the plain loop with x
            // in the 2D texture on the H200; 16 is slower: registers).
            for (int k = row_offsets[row]; k < end; k += UNROLL) {
                int c[UNROLL];
                double v[UNROLL], g[UNROLL];
                for (int u = 0; u < UNROLL; ++u) {
                    const bool inside = k + u < end;
                    c[u] = inside ? columns[k + u] : -1;
                    v[u] = inside ? values[k + u] : 0.0;
                }
                for (int u = 0; u < UNROLL; ++u) g[u] = c[u] >= 0 ? x_in(c[u]) : 0.0;
                for (int u = 0; u < UNROLL; ++u) sum += v[u] * g[u];
            }
#else
            for (int k = row_offsets[row] + int(lane); k < end; k += TPR)
                sum += values[k] * x_in(columns[k]);
#endif
        }
        sum = cluster_sum(sum);
        if (row < rows && lane == 0u) {
            y[row] = sum;
            best = maxmag(best, sum);
        }
#if DEFER_SCALE
        if (lane == 0u) s_y[cluster] = sum;
        store_y_pairs(first, rows_per_group);
#endif
    }
#if FUSE_MAX
    end_iteration(best);
#endif
}

#endif
