// x as a 2D RGBA32F texture: texel p holds x[2p] and x[2p + 1] as four 32-bit words (bits only,
// never used as floats), 4096 texels to a texture row.
// Why: on the H200 the SpMV's random 8-byte gathers of x from a storage buffer (or a buffer
// texture, which views the same allocation) cost 0.41 ms for 2M rows x 10, against 0.21 ms
// from a 2D texture holding the same bits. The --spmv-probe column patterns show the storage
// buffer's cost growing with the address span of the gathers at a constant number of distinct
// sectors (65536 sectors over 2 MiB: 0.35 ms, over 8 MiB: 0.42 ms), i.e. address translation,
// not cache capacity; the driver evidently maps textures with larger pages (solvers/power/
// RESULTS.md). X_IMAGE_READ declares x_at(i) (sampler x_image); X_IMAGE_WRITE declares
// store_x_pair (image unit 0, x_image_out); X_IMAGE_RW also load_x_pair (the same unit).
ivec2 x_texel(int pair) { return ivec2(pair & 4095, pair >> 12); }
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
