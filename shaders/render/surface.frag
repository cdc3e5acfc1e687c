// Lighting of the height fields: one directional light, Lambert diffuse plus Blinn-Phong
// specular. Water is translucent (Fresnel-weighted) and optionally tinted by the colormap of
// its height; dry cells (depth below a millimetre) are discarded so the terrain shows.
#include "render/colormaps.glsl"
#include "render/range.glsl"

uniform vec3 eye;
uniform vec3 light_direction;  // towards the light
uniform int map;
uniform int tint_by_value;

in vec3 world_position;
in vec3 world_normal;
in float water_depth;
in float value;
out vec4 colour;

void main() {
    vec3 n = normalize(world_normal);
    vec3 v = normalize(eye - world_position);
    if (dot(n, v) < 0.0) n = -n;  // seen from below
    vec3 l = normalize(light_direction);
    float diffuse = max(dot(n, l), 0.0);
#ifdef TERRAIN
    // Sand low, grass higher, by the slope and the height.
    vec3 sand = vec3(0.76, 0.70, 0.50), grass = vec3(0.33, 0.45, 0.25);
    vec3 base = mix(sand, grass, smoothstep(0.6, 0.95, n.z) * 0.6);
    colour = vec4(base * (0.35 + 0.65 * diffuse), 1.0);
#else
    if (water_depth < 1e-3 || isnan(value)) discard;
    vec3 water = vec3(0.10, 0.35, 0.65);
    if (tint_by_value != 0) {
        vec2 r = value_range();
        water = mix(water, colormap(map, (value - r.x) / (r.y - r.x)), 0.5);
    }
    vec3 h = normalize(l + v);
    float specular = pow(max(dot(n, h), 0.0), 80.0);
    float fresnel = 0.1 + 0.9 * pow(1.0 - max(dot(n, v), 0.0), 5.0);
    vec3 lit = water * (0.3 + 0.7 * diffuse) + vec3(0.9) * specular;
    colour = vec4(lit, clamp(0.75 + 0.25 * fresnel, 0.0, 1.0));
#endif
}
