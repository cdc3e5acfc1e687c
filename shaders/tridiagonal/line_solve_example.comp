// line_solve_example.comp — the documented use of line_solve.glsl WITHOUT padding (ls_a[i] ...),
// exactly as a fused sim/ kernel would write it; tests/gl/test_tridiagonal.cpp checks it against
// the float64 reference so that the include's public API stays correct.
// One work group per row of an nx * rows grid; a, b, c, k, x are row-major buffers.
layout(local_size_x = 64) in;
#define LS_MAX_N 1024
#include "tridiagonal/line_solve.glsl"

layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) readonly buffer C { float c[]; };
layout(std430, binding = 3) readonly buffer K { float k[]; };
layout(std430, binding = 4) writeonly buffer X { float x[]; };
layout(std430, binding = 5) buffer Failures { uint failures; };
uniform uint nx;

void main() {
    const uint row = gl_WorkGroupID.x;
    for (uint i = gl_LocalInvocationID.x; i < nx; i += gl_WorkGroupSize.x) {
        const uint e = row * nx + i;
        ls_a[i] = a[e];
        ls_b[i] = b[e];
        ls_c[i] = c[e];
        ls_d[i] = k[e];
    }
    const bool ok = ls_solve(nx);
    for (uint i = gl_LocalInvocationID.x; i < nx; i += gl_WorkGroupSize.x) x[row * nx + i] = ls_d[i];
    if (!ok) atomicAdd(failures, 1u);
}
