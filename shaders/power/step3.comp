// gpu-opt Step3 (seed 004): x = y / lambda, and raise the not-converged flag where any
// |x_new - x_old| >= tol (NaN included) — a flag, not a norm: no second reduction. Each work
// group gathers its verdict in shared memory and writes the flag at most once.
// X_IMAGE = 1: x is also written to the SpMV's 2D texture (power/x_image.glsl), two rows a thread.
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 3) buffer X { double x[]; };
layout(std430, binding = 4) readonly buffer Y { double y[]; };
#include "power/control.glsl"
#if X_IMAGE
#define X_IMAGE_WRITE
#include "power/x_image.glsl"
#endif
uniform uint rows;
uniform double tol;

shared uint s_moved;

void main() {
    if (frozen()) return;
    if (gl_LocalInvocationIndex == 0u) s_moved = 0u;
    barrier();
    const double lambda = c_lambda;
    bool moved = false;
#if X_IMAGE
    // Pairs of rows: one texel of the SpMV's x texture each.
    const uint pairs = (rows + 1u) / 2u;
    for (uint p = gl_GlobalInvocationID.x; p < pairs; p += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        const uint i = 2u * p;
        const double next0 = y[i] / lambda;
        if (!(abs(next0 - x[i]) < tol)) moved = true;
        x[i] = next0;
        double next1 = 0.0;
        if (i + 1u < rows) {
            next1 = y[i + 1u] / lambda;
            if (!(abs(next1 - x[i + 1u]) < tol)) moved = true;
            x[i + 1u] = next1;
        }
        store_x_pair(int(p), next0, next1);
    }
#else
    for (uint i = gl_GlobalInvocationID.x; i < rows; i += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        double next = y[i] / lambda;
        if (!(abs(next - x[i]) < tol)) moved = true;
        x[i] = next;
    }
#endif
    if (moved) s_moved = 1u;
    barrier();
    if (gl_LocalInvocationIndex == 0u && s_moved != 0u) c_not_converged = 1u;
}
