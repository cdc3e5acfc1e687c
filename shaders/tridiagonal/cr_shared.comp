// cr_shared.comp — `cr-shared`: one work group solves one whole line in shared memory with the
// CR -> PCR hybrid of line_solve.glsl, one dispatch for every line of the grid.
// Prelude: WG_SIZE, MAX_N (shared capacity, lines longer than it go to cr-pingpong),
// CONSTANT_COEFFICIENTS.
layout(local_size_x = WG_SIZE) in;

#include "tridiagonal/lines.glsl"
#define LS_MAX_N MAX_N
#define LS_PADDED  // bank-conflict padding: equation i at ls_index(i)
#include "tridiagonal/line_solve.glsl"

void main() {
    const uint line = work_group_line();
    if (line >= line_count) return;  // whole work group leaves together: barriers stay uniform
    for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x) {
        float a, b, c;
        load_coefficients(line, i, a, b, c);
        const uint at = ls_index(i);
        ls_a[at] = a;
        ls_b[at] = b;
        ls_c[at] = c;
        ls_d[at] = rhs[element_index(line, i)];
    }
    const bool ok = ls_solve(n);
    for (uint i = gl_LocalInvocationID.x; i < n; i += gl_WorkGroupSize.x)
        solution[element_index(line, i)] = ls_d[ls_index(i)];
    if (!ok) report_pivot_failure(line);
}
