// A rectangle given in normalised device coordinates, drawn as a 4-vertex triangle strip with
// no vertex buffer; uv runs 0..1 across it (v up).
uniform vec2 rect_min;
uniform vec2 rect_max;
out vec2 uv;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    uv = corner;
    gl_Position = vec4(mix(rect_min, rect_max, corner), 0.0, 1.0);
}
