// The 3-D view of a height field (shallow water over terrain), ray-cast in a compute pass: one
// invocation per viewport pixel. Compute runs on every SM; on compute GPUs (H100/H200) only a
// few SMs run the vertex and fragment stages, which made a rasterised mesh 5x slower.
//
// Surface: S = max(h, b) at every cell centre (a "sample"), bilinear over each dual cell (the
// square between four samples), at the field's full resolution. surface_blocks.comp wrote z(S)
// per sample, the (min, max) z of every BLOCK x BLOCK dual cells and of the whole surface.
// Traversal (grid units across, world units up): the ray is clipped to the surface's bounding
// box, walks the blocks with a 2-D DDA (Amanatides & Woo 1987) skipping each block its segment
// passes wholly above or below, walks the dual cells of a block it may hit the same way, and in
// each dual cell solves exactly for the first crossing of the bilinear patch, a quadratic in t
// (the hit is exact: no step size, no missed thin crests). The first crossing along the ray is
// the visible one: occlusion with no depth buffer.
//
// Shading (as the rasterised view had): Lambert diffuse plus Blinn-Phong specular from one
// directional light, normals from central differences of S at the four samples, interpolated.
// Dry cells are terrain (sand to grass by slope); wet cells are water over the terrain, which is
// lit with its own normal and shows through in proportion to exp(-absorption * depth); the water
// optionally tinted by the colormap of its height. A point is wet when it lies below the water
// level of its dual cell's wet corners (so shorelines and cliffs are where the terrain leaves
// the water). A dual cell with a non-finite h at a corner
// is drawn as a grey checker, never through the colormap. A ray that misses is the background.
#include "render/colormaps.glsl"
#include "render/range.glsl"
#include "render/colour_bar.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(rgba8, binding = 0) writeonly uniform image2D target;
layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 2) readonly buffer Bottom { float bottom[]; };
layout(std430, binding = 4) readonly buffer Surface { float surface[]; };
layout(std430, binding = 5) readonly buffer Blocks { vec2 blocks[]; };
layout(std430, binding = 6) readonly buffer Bounds { uint bound_keys[2]; };

uniform ivec2 origin;       // the viewport's lower-left pixel in the image
uniform ivec2 size;         // the viewport's size
uniform vec3 eye;           // camera position, world
// Ray direction for the pixel at ndc (x, y): forward + x * right + y * up (world; right and up
// scaled by the half-field of view, as glm::perspective and glm::lookAt build the view).
uniform vec3 forward;
uniform vec3 right;
uniform vec3 up;
uniform ivec2 grid;         // samples along x and y (>= 2 each)
uniform ivec2 block_count;
uniform vec2 half_extent;   // world half-size of the domain (the longer side spans 2)
uniform float cell_world;   // world size of a cell
uniform float height_scale; // world units per metre
uniform float base_level;   // metres drawn at z = 0
uniform int has_bottom;
uniform float floor_level;  // metres, when there is no bottom buffer
uniform vec3 light_direction;  // towards the light
uniform int tint_by_value;
uniform vec3 background;

float key_value(uint key) {
    return uintBitsToFloat((key & 0x80000000u) != 0u ? (key & 0x7FFFFFFFu) : ~key);
}

float z_at(ivec2 s) {
    s = clamp(s, ivec2(0), grid - 1);
    return surface[uint(s.y) * uint(grid.x) + uint(s.x)];
}

// The first t in [0, len] where a t^2 + b t + c changes sign, or -1. c is the value at 0.
float first_root(float a, float b, float c, float len) {
    if (c == 0.0) return 0.0;
    const float end = (a * len + b) * len + c;
    float root = -1.0;
    if (abs(a) * len < 1e-6 * (abs(b) + 1e-30)) {  // linear within this segment
        if (b != 0.0) root = -c / b;
    } else {
        const float disc = b * b - 4.0 * a * c;
        if (disc >= 0.0) {
            // The stable pair: q / a and c / q (no cancellation).
            const float q = -0.5 * (b + (b >= 0.0 ? sqrt(disc) : -sqrt(disc)));
            const float r1 = q / a, r2 = q != 0.0 ? c / q : -1.0;
            const float lo = min(r1, r2), hi = max(r1, r2);
            root = lo >= 0.0 ? lo : hi;
        }
    }
    if (root >= 0.0 && root <= len) return root;
    // Rounding can push a root just outside the segment while the ends' signs differ.
    if (sign(end) != sign(c)) return clamp(c / (c - end), 0.0, 1.0) * len;
    return -1.0;
}

