// x as a 2D RGBA32F texture: texel x_texel(p) holds x[2p] and x[2p + 1] as four 32-bit words
// (bits only, never used as floats), 4096 texels to a texture row.
// Why: the SpMV's random 8-byte gathers of x from a storage buffer cost about twice what they
// cost from a 2D texture holding the same bits. The cost of the storage-buffer gathers grew
// with the address span at a constant number of distinct sectors, i.e. address translation,
// not cache capacity; the driver evidently maps textures with larger pages (docs/
// performance.md, "Power method"). X_IMAGE_READ declares x_at(i) (sampler x_image);
// X_IMAGE_WRITE declares store_x_pair (image unit 0, x_image_out); X_IMAGE_RW also load_x_pair
// (the same unit).
// Which texel holds pair p (the SpMV gathers x at random, so any one-to-one map will do; only
// Step3's streaming load + store of every texel cares): 32 consecutive pairs fill one whole
// GOB of NVIDIA's block-linear layout (64 B x 8 rows), 4 texels wide x 8 rows, in the GOB's own
// memory order (byte offset (x / 32) * 256 + (y / 2) * 64 + ((x / 16) & 1) * 32 + (y & 1) * 16
// for byte column x, row y: texel offset = 16 p), so a warp's 32 texels are one whole GOB
// rather than 64 B in each of 8 (a row-major map); GOBs then go down a column of
// 2^X_BLOCK_LOG2 GOBs (one block of the block-linear layout), blocks across the 4096-texel
// width (1024 blocks a block row), block rows down. The texture is 4096 texels wide and
// 8 << X_BLOCK_LOG2 rows times the block rows tall (GpuVariant::prepare). A guess at the
// driver's block height that is wrong costs only locality between GOBs, never correctness.
#ifndef X_BLOCK_LOG2
#define X_BLOCK_LOG2 0
#endif
ivec2 x_texel(int pair) {
    const int in_gob = pair & 31, gob = pair >> 5;
    const int tx = ((in_gob >> 1) & 1) | ((in_gob >> 3) & 2);
    const int ty = (in_gob & 1) | ((in_gob >> 1) & 6);
    const int block = gob >> X_BLOCK_LOG2;
    const int gob_row = ((block >> 10) << X_BLOCK_LOG2) | (gob & ((1 << X_BLOCK_LOG2) - 1));
    return ivec2(((block & 1023) << 2) | tx, (gob_row << 3) | ty);
}
#ifdef X_IMAGE_READ
uniform sampler2D x_image;
double x_at(int i) {
    const vec4 t = texelFetch(x_image, x_texel(i >> 1), 0);
    return packDouble2x32(floatBitsToUint((i & 1) == 0 ? t.xy : t.zw));
}
#endif
#if defined(X_IMAGE_RW)
// Step3 keeps x only here during gpu-opt's iterations: it loads the old pair for the
// convergence test and stores the new one into the same texel (same invocation, so
// well-defined without `coherent`). rgba32f with no arithmetic on the words: bits only.
layout(rgba32f, binding = 0) restrict uniform image2D x_image_out;
dvec2 load_x_pair(int pair) {
    const uvec4 w = floatBitsToUint(imageLoad(x_image_out, x_texel(pair)));
    return dvec2(packDouble2x32(w.xy), packDouble2x32(w.zw));
}
#elif defined(X_IMAGE_WRITE)
layout(rgba32f, binding = 0) writeonly uniform image2D x_image_out;
#endif
#if defined(X_IMAGE_WRITE) || defined(X_IMAGE_RW)
void store_x_pair(int pair, double a, double b) {
    imageStore(x_image_out, x_texel(pair),
               uintBitsToFloat(uvec4(unpackDouble2x32(a), unpackDouble2x32(b))));
}
#endif
