// lines.glsl — the batched-line addressing, coefficient access and pivot flag that every
// solvers/tridiagonal kernel shares (the C++ side is solvers/tridiagonal/gpu_solver.cpp).
//
// A grid of nx * ny floats, row-major. Line `line`, element i sits at
//     line * line_stride + i * element_stride
// (x: line_stride = nx, element_stride = 1; y: line_stride = 1, element_stride = nx).
// Bindings: 0 rhs, 1 solution, 2 a, 3 b, 4 c (general coefficients only), 5 pivot flag.
// Prelude: CONSTANT_COEFFICIENTS (0/1) selects uniforms coef_* instead of the a, b, c buffers.

uniform uint n;             // unknowns per line
uniform uint line_count;    // number of lines
uniform uint line_stride;
uniform uint element_stride;

layout(std430, binding = 0) readonly buffer Rhs { float rhs[]; };
layout(std430, binding = 1) writeonly buffer Solution { float solution[]; };
#if CONSTANT_COEFFICIENTS
uniform float coef_a, coef_b, coef_c, coef_b_first, coef_b_last;
#else
layout(std430, binding = 2) readonly buffer CoefA { float coef_a_buf[]; };
layout(std430, binding = 3) readonly buffer CoefB { float coef_b_buf[]; };
layout(std430, binding = 4) readonly buffer CoefC { float coef_c_buf[]; };
#endif
// [0]: number of pivot failures seen (saturating is not needed: it is cleared on every check),
// [1]: 1 + the first failing line that won the compare-and-swap.
layout(std430, binding = 5) buffer PivotFlag { uint pivot_failures; uint pivot_failed_line; };

uint element_index(uint line, uint i) { return line * line_stride + i * element_stride; }

// The coefficients of row i (0 <= i < n); a_0 and c_{n-1} read as 0. A constant line of one
// unknown uses b_first.
void load_coefficients(uint line, uint i, out float a, out float b, out float c) {
#if CONSTANT_COEFFICIENTS
    a = i == 0u ? 0.0 : coef_a;
    c = i + 1u == n ? 0.0 : coef_c;
    b = i == 0u ? coef_b_first : (i + 1u == n ? coef_b_last : coef_b);
#else
    const uint e = element_index(line, i);
    a = i == 0u ? 0.0 : coef_a_buf[e];
    b = coef_b_buf[e];
    c = i + 1u == n ? 0.0 : coef_c_buf[e];
#endif
}

void report_pivot_failure(uint line) {
    atomicAdd(pivot_failures, 1u);
    atomicCompSwap(pivot_failed_line, 0u, line + 1u);
}

// The line a work group solves when lines are spread over a 2-D dispatch (65535 per axis).
uint work_group_line() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
