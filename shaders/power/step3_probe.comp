// Diagnostic variants of gpu-opt's Step3 (`--bench power --step3-probe`): what makes the
// 2M-row Step3 cost ~55 us on the H200 whatever it moves (x in the texture: 48 MB; the
// deferred-scale variant that only reads two y buffers, 32 MB, took as long; the division
// replaced by a multiply and two fmas did not help; solvers/power/RESULTS.md). Not used by a
// solver: shaders/power/step3.comp is the production kernel.
// KIND 0: production: old x pair from the 2D texture (imageLoad), y pair (dvec2), x = y / lambda,
//   compare, store the pair into the texture (imageStore);
//   1: old x from a storage buffer (z2), store into the texture;  2: imageLoad, no store;
//   3: storage buffers only: old from z2, new into z2;  4: two storage buffers read, no store
//   (the deferred-scale Step3);  5: copy y2 into z2 (no arithmetic, no flag);  6: copy y2 into
//   the texture (imageStore only: the texture's store ceiling);  7: as 0, the old pair through
//   texelFetch (sampler x_sampled on the same texture) instead of imageLoad.
// GOB 1: the texture in the GOB texel map (power/x_image.glsl, 16-GOB block columns); 0: the
//   row-major map.
// FLAG 1: the production flag (shared word, one global store per group that moved; with tol 0
//   every group stores into the same word); 0: a global store only for a NaN (never here).
// DIV 1: y / lambda; 0: y * lambda.   CONTROL 1: lambda from the control buffer; 0: a uniform.
// PAIRS: pairs per thread per pass, all loads issued before any arithmetic.
layout(local_size_x = 256) in;
layout(std430, binding = 4) restrict readonly buffer Y2 { dvec2 y2[]; };
layout(std430, binding = 7) restrict buffer Z2 { dvec2 z2[]; };
layout(std430, binding = 6) buffer Control { double c_lambda; uint c_flag; };
layout(rgba32f, binding = 0) restrict uniform image2D x_image_out;
uniform uint pairs;
uniform double tol;
uniform double lambda_uniform;

shared uint s_moved;

#define X_GOB GOB
#define X_BLOCK_LOG2 4
#include "power/x_image.glsl"
ivec2 texel(uint p) { return x_texel(int(p)); }
uniform sampler2D x_sampled;
dvec2 load_pair(uint p) {
    const uvec4 w = floatBitsToUint(imageLoad(x_image_out, texel(p)));
    return dvec2(packDouble2x32(w.xy), packDouble2x32(w.zw));
}
void store_pair(uint p, dvec2 v) {
    imageStore(x_image_out, texel(p),
               uintBitsToFloat(uvec4(unpackDouble2x32(v.x), unpackDouble2x32(v.y))));
}
dvec2 scale(dvec2 y, double lambda) {
#if DIV
    return y / lambda;
#else
    return y * lambda;
#endif
}

void main() {
#if FLAG
    if (gl_LocalInvocationIndex == 0u) s_moved = 0u;
    barrier();
#endif
#if CONTROL
    const double lambda = c_lambda;
#else
    const double lambda = lambda_uniform;
#endif
    bool moved = false, nan_seen = false;
    const uint stride = gl_NumWorkGroups.x * 256u;
    for (uint p0 = gl_GlobalInvocationID.x; p0 < pairs; p0 += stride * uint(PAIRS)) {
        dvec2 yv[PAIRS], ov[PAIRS];
        for (int u = 0; u < PAIRS; ++u) {
            const uint p = p0 + uint(u) * stride;
            if (p >= pairs) break;
            yv[u] = y2[p];
#if KIND == 7
            const uvec4 w = floatBitsToUint(texelFetch(x_sampled, texel(p), 0));
            ov[u] = dvec2(packDouble2x32(w.xy), packDouble2x32(w.zw));
#elif KIND == 0 || KIND == 2
            ov[u] = load_pair(p);
#elif KIND != 5 && KIND != 6
            ov[u] = z2[p];
#endif
        }
        for (int u = 0; u < PAIRS; ++u) {
            const uint p = p0 + uint(u) * stride;
            if (p >= pairs) break;
#if KIND == 5
            z2[p] = yv[u];
#elif KIND == 6
            store_pair(p, yv[u]);
#else
            const dvec2 next = scale(yv[u], lambda);
            const dvec2 d = abs(next - ov[u]);
            if (!(d.x < tol) || !(d.y < tol)) moved = true;
            if (isnan(next.x) || isnan(next.y)) nan_seen = true;
#if KIND == 0 || KIND == 1 || KIND == 7
            store_pair(p, next);
#elif KIND == 3
            z2[p] = next;
#endif
#endif
        }
    }
#if FLAG
    if (moved) s_moved = 1u;
    barrier();
    if (gl_LocalInvocationIndex == 0u && s_moved != 0u) c_flag = 1u;
#else
    if (nan_seen && moved) c_flag = 2u;
#endif
}
