#ifndef WATER_SUMS_GLSL
#define WATER_SUMS_GLSL
// water_sums.glsl — what shallow water's next step needs from the whole new state, summed over
// work groups (shaders/sim/shallow_water.comp: settling, over its tiles, and measuring a state):
// over the wet cells, the sum of v and their count (the mean velocity S_wet / N_wet that the
// next x sweep takes out), the deepest water (the next step's sweeps: windows or the line
// solve), and whether a cell came out below its bottom (the y window's parts).
// The last work group to finish (an atomic count) sums every group's part (or, settling, every
// tile's) in order, so a run rounds the same way every time.
//
// The includer defines GROUP_SIZE, combine() of two parts, and four shared float arrays of at
// least GROUP_SIZE entries, sums_x .. sums_w (free when group_sum is called), and declares its
// work group's size first: NVIDIA's compiler wants it before any use of the subgroup built-ins.

// Over the work group, in invocation 0: by subgroup operations, then theirs (SUBGROUP_SUM), or
// a tree in shared memory. Every invocation calls it.
#ifdef SUBGROUP_SUM
vec4 group_sum(vec4 mine) {
    const vec4 subgroup = vec4(subgroupAdd(mine.xy), subgroupMax(mine.zw));
    if (subgroupElect()) {
        sums_x[gl_SubgroupID] = subgroup.x;
        sums_y[gl_SubgroupID] = subgroup.y;
        sums_z[gl_SubgroupID] = subgroup.z;
        sums_w[gl_SubgroupID] = subgroup.w;
    }
    memoryBarrierShared();
    barrier();
    vec4 total = vec4(0.0);
    if (gl_LocalInvocationIndex == 0)
        for (uint k = 0; k < gl_NumSubgroups; ++k)
            total = combine(total, vec4(sums_x[k], sums_y[k], sums_z[k], sums_w[k]));
    return total;
}
#else
vec4 group_sum(vec4 mine) {
    const int t = int(gl_LocalInvocationIndex);
    sums_x[t] = mine.x;
    sums_y[t] = mine.y;
    sums_z[t] = mine.z;
    sums_w[t] = mine.w;
    for (int stride = GROUP_SIZE / 2; stride > 0; stride /= 2) {
        memoryBarrierShared();
        barrier();
        if (t < stride) {
            const vec4 sum = combine(vec4(sums_x[t], sums_y[t], sums_z[t], sums_w[t]),
                                     vec4(sums_x[t + stride], sums_y[t + stride],
                                          sums_z[t + stride], sums_w[t + stride]));
            sums_x[t] = sum.x;
            sums_y[t] = sum.y;
            sums_z[t] = sum.z;
            sums_w[t] = sum.w;
        }
    }
    return vec4(sums_x[0], sums_y[0], sums_z[0], sums_w[0]);
}
#endif

layout(std430, binding = 10) coherent buffer Partials { vec4 partials[]; };
layout(std430, binding = 16) coherent buffer GroupsDone { uint groups_done; };
layout(std430, binding = 11) buffer Mean { float mean_velocity; };
shared bool last_group;

// Whether this work group is the dispatch's last to finish (an atomic count of its groups), in
// every invocation; its partials are stored (by invocation 0) before it counts itself.
bool last_group_done() {
    if (gl_LocalInvocationIndex == 0) {
        memoryBarrierBuffer();
        last_group = atomicAdd(groups_done, 1u) == gl_NumWorkGroups.x * gl_NumWorkGroups.y - 1u;
    }
    memoryBarrierShared();
    barrier();
    return last_group;  // the same for the whole group
}

// In the last group: partials[0 .. count - 1] summed in order, in invocation 0 (every invocation
// calls it), and the count of groups reset for the next dispatch.
vec4 sum_partials(uint count) {
    memoryBarrierBuffer();
    vec4 s = vec4(0.0);
    for (uint k = gl_LocalInvocationIndex; k < count; k += GROUP_SIZE) s = combine(s, partials[k]);
    barrier();  // group_sum's shared sums are read before they are written again
    const vec4 sums = group_sum(s);
    if (gl_LocalInvocationIndex == 0) groups_done = 0u;
    return sums;
}

// Stores this group's part (`mine`, every invocation's); returns true in invocation 0 of the
// last group to finish, with every group's parts summed in `sums`. (A kernel of its own for
// the last sums cost a dispatch and a barrier a step: ~9 us with the guard's empty dispatches
// at 1024^2 on the H100, docs/performance.md.)
bool sum_of_groups(vec4 mine, out vec4 sums) {
    const vec4 total = group_sum(mine);
    const uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    if (groups == 1u) {  // no other group's to wait for
        sums = total;
        return gl_LocalInvocationIndex == 0;
    }
    if (gl_LocalInvocationIndex == 0)
        partials[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = total;
    sums = vec4(0.0);
    if (!last_group_done()) return false;
    sums = sum_partials(groups);
    return gl_LocalInvocationIndex == 0;
}

// The mean velocity S_wet / N_wet from the sums.
void store_mean(vec4 sums) { mean_velocity = sums.y > 0.0 ? sums.x / sums.y : 0.0; }
#endif
