// Copies x back from the SpMV's 2D texture (power/x_image.glsl) into its storage buffer: gpu-opt's
// Step3 keeps x only in the texture while it iterates, so the eigenvector is fetched through
// here once, when asked for (never in the per-iteration path). texelFetch carries the words
// unchanged (tests/gl/test_power.cpp XTextureCarriesEveryBitPattern).
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 3) restrict writeonly buffer X { double x[]; };
#define X_IMAGE_READ
#include "power/x_image.glsl"
uniform uint rows;

void main() {
    for (uint i = gl_GlobalInvocationID.x; i < rows; i += gl_NumWorkGroups.x * uint(WG_SIZE))
        x[i] = x_at(int(i));
}
