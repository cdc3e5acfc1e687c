// line_solve.glsl — one tridiagonal line solved by a whole work group in shared memory:
// cyclic reduction (Kim & Lee's odd-even reduction, generalised to any N) switching to parallel
// cyclic reduction when few equations remain (Zhang, Cohen & Owens 2010, "Fast tridiagonal
// solvers on the GPU", CR-PCR hybrid), then CR back substitution. fp32, no pivoting: meant for
// diagonally dominant systems; a zero or non-finite pivot is reported, never hidden.
//
// ---------------------------------------------------------------------------------------------
// API (a reusable include: sim/ kernels fuse their explicit half-step into the load)
// ---------------------------------------------------------------------------------------------
// The includer, BEFORE `#include "tridiagonal/line_solve.glsl"`:
//   - declares a 1-D work group: layout(local_size_x = WG) in;  (any WG >= LS_PCR_SIZE)
//   - #define LS_MAX_N <n>   the longest line it will solve. This file declares
//         shared float ls_a[LS_MAX_N], ls_b[LS_MAX_N], ls_c[LS_MAX_N], ls_d[LS_MAX_N];
//     i.e. 16 * LS_MAX_N bytes of shared memory (GL guarantees 32 KiB: LS_MAX_N <= 2048;
//     NVIDIA gives 48 KiB: LS_MAX_N <= 3072). Longer lines need another method
//     (solvers/tridiagonal falls back to its global-memory path).
//   - optionally #define LS_PCR_SIZE <m>  (default 32, must be <= WG): CR runs until at most m
//     equations are left, PCR solves those.
//   - optionally #define LS_PADDED: the arrays get one padding word per 32 (CR's stride-2^s
//     accesses then spread over the shared-memory banks instead of piling onto one: several
//     times faster on NVIDIA). Equation i then lives at ls_a[ls_index(i)] etc. (not [i]), and
//     the arrays take 16 * (LS_MAX_N + LS_MAX_N / 32 + 1) bytes. Without it ls_index(i) == i.
// Then, in main(), with the SAME n in every invocation of the work group (uniform control
// flow: the function contains barriers):
//     for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
//         ls_a[i] = a_i; ls_b[i] = b_i; ls_c[i] = c_i; ls_d[i] = k_i;   // equation i
//     }
//     bool ok = ls_solve(n);          // 1 <= n <= LS_MAX_N; starts and ends with a barrier
//     for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) x_i = ls_d[i];
//     if (!ok) { ...report a pivot failure (e.g. atomicCompSwap on a flag buffer)... }
// Equation i is a_i x_{i-1} + b_i x_i + c_i x_{i+1} = k_i; a_0 and c_{n-1} are ignored
// (ls_solve zeroes them). On return ls_d[i] holds x_i and ls_a/ls_b/ls_c are overwritten.
// `ok` is false in every invocation that met a zero or non-finite pivot (OR it over the group
// if you need one answer; each failing invocation reporting is enough for a flag).
// Call ls_solve once per invocation, straight from main() (not inside a loop): on NVIDIA's GL
// compiler a barrier-holding function called repeatedly inside a loop gave wrong results in this
// project's CG kernel (fixed by writing its reductions out in main); one call like the example
// in line_solve_example.comp is what is tested on the H200 (cr-shared) and on llvmpipe.
// Cost: ~2 log2(n) barriers; work O(n) for the CR part plus O(m log m) for PCR.
// ---------------------------------------------------------------------------------------------

#ifndef LS_MAX_N
#error "define LS_MAX_N (the longest line) before including tridiagonal/line_solve.glsl"
#endif
#ifndef LS_PCR_SIZE
#define LS_PCR_SIZE 32u
#endif

#ifdef LS_PADDED
#define LS_SLOT(p) ((p) + ((p) >> 5u))
#define LS_ARRAY_SIZE (LS_MAX_N + LS_MAX_N / 32 + 1)
#else
#define LS_SLOT(p) (p)
#define LS_ARRAY_SIZE LS_MAX_N
#endif
shared float ls_a[LS_ARRAY_SIZE];
shared float ls_b[LS_ARRAY_SIZE];
shared float ls_c[LS_ARRAY_SIZE];
shared float ls_d[LS_ARRAY_SIZE];

// Where equation i lives in the ls_ arrays.
uint ls_index(uint i) { return LS_SLOT(i); }

// A pivot must be non-zero and finite (NaN fails the comparisons too).
bool ls_pivot_ok(float pivot) {
    return pivot != 0.0 && !isnan(pivot) && !isinf(pivot);
}

