// Lighting of the 3-D view in one pass: Lambert diffuse plus Blinn-Phong specular from one
// directional light. Dry cells are terrain (sand to grass by slope); wet cells are water over
// the terrain, the terrain showing through in proportion to exp(-absorption * depth), the water
// optionally tinted by the colormap of its height.
#include "render/colormaps.glsl"
#include "render/range.glsl"

uniform vec3 eye;
uniform vec3 light_direction;  // towards the light
uniform int map;
uniform int tint_by_value;
uniform float height_scale;

in vec3 world_position;
in vec3 world_normal;
in float water_depth;
in float value;
out vec4 colour;

void main() {
    vec3 n = normalize(world_normal);
    const vec3 v = normalize(eye - world_position);
    if (dot(n, v) < 0.0) n = -n;  // seen from below
    const vec3 l = normalize(light_direction);
    const float diffuse = max(dot(n, l), 0.0);
    const vec3 sand = vec3(0.76, 0.70, 0.50), grass = vec3(0.33, 0.45, 0.25);
    const vec3 terrain = mix(sand, grass, smoothstep(0.6, 0.95, n.z) * 0.6) * (0.35 + 0.65 * diffuse);
    if (water_depth < 1e-3) {
        colour = vec4(terrain, 1.0);
        return;
    }
    vec3 water = vec3(0.10, 0.35, 0.65);
    if (tint_by_value != 0) {
        const vec2 r = value_range();
        water = mix(water, colormap(map, (value - r.x) / (r.y - r.x)), 0.5);
    }
    const vec3 h = normalize(l + v);
    const float specular = pow(max(dot(n, h), 0.0), 80.0);
    const float fresnel = 0.1 + 0.9 * pow(1.0 - max(dot(n, v), 0.0), 5.0);
    // Depth in world units: 0.25 of the domain's half-width hides about 60 % of the bottom.
    const float murk = 1.0 - exp(-4.0 * water_depth * height_scale);
    const vec3 lit = water * (0.3 + 0.7 * diffuse);
    colour = vec4(mix(terrain, lit, clamp(0.35 + 0.65 * murk + 0.3 * fresnel, 0.0, 1.0)) +
                      vec3(0.9) * specular, 1.0);
}
