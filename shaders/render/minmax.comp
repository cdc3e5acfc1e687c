// Min/max of the drawn field and the count of non-finite cells, in two dispatches with no
// atomics and no host-side reset (a glBufferSubData into a buffer the previous frame's shaders
// still read can make the driver wait):
//   PASS 1: each of the work groups strides over the field and writes its partial result;
//   PASS 2: one work group reduces the partials into the range buffer (order-preserving uint
//           keys, see range.glsl).
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 1) buffer RangeBuffer {
    uint range_min_key;
    uint range_max_key;
    uint range_nonfinite;
    uint range_pad;
};
struct Partial {
    float lo, hi;
    uint bad, pad;
};
layout(std430, binding = 3) buffer Partials { Partial partials[]; };
uniform uint count;  // PASS 1: field size; PASS 2: number of partials

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
#ifdef PASS1
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
#else
    for (uint i = gl_LocalInvocationID.x; i < count; i += WG_SIZE) {
        lo = min(lo, partials[i].lo);
        hi = max(hi, partials[i].hi);
        bad += partials[i].bad;
    }
#endif
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
    if (t != 0u) return;
#ifdef PASS1
    partials[gl_WorkGroupID.x] = Partial(group_min[0], group_max[0], group_bad[0], 0u);
#else
    const bool any_finite = group_min[0] <= group_max[0];
    range_min_key = any_finite ? float_to_key(group_min[0]) : 0xFFFFFFFFu;
    range_max_key = any_finite ? float_to_key(group_max[0]) : 0u;
    range_nonfinite = group_bad[0];
#endif
}
