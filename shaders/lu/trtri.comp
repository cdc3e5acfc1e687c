// X = L11^-1 for blocked LU's block-row solve by explicit inverse (solvers/lu/blocked.cpp):
// L11 is the panel's unit lower triangle (width x width, rows and
// columns k0..k0+width-1 of the matrix), X is written NB x NB row-major to `inverse` (rows and
// columns past `width` are the identity's). U12 = X * A12 is then one GEMM with inner dimension
// nb instead of a dependent substitution chain per column (MAGMA's and cuBLAS's trsm do the same:
// trtri of the diagonal block, then gemm).
// Rounding: under partial pivoting |l_ij| <= 1 and L11 is unit lower triangular, so this
// forward substitution divides by nothing. Column j of X solves (L11 + dL_j) x_j = e_j with
// |dL_j| <= gamma_nb |L11| (Higham, ASNA 2nd ed., Thm 8.5), so |L11 X - I| <= gamma_nb |L11||X|;
// the GEMM adds |E| <= gamma_nb |X||A12|. Together |L11 U12 - A12| <= 2 gamma_nb |L11||X||A12|
// to first order, against gamma_nb |L11||U12| = gamma_nb |L11||X A12| for substitution
// (Du Croz & Higham 1992): |X||A12| in place of |X A12|, worse only by how much |X| = |L11^-1|
// cancels. With |l_ij| <= 1, |X| <= 2^(nb-1) in theory (the growth factor's worst case) and
// O(nb) in practice; the tests check the whole factorisation against the Wilkinson bound.
// Layout: work group g takes CB columns of X (j = g CB + c), one invocation per (row i, column):
// x_ij lives in a register; rows k..k+STEP-1 publish their x_kj, every invocation finishes
// that block's triangle itself, and every row below subtracts the block's terms l_ik x_kj
// (right-looking column substitution by blocks of STEP rows: one barrier a block,
// double-buffered). Columns j < g CB of L are not needed by this group's columns (x_kj = 0
// for k < j). L11 is kept in shared memory column by column (the strictly lower part of column k
// contiguous, so a warp's 32 consecutive rows read 32 consecutive words) where it fits.
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;  // NB * CB

layout(std430, binding = 0) readonly buffer Matrix { float a[]; };
layout(std430, binding = 7) writeonly buffer Inverse { float inverse[]; };

uniform int n;
uniform int k0;
uniform int width;

// Column k's rows k+1..NB-1 start at k (NB - 1) - k (k - 1) / 2.
#define COLUMN_START(k) ((k) * (NB - 1) - (k) * ((k) - 1) / 2)
#if LOWER_SHARED
shared float lower_t[NB * (NB - 1) / 2];
#define LOWER(i, k) lower_t[COLUMN_START(k) + (i) - (k) - 1]
#else
#define LOWER(i, k) ((i) < width ? a[(k0 + (i)) * n + k0 + (k)] : 0.0)
#endif
#define STEP 4  // rows of X a barrier (NB and CB are multiples of it)
shared float published[2][STEP][CB];  // x_kj of block k / STEP, by the block's parity
#define LOADS ((NB * NB + NB * CB - 1) / (NB * CB))  // L11's words an invocation loads

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int i = t % NB, c = t / NB;
    const int first = int(gl_WorkGroupID.x) * CB;
    const int j = first + c;
#if LOWER_SHARED
    // Rows of L11 along the row (coalesced loads), every load issued before the first store: a
    // store waits for its load, so load-store pairs in a loop would pay one L2 round trip each.
    float lower_words[LOADS];
    for (int h = 0; h < LOADS; ++h) {
        const int e = h * NB * CB + t;
        const int r = e / NB, k = e % NB;
        lower_words[h] = r < width && k < r && k >= first ? a[(k0 + r) * n + k0 + k] : 0.0;
    }
    for (int h = 0; h < LOADS; ++h) {
        const int e = h * NB * CB + t;
        const int r = e / NB, k = e % NB;
        if (r < NB && k < r && k >= first) LOWER(r, k) = lower_words[h];
    }
#endif
    // STEP rows a barrier: rows k..k+STEP-1 publish their x (final up to these rows' own
    // block), every invocation finishes the block's small triangle itself (STEP (STEP - 1) / 2
    // multiply-adds, the same ones in the same order as one row a step), then subtracts the
    // block's STEP columns of L. A barrier a row (127 at nb = 128) made X the longer of
    // the pair it runs beside (the interchanges); blocks of STEP rows took that back
    // (docs/performance.md). CB and `first` are multiples of STEP.
    float x = i == j ? 1.0 : 0.0;
    for (int k = first; k < NB - 1; k += STEP) {
        const int b = (k / STEP) & 1;
        if (i >= k && i < k + STEP) published[b][i - k][c] = x;
        // One barrier a block: published[b] is written again two blocks later, after every
        // invocation has passed the next block's barrier, hence finished reading this one.
        barrier();
        float y[STEP];
        for (int s = 0; s < STEP; ++s) {
            y[s] = published[b][s][c];
            for (int r = 0; r < s; ++r) y[s] -= LOWER(k + s, k + r) * y[r];
        }
        if (i >= k + STEP) {
            for (int s = 0; s < STEP; ++s) x -= LOWER(i, k + s) * y[s];
        } else if (i >= k) {
            for (int s = 0; s < STEP; ++s)
                if (i == k + s) x = y[s];
        }
    }
    inverse[i * NB + j] = x;
}
