// The generic path's explicit kernel: writes every row of one ADI half step (the right-hand
// side d, and with WRITE_COEFFICIENTS the a, b, c of a GeneralCoefficients system) for a
// tridiagonal Solver to solve. Same row_system() as the fused kernel, so both paths solve the
// same systems. One invocation per cell.
#include "sim/adi_common.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 3) writeonly buffer RowRhs { float row_d[]; };
#ifdef WRITE_COEFFICIENTS
layout(std430, binding = 4) writeonly buffer RowA { float row_a[]; };
layout(std430, binding = 5) writeonly buffer RowB { float row_b[]; };
layout(std430, binding = 6) writeonly buffer RowC { float row_c[]; };
#endif

void main() {
    const int id = int(gl_GlobalInvocationID.x);
    if (id >= nx * ny) return;
    const ivec2 cell = ivec2(id % nx, id / nx);
#if DIRECTION == 0
    const int line = cell.y, pos = cell.x;
#else
    const int line = cell.x, pos = cell.y;
#endif
    float a, b, c, d;
    row_system(line, pos, a, b, c, d);
    row_d[id] = d;
#ifdef WRITE_COEFFICIENTS
    row_a[id] = pos == 0 ? 0.0 : a;
    row_b[id] = b;
    row_c[id] = pos == LINE_LENGTH - 1 ? 0.0 : c;
#endif
    report_checks();
}
