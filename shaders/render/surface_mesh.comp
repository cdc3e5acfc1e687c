// The 3-D view's mesh, computed: one invocation per mesh vertex reads the water surface h and
// the bottom b straight from the simulation's buffers and writes (z, normal.x, normal.y, depth)
// of the visible surface max(h, b): the water where wet, the terrain where dry. Normals are
// central differences of that surface over the mesh spacing. The vertex shader then reads one
// vec4 per vertex; the costly part runs here, on every SM.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 2) readonly buffer Bottom { float bottom[]; };
layout(std430, binding = 4) writeonly buffer Mesh { vec4 mesh_vertices[]; };

uniform ivec2 grid;          // cells
uniform ivec2 mesh;          // vertices along x and y
uniform vec2 half_extent;    // world half-size of the domain (the longer side spans 2)
uniform float height_scale;  // world units per metre
uniform float base_level;    // metres drawn at z = 0
uniform int has_bottom;
uniform float floor_level;   // metres, when there is no bottom buffer

float bottom_at(ivec2 c) {
    return has_bottom != 0 ? bottom[c.y * grid.x + c.x] : floor_level;
}

float surface_at(ivec2 c) {
    c = clamp(c, ivec2(0), grid - 1);
    const float h = field[c.y * grid.x + c.x];
    return (isnan(h) || isinf(h)) ? base_level : max(h, bottom_at(c));
}

void main() {
    const ivec2 v = ivec2(gl_GlobalInvocationID.xy);
    if (v.x >= mesh.x || v.y >= mesh.y) return;
    const vec2 f = vec2(v) / vec2(mesh - 1);
    const ivec2 c = ivec2(round(f * vec2(grid - 1)));
    const ivec2 stride = max(ivec2(1), (grid - 1) / max(mesh - 1, ivec2(1)));
    const vec2 cell_world = 2.0 * half_extent / vec2(grid);
    const float dzdx = (surface_at(c + ivec2(stride.x, 0)) - surface_at(c - ivec2(stride.x, 0))) *
                       height_scale / (2.0 * float(stride.x) * cell_world.x);
    const float dzdy = (surface_at(c + ivec2(0, stride.y)) - surface_at(c - ivec2(0, stride.y))) *
                       height_scale / (2.0 * float(stride.y) * cell_world.y);
    const vec3 n = normalize(vec3(-dzdx, -dzdy, 1.0));
    const float h = field[c.y * grid.x + c.x];
    const float depth = (isnan(h) || isinf(h)) ? 0.0 : h - bottom_at(c);
    mesh_vertices[v.y * mesh.x + v.x] =
        vec4((surface_at(c) - base_level) * height_scale, n.x, n.y, depth);
}
