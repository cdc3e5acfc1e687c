// The field drawn flat: each pixel samples the simulation's storage buffer directly
// (bilinear between cell centres, cell (i, j) at j * nx + i) and maps it through the colormap.
#include "render/colormaps.glsl"
#include "render/range.glsl"

layout(std430, binding = 0) readonly buffer Field { float field[]; };
uniform ivec2 grid;
uniform int map;
in vec2 uv;
out vec4 colour;

float cell(ivec2 c) {
    c = clamp(c, ivec2(0), grid - 1);
    return field[c.y * grid.x + c.x];
}

void main() {
    vec2 p = uv * vec2(grid) - 0.5;  // cell-centred: cell i has its centre at i + 0.5
    ivec2 c = ivec2(floor(p));
    vec2 f = p - vec2(c);
    float a = cell(c), b = cell(c + ivec2(1, 0)), d = cell(c + ivec2(0, 1)),
          e = cell(c + ivec2(1, 1));
    float v = mix(mix(a, b, f.x), mix(d, e, f.x), f.y);
    if (isnan(v) || isinf(v)) {
        // Never draw a NaN as a colour: a neutral checker marks cells that are not finite.
        ivec2 k = ivec2(gl_FragCoord.xy) / 4;
        colour = vec4(vec3(((k.x + k.y) & 1) == 0 ? 0.25 : 0.35), 1.0);
        return;
    }
    vec2 r = value_range();
    colour = vec4(colormap(map, (v - r.x) / (r.y - r.x)), 1.0);
}
