// After a panel (columns k0..k0+width-1) is factored: the panel's row interchanges applied to
// every other column, fused with the triangular solve for the block row (seed 003 §2.3):
// U12 = L11^-1 A12, L11 the panel's unit lower triangle (width x width).
// One thread per column outside the panel, x along the row so that loads coalesce. Columns left
// of the panel only take the interchanges (they hold L: LAPACK's laswp on the left), columns
// right of it also the forward substitution: in registers (NB is a constant, the loops may
// unroll; measured 12 ms of 64 at n = 8192 on the H200, so probably spilled to local memory) or,
// with SHARED_SOLVE (ADILAB_LU_TRSM=shared, not yet measured on a GPU), in shared memory.
// The interchanges are not replayed one by one (each swap's loads would wait for the previous
// swap's stores): `origin` (from the panel) says which row each panel row's content came from,
// so a column reads all of its moved values at once, then writes them. Rows that move are the
// panel's rows k0..k0+width-1 and the pivot rows below them.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) readonly buffer Pivots { int pivots[]; };
layout(std430, binding = 6) readonly buffer Origin { int origin[]; };

uniform int n;
uniform int k0;
uniform int width;

shared float lower[NB * NB];  // L11, row-major, strictly lower part used
shared int source[NB];        // row k0+j takes the content of row source[j]
shared int extra_row[NB];     // pivot row below the panel's rows, or -1 ...
shared int extra_source[NB];  // ... and where its new content comes from
#if SHARED_SOLVE
shared float x_block[NB * WG_SIZE];
#endif

void main() {
    const int t = int(gl_LocalInvocationID.x);
    for (int e = t; e < NB * NB; e += WG_SIZE) {
        int r = e / NB, c = e % NB;
        lower[e] = (r < width && c < r) ? a[(k0 + r) * n + k0 + c] : 0.0;
    }
    for (int j = t; j < NB; j += WG_SIZE) {
        source[j] = j < width ? origin[k0 + j] : k0 + j;
        const int p = j < width ? pivots[k0 + j] : -1;
        extra_row[j] = p >= k0 + width ? p : -1;
        extra_source[j] = p >= k0 + width ? origin[p] : -1;
    }
    barrier();

    const int q = int(gl_GlobalInvocationID.x);
    if (q >= n - width) return;
    const int col = q < k0 ? q : q + width;
#if SHARED_SOLVE
    // The column lives in shared memory (x_block[j][t], consecutive invocations on consecutive
    // banks) instead of a per-invocation array, which the compiler may put in local memory.
    // Order matters, not barriers (each invocation works on its own column): every panel row is
    // read before any is written; a pivot row below the panel takes the content of a panel row
    // (the only rows whose content can leave for below), read before the panel rows are written.
    for (int j = 0; j < width; ++j) x_block[j * WG_SIZE + t] = a[source[j] * n + col];
    for (int j = 0; j < width; ++j)
        if (extra_row[j] >= 0) a[extra_row[j] * n + col] = a[extra_source[j] * n + col];
    if (col >= k0) {
        for (int j = 1; j < width; ++j) {
            float s = x_block[j * WG_SIZE + t];
            for (int i = 0; i < j; ++i) s -= lower[j * NB + i] * x_block[i * WG_SIZE + t];
            x_block[j * WG_SIZE + t] = s;
        }
    }
    for (int j = 0; j < width; ++j) a[(k0 + j) * n + col] = x_block[j * WG_SIZE + t];
#else
    float x[NB], moved[NB];
    for (int j = 0; j < NB; ++j) {
        x[j] = j < width ? a[source[j] * n + col] : 0.0;
        moved[j] = extra_row[j] >= 0 ? a[extra_source[j] * n + col] : 0.0;
    }
    if (col >= k0) {
        for (int j = 1; j < NB; ++j) {
            float s = x[j];
            for (int i = 0; i < j; ++i) s -= lower[j * NB + i] * x[i];
            x[j] = s;
        }
    }
    for (int j = 0; j < NB; ++j) {
        if (j < width) a[(k0 + j) * n + col] = x[j];
        if (extra_row[j] >= 0) a[extra_row[j] * n + col] = moved[j];
    }
#endif
}
