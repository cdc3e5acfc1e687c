// Reductions shared by the power-method kernels (the power-method paper).
// Needs WG_SIZE, TPR (threads per matrix row, a power of two <= the subgroup size) and
// USE_SUBGROUPS (1: GL_KHR_shader_subgroup shuffles; 0: shared memory, e.g. on llvmpipe).
// The including file enables the subgroup extensions (they must precede other tokens).
//
// Doubles go through subgroupShuffleXor as two 32-bit words (unpackDouble2x32), so only the
// basic and shuffle subsets for 32-bit integers are needed, not 64-bit subgroup arithmetic.

// The element of larger magnitude, ties to the positive one: commutative and associative, so
// every reduction order (and the host) picks the same lambda.
double maxmag(double a, double b) {
    double aa = abs(a), ab = abs(b);
    return aa > ab ? a : (ab > aa ? b : max(a, b));
}

#if USE_SUBGROUPS

double shuffle_xor(double v, uint mask) {
    return packDouble2x32(subgroupShuffleXor(unpackDouble2x32(v), mask));
}
// Clusters are TPR consecutive invocations of one subgroup, whatever the mapping of local
// invocations to subgroups.
uint cluster_lane() { return gl_SubgroupInvocationID % uint(TPR); }
uint cluster_index() {
    return (gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID) / uint(TPR);
}
// The sum over the caller's cluster, in every lane (butterfly). Call in uniform control flow.
double cluster_sum(double v) {
    for (uint m = uint(TPR) / 2u; m > 0u; m >>= 1u) v += shuffle_xor(v, m);
    return v;
}
shared double s_partial[WG_SIZE];
// maxmag over the work group; valid where group_leader() is true. Uniform control flow.
double group_maxmag(double v) {
    for (uint m = gl_SubgroupSize / 2u; m > 0u; m >>= 1u) v = maxmag(v, shuffle_xor(v, m));
    if (gl_SubgroupInvocationID == 0u) s_partial[gl_SubgroupID] = v;
    barrier();
    if (gl_SubgroupID == 0u) {
        v = gl_SubgroupInvocationID < gl_NumSubgroups ? s_partial[gl_SubgroupInvocationID] : 0.0;
        for (uint m = gl_SubgroupSize / 2u; m > 0u; m >>= 1u) v = maxmag(v, shuffle_xor(v, m));
    }
    return v;
}
bool group_leader() { return gl_SubgroupID == 0u && gl_SubgroupInvocationID == 0u; }

#else

shared double s_partial[WG_SIZE];
uint cluster_lane() { return gl_LocalInvocationIndex % uint(TPR); }
uint cluster_index() { return gl_LocalInvocationIndex / uint(TPR); }
double cluster_sum(double v) {
#if TPR > 1
    uint i = gl_LocalInvocationIndex;
    s_partial[i] = v;
    for (uint m = uint(TPR) / 2u; m > 0u; m >>= 1u) {
        barrier();
        if (cluster_lane() < m) s_partial[i] += s_partial[i + m];
    }
    barrier();
    v = s_partial[i - cluster_lane()];
    barrier();  // the array is written again by the next call
#endif
    return v;
}
double group_maxmag(double v) {
    uint i = gl_LocalInvocationIndex;
    s_partial[i] = v;
    for (uint m = uint(WG_SIZE) / 2u; m > 0u; m >>= 1u) {
        barrier();
        if (i < m) s_partial[i] = maxmag(s_partial[i], s_partial[i + m]);
    }
    barrier();
    return s_partial[0];
}
bool group_leader() { return gl_LocalInvocationIndex == 0u; }

#endif
