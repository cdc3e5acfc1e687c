#if USE_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// gpu-opt Step2 (seed 004): one work group finishes the max-magnitude reduction of Step1's
// partial results into lambda. It also keeps the books, so the host need not look each time:
// first it reads the flag Step3 left for the previous iteration, and if that stayed clear it
// records that iteration as the converged one and freezes; a zero (or non-finite) lambda is a
// breakdown (A x = 0) and freezes too. finalize = 1 only keeps the books (after the last
// iteration the host queued).
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 5) readonly buffer Partials { double partials[]; };
#include "power/control.glsl"
uniform uint partial_count;
uniform uint finalize;

#include "power/reduce.glsl"

void main() {
    if (frozen()) return;
    // Every invocation reads the books before invocation 0 writes them (after the barrier in
    // group_maxmag), and all take the same branch.
    if (c_iteration > 0u && c_not_converged == 0u) {
        if (gl_LocalInvocationIndex == 0u) c_converged_at = c_iteration;
        return;
    }
    if (finalize != 0u) return;
    double best = 0.0;
    for (uint i = gl_LocalInvocationIndex; i < partial_count; i += uint(WG_SIZE))
        best = maxmag(best, partials[i]);
    best = group_maxmag(best);
    if (group_leader()) {
        c_iteration += 1u;
        if (best == 0.0 || isnan(best) || isinf(best)) {
            c_breakdown_at = c_iteration;
        } else {
            c_lambda = best;
            c_not_converged = 0u;
        }
    }
}
