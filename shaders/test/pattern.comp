// Test fixture: writes value[i] = i * scale + offset, so a test can check every element.
layout(local_size_x = 64) in;
layout(std430, binding = 0) writeonly buffer Output { float value[]; };
uniform uint count;
uniform float scale;
#include "test/offset.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < count) value[i] = float(i) * scale + pattern_offset();
}
