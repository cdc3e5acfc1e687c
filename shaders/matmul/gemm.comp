// gpu-fast / matmul::gemm: C = alpha * A * B + beta * C, fp32, row-major with leading dimensions
// and offsets (so it also works on sub-blocks, e.g. LU's trailing update). A is M x N, B is N x L,
// C is M x L. Beyond the OpenGL matmul paper: 2-D register blocking in the style of CUTLASS's SGEMM.
//
// Work decomposition. A work group computes a BM x BN block of C with (BM/TM)*(BN/TN)
// invocations; each invocation accumulates TM x TN entries in registers. Its rows are
// 4 * (ty + i * TY_COUNT) + 0..3 and its columns 4 * (tx + j * TX_COUNT) + 0..3: vec4 groups
// strided across the block, so that the shared-memory reads below are vec4 reads with all lanes of
// a warp hitting either one address (broadcast) or consecutive ones (no bank conflicts).
//
// Per k-tile of BK: A's BM x BK tile is stored transposed (As[k][m/4], vec4 along m) and B's
// BK x BN tile as is (Bs[k][n/4]). A is read from memory as 4 x 4 micro-blocks (4 vec4 rows) and
// transposed in registers, so every shared store is a vec4 store; APAD pads As's rows by one vec4
// so the two k-quads a warp stores in one phase fall in different banks.
// Double buffering: the next k-tile is fetched into registers before the current one is used,
// stored into the other shared buffer after, so one barrier per k-tile suffices and the global
// loads' latency hides behind TM*TN*BK FMAs.
//
// Tuning: large blocks with many outputs per invocation (256x128, 8x16, BK = 8) keep the FMAs fed
// from registers; a deeper k-tile (BK = 16) no longer fits with the padding and lost, as did
// smaller register blocks. The host picks the shape (solvers/matmul/gemm.cpp, choose_tiles);
// docs/performance.md, "Matmul", has the sweep.
//
// Edges. GUARDED = 0 is the hot variant: no bounds checks on rows and columns (the host only
// dispatches it over whole BM x BN blocks); GUARDED = 1 checks every load and store and covers the
// right and bottom strips. The remainder of N (N % BK) is one zero-filled k-tile after the loop in
// both. VEC4 = 1 uses vec4 loads and stores, which needs lda, ldb, ldc and the offsets to be
// multiples of 4 (the host checks); VEC4 = 0 reads scalars.
//
// Bindings: 0/1/2 = A/B/C as floats, 3/4/5 = the same buffers as vec4 (VEC4 only). A or B may be
// the same buffer as C if the regions do not overlap.
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef APAD
#define APAD 1
#endif
#ifndef BPAD
#define BPAD 0
#endif
#ifndef VEC4
#define VEC4 1
#endif
#ifndef GUARDED
#define GUARDED 0
#endif

#pragma optionNV(unroll all)

#define TY_COUNT (BM / TM)
#define TX_COUNT (BN / TN)
#define THREADS (TY_COUNT * TX_COUNT)
#define AROW4 (BM / 4 + APAD)
#define BROW4 (BN / 4 + BPAD)
#define A_BLOCKS (BM * BK / 16)
#define A_PER_THREAD ((A_BLOCKS + THREADS - 1) / THREADS)
#define B_VECS (BK * BN / 4)
#define B_PER_THREAD ((B_VECS + THREADS - 1) / THREADS)

// GLSL 4.30 layouts take a literal, so the host passes WG_SIZE = THREADS as a number.
#ifndef WG_SIZE
#define WG_SIZE 256
#endif
#if WG_SIZE != THREADS
#error WG_SIZE must equal (BM / TM) * (BN / TN)
#endif
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer MatrixA { float a[]; };
layout(std430, binding = 1) readonly buffer MatrixB { float b[]; };
layout(std430, binding = 2) buffer MatrixC { float c[]; };
#if VEC4
layout(std430, binding = 3) readonly buffer MatrixA4 { vec4 a4[]; };
layout(std430, binding = 4) readonly buffer MatrixB4 { vec4 b4[]; };
layout(std430, binding = 5) buffer MatrixC4 { vec4 c4[]; };
#endif

uniform int M, N, L;
uniform int lda, ldb, ldc;
uniform int a_offset, b_offset, c_offset;  // in floats
uniform float alpha, beta;
uniform ivec2 origin;  // row and column of C where this dispatch's first block starts

shared vec4 As[2][BK][AROW4];
shared vec4 Bs[2][BK][BROW4];

vec4 acc[TM][TN / 4];
vec4 fetched_a[A_PER_THREAD][4];
vec4 fetched_b[B_PER_THREAD];

vec4 load_a4(int row, int k, bool guard_k) {
#if VEC4 && !GUARDED
    if (!guard_k) return a4[(a_offset + row * lda + k) >> 2];
#endif
    vec4 v = vec4(0.0);
    bool row_ok = GUARDED == 0 || row < M;
    for (int j = 0; j < 4; ++j)
        if (row_ok && (!guard_k || k + j < N)) v[j] = a[a_offset + row * lda + k + j];
    return v;
}

