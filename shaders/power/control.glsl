// The power method's state on the GPU (gpu-opt, gpu-opt-async), std430, 24 bytes; the host
// mirror is ControlBlock in solvers/power/power_gpu.cpp.
// Not `coherent`: kernels only read what earlier dispatches wrote (glMemoryBarrier orders that),
// and a coherent read would send every thread's load of these words to one L2 line.
layout(std430, binding = 6) buffer Control {
    double c_lambda;         // lambda of the latest iteration (kept once frozen)
    uint c_iteration;        // iterations done (Step2 counts them)
    uint c_not_converged;    // Step3's flag for the latest iteration
    uint c_converged_at;     // the iteration whose update stayed within tol; 0 = not yet
    uint c_breakdown_at;     // the iteration where A x = 0 was met; 0 = never
};
// Once converged or broken down, x and lambda are final: every kernel returns at once, so the
// iterations the host queues before it next reads the flag change nothing.
bool frozen() { return c_converged_at != 0u || c_breakdown_at != 0u; }

// The books read once per work group: lambda and the frozen state go through shared memory.
// Why: the control block is one L2 line that every warp of every group used to load (Step1:
// 8192 groups x 8 warps, each frozen() two words; Step3 also lambda), all of those requests
// queueing at one L2 slice; the --step3-probe measured lambda from a uniform 8 us faster than
// lambda loaded by every thread (30 -> 22 us), and in gpu-opt on the H200 (2M rows) Step3 fell
// from 55 to 36 us with this alone (Step1 did not change measurably: 0.185 ms).
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
