// transpose.comp — destination (height x width, row-major) = source (width x height)^T, through
// a 32 x 33 shared tile so that both the loads and the stores are coalesced. `lu-scan-t` uses it
// to turn the strided y lines of a large grid into contiguous x lines: a y solve that reads
// columns directly touches one 32-byte piece of every row, which at 4096 x 4096 spans 64 MB per
// work group and ran at ~100 GB/s on the H200; two transposes cost two coalesced copies.
layout(local_size_x = 32, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer Source { float source[]; };
layout(std430, binding = 1) writeonly buffer Destination { float destination[]; };
uniform uint width;   // of the source
uniform uint height;

shared float tile[32][33];  // +1 column: the transposed reads hit 32 different banks

void main() {
    const uint x0 = gl_WorkGroupID.x * 32u, y0 = gl_WorkGroupID.y * 32u;
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    for (uint r = ty; r < 32u; r += 8u) {
        const uint x = x0 + tx, y = y0 + r;
        if (x < width && y < height) tile[r][tx] = source[y * width + x];
    }
    memoryBarrierShared();
    barrier();
    for (uint r = ty; r < 32u; r += 8u) {
        const uint x = y0 + tx, y = x0 + r;  // destination is height wide
        if (x < height && y < width) destination[y * height + x] = tile[tx][r];
    }
}
