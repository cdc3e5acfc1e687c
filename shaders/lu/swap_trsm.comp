// After a panel (columns k0..k0+width-1) is factored: the panel's row interchanges applied to
// every other column, fused with the triangular solve for the block row (seed 003 §2.3):
// U12 = L11^-1 A12, L11 the panel's unit lower triangle (width x width).
// One invocation per column outside the panel (modes 0-2), x along the row so that loads
// coalesce. Columns left of the panel only take the interchanges (they hold L: LAPACK's laswp
// on the left), columns right of it also the forward substitution, by TRSM_MODE
// (ADILAB_LU_TRSM):
//   0 `reg`: in registers, loops left to the compiler;
//   1 `shared`: the columns in shared memory (nb <= 64: the group's columns and L11 must fit);
//   2 `unrolled`: in registers with every loop unrolled (optionNV(unroll all)), so x[] is plain
//     registers and the substitution straight-line code;
//   3 `blocked` (not yet measured on a GPU): NB / PS invocations per column, each holding PS
//     (16) rows of it in registers; diagonal block b is solved by its part, published in shared
//     memory, and subtracted by the parts below it (a 16 x 16 product each, in parallel).
//     Modes 0-2 give a group only 8192 invocations at n = 8192 (2 warps an SM), all of them
//     running a dependent chain of nb^2/2 multiply-adds; this one has NB / 16 times as many
//     invocations and a chain of about NB / 16 diagonal solves of 120 multiply-adds.
//   4 `inverse` (default; measured in blocked.cpp): the interchanges only, PS rows of a column
//     an invocation as in 3, with A12's interchanged rows gathered into `block_row` (nb x the
//     trailing width, leading dimension w_ld) instead of the matrix: blocked.cpp then computes
//     U12 = X block_row into A12's place by one GEMM, X = L11^-1 from shaders/lu/trtri.comp
//     (no dependent chain here at all).
// H200, n = 8192, the phase alone: nb = 64: reg 8.3 ms, shared 7.3, unrolled 9.4 (the same
// before and after the loads of L11 and of the columns got constant trip counts, so the loads
// were not what cost: about 60 us a panel for a dependent chain of ~2k multiply-adds in 2 warps
// an SM); nb = 128: unrolled 21.4 ms with L11 packed in shared memory (53.6 when it was read from
// the matrix), reg 29.2. `blocked` is the attempt at more invocations: measure it first.
// L11 is kept packed (the strictly lower triangle, row j at j(j-1)/2): 8 KiB at nb = 64, 32.5 KiB
// at nb = 128, so nb = 128 fits the 48 KiB of shared memory too.
// The interchanges are not replayed one by one (each swap's loads would wait for the previous
// swap's stores): `origin` (from the panel) says which row each panel row's content came from,
// so a column reads all of its moved values at once, then writes them. Rows that move are the
// panel's rows k0..k0+width-1 and the pivot rows below them. Order matters (in modes 0-2 each
// invocation works on its own column, no barrier): every panel row is read before any is
// written; a pivot row below the panel takes the content of a panel row (the only rows whose
// content can leave for below), read before the panel rows are written.
#if TRSM_MODE != 0
#pragma optionNV(unroll all)
#endif
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 1) readonly buffer Pivots { int pivots[]; };
layout(std430, binding = 6) readonly buffer Origin { int origin[]; };

uniform int n;
uniform int k0;
uniform int width;

#define PACKED (NB * (NB - 1) / 2)
#if LOWER_SHARED
shared float lower[PACKED];   // L11's strictly lower triangle, row j at j(j-1)/2
#define LOWER(j, i) lower[(j) * ((j) - 1) / 2 + (i)]
#else
// Where shared memory is too small for it (llvmpipe's 32 KiB at nb = 128): from the matrix, the
// same address in every invocation of a group.
#define LOWER(j, i) ((j) < width ? a[(k0 + (j)) * n + k0 + (i)] : 0.0)
#endif
shared int source[NB];        // row k0+j takes the content of row source[j]
shared int extra_row[NB];     // pivot row below the panel's rows, or -1 ...
shared int extra_source[NB];  // ... and where its new content comes from
#if TRSM_MODE == 1
shared float x_block[NB * WG_SIZE];
#endif
#if TRSM_MODE == 4
layout(std430, binding = 7) writeonly buffer BlockRow { float block_row[]; };
uniform int w_ld;
#endif
#if TRSM_MODE == 3
// PS rows a part, PARTS = NB / PS parts, TRSM_COLS columns a group (WG_SIZE = TRSM_COLS * PARTS).
#define PARTS (NB / PS)
shared float x_solved[PS * TRSM_COLS];  // the diagonal block just solved, [row][column]
#endif

