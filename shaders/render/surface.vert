// The 3-D height field, built with no vertex buffer: instance r draws the triangle strip
// between mesh rows r and r + 1; vertex 2c + k sits at column c, row r + k. Each vertex reads
// the (z, normal.x, normal.y, depth) that surface_mesh.comp computed.
layout(std430, binding = 4) readonly buffer Mesh { vec4 mesh_vertices[]; };

uniform ivec2 mesh;
uniform mat4 view_projection;
uniform vec2 half_extent;
uniform float height_scale;
uniform float base_level;

out vec3 world_position;
out vec3 world_normal;
out float water_depth;  // metres; <= 0 where dry
out float value;        // the surface height in metres, for the colormap

void main() {
    const int col = gl_VertexID >> 1;
    const int row = gl_InstanceID + (gl_VertexID & 1);
    const vec4 m = mesh_vertices[row * mesh.x + col];
    const vec2 f = vec2(col, row) / vec2(mesh - 1);
    world_position = vec3((f * 2.0 - 1.0) * half_extent, m.x);
    world_normal = vec3(m.y, m.z, sqrt(max(0.0, 1.0 - m.y * m.y - m.z * m.z)));
    water_depth = m.w;
    value = m.x / height_scale + base_level;
    gl_Position = view_projection * vec4(world_position, 1.0);
}
