// Copies `count` vec4s from source to destination: the memory-bandwidth roof that every
// bandwidth-bound solver in adilab is compared with (reads + writes per second).
// Each invocation copies PER_THREAD vec4s a pass, spaced a work group's width apart so that every
// load stays coalesced, all loads before any store: eight 16-byte loads in flight per invocation
// and work groups of 1024 are what brought the GL copy to CUDA's device copy on the H200
// (docs/performance.md, issue 19's section); one vec4 per invocation reached 61-82% of it.
#define PER_THREAD 8u
layout(local_size_x = 1024) in;

layout(std430, binding = 0) readonly buffer Source { vec4 source[]; };
layout(std430, binding = 1) writeonly buffer Destination { vec4 destination[]; };

uniform uint count;

void main() {
    // Grid-stride loop: any count, with a dispatch capped at the driver's work-group limit.
    const uint block = gl_WorkGroupSize.x * PER_THREAD;
    const uint stride = gl_NumWorkGroups.x * block;
    for (uint base = gl_WorkGroupID.x * block + gl_LocalInvocationID.x; base < count;
         base += stride) {
        vec4 v[PER_THREAD];
        for (uint j = 0u; j < PER_THREAD; ++j) {
            const uint i = base + j * gl_WorkGroupSize.x;
            if (i < count) v[j] = source[i];
        }
        for (uint j = 0u; j < PER_THREAD; ++j) {
            const uint i = base + j * gl_WorkGroupSize.x;
            if (i < count) destination[i] = v[j];
        }
    }
}