struct Hit {
    float t;
    ivec2 cell;  // the dual cell's lower-left sample
    vec2 uv;     // position inside it, 0..1
};

// Bounds are compared with this slack (world z): where the ray crosses the surface exactly on
// a cell's or block's edge, rounding may put it just below the next one's minimum; skipping
// that cell would lose the hit (a pinhole of background).
const float kSlack = 1e-5;

// The dual cells of block `block` along the ray over [t_in, t_out] (grid units across). `side`:
// which side of the surface the ray was on in the cells met so far (+1 above, -1 below, 0 none
// yet); a cell the ray enters on the other side was crossed on its edge: a hit there.
bool march_block(vec3 o, vec3 d, ivec2 block, float t_in, float t_out, inout float side,
                 inout Hit hit) {
    const ivec2 lo_cell = block * BLOCK;
    const ivec2 hi_cell = min(lo_cell + BLOCK, grid - 1) - 1;
    const vec3 p = o + d * t_in;
    ivec2 c = clamp(ivec2(floor(p.xy)), lo_cell, hi_cell);
    const ivec2 step_dir = ivec2(d.x >= 0.0 ? 1 : -1, d.y >= 0.0 ? 1 : -1);
    const vec2 inv = 1.0 / d.xy;
    vec2 t_next = (vec2(c + max(step_dir, ivec2(0))) - o.xy) * inv;
    const vec2 t_delta = abs(inv);
    float t = t_in;
    for (int guard = 0; guard < 4 * BLOCK; ++guard) {
        const float t_end = min(min(t_next.x, t_next.y), t_out);
        const float z00 = z_at(c), z10 = z_at(c + ivec2(1, 0));
        const float z01 = z_at(c + ivec2(0, 1)), z11 = z_at(c + ivec2(1, 1));
        const float za = o.z + d.z * t, zb = o.z + d.z * t_end;
        const float cell_lo = min(min(z00, z10), min(z01, z11));
        const float cell_hi = max(max(z00, z10), max(z01, z11));
        if (min(za, zb) <= cell_hi + kSlack && max(za, zb) >= cell_lo - kSlack) {
            // S(u, v) = z00 + a u + b v + e u v along u = u0 + d.x s, v = v0 + d.y s.
            const vec2 uv0 = o.xy + d.xy * t - vec2(c);
            const float a = z10 - z00, b = z01 - z00, e = z11 - z10 - z01 + z00;
            const float s0 = z00 + a * uv0.x + b * uv0.y + e * uv0.x * uv0.y;
            const float s1 = a * d.x + b * d.y + e * (uv0.x * d.y + uv0.y * d.x);
            const float s2 = e * d.x * d.y;
            const float gap = za - s0;  // the ray's height over the surface where it enters
            if (side == 0.0) side = gap >= 0.0 ? 1.0 : -1.0;
            const float r = gap * side < 0.0 ? 0.0 : first_root(-s2, d.z - s1, gap, t_end - t);
            if (r >= 0.0) {
                hit.t = t + r;
                hit.cell = c;
                hit.uv = clamp(o.xy + d.xy * hit.t - vec2(c), 0.0, 1.0);
                return true;
            }
        }
        if (t_end >= t_out) break;
        if (t_next.x < t_next.y) {
            c.x += step_dir.x;
            t = t_next.x;
            t_next.x += t_delta.x;
        } else {
            c.y += step_dir.y;
            t = t_next.y;
            t_next.y += t_delta.y;
        }
        if (any(lessThan(c, lo_cell)) || any(greaterThan(c, hi_cell))) break;
    }
    return false;
}

