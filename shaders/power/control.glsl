// The power method's state on the GPU (gpu-opt, gpu-opt-async), std430, 24 bytes; the host
// mirror is ControlBlock in solvers/power/power_gpu.cpp.
// Not `coherent`: kernels only read what earlier dispatches wrote (glMemoryBarrier orders that),
// and a coherent read would send every thread's load of these words to one L2 line.
#ifndef ATOMIC_MAX
#define ATOMIC_MAX 0
#endif
layout(std430, binding = 6) buffer Control {
    double c_lambda;         // lambda of the latest iteration (kept once frozen)
    uint c_iteration;        // iterations done (Step2 counts them)
    uint c_not_converged;    // Step3's flag for the latest iteration
    uint c_converged_at;     // the iteration whose update stayed within tol; 0 = not yet
    uint c_breakdown_at;     // the iteration where A x = 0 was met; 0 = never
#if ATOMIC_MAX
    // ATOMIC_MAX = 2: the same with the 64-bit max emulated under a lock (Tuning::
// emulate_atomic_max: tests only, where GL_NV_shader_atomic_int64 is missing, e.g. llvmpipe).
// ATOMIC_MAX = 1 (gpu-opt without Step2, where GL_NV_shader_atomic_int64 exists): Step1's
    // work groups atomicMax their maxmag_key into c_key[j & 1] for iteration j, Step3 decodes
    // lambda from it and keeps the books, and Step3 of j raises c_flag[j & 1]. Two of each,
    // alternating by parity, so that each is cleared (by Step1's first group: the key of
    // j + 1 and the flag of j) with no dispatch of its own, after its last reader is done.
    uint64_t c_key[2];
    uint c_flag[2];
    uint c_lock;  // ATOMIC_MAX = 2 only
#endif
};
// Once converged or broken down, x and lambda are final: every kernel returns at once, so the
// iterations the host queues before it next reads the flag change nothing.
bool frozen() { return c_converged_at != 0u || c_breakdown_at != 0u; }

// The books read once per work group: lambda and the frozen state go through shared memory.
// Why: the control block is one L2 line that every warp of every group used to load (Step1:
// 8192 groups x 8 warps, each frozen() two words; Step3 also lambda), all of those requests
// queueing at one L2 slice; loading them once a group took about a third off Step3
// (docs/performance.md).
// Call in uniform control flow (a barrier).
shared double s_control_lambda;
shared uint s_control_frozen;
bool group_frozen() {
    if (gl_LocalInvocationIndex == 0u) {
        s_control_frozen = frozen() ? 1u : 0u;
        s_control_lambda = c_lambda;
    }
    barrier();
    return s_control_frozen != 0u;
}
// Valid after group_frozen().
double group_lambda() { return s_control_lambda; }

#if ATOMIC_MAX
// A 64-bit key that orders exactly as maxmag() (power/reduce.glsl): |v| first (the bits of a
// non-negative double order as unsigned integers), ties to the non-negative element. A NaN
// (any sign: abs clears it) orders above infinity and decodes to a NaN: a breakdown, as a
// non-finite lambda is today. -0 keys as +0 (both breakdowns).
uint64_t maxmag_key(double v) {
    return (doubleBitsToUint64(abs(v)) << 1) | uint64_t(v >= 0.0 ? 1u : 0u);
}
double key_value(uint64_t key) {
    const double magnitude = uint64BitsToDouble(key >> 1);
    return (key & uint64_t(1u)) != uint64_t(0u) ? magnitude : -magnitude;
}
#endif
