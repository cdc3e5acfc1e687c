// gpu-opt Step3 (seed 004): x = y / lambda, and raise the not-converged flag where any
// |x_new - x_old| >= tol (NaN included) — a flag, not a norm: no second reduction. Each work
// group gathers its verdict in shared memory and writes the flag at most once.
// X_IMAGE = 1: x lives ONLY in the SpMV's 2D texture (power/x_image.glsl) while gpu-opt
// iterates: the old x is loaded from it and the new x stored into it, one texel (two rows) at a
// time, y read as dvec2 (16-byte loads). The storage-buffer x is not touched; the host copies
// the texture back (x_unmirror.comp) when the eigenvector is asked for. That drops 16 MB of the
// 64 MB Step3 moved per iteration at 2M rows (read y, read x, write x, write texture).
// Cost (H200, gpu-opt at 2M rows, tol 0, one device call; solvers/power/RESULTS.md): 54.8 us
// before, 28.7 us now: lambda and the frozen state loaded once per group (control.glsl) instead
// of by every warp: -19 us; about one wave of groups striding over the texels (1024 instead of
// 2048, Options::step3_groups): -3.6 us; the flag stored only where a coherent read finds it
// still clear (FLAG_CHECK; with tol = 0 every group used to store into the same word): -3.6 us.
// PAIRS texels a pass, all loads issued before the arithmetic: 1 and 2 alike (28.4 / 28.7 us),
// 4 slower (36 us).
layout(local_size_x = WG_SIZE) in;
#if X_IMAGE
// Two views of y (aliased blocks at one binding): pairs for the 16-byte loads, scalars for
// the odd row at the end (a dvec2 there would read past the buffer).
layout(std430, binding = 4) restrict readonly buffer Y2 { dvec2 y2[]; };
layout(std430, binding = 4) restrict readonly buffer Y { double y[]; };
#else
layout(std430, binding = 3) buffer X { double x[]; };
layout(std430, binding = 4) readonly buffer Y { double y[]; };
#endif
#include "power/control.glsl"
#if FLAG_CHECK
// The flag word again, read `coherent` (from L2, not a stale L1 copy of the books): a read that
// is stale anyway only costs a redundant store, never a missed one, since the word only goes
// from 0 to 1 during this dispatch (Step2 cleared it before, behind a barrier).
layout(std430, binding = 6) coherent readonly buffer ControlFlag {
    double f_lambda;
    uint f_iteration;
    uint f_not_converged;
};
#endif
#if X_IMAGE
#define X_IMAGE_RW
#include "power/x_image.glsl"
#endif
#ifndef PAIRS
#define PAIRS 1
#endif
uniform uint rows;
uniform double tol;

shared uint s_moved;

void main() {
    if (gl_LocalInvocationIndex == 0u) s_moved = 0u;
    if (group_frozen()) return;  // its barrier also publishes s_moved = 0
    const double lambda = group_lambda();
    bool moved = false;
    const uint stride = gl_NumWorkGroups.x * uint(WG_SIZE);
#if X_IMAGE
    const uint full = rows / 2u;          // pairs with both rows
    const uint pairs = (rows + 1u) / 2u;  // texels
    for (uint p0 = gl_GlobalInvocationID.x; p0 < pairs; p0 += stride * uint(PAIRS)) {
        dvec2 yv[PAIRS], old[PAIRS];
        for (int u = 0; u < PAIRS; ++u) {
            const uint p = p0 + uint(u) * stride;
            if (p >= pairs) break;
            if (p < full) yv[u] = y2[p];
            else yv[u] = dvec2(y[2u * p], 0.0);  // no dvec2 load past the end of y
            old[u] = load_x_pair(int(p));
        }
        for (int u = 0; u < PAIRS; ++u) {
            const uint p = p0 + uint(u) * stride;
            if (p >= pairs) break;
            // Component-wise y / lambda: the same IEEE divisions as the scalar code, so x is
            // bit-identical to the version that kept x in the storage buffer.
            dvec2 next;
            if (p < full) {
                next = yv[u] / lambda;
                if (!(abs(next.y - old[u].y) < tol)) moved = true;
            } else {
                next = dvec2(yv[u].x / lambda, 0.0);  // the odd last row; the pad word stays 0
            }
            if (!(abs(next.x - old[u].x) < tol)) moved = true;
            store_x_pair(int(p), next.x, next.y);
        }
    }
#else
    for (uint i = gl_GlobalInvocationID.x; i < rows; i += stride) {
        double next = y[i] / lambda;
        if (!(abs(next - x[i]) < tol)) moved = true;
        x[i] = next;
    }
#endif
    if (moved) s_moved = 1u;
    barrier();
    if (gl_LocalInvocationIndex == 0u && s_moved != 0u) {
#if FLAG_CHECK
        if (f_not_converged == 0u) c_not_converged = 1u;
#else
        c_not_converged = 1u;
#endif
    }
}
