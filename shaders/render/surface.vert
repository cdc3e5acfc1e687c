// A height field as a lit 3-D mesh, built with no vertex buffer: instance r draws the
// triangle strip between mesh rows r and r + 1; vertex 2c + k sits at column c, row r + k.
// Heights come straight from the storage buffers (the water surface h, or the bottom b), and
// the normal from central differences of the same buffer, so nothing is read back or copied.
// A mesh coarser than the grid samples every `stride`-th cell (large grids).
//
// TERRAIN defined: draws the bottom b (binding 2), or a flat floor when has_bottom == 0.
layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 2) readonly buffer Bottom { float bottom[]; };

uniform ivec2 grid;            // cells
uniform ivec2 mesh;            // vertices along x and y
uniform mat4 view_projection;
uniform vec2 half_extent;      // world half-size of the domain (the longer side is 1)
uniform float height_scale;    // world units per metre of height
uniform float base_level;      // the height drawn at z = 0
uniform int has_bottom;
uniform float floor_level;     // metres, when there is no bottom buffer

out vec3 world_position;
out vec3 world_normal;
out float water_depth;         // h - b (metres), for discarding dry cells
out float value;               // the height in metres, for the colormap

float height_of(ivec2 c) {
    c = clamp(c, ivec2(0), grid - 1);
#ifdef TERRAIN
    return has_bottom != 0 ? bottom[c.y * grid.x + c.x] : floor_level;
#else
    return field[c.y * grid.x + c.x];
#endif
}

float bottom_of(ivec2 c) {
    c = clamp(c, ivec2(0), grid - 1);
    return has_bottom != 0 ? bottom[c.y * grid.x + c.x] : floor_level;
}

void main() {
    int col = gl_VertexID >> 1;
    int row = gl_InstanceID + (gl_VertexID & 1);
    vec2 f = vec2(col, row) / vec2(mesh - 1);
    ivec2 c = ivec2(round(f * vec2(grid - 1)));
    ivec2 stride = max(ivec2(1), (grid - 1) / max(mesh - 1, ivec2(1)));

    float h = height_of(c);
    float z = (h - base_level) * height_scale;
    vec2 cell_world = 2.0 * half_extent / vec2(grid);
    float dzdx = (height_of(c + ivec2(stride.x, 0)) - height_of(c - ivec2(stride.x, 0))) *
                 height_scale / (2.0 * float(stride.x) * cell_world.x);
    float dzdy = (height_of(c + ivec2(0, stride.y)) - height_of(c - ivec2(0, stride.y))) *
                 height_scale / (2.0 * float(stride.y) * cell_world.y);
    world_normal = normalize(vec3(-dzdx, -dzdy, 1.0));
    world_position = vec3((f * 2.0 - 1.0) * half_extent, z);
    if (isnan(z) || isinf(z)) world_position.z = 0.0;
    value = h;
#ifdef TERRAIN
    water_depth = 1.0;
#else
    water_depth = h - bottom_of(c);
#endif
    gl_Position = view_projection * vec4(world_position, 1.0);
}
