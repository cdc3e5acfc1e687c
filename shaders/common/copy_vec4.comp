// Copies `count` vec4s from source to destination: the memory-bandwidth roof that every
// bandwidth-bound solver in adilab is compared with (reads + writes per second).
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Source { vec4 source[]; };
layout(std430, binding = 1) writeonly buffer Destination { vec4 destination[]; };

uniform uint count;

void main() {
    // Grid-stride loop: any count, with a dispatch capped at the driver's work-group limit.
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) destination[i] = source[i];
}
