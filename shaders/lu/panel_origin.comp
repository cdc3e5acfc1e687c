// For the column-by-column panel (gpu-blocked's fallback, pivot_column.comp per column): where
// each row of the panel came from, origin[r] for r in k0..n-1, from the panel's interchanges.
// One work group; the interchanges are a sequence, applied by one invocation (at most NB of
// them).
layout(local_size_x = 256) in;

layout(std430, binding = 1) readonly buffer Pivots { int pivots[]; };
layout(std430, binding = 6) coherent buffer Origin { int origin[]; };

uniform int n;
uniform int k0;
uniform int width;

void main() {
    const int t = int(gl_LocalInvocationID.x);
    for (int r = k0 + t; r < n; r += 256) origin[r] = r;
    memoryBarrierBuffer();
    barrier();
    if (t == 0) {
        for (int j = 0; j < width; ++j) {
            const int p = pivots[k0 + j];
            const int top = origin[k0 + j];
            origin[k0 + j] = origin[p];
            origin[p] = top;
        }
    }
}
