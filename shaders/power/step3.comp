// gpu-opt Step3 (seed 004): x = y / lambda, and raise the not-converged flag where any
// |x_new - x_old| >= tol (NaN included) — a flag, not a norm: no second reduction. Each work
// group gathers its verdict in shared memory and writes the flag at most once.
// DEFER_SCALE = 1 (the default where x lives in the SpMV's 2D texture): Step1 already stored
// y into the texture and the next Step1 divides each gather by lambda, so x = y / lambda is
// never stored: Step3 only tests. It reads y of this iteration and of the one before (a pair of
// buffers, or x_0 in the first iteration) as dvec2 (16-byte loads) and forms both x's as the
// gathers do (power/divide.glsl): 32 MB of streaming reads at 2M rows, no writes.
// Every path divides through power/divide.glsl (the correctly rounded quotient from Step2's
// reciprocal; GLSL's float64 division made this kernel division-bound on the H200).
// X_IMAGE = 1 (DEFER_SCALE = 0): x lives only in the SpMV's 2D texture (power/x_image.glsl):
// the old x is loaded from it and the new x stored into it, one texel (two rows) a thread.
// Else: x in its storage buffer (read the old, write the new).
layout(local_size_x = WG_SIZE) in;
#if DEFER_SCALE || X_IMAGE
// Two views of y (aliased blocks at one binding): pairs for the 16-byte loads, scalars for
// the odd row at the end (a dvec2 there would read past the buffer).
layout(std430, binding = 4) restrict readonly buffer Y2 { dvec2 y2[]; };
layout(std430, binding = 4) restrict readonly buffer Y { double y[]; };
#else
layout(std430, binding = 3) buffer X { double x[]; };
layout(std430, binding = 4) readonly buffer Y { double y[]; };
#endif
#if DEFER_SCALE
// y of the previous iteration (scaled by c_lambda_prev), or x_0 itself in the first iteration.
layout(std430, binding = 7) restrict readonly buffer Old2 { dvec2 old2[]; };
layout(std430, binding = 7) restrict readonly buffer Old { double old1[]; };
#endif
#include "power/control.glsl"
#include "power/divide.glsl"
#if X_IMAGE && !DEFER_SCALE
#define X_IMAGE_RW
#include "power/x_image.glsl"
#endif
uniform uint rows;
uniform double tol;

shared uint s_moved;

void main() {
    if (frozen()) return;
    if (gl_LocalInvocationIndex == 0u) s_moved = 0u;
    barrier();
    const double lambda = c_lambda, r = c_rcp;
    bool moved = false;
#if DEFER_SCALE
    const double lambda_old = c_lambda_prev, r_old = c_rcp_prev;
    const bool old_scaled = c_iteration > 1u;
    const uint full = rows / 2u;
    const uint pairs = (rows + 1u) / 2u;
    for (uint p = gl_GlobalInvocationID.x; p < pairs; p += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        if (p < full) {
            const dvec2 yy = y2[p];
            const dvec2 next = dvec2(divide_by(yy.x, lambda, r), divide_by(yy.y, lambda, r));
            dvec2 old = old2[p];
            if (old_scaled)
                old = dvec2(divide_by(old.x, lambda_old, r_old), divide_by(old.y, lambda_old, r_old));
            if (!(abs(next.x - old.x) < tol) || !(abs(next.y - old.y) < tol)) moved = true;
        } else {
            const double next = divide_by(y[2u * p], lambda, r);
            double old = old1[2u * p];
            if (old_scaled) old = divide_by(old, lambda_old, r_old);
            if (!(abs(next - old) < tol)) moved = true;
        }
    }
#elif X_IMAGE
    const uint full = rows / 2u;          // pairs with both rows
    const uint pairs = (rows + 1u) / 2u;  // texels
    for (uint p = gl_GlobalInvocationID.x; p < pairs; p += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        const dvec2 old = load_x_pair(int(p));
        // The same quotients as the scalar code, so x is bit-identical to the version that
        // keeps x in the storage buffer.
        dvec2 next;
        if (p < full) {
            const dvec2 yy = y2[p];
            next = dvec2(divide_by(yy.x, lambda, r), divide_by(yy.y, lambda, r));
            if (!(abs(next.y - old.y) < tol)) moved = true;
        } else {
            next = dvec2(divide_by(y[2u * p], lambda, r), 0.0);  // the odd last row; the pad word stays 0
        }
        if (!(abs(next.x - old.x) < tol)) moved = true;
        store_x_pair(int(p), next.x, next.y);
    }
#else
    for (uint i = gl_GlobalInvocationID.x; i < rows; i += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        double next = divide_by(y[i], lambda, r);
        if (!(abs(next - x[i]) < tol)) moved = true;
        x[i] = next;
    }
#endif
    if (moved) s_moved = 1u;
    barrier();
    if (gl_LocalInvocationIndex == 0u && s_moved != 0u) c_not_converged = 1u;
}
