// Adds a Gaussian bump strength * exp(-r^2 / radius^2) (cut at 3 radii) to a field, and with
// TWO_FIELDS to a second one too (shallow water: the current and previous heights, so the
// surface is displaced without being given a velocity). NON_NEGATIVE: a negative bump removes
// only what is there, so a concentration never goes below zero.
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer First { float first[]; };
#ifdef TWO_FIELDS
layout(std430, binding = 1) buffer Second { float second[]; };
#endif
uniform int nx;
uniform int ny;
uniform vec2 center;  // cells
uniform float radius; // cells
uniform float strength;

void main() {
    const int id = int(gl_GlobalInvocationID.x);
    if (id >= nx * ny) return;
    const vec2 r = (vec2(id % nx, id / nx) + 0.5 - center) / radius;
    const float r2 = dot(r, r);
    if (r2 >= 9.0) return;
    const float bump = strength * exp(-r2);
#ifdef NON_NEGATIVE
    first[id] = max(first[id] + bump, min(first[id], 0.0));
#else
    first[id] += bump;
#endif
#ifdef TWO_FIELDS
    second[id] += bump;
#endif
}
