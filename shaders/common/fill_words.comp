// Buffer::fill_words: sets `count` 32-bit words of binding 0 to `word`. A kernel and not
// glClearBufferData, because NVIDIA's driver (580, H200) let a glBufferSubData of 64 KiB..~1 MiB
// that followed a glClearBufferData of the same buffer land BEFORE the clear: the next kernel
// read the cleared words (tests/gl/test_gl_runtime.cpp, UploadAfterAClearOrAKernel...). After a
// kernel's stores and a barrier, uploads are ordered as GL says.
layout(local_size_x = 256) in;
layout(std430, binding = 0) restrict writeonly buffer Words { uint words[]; };
uniform uint count;
uniform uint word;

void main() {
    // A grid-stride loop: buffers of more than 65535 groups' words need no second dispatch.
    const uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) words[i] = word;
}
