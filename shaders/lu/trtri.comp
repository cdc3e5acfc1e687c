// X = L11^-1 for blocked LU's block-row solve by explicit inverse (ADILAB_LU_TRSM=inverse,
// solvers/lu/blocked.cpp): L11 is the panel's unit lower triangle (width x width, rows and
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
// x_ij lives in a register; at step k the invocation holding x_kj (final by then) publishes it,
// and every row below subtracts l_ik x_kj (right-looking column substitution: one barrier a
// step, double-buffered). Columns j < g CB of L are not needed by this group's columns (x_kj = 0
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
shared float published[2][CB];  // x_kj of step k, by k's parity
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
    float x = i == j ? 1.0 : 0.0;
    for (int k = first; k < NB - 1; ++k) {
        if (i == k) published[k & 1][c] = x;
        // One barrier a step: published[k & 1] is written again at step k + 2, after every
        // invocation has passed step k + 1's barrier, hence finished reading it at step k.
        barrier();
        if (i > k) x -= LOWER(i, k) * published[k & 1][c];
    }
    inverse[i * NB + j] = x;
}
