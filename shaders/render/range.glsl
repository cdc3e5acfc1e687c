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
// Diverging maps: the range made symmetric about `reference` (the rest level, the initial
// value), so that the neutral middle colour means "unchanged". render::shown_range does the
// same on the host for the colour bar's labels.
uniform int centred;
uniform float reference;

float key_to_float(uint key) {
    return uintBitsToFloat((key & 0x80000000u) != 0u ? (key & 0x7FFFFFFFu) : ~key);
}

vec2 value_range() {
    vec2 r = auto_range != 0 ? vec2(key_to_float(range_min_key), key_to_float(range_max_key))
                             : fixed_range;
    // A flat field (or no finite value at all) still maps to the middle of the colormap.
    if (!(r.y > r.x)) r = vec2(r.x - 0.5, r.x + 0.5);
    if (isnan(r.x) || isinf(r.x)) r = vec2(0.0, 1.0);
    if (centred != 0) {
        const float half_width = max(max(r.y - reference, reference - r.x), 1e-30);
        r = vec2(reference - half_width, reference + half_width);
    }
    return r;
}
