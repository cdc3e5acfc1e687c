// The value range the colormap spans. The auto range is the min/max reduction of
// minmax.comp, read straight from its buffer here (no host round trip); a fixed range comes
// in uniforms. Keys are floats mapped to uints whose order is the floats' order, so that
// atomicMin/atomicMax on uint can reduce floats.
layout(std430, binding = 1) readonly buffer RangeBuffer {
    uint range_min_key;
    uint range_max_key;
    uint range_nonfinite;
    uint range_pad;
};
uniform int auto_range;
uniform vec2 fixed_range;

float key_to_float(uint key) {
    return uintBitsToFloat((key & 0x80000000u) != 0u ? (key & 0x7FFFFFFFu) : ~key);
}

vec2 value_range() {
    vec2 r = auto_range != 0 ? vec2(key_to_float(range_min_key), key_to_float(range_max_key))
                             : fixed_range;
    // A flat field (or no finite value at all) still maps to the middle of the colormap.
    if (!(r.y > r.x)) r = vec2(r.x - 0.5, r.x + 0.5);
    if (isnan(r.x) || isinf(r.x)) r = vec2(0.0, 1.0);
    return r;
}
