#ifndef ATOMIC_MAX
#define ATOMIC_MAX 0
#endif
#ifndef KEY_SLOTS
#define KEY_SLOTS 1
#endif
#if ATOMIC_MAX
#extension GL_ARB_gpu_shader_int64 : require
#endif
// gpu-opt Step3 (the power-method paper): x = y / lambda, and raise the not-converged flag
// where any |x_new - x_old| >= tol (NaN included) — a flag, not a norm: no second reduction. Each work
// group gathers its verdict in shared memory and writes the flag at most once.
// X_IMAGE = 1: x lives ONLY in the SpMV's 2D texture (power/x_image.glsl) while gpu-opt
// iterates: the old x is loaded from it and the new x stored into it, one texel (two rows) at a
// time, y read as dvec2 (16-byte loads). The storage-buffer x is not touched; the host copies
// the texture back (x_unmirror.comp) when the eigenvector is asked for. That drops 16 MB of the
// 64 MB Step3 moved per iteration at 2M rows (read y, read x, write x, write texture).
// Why it costs what it does (docs/performance.md has the figures): lambda and the frozen state
// are loaded once a group (control.glsl), not by every warp; about one wave of groups strides
// over the texels (Tuning::step3_groups); the flag is stored only where a coherent read finds
// it still clear (with tol = 0 every group would store into the same word); one texel a pass,
// and x's texture in whole GOBs (x_image.glsl), so each warp loads and stores 512 contiguous
// bytes.
// ATOMIC_MAX = 1 (no Step2): Step3 of iteration j also keeps the books Step2 kept. Every group
// decides alike from words nobody writes during this dispatch: frozen; Step3 of j - 1 left its
// flag clear (converged at j - 1); lambda decoded from Step1's key is 0 or not finite
// (breakdown at j). Group 0 records that (and c_iteration, c_lambda, and with BOOKS a copy
// for the host, as step2.comp does); a group that sees group 0's record instead returns just
// the same. finalize = 1 (one group, after the last iteration): only the convergence check.
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
#if ATOMIC_MAX && KEY_SLOTS > 1
#include "power/key_slots.glsl"  // lambda's key: the max over S slots (Step1's atomics)
#endif
#if ATOMIC_MAX
uniform uint iteration;  // j, counted by the host from 1 in each solve
uniform uint finalize;
#if BOOKS
layout(std430, binding = 7) coherent writeonly buffer Books {
    uint b_iteration, b_not_converged, b_converged_at, b_breakdown_at, b_stamp;
};
uniform uint stamp;  // as step2.comp
#endif
shared uint s_stop;
shared double s_lambda;
// Uniform control flow. True where this group has nothing to do.
bool group_books() {
#if KEY_SLOTS > 1
    const uint64_t key = group_slot_max(iteration);
#endif
    if (gl_LocalInvocationIndex == 0u) {
        uint state = 0u;  // 0 go on, 1 frozen, 2 converged at j - 1, 3 finalize, 4 breakdown
        double lambda = 0.0;
        if (frozen()) {
            state = 1u;
        } else if (iteration > 1u && c_flag[(iteration - 1u) & 1u] == 0u) {
            state = 2u;
        } else if (finalize != 0u) {
            state = 3u;
        } else {
#if KEY_SLOTS > 1
            lambda = key_value(key);
#else
            lambda = key_value(c_key[iteration & 1u]);
#endif
            if (lambda == 0.0 || isnan(lambda) || isinf(lambda)) state = 4u;
        }
        s_stop = state;
        s_lambda = lambda;
        if (gl_WorkGroupID.x == 0u) {
            if (state == 2u) c_converged_at = iteration - 1u;
            if (state == 0u || state == 4u) c_iteration = iteration;
            if (state == 0u) c_lambda = lambda;
            if (state == 4u) c_breakdown_at = iteration;
#if BOOKS
            b_iteration = c_iteration;
            b_not_converged = c_flag[(iteration - 1u) & 1u];
            b_converged_at = c_converged_at;
            b_breakdown_at = c_breakdown_at;
            memoryBarrierBuffer();  // the books before the stamp that vouches for them
            b_stamp = (stamp << 1u) | (state != 0u && state != 3u ? 1u : 0u);
#endif
        }
    }
    barrier();
    return s_stop != 0u;
}
#endif
#if ATOMIC_MAX
layout(std430, binding = 6) coherent readonly buffer ControlFlag {
    double f_lambda;
    uint f_iteration, f_not_converged, f_converged_at, f_breakdown_at;
    uint64_t f_key[2];
    uint f_flag[2];
    uint f_lock;
};
#else
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
// Texels a thread loads per pass, all loads issued before the arithmetic: 1 measured best.
#define PAIRS 1
uniform uint rows;
uniform double tol;

shared uint s_moved;

#if X_IMAGE
// One pass's loads (PAIRS texels a thread, stride apart): y as dvec2 (the odd last row as a
// scalar: no dvec2 load past the end of y), the old x pair from the texture.
dvec2 yv[PAIRS], old[PAIRS];
void load_pass(uint p0, uint stride) {
    const uint full = rows / 2u;          // pairs with both rows
    const uint pairs = (rows + 1u) / 2u;  // texels
    for (int u = 0; u < PAIRS; ++u) {
        const uint p = p0 + uint(u) * stride;
        if (p >= pairs) break;
        if (p < full) yv[u] = y2[p];
        else yv[u] = dvec2(y[2u * p], 0.0);
        old[u] = load_x_pair(int(p));
    }
}
#endif

void main() {
    if (gl_LocalInvocationIndex == 0u) s_moved = 0u;
    const uint stride = gl_NumWorkGroups.x * uint(WG_SIZE);
#if ATOMIC_MAX
    if (group_books()) return;  // its barrier also publishes s_moved = 0
    const double lambda = s_lambda;
#else
    if (group_frozen()) return;  // its barrier also publishes s_moved = 0
    const double lambda = group_lambda();
#endif
    bool moved = false;
#if X_IMAGE
    const uint full = rows / 2u;          // pairs with both rows
    const uint pairs = (rows + 1u) / 2u;  // texels
    for (uint p0 = gl_GlobalInvocationID.x; p0 < pairs; p0 += stride * uint(PAIRS)) {
        load_pass(p0, stride);
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
#if ATOMIC_MAX
        if (f_flag[iteration & 1u] == 0u) c_flag[iteration & 1u] = 1u;
#else
        if (f_not_converged == 0u) c_not_converged = 1u;
#endif
    }
}
