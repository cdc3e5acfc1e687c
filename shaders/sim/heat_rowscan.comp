#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif
// Heat's x sweep in one dispatch where no cell is pinned and lambda allows (sim/heat.cpp): row_scan
// of heat_scan.glsl (its header has the maths), WARPS segments a work group.
//
// Needs: CHUNK, HALO_LOW = HALO_HIGH, WARPS, GROUP_SIZE = 32 WARPS; SUBGROUPS where the device
// has 32-wide subgroup shuffles; optionally X_VEC4, X_ROWS (see heat_scan.glsl).
#define DIRECTION 0
#define ROW_SCAN 1
#define X_WARPS WARPS
#define X_CHUNK CHUNK
#define ROW_IN field_in
#define ROW_OUT field_out

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };
#ifdef X_VEC4
// The input again as vec4s (sim/heat.cpp binds it at 4 too): 16-byte loads along rows; and the
// output as vec4s (the same binding 1): 16-byte stores.
layout(std430, binding = 4) readonly buffer FieldIn4 { vec4 field_in4[]; };
layout(std430, binding = 1) writeonly buffer FieldOut4 { vec4 field_out4[]; };
#define ROW_IN4 field_in4
#define ROW_OUT4 field_out4
#endif

#include "sim/heat_scan.glsl"

void main() {
    const int group = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    row_scan(group * WARPS + int(gl_LocalInvocationID.x) / LANES);
}
