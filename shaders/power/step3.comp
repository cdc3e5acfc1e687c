// gpu-opt Step3 (seed 004): x = y / lambda, and raise the not-converged flag where any
// |x_new - x_old| >= tol (NaN included) — a flag, not a norm: no second reduction. Each work
// group gathers its verdict in shared memory and writes the flag at most once.
// X_IMAGE = 1: x lives ONLY in the SpMV's 2D texture (power/x_image.glsl) while gpu-opt
// iterates: the old x is loaded from it and the new x stored into it, one texel (two rows) a
// thread, y read as dvec2 (16-byte loads). The storage-buffer x is not touched; the host copies
// the texture back (x_unmirror.comp) when the eigenvector is asked for. That drops 16 MB of the
// 64 MB Step3 moved per iteration at 2M rows (read y, read x, write x, write texture).
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
#if X_IMAGE
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
    const double lambda = c_lambda;
    bool moved = false;
#if X_IMAGE
    const uint full = rows / 2u;          // pairs with both rows
    const uint pairs = (rows + 1u) / 2u;  // texels
    for (uint p = gl_GlobalInvocationID.x; p < pairs; p += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        const dvec2 old = load_x_pair(int(p));
        // Component-wise y / lambda: the same IEEE divisions as the scalar code, so x is
        // bit-identical to the version that kept x in the storage buffer.
        dvec2 next;
        if (p < full) {
            next = y2[p] / lambda;
            if (!(abs(next.y - old.y) < tol)) moved = true;
        } else {
            next = dvec2(y[2u * p] / lambda, 0.0);  // the odd last row; the pad word stays 0
        }
        if (!(abs(next.x - old.x) < tol)) moved = true;
        store_x_pair(int(p), next.x, next.y);
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
