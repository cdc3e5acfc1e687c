// After a panel (columns k0..k0+width-1) is factored: the panel's row interchanges applied to
// every other column, fused with the triangular solve for the block row (seed 003 §2.3):
// U12 = L11^-1 A12, L11 the panel's unit lower triangle (width x width).
// One thread per column outside the panel, x along the row so that loads coalesce. Columns left
// of the panel only take the interchanges (they hold L: LAPACK's laswp on the left), columns
// right of it also the forward substitution, kept in registers (NB is a constant, the loops
// unroll).
layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) readonly buffer Pivots { int pivots[]; };

uniform int n;
uniform int k0;
uniform int width;

shared float lower[NB * NB];  // L11, row-major, strictly lower part used
shared int swaps[NB];

void main() {
    const int t = int(gl_LocalInvocationID.x);
    for (int e = t; e < NB * NB; e += 64) {
        int r = e / NB, c = e % NB;
        lower[e] = (r < width && c < r) ? a[(k0 + r) * n + k0 + c] : 0.0;
    }
    for (int e = t; e < NB; e += 64) swaps[e] = e < width ? pivots[k0 + e] : k0 + e;
    barrier();

    const int q = int(gl_GlobalInvocationID.x);
    if (q >= n - width) return;
    const int col = q < k0 ? q : q + width;
    for (int j = 0; j < width; ++j) {
        int p = swaps[j];
        if (p != k0 + j) {
            float top = a[(k0 + j) * n + col];
            a[(k0 + j) * n + col] = a[p * n + col];
            a[p * n + col] = top;
        }
    }
    if (col < k0) return;
    float x[NB];
    for (int j = 0; j < NB; ++j) x[j] = j < width ? a[(k0 + j) * n + col] : 0.0;
    for (int j = 1; j < NB; ++j) {
        float s = x[j];
        for (int i = 0; i < j; ++i) s -= lower[j * NB + i] * x[i];
        x[j] = s;
    }
    for (int j = 0; j < width; ++j) a[(k0 + j) * n + col] = x[j];
}