// The ray o + t d (grid units across, world units up) against the whole surface.
bool trace(vec3 o, vec3 d, out Hit hit) {
    hit = Hit(0.0, ivec2(0), vec2(0.0));
    // Widened a little: a flat lake at the box's floor must not end the ray just short of it.
    const float z_pad = 1e-4 * (1.0 + max(abs(key_value(bound_keys[0])), abs(key_value(bound_keys[1]))));
    const float z_lo = key_value(bound_keys[0]) - z_pad, z_hi = -key_value(bound_keys[1]) + z_pad;
    // Slabs of the bounding box: x in [0, nx - 1], y in [0, ny - 1], z in [z_lo, z_hi].
    const vec3 box_lo = vec3(0.0, 0.0, z_lo), box_hi = vec3(vec2(grid - 1), z_hi);
    const vec3 inv = 1.0 / d;
    const vec3 ta = (box_lo - o) * inv, tb = (box_hi - o) * inv;
    const vec3 t_min = min(ta, tb), t_max = max(ta, tb);
    float t_in = max(max(t_min.x, t_min.y), max(t_min.z, 0.0));
    const float t_out = min(min(t_max.x, t_max.y), t_max.z);
    if (!(t_in <= t_out)) return false;

    const vec3 p = o + d * t_in;
    ivec2 k = clamp(ivec2(floor(p.xy / float(BLOCK))), ivec2(0), block_count - 1);
    const ivec2 step_dir = ivec2(d.x >= 0.0 ? 1 : -1, d.y >= 0.0 ? 1 : -1);
    vec2 t_next = (vec2((k + max(step_dir, ivec2(0))) * BLOCK) - o.xy) * inv.xy;
    const vec2 t_delta = abs(float(BLOCK) * inv.xy);
    float t = t_in;
    float side = 0.0;
    for (int guard = 0; guard < 4 * (block_count.x + block_count.y); ++guard) {
        const float t_end = min(min(t_next.x, t_next.y), t_out);
        const vec2 range = blocks[k.y * block_count.x + k.x];
        const float za = o.z + d.z * t, zb = o.z + d.z * t_end;
        if (min(za, zb) <= range.y + kSlack && max(za, zb) >= range.x - kSlack &&
            march_block(o, d, k, t, t_end, side, hit))
            return true;
        if (t_end >= t_out) break;
        if (t_next.x < t_next.y) {
            k.x += step_dir.x;
            t = t_next.x;
            t_next.x += t_delta.x;
        } else {
            k.y += step_dir.y;
            t = t_next.y;
            t_next.y += t_delta.y;
        }
        if (any(lessThan(k, ivec2(0))) || any(greaterThanEqual(k, block_count))) break;
    }
    return false;
}

float bottom_at(ivec2 s) {
    s = clamp(s, ivec2(0), grid - 1);
    const float b = has_bottom != 0 ? bottom[uint(s.y) * uint(grid.x) + uint(s.x)] : floor_level;
    return (isnan(b) || isinf(b)) ? base_level : b;
}

// World-space gradient of a sampled height (world z) at sample s: central differences (one-sided
// at the edges).
vec2 z_gradient(ivec2 s) {
    const ivec2 xm = max(s - ivec2(1, 0), ivec2(0)), xp = min(s + ivec2(1, 0), grid - 1);
    const ivec2 ym = max(s - ivec2(0, 1), ivec2(0)), yp = min(s + ivec2(0, 1), grid - 1);
    return vec2((z_at(xp) - z_at(xm)) / (float(xp.x - xm.x) * cell_world),
                (z_at(yp) - z_at(ym)) / (float(yp.y - ym.y) * cell_world));
}

vec2 bottom_gradient(ivec2 s) {
    const ivec2 xm = max(s - ivec2(1, 0), ivec2(0)), xp = min(s + ivec2(1, 0), grid - 1);
    const ivec2 ym = max(s - ivec2(0, 1), ivec2(0)), yp = min(s + ivec2(0, 1), grid - 1);
    return height_scale * vec2((bottom_at(xp) - bottom_at(xm)) / (float(xp.x - xm.x) * cell_world),
                               (bottom_at(yp) - bottom_at(ym)) / (float(yp.y - ym.y) * cell_world));
}

vec2 bilinear2(vec2 a00, vec2 a10, vec2 a01, vec2 a11, vec2 f) {
    return mix(mix(a00, a10, f.x), mix(a01, a11, f.x), f.y);
}

float bilinear(float a00, float a10, float a01, float a11, vec2 f) {
    return mix(mix(a00, a10, f.x), mix(a01, a11, f.x), f.y);
}

vec3 terrain_colour(vec3 n, vec3 l) {
    const float diffuse = max(dot(n, l), 0.0);
    const vec3 sand = vec3(0.76, 0.70, 0.50), grass = vec3(0.33, 0.45, 0.25);
    return mix(sand, grass, smoothstep(0.6, 0.95, n.z) * 0.6) * (0.35 + 0.65 * diffuse);
}