bool ls_solve(uint n) {
    const uint tid = gl_LocalInvocationID.x;
    const uint threads = gl_WorkGroupSize.x;
    bool ok = true;
    memoryBarrierShared();
    barrier();
    if (tid == 0u) {
        ls_a[LS_SLOT(0)] = 0.0;
        ls_c[LS_SLOT(n - 1u)] = 0.0;
    }
    memoryBarrierShared();
    barrier();

    // Forward reduction, in place. At stride h the live equations sit at positions
    // p = (j+1) h - 1 (j = 0 .. n/h - 1). Level h -> 2h eliminates x_{p-h} and x_{p+h} from the
    // equations at the odd live positions (Kim & Lee's reduction step:
    // alpha = -a_i/b_{i-h}, gamma = -c_i/b_{i+h}, a' = alpha a_{i-h}, c' = gamma c_{i+h},
    // b' = b + alpha c_{i-h} + gamma a_{i+h}, k' = k + alpha k_{i-h} + gamma k_{i+h}).
    // A neighbour past the end (p + h >= n, any n) is absent: gamma = 0. Each level reads
    // positions that no invocation writes in that level, so one barrier per level suffices.
    uint h = 1u;
    uint live = n;
    while (live > LS_PCR_SIZE) {
        const uint count = n / (2u * h);
        for (uint j = tid; j < count; j += threads) {
            const uint p = 2u * h * (j + 1u) - 1u;
            const uint l = p - h;
            const uint r = p + h;
            const float bl = ls_b[LS_SLOT(l)];
            ok = ok && ls_pivot_ok(bl);
            const float alpha = -ls_a[LS_SLOT(p)] / bl;
            float a_new = alpha * ls_a[LS_SLOT(l)];
            float b_new = ls_b[LS_SLOT(p)] + alpha * ls_c[LS_SLOT(l)];
            float d_new = ls_d[LS_SLOT(p)] + alpha * ls_d[LS_SLOT(l)];
            float c_new = 0.0;
            if (r < n) {
                const float br = ls_b[LS_SLOT(r)];
                ok = ok && ls_pivot_ok(br);
                const float gamma = -ls_c[LS_SLOT(p)] / br;
                c_new = gamma * ls_c[LS_SLOT(r)];
                b_new += gamma * ls_a[LS_SLOT(r)];
                d_new += gamma * ls_d[LS_SLOT(r)];
            }
            ls_a[LS_SLOT(p)] = a_new;
            ls_b[LS_SLOT(p)] = b_new;
            ls_c[LS_SLOT(p)] = c_new;
            ls_d[LS_SLOT(p)] = d_new;
        }
        memoryBarrierShared();
        barrier();
        h *= 2u;
        live = n / h;
    }

    // PCR on the `live` (<= LS_PCR_SIZE <= work-group size) equations at positions (j+1) h - 1:
    // every equation eliminates its neighbours at distance s (in live-index space) each step,
    // s = 1, 2, 4, ...; after ceil(log2 live) steps each equation is decoupled: x = k / b.
    // Reads and writes of a step are separated by a barrier (the arrays are updated in place).
    {
        const uint j = tid;
        const uint p = (j + 1u) * h - 1u;
        for (uint s = 1u; s < live; s *= 2u) {
            float a_new = 0.0, b_new = 1.0, c_new = 0.0, d_new = 0.0;
            if (j < live) {
                b_new = ls_b[LS_SLOT(p)];
                d_new = ls_d[LS_SLOT(p)];
                if (j >= s) {
                    const uint l = p - s * h;
                    const float bl = ls_b[LS_SLOT(l)];
                    ok = ok && ls_pivot_ok(bl);
                    const float alpha = -ls_a[LS_SLOT(p)] / bl;
                    a_new = alpha * ls_a[LS_SLOT(l)];
                    b_new += alpha * ls_c[LS_SLOT(l)];
                    d_new += alpha * ls_d[LS_SLOT(l)];
                }
                if (j + s < live) {
                    const uint r = p + s * h;
                    const float br = ls_b[LS_SLOT(r)];
                    ok = ok && ls_pivot_ok(br);
                    const float gamma = -ls_c[LS_SLOT(p)] / br;
                    c_new = gamma * ls_c[LS_SLOT(r)];
                    b_new += gamma * ls_a[LS_SLOT(r)];
                    d_new += gamma * ls_d[LS_SLOT(r)];
                }
            }
            memoryBarrierShared();
            barrier();
            if (j < live) {
                ls_a[LS_SLOT(p)] = a_new;
                ls_b[LS_SLOT(p)] = b_new;
                ls_c[LS_SLOT(p)] = c_new;
                ls_d[LS_SLOT(p)] = d_new;
            }
            memoryBarrierShared();
            barrier();
        }
        if (j < live) {
            const float b = ls_b[LS_SLOT(p)];
            ok = ok && ls_pivot_ok(b);
            ls_d[LS_SLOT(p)] = ls_d[LS_SLOT(p)] / b;
        }
        memoryBarrierShared();
        barrier();
    }

    // Back substitution (Kim & Lee's filling step), stride h/2 down to 1: the equations at
    // positions (2k+1) h - 1 get x_p = (k_p - a_p x_{p-h} - c_p x_{p+h}) / b_p from the
    // neighbours solved at the coarser level; a neighbour outside [0, n) is zero.
    while (h > 1u) {
        h /= 2u;
        const uint count = (n / h + 1u) / 2u;
        for (uint k = tid; k < count; k += threads) {
            const uint p = (2u * k + 1u) * h - 1u;
            float rhs = ls_d[LS_SLOT(p)];
            if (p >= h) rhs -= ls_a[LS_SLOT(p)] * ls_d[LS_SLOT(p - h)];
            if (p + h < n) rhs -= ls_c[LS_SLOT(p)] * ls_d[LS_SLOT(p + h)];
            const float b = ls_b[LS_SLOT(p)];
            ok = ok && ls_pivot_ok(b);
            ls_d[LS_SLOT(p)] = rhs / b;
        }
        memoryBarrierShared();
        barrier();
    }
    return ok;
}