void main() {
    const int t = int(gl_LocalInvocationID.x);
    // L11 row by row: a constant number of rows, so the loads of an invocation are independent.
#if LOWER_SHARED
    for (int j = 1; j < NB; ++j)
        for (int h = 0; h < (NB + WG_SIZE - 1) / WG_SIZE; ++h) {
            const int i = h * WG_SIZE + t;
            if (i < j) LOWER(j, i) = j < width ? a[(k0 + j) * n + k0 + i] : 0.0;
        }
#endif
    for (int j = t; j < NB; j += WG_SIZE) {
        source[j] = j < width ? origin[k0 + j] : k0 + j;
        const int p = j < width ? pivots[k0 + j] : -1;
        extra_row[j] = p >= k0 + width ? p : -1;
        extra_source[j] = p >= k0 + width ? origin[p] : -1;
    }
    barrier();

#if TRSM_MODE == 4
    const int c = t % TRSM_COLS, part = t / TRSM_COLS;
    const int q = int(gl_WorkGroupID.x) * TRSM_COLS + c;
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
#elif TRSM_MODE == 3
    const int c = t % TRSM_COLS, part = t / TRSM_COLS;
    const int q = int(gl_WorkGroupID.x) * TRSM_COLS + c;
    const bool in_range = q < n - width;  // no early return: the group meets at barriers
    const int col = q < k0 ? q : q + width;
    const bool solve = in_range && col >= k0;
    float x[PS];
    for (int i = 0; i < PS; ++i) {
        const int j = part * PS + i;
        x[i] = in_range && j < width ? a[source[j] * n + col] : 0.0;
    }
    // The moves write rows below the panel, which another part may have just read (a pivot
    // row's content going up): after every part's loads.
    barrier();
    for (int i = 0; i < PS; ++i) {
        const int j = part * PS + i;
        if (in_range && extra_row[j] >= 0) a[extra_row[j] * n + col] = a[extra_source[j] * n + col];
    }
    for (int b = 0; b < PARTS; ++b) {
        if (part == b) {
            if (solve)
                for (int i = 1; i < PS; ++i)
                    for (int k = 0; k < i; ++k) x[i] -= LOWER(b * PS + i, b * PS + k) * x[k];
            for (int i = 0; i < PS; ++i) x_solved[i * TRSM_COLS + c] = x[i];
        }
        barrier();
        if (part > b && solve) {
            for (int k = 0; k < PS; ++k) {
                const float xk = x_solved[k * TRSM_COLS + c];
                for (int i = 0; i < PS; ++i) x[i] -= LOWER(part * PS + i, b * PS + k) * xk;
            }
        }
        if (b + 1 < PARTS) barrier();  // x_solved is written again in the next step
    }
    for (int i = 0; i < PS; ++i) {
        const int j = part * PS + i;
        if (in_range && j < width) a[(k0 + j) * n + col] = x[i];
    }
#else
    const int q = int(gl_GlobalInvocationID.x);
    if (q >= n - width) return;
    const int col = q < k0 ? q : q + width;
#if TRSM_MODE == 1
    // The column lives in shared memory (x_block[j][t], consecutive invocations on consecutive
    // banks) instead of a per-invocation array.
    for (int j = 0; j < NB; ++j)
        if (j < width) x_block[j * WG_SIZE + t] = a[source[j] * n + col];
    for (int j = 0; j < NB; ++j)
        if (extra_row[j] >= 0) a[extra_row[j] * n + col] = a[extra_source[j] * n + col];
    if (col >= k0) {
        for (int j = 1; j < NB; ++j) {
            if (j >= width) break;
            float s = x_block[j * WG_SIZE + t];
            for (int i = 0; i < j; ++i) s -= LOWER(j, i) * x_block[i * WG_SIZE + t];
            x_block[j * WG_SIZE + t] = s;
        }
    }
    for (int j = 0; j < NB; ++j)
        if (j < width) a[(k0 + j) * n + col] = x_block[j * WG_SIZE + t];
#elif TRSM_MODE == 2
    float x[NB];
    for (int j = 0; j < NB; ++j) x[j] = j < width ? a[source[j] * n + col] : 0.0;
    for (int j = 0; j < NB; ++j)
        if (extra_row[j] >= 0) a[extra_row[j] * n + col] = a[extra_source[j] * n + col];
    if (col >= k0) {
        for (int j = 1; j < NB; ++j) {
            // Two partial sums: half the dependent chain per row. (L11 rows past width are 0.)
            float s0 = x[j], s1 = 0.0;
            for (int i = 0; i + 1 < j; i += 2) {
                s0 -= LOWER(j, i) * x[i];
                s1 -= LOWER(j, i + 1) * x[i + 1];
            }
            if ((j & 1) == 1) s0 -= LOWER(j, j - 1) * x[j - 1];
            x[j] = s0 + s1;
        }
    }
    for (int j = 0; j < NB; ++j)
        if (j < width) a[(k0 + j) * n + col] = x[j];
#else
    float x[NB], moved[NB];
    for (int j = 0; j < NB; ++j) {
        x[j] = j < width ? a[source[j] * n + col] : 0.0;
        moved[j] = extra_row[j] >= 0 ? a[extra_source[j] * n + col] : 0.0;
    }
    if (col >= k0) {
        for (int j = 1; j < NB; ++j) {
            float s = x[j];
            for (int i = 0; i < j; ++i) s -= LOWER(j, i) * x[i];
            x[j] = s;
        }
    }
    for (int j = 0; j < NB; ++j) {
        if (j < width) a[(k0 + j) * n + col] = x[j];
        if (extra_row[j] >= 0) a[extra_row[j] * n + col] = moved[j];
    }
#endif
#endif  // TRSM_MODE == 3 / 4
}