vec4 load_b4(int k, int col, bool guard_k) {
    if (guard_k && k >= N) return vec4(0.0);
#if VEC4 && !GUARDED
    return b4[(b_offset + k * ldb + col) >> 2];
#else
    vec4 v = vec4(0.0);
    for (int j = 0; j < 4; ++j)
        if (GUARDED == 0 || col + j < L) v[j] = b[b_offset + k * ldb + col + j];
    return v;
#endif
}

// Global memory -> registers: the k-tile starting at k0.
void fetch_tile(int row0, int col0, int k0, bool guard_k) {
    int tid = int(gl_LocalInvocationIndex);
    for (int p = 0; p < A_PER_THREAD; ++p) {
        int e = tid + p * THREADS;
        if (A_BLOCKS % THREADS == 0 || e < A_BLOCKS) {
            int rb = e / (BK / 4), q = e % (BK / 4);
            for (int i = 0; i < 4; ++i)
                fetched_a[p][i] = load_a4(row0 + rb * 4 + i, k0 + q * 4, guard_k);
        }
    }
    for (int p = 0; p < B_PER_THREAD; ++p) {
        int e = tid + p * THREADS;
        if (B_VECS % THREADS == 0 || e < B_VECS) {
            int k = e / (BN / 4), c4i = e % (BN / 4);
            fetched_b[p] = load_b4(k0 + k, col0 + c4i * 4, guard_k);
        }
    }
}

// Registers -> shared buffer `buf`; A's 4 x 4 micro-blocks are transposed on the way.
void store_tile(int buf) {
    int tid = int(gl_LocalInvocationIndex);
    for (int p = 0; p < A_PER_THREAD; ++p) {
        int e = tid + p * THREADS;
        if (A_BLOCKS % THREADS == 0 || e < A_BLOCKS) {
            int rb = e / (BK / 4), q = e % (BK / 4);
            for (int j = 0; j < 4; ++j)
                As[buf][q * 4 + j][rb] = vec4(fetched_a[p][0][j], fetched_a[p][1][j],
                                              fetched_a[p][2][j], fetched_a[p][3][j]);
        }
    }
    for (int p = 0; p < B_PER_THREAD; ++p) {
        int e = tid + p * THREADS;
        if (B_VECS % THREADS == 0 || e < B_VECS) Bs[buf][e / (BN / 4)][e % (BN / 4)] = fetched_b[p];
    }
}

void multiply_tile(int buf, int tx, int ty) {
    for (int kk = 0; kk < BK; ++kk) {
        vec4 a_frag[TM / 4], b_frag[TN / 4];
        for (int i = 0; i < TM / 4; ++i) a_frag[i] = As[buf][kk][ty + i * TY_COUNT];
        for (int j = 0; j < TN / 4; ++j) b_frag[j] = Bs[buf][kk][tx + j * TX_COUNT];
        for (int i = 0; i < TM; ++i) {
            float av = a_frag[i / 4][i % 4];
            for (int j = 0; j < TN / 4; ++j) acc[i][j] = fma(vec4(av), b_frag[j], acc[i][j]);
        }
    }
}

void main() {
    int tid = int(gl_LocalInvocationIndex);
    int tx = tid % TX_COUNT, ty = tid / TX_COUNT;
    int row0 = origin.x + int(gl_WorkGroupID.y) * BM;
    int col0 = origin.y + int(gl_WorkGroupID.x) * BN;
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN / 4; ++j) acc[i][j] = vec4(0.0);

    int full_tiles = N / BK;
    if (full_tiles > 0) {
        fetch_tile(row0, col0, 0, false);
        store_tile(0);
    }
    memoryBarrierShared();
    barrier();
    for (int t = 0; t < full_tiles; ++t) {
        int cur = t & 1;
        bool more = t + 1 < full_tiles;
        if (more) fetch_tile(row0, col0, (t + 1) * BK, false);
        multiply_tile(cur, tx, ty);
        if (more) store_tile(cur ^ 1);
        memoryBarrierShared();
        barrier();
    }
    if (full_tiles * BK < N) {
        // The last N % BK columns of A / rows of B, zero-filled past N. Buffer full_tiles & 1 was
        // last read two iterations ago, before the loop's final barrier.
        fetch_tile(row0, col0, full_tiles * BK, true);
        store_tile(full_tiles & 1);
        memoryBarrierShared();
        barrier();
        multiply_tile(full_tiles & 1, tx, ty);
    }

    for (int i = 0; i < TM; ++i) {
        int row = row0 + (ty + (i / 4) * TY_COUNT) * 4 + i % 4;
        for (int j = 0; j < TN / 4; ++j) {
            int col = col0 + (tx + j * TX_COUNT) * 4;
            vec4 v = alpha * acc[i][j];
#if VEC4 && !GUARDED
            int index = (c_offset + row * ldc + col) >> 2;
            if (beta != 0.0) v += beta * c4[index];  // beta = 0 never reads C (it may hold NaN)
            c4[index] = v;
#else
            for (int e = 0; e < 4; ++e) {
                if (GUARDED == 0 || (row < M && col + e < L)) {
                    int index = c_offset + row * ldc + col + e;
                    float out_value = v[e];
                    if (beta != 0.0) out_value += beta * c[index];
                    c[index] = out_value;
                }
            }
#endif
        }
    }
}
