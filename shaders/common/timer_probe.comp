// The timer probe (Context::timer_queries_work): a pass over a buffer with a few operations per
// element, long enough on any device (tens of microseconds on a large GPU, milliseconds on a
// software rasteriser) for its timer queries to be told from zero and from the CPU's clock.
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Data { float data[]; };

uniform uint count;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= count) return;
    float x = data[i];
    for (int k = 0; k < 16; ++k) x = x * 0.999 + 0.5;
    data[i] = x;
}
