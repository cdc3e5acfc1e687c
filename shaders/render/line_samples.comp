// The field at the cells of the viewer's cross-section line: values[k] = field[cells[k]]. A
// gather of at most a few thousand values, dispatched only when the line or the field changed
// (at most ten times a second); the host then reads these few bytes back, never the field.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 1) readonly buffer Cells { uint cells[]; };
layout(std430, binding = 2) writeonly buffer Values { float values[]; };

uniform uint count;

void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k < count) values[k] = field[cells[k]];
}
