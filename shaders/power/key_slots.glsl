// gpu-opt without Step2, KEY_SLOTS = S > 1 (Tuning::key_slots): Step1's max keys spread over
// S slots per iteration parity instead of the one c_key of power/control.glsl. Slot s of the
// set of iteration j is slot_key[key_slot_index(j, s)]; slots lie 128 bytes apart (one L2 line
// each, so on different L2 slices), set (j & 1) after set ((j + 1) & 1). Why: every work group
// of Step1 (8192 at 2M rows) did its atomicMax on ONE address, and same-address atomics
// serialise at the L2 slice that owns the line; each group of Step3 then reduces the S slots (a
// serial loop in invocation 0), so a few slots are enough (docs/performance.md). The max over
// the S slots is the key one slot would hold (the key orders exactly as maxmag, and max is
// order-independent), so lambda and x stay bit for bit the same. Step1's group 0 clears the
// set of j + 1 (as c_key).
// Bound at 5 (gpu-opt's partials binding, which this path does not use).
// (GL_ARB_gpu_shader_int64: required by the including shader, whose #extension comes first.)
const uint kKeySlotStride = 16u;  // uint64 words: 128 bytes
uint key_slot_index(uint iteration, uint slot) {
    return ((iteration & 1u) * uint(KEY_SLOTS) + slot) * kKeySlotStride;
}
layout(std430, binding = 5) buffer KeySlots { uint64_t slot_key[]; };
#if ATOMIC_MAX == 2
// The emulated max (tests only, where GL_NV_shader_atomic_int64 is missing): 32-bit atomics
// on the slot's words under the control block's lock.
layout(std430, binding = 5) coherent buffer KeySlotWords { uint w_slot[]; };
layout(std430, binding = 6) coherent buffer ControlLockWords {
    double l_lambda;
    uint l_iteration, l_not_converged, l_converged_at, l_breakdown_at;
    uint l_key[4];
    uint l_flag[2];
    uint l_lock;
};
void emulated_slot_max(uint slot, uint64_t key) {
    while (atomicCompSwap(l_lock, 0u, 1u) != 0u) {
    }
    const uint64_t current = packUint2x32(
        uvec2(atomicAdd(w_slot[2u * slot], 0u), atomicAdd(w_slot[2u * slot + 1u], 0u)));
    if (key > current) {
        atomicExchange(w_slot[2u * slot], unpackUint2x32(key).x);
        atomicExchange(w_slot[2u * slot + 1u], unpackUint2x32(key).y);
    }
    memoryBarrierBuffer();
    atomicExchange(l_lock, 0u);
}
#endif
// Step3: the key of iteration j, the max over its S slots (uniform control flow: a barrier;
// valid in invocation 0).
shared uint64_t s_slot_key[KEY_SLOTS];
uint64_t group_slot_max(uint iteration) {
    if (gl_LocalInvocationIndex < uint(KEY_SLOTS))
        s_slot_key[gl_LocalInvocationIndex] =
            slot_key[key_slot_index(iteration, gl_LocalInvocationIndex)];
    barrier();
    uint64_t key = uint64_t(0u);
    if (gl_LocalInvocationIndex == 0u)
        for (uint s = 0u; s < uint(KEY_SLOTS); ++s) key = max(key, s_slot_key[s]);
    return key;
}