vec4 shade(Hit hit, vec3 view_dir, ivec2 pixel) {
    const ivec2 c = hit.cell;
    const ivec2 s00 = c, s10 = c + ivec2(1, 0), s01 = c + ivec2(0, 1), s11 = c + ivec2(1, 1);
    const uint row0 = uint(c.y) * uint(grid.x), row1 = row0 + uint(grid.x);
    const float h00 = field[row0 + uint(c.x)], h10 = field[row0 + uint(c.x + 1)];
    const float h01 = field[row1 + uint(c.x)], h11 = field[row1 + uint(c.x + 1)];
    const vec4 hs = vec4(h00, h10, h01, h11);
    if (any(isnan(hs)) || any(isinf(hs))) {
        // Never a NaN as a colour: a neutral grey checker marks non-finite cells.
        const ivec2 k = pixel / 4;
        return vec4(vec3(((k.x + k.y) & 1) == 0 ? 0.25 : 0.35), 1.0);
    }
    const vec2 f = hit.uv;
    const vec3 l = normalize(light_direction);
    const vec3 v = -view_dir;
    const vec2 grad = bilinear2(z_gradient(s00), z_gradient(s10), z_gradient(s01),
                                z_gradient(s11), f);
    vec3 n = normalize(vec3(-grad, 1.0));
    if (dot(n, v) < 0.0) n = -n;  // seen from below
    const float b00 = bottom_at(s00), b10 = bottom_at(s10), b01 = bottom_at(s01),
                b11 = bottom_at(s11);
    // Wet: below the water level of the cell's wet corners (depth > 1 mm). On a shore cell the
    // waterline is then where the interpolated terrain rises out of the water, and a cliff
    // above a lake is terrain, not water smeared up the face by interpolating the depth.
    const vec4 depths = hs - vec4(b00, b10, b01, b11);
    const bvec4 wet = greaterThan(depths, vec4(1e-3));
    if (!any(wet)) return vec4(terrain_colour(n, l), 1.0);
    const vec4 corner_z = vec4(z_at(s00), z_at(s10), z_at(s01), z_at(s11));
    const vec4 wet_z = mix(vec4(-3.4e38), corner_z, wet);
    const float level = max(max(wet_z.x, wet_z.y), max(wet_z.z, wet_z.w));
    const float hit_z = bilinear(corner_z.x, corner_z.y, corner_z.z, corner_z.w, f);
    if (hit_z > level + 1e-3 * height_scale) return vec4(terrain_colour(n, l), 1.0);
    const float depth = max(bilinear(depths.x, depths.y, depths.z, depths.w, f), 0.0);  // metres

    const vec2 bottom_grad = bilinear2(bottom_gradient(s00), bottom_gradient(s10),
                                       bottom_gradient(s01), bottom_gradient(s11), f);
    const vec3 terrain = terrain_colour(normalize(vec3(-bottom_grad, 1.0)), l);
    const vec3 water = vec3(0.10, 0.35, 0.65);
    const float diffuse = max(dot(n, l), 0.0);
    const vec3 half_vector = normalize(l + v);
    const float specular = pow(max(dot(n, half_vector), 0.0), 80.0);
    if (tint_by_value != 0) {
        // The legend's colour, lightly shaded and nearly opaque: a half-and-half mix with the
        // water's blue (and the bottom seen through it) matched no colour on the bar.
        const vec2 r = value_range();
        const float value = bilinear(h00, h10, h01, h11, f);
        const vec3 tint = colormap(map, colour_position(value, r)) * (0.8 + 0.2 * diffuse);
        return vec4(mix(terrain, tint, 0.92) + vec3(0.35) * specular, 1.0);
    }
    const float fresnel = 0.1 + 0.9 * pow(1.0 - max(dot(n, v), 0.0), 5.0);
    // Depth in world units: 0.25 of the domain's half-width hides about 60 % of the bottom.
    const float murk = 1.0 - exp(-4.0 * depth * height_scale);
    const vec3 lit = water * (0.3 + 0.7 * diffuse);
    return vec4(mix(terrain, lit, clamp(0.35 + 0.65 * murk + 0.3 * fresnel, 0.0, 1.0)) +
                    vec3(0.9) * specular, 1.0);
}

void main() {
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= size.x || p.y >= size.y) return;
    vec4 colour;
    if (!colour_bar_pixel(p, colour)) {
        const vec2 ndc = (vec2(p) + 0.5) / vec2(size) * 2.0 - 1.0;
        const vec3 dir = normalize(forward + ndc.x * right + ndc.y * up);
        // Grid units across (sample i at x = i), world units up; t stays the world distance.
        const vec3 o = vec3((eye.xy + half_extent) / cell_world - 0.5, eye.z);
        vec3 d = vec3(dir.xy / cell_world, dir.z);
        // No zero component: the slab and DDA steps divide by them.
        d = mix(d, vec3(1e-20), equal(d, vec3(0.0)));
        Hit hit;
        colour = trace(o, d, hit) ? shade(hit, dir, p) : vec4(background, 1.0);
    }
    imageStore(target, origin + p, colour);
}
