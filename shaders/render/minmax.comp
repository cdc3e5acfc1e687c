// Min/max of the drawn field and the count of non-finite cells, in one dispatch: each work
// group strides over the field, reduces in shared memory, then one atomicMin/atomicMax per
// group on order-preserving uint keys (see range.glsl). The range buffer is reset to
// (0xFFFFFFFF, 0, 0) by the host before the dispatch.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 1) buffer RangeBuffer {
    uint range_min_key;
    uint range_max_key;
    uint range_nonfinite;
    uint range_pad;
};
uniform uint count;

shared float group_min[WG_SIZE];
shared float group_max[WG_SIZE];
shared uint group_bad[WG_SIZE];

uint float_to_key(float f) {
    uint u = floatBitsToUint(f);
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

void main() {
    float lo = 3.0e38, hi = -3.0e38;
    uint bad = 0u;
    const uint stride = gl_NumWorkGroups.x * WG_SIZE;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        float v = field[i];
        if (isnan(v) || isinf(v)) {
            bad += 1u;
        } else {
            lo = min(lo, v);
            hi = max(hi, v);
        }
    }
    const uint t = gl_LocalInvocationID.x;
    group_min[t] = lo;
    group_max[t] = hi;
    group_bad[t] = bad;
    barrier();
    for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
        if (t < s) {
            group_min[t] = min(group_min[t], group_min[t + s]);
            group_max[t] = max(group_max[t], group_max[t + s]);
            group_bad[t] += group_bad[t + s];
        }
        barrier();
    }
    if (t == 0u) {
        if (group_min[0] <= group_max[0]) {
            atomicMin(range_min_key, float_to_key(group_min[0]));
            atomicMax(range_max_key, float_to_key(group_max[0]));
        }
        if (group_bad[0] != 0u) atomicAdd(range_nonfinite, group_bad[0]);
    }
}
