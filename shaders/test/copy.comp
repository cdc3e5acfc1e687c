// Test fixture: copies count floats from binding 0 to binding 1, so that a test sees what a
// kernel reads from a buffer (not what glGetBufferSubData returns).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Source { float source[]; };
layout(std430, binding = 1) writeonly buffer Target { float target[]; };
uniform uint count;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < count) target[i] = source[i];
}
