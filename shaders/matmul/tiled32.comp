// gpu-tiled32: the OpenGL matmul paper Algorithm 2, as published. R = A * B with A m x n, B n x l, R m x l,
// row-major. One invocation computes one element of R; a 32 x 32 work group stages a 32 x 32 tile
// of A and of B in shared memory per step along n, separated by memoryBarrierShared(); barrier().
// The host (Algorithm 1) dispatches chunks of at most 64 x 64 work groups; (x0, y0) is the chunk's
// first column and row of R. Loads outside the matrices read 0, so any m, n, l works.
// Only change from the paper: its `#pragma unroll` (not GLSL) is left out; drivers unroll anyway.
layout(local_size_x = 32, local_size_y = 32, local_size_z = 1) in;

uniform uint m;
uniform uint n;
uniform uint l;
uniform uint x0;
uniform uint y0;

layout(std430, binding = 0) buffer ssbo_A { float A[]; };
layout(std430, binding = 1) buffer ssbo_B { float B[]; };
layout(std430, binding = 2) buffer ssbo_R { float R[]; };

const uint BLOCK_SIZE = gl_WorkGroupSize.x;

shared float As[BLOCK_SIZE][BLOCK_SIZE];
shared float Bs[BLOCK_SIZE][BLOCK_SIZE];

void __memoryBarrierShared() {
    memoryBarrierShared();
    barrier();
}

void main() {
    uint hA = m;
    uint wA = n;
    uint wB = l;

    uint bx = gl_WorkGroupID.x;
    uint by = gl_WorkGroupID.y;

    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;

    uint gx = x0 + gl_GlobalInvocationID.x;
    uint gy = y0 + gl_GlobalInvocationID.y;

    uint aBegin = wA * (y0 + BLOCK_SIZE * by);
    uint aEnd = aBegin + wA - 1;
    uint aStep = BLOCK_SIZE;

    uint bBegin = x0 + BLOCK_SIZE * bx;
    uint bStep = BLOCK_SIZE * wB;

    float Rsub = 0.0f;

    for (uint a = aBegin, b = bBegin, blkStart = 0; a <= aEnd;
         a += aStep, b += bStep, blkStart += BLOCK_SIZE) {
        As[ty][tx] = (gy < hA && blkStart + tx < wA) ? A[a + wA * ty + tx] : 0.0f;
        Bs[ty][tx] = (gx < wB && blkStart + ty < wA) ? B[b + wB * ty + tx] : 0.0f;
        __memoryBarrierShared();

        for (uint k = 0; k < BLOCK_SIZE; k++) {
            Rsub += As[ty][k] * Bs[k][tx];
        }
        __memoryBarrierShared();
    }

    if (gy < hA && gx < wB) {
        uint c = wB * (y0 + BLOCK_SIZE * by) + (x0 + BLOCK_SIZE * bx);
        R[c + wB * ty + tx] = Rsub;
    }
}
