// After a panel (columns k0..k0+width-1) is factored: the panel's row interchanges applied to
// every other column (LAPACK's laswp), the step before U12 = L11^-1 A12 of blocked LU (Fig. 3-4
// of the LU paper, its §2.3). Columns left of the panel hold L and are interchanged in place;
// columns right of it are gathered, interchanged, into `block_row` (nb x the trailing width,
// leading dimension w_ld), from which blocked.cpp computes U12 = X block_row into A12's place by
// one GEMM, X = L11^-1 from trtri.comp. Why an explicit inverse rather than a substitution: the
// substitution is a dependent chain of nb^2 / 2 multiply-adds a column with few invocations to
// hide it, a GEMM has no chain at all (MAGMA and cuBLAS do the same; docs/performance.md has
// the substitution forms that lost).
// A group takes COLS columns, NB / PS invocations a column, each holding PS rows of it.
// The interchanges are not replayed one by one (each swap's loads would wait for the previous
// swap's stores): `origin` (from the panel) says which row each panel row's content came from,
// so a column reads all of its moved values at once, then writes them. Rows that move are the
// panel's rows k0..k0+width-1 and the pivot rows below them. Order matters: every panel row is
// read before any is written (a barrier, since a column's rows are spread over the group's
// parts); a pivot row below the panel takes the content of a panel row (the only rows whose
// content can leave for below), read before the panel rows are written.
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) readonly buffer Pivots { int pivots[]; };
layout(std430, binding = 6) readonly buffer Origin { int origin[]; };

uniform int n;
uniform int k0;
uniform int width;

shared int source[NB];        // row k0+j takes the content of row source[j]
shared int extra_row[NB];     // pivot row below the panel's rows, or -1 ...
shared int extra_source[NB];  // ... and where its new content comes from
layout(std430, binding = 7) writeonly buffer BlockRow { float block_row[]; };
uniform int w_ld;

void main() {
    const int t = int(gl_LocalInvocationID.x);
    for (int j = t; j < NB; j += WG_SIZE) {
        source[j] = j < width ? origin[k0 + j] : k0 + j;
        const int p = j < width ? pivots[k0 + j] : -1;
        extra_row[j] = p >= k0 + width ? p : -1;
        extra_source[j] = p >= k0 + width ? origin[p] : -1;
    }
    barrier();

    const int c = t % COLS, part = t / COLS;
    const int q = int(gl_WorkGroupID.x) * COLS + c;
    const bool in_range = q < n - width;  // no early return: the group meets at the barrier
    const int col = q < k0 ? q : q + width;
    float x[PS], moved[PS];
    for (int i = 0; i < PS; ++i) {
        const int j = part * PS + i;
        x[i] = in_range && j < width ? a[source[j] * n + col] : 0.0;
        moved[i] = in_range && extra_row[j] >= 0 ? a[extra_source[j] * n + col] : 0.0;
    }
    // A column's rows are spread over the group's parts: every read before any write.
    barrier();
    if (in_range) {
        for (int i = 0; i < PS; ++i) {
            const int j = part * PS + i;
            if (extra_row[j] >= 0) a[extra_row[j] * n + col] = moved[i];
            if (j < width) {
                if (col < k0)
                    a[(k0 + j) * n + col] = x[i];
                else
                    block_row[j * w_ld + col - k0 - width] = x[i];
            }
        }
    }
}
