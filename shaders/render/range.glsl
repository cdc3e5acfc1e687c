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
// Log scale (concentrations spanning decades): the range's top and at most kLogDecades below
// it, or the range's bottom when that is positive. render::colour_position does the same.
uniform int log_scale;
const float kLogDecades = 4.0;

float key_to_float(uint key) {
    return uintBitsToFloat((key & 0x80000000u) != 0u ? (key & 0x7FFFFFFFu) : ~key);
}

vec2 value_range() {
    vec2 r = auto_range != 0 ? vec2(key_to_float(range_min_key), key_to_float(range_max_key))
                             : fixed_range;
    // A flat field (or no finite value at all) still maps to the middle of the colormap.
    if (!(r.y > r.x)) r = vec2(r.x - 0.5, r.x + 0.5);
    if (isnan(r.x) || isinf(r.x)) r = vec2(0.0, 1.0);
    if (log_scale != 0 && centred == 0) {
        r.y = max(r.y, 1e-30);
        r.x = max(r.x, r.y * pow(10.0, -kLogDecades));
    }
    if (centred != 0) {
        const float half_width = max(max(r.y - reference, reference - r.x), 1e-30);
        r = vec2(reference - half_width, reference + half_width);
    }
    return r;
}

// Where `v` falls on the colormap (0 at r.x, 1 at r.y), linear or logarithmic.
float colour_position(float v, vec2 r) {
    if (log_scale != 0 && centred == 0)
        return (log(max(v, r.x)) - log(r.x)) / (log(r.y) - log(r.x));
    return (v - r.x) / (r.y - r.x);
}
