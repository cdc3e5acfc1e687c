#if USE_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// y = A x for a CSR matrix in float64 (seed 004's SpMV). TPR threads per row: TPR = 1 is the
// paper's one-thread-per-row kernel; TPR = 2..32 lets a cluster of one subgroup walk a row, so
// that the column and value loads of neighbouring lanes coalesce and long rows are split.
// Work groups stride over the rows (at most a few thousand groups), so that the fused first
// reduction stage leaves few partial results for Step2.
// FUSE_MAX = 1 is gpu-opt's Step1: each work group also writes the max-magnitude element of its
// rows to partials[group], and the kernel does nothing once the method is frozen.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer RowOffsets { int row_offsets[]; };
layout(std430, binding = 1) readonly buffer Columns { int columns[]; };
layout(std430, binding = 2) readonly buffer Values { double values[]; };
layout(std430, binding = 3) readonly buffer X { double x[]; };
layout(std430, binding = 4) writeonly buffer Y { double y[]; };
#if FUSE_MAX
layout(std430, binding = 5) writeonly buffer Partials { double partials[]; };
#include "power/control.glsl"
#endif

uniform uint rows;

#include "power/reduce.glsl"

void main() {
#if FUSE_MAX
    if (frozen()) return;
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
            int end = row_offsets[row + 1u];
            for (int k = row_offsets[row] + int(lane); k < end; k += TPR)
                sum += values[k] * x[columns[k]];
        }
        sum = cluster_sum(sum);
        if (row < rows && lane == 0u) {
            y[row] = sum;
            best = maxmag(best, sum);
        }
    }
#if FUSE_MAX
    best = group_maxmag(best);
    if (group_leader()) partials[gl_WorkGroupID.x] = best;
#endif
}
