// gpu-opt Step3 (seed 004): x = y / lambda, and raise the not-converged flag where any
// |x_new - x_old| >= tol (NaN included) — a flag, not a norm: no second reduction. Each work
// group gathers its verdict in shared memory and writes the flag at most once.
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 3) buffer X { double x[]; };
layout(std430, binding = 4) readonly buffer Y { double y[]; };
#include "power/control.glsl"
uniform uint rows;
uniform double tol;

shared uint s_moved;

void main() {
    if (frozen()) return;
    if (gl_LocalInvocationIndex == 0u) s_moved = 0u;
    barrier();
    const double lambda = c_lambda;
    bool moved = false;
    for (uint i = gl_GlobalInvocationID.x; i < rows; i += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        double next = y[i] / lambda;
        if (!(abs(next - x[i]) < tol)) moved = true;
        x[i] = next;
    }
    if (moved) s_moved = 1u;
    barrier();
    if (gl_LocalInvocationIndex == 0u && s_moved != 0u) c_not_converged = 1u;
}
