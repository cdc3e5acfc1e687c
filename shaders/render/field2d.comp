// The flat view computed, not rasterised: one invocation per viewport pixel writes the
// background, the field (bilinear between cell centres, read straight from the simulation's
// storage buffer, through the colormap) and the colour bar into an rgba8 image. Compute runs on
// every SM, where on compute GPUs (H100/H200) only a few can run fragment shaders.
#include "render/colormaps.glsl"
#include "render/range.glsl"
#include "render/colour_bar.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba8, binding = 0) writeonly uniform image2D target;
layout(std430, binding = 0) readonly buffer Field { float field[]; };

uniform ivec2 origin;      // the viewport's lower-left pixel in the image
uniform ivec2 size;        // the viewport's size
uniform vec2 domain_min;   // the domain's rectangle, pixels relative to the viewport (y up)
uniform vec2 domain_max;
uniform ivec2 area_origin; // the field's part of the viewport, relative to the viewport
uniform ivec2 area_size;
uniform vec3 background;
uniform ivec2 grid;

float cell(ivec2 c) {
    c = clamp(c, ivec2(0), grid - 1);
    return field[c.y * grid.x + c.x];
}

void main() {
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= size.x || p.y >= size.y) return;
    const vec2 centre = vec2(p) + 0.5;
    vec4 colour = vec4(background, 1.0);
    const bool in_area = all(greaterThanEqual(p, area_origin)) &&
                         all(lessThan(p, area_origin + area_size));
    if (in_area && all(greaterThanEqual(centre, domain_min)) && all(lessThan(centre, domain_max))) {
        const vec2 uv = (centre - domain_min) / (domain_max - domain_min);
        const vec2 q = uv * vec2(grid) - 0.5;  // cell i has its centre at i + 0.5
        const ivec2 c = ivec2(floor(q));
        const vec2 f = q - vec2(c);
        const float v = mix(mix(cell(c), cell(c + ivec2(1, 0)), f.x),
                            mix(cell(c + ivec2(0, 1)), cell(c + ivec2(1, 1)), f.x), f.y);
        if (isnan(v) || isinf(v)) {
            // Never a NaN as a colour: a neutral grey checker marks non-finite cells.
            const ivec2 k = p / 4;
            colour = vec4(vec3(((k.x + k.y) & 1) == 0 ? 0.25 : 0.35), 1.0);
        } else {
            const vec2 r = value_range();
            colour = vec4(colormap(map, colour_position(v, r)), 1.0);
        }
    }
    vec4 bar;
    if (colour_bar_pixel(p, bar)) colour = bar;
    imageStore(target, origin + p, colour);
}
