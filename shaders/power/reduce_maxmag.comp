#if USE_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// One stage of the max-magnitude reduction (gpu-full): output[group] = maxmag of the inputs the
// group strides over. Run with many groups, then once with one group.
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 0) readonly buffer Input { double values_in[]; };
layout(std430, binding = 1) writeonly buffer Output { double values_out[]; };
uniform uint count;

#include "power/reduce.glsl"

void main() {
    double best = 0.0;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * uint(WG_SIZE))
        best = maxmag(best, values_in[i]);
    best = group_maxmag(best);
    if (group_leader()) values_out[gl_WorkGroupID.x] = best;
}
