#if USE_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
// gpu-opt Step2 (the power-method paper): one work group finishes the max-magnitude reduction
// of Step1's partial results into lambda. It also keeps the books, so the host need not look
// each time: first it reads the flag Step3 left for the previous iteration, and if that stayed clear it
// records that iteration as the converged one and freezes; a zero (or non-finite) lambda is a
// breakdown (A x = 0) and freezes too. finalize = 1 only keeps the books (after the last
// iteration the host queued).
// BOOKS = 1: the books are also copied into `Books` (host-visible memory, gl::Readback), so
// that gpu-opt's host can read them behind a fence while the GPU goes on with the next work,
// and a stamp word, (stamp << 1) | frozen, stored last as one 32-bit word: the host may poll it
// with no fence (Tuning::flag_poll) and knows from the stamp which Step2 it comes from.
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 5) readonly buffer Partials { double partials[]; };
#include "power/control.glsl"
#if BOOKS
// coherent: the stores go to memory (the host's mapped buffer), not to a cache of this SM.
layout(std430, binding = 7) coherent writeonly buffer Books {
    uint b_iteration, b_not_converged, b_converged_at, b_breakdown_at, b_stamp;
};
uniform uint stamp;  // 31 bits, counts up from solve to solve (the host compares modulo 2^31)
#endif
uniform uint partial_count;
uniform uint finalize;

#include "power/reduce.glsl"

void copy_books() {
#if BOOKS
    b_iteration = c_iteration;
    b_not_converged = c_not_converged;
    b_converged_at = c_converged_at;
    b_breakdown_at = c_breakdown_at;
    memoryBarrierBuffer();  // the books before the stamp that vouches for them
    b_stamp = (stamp << 1u) | (frozen() ? 1u : 0u);
#endif
}

// Partials loaded per thread before any is compared: one work group is all this kernel has, so
// its time is latency; 8192 partials / 1024 threads load in one round instead of eight.
const uint kLoads = 8u;

void main() {
    const bool leader = gl_LocalInvocationIndex == 0u;
    if (frozen()) {
        if (leader) copy_books();
        return;
    }
    // Every invocation reads the books before invocation 0 writes them (after the barrier in
    // group_maxmag), and all take the same branch.
    if (c_iteration > 0u && c_not_converged == 0u) {
        if (leader) {
            c_converged_at = c_iteration;
            copy_books();
        }
        return;
    }
    if (finalize != 0u) {
        if (leader) copy_books();
        return;
    }
    double best = 0.0;
    for (uint base = gl_LocalInvocationIndex; base < partial_count;
         base += kLoads * uint(WG_SIZE)) {
        double v[kLoads];
        for (uint u = 0u; u < kLoads; ++u) {
            const uint i = base + u * uint(WG_SIZE);
            v[u] = i < partial_count ? partials[i] : 0.0;  // 0: neutral for maxmag
        }
        for (uint u = 0u; u < kLoads; ++u) best = maxmag(best, v[u]);
    }
    best = group_maxmag(best);
    if (group_leader()) {
        c_iteration += 1u;
        if (best == 0.0 || isnan(best) || isinf(best)) {
            c_breakdown_at = c_iteration;
        } else {
            c_lambda = best;
            c_not_converged = 0u;
        }
        copy_books();
    }
}
