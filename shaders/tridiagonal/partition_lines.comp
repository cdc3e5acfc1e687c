// partition_lines.comp — `partition`'s lines that fit one work group, in one dispatch:
// fused_lines.glsl with its rows read from the coefficients and the right-hand side, and the
// solution stored (16 bytes at a time with X_STORE4: x lines on rows that start on 16 bytes).
// Prelude: CONSTANT_COEFFICIENTS, solvers/tridiagonal/fused_lines.hpp's defines and
// SCRATCH_FLOATS.
#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#include "tridiagonal/lines.glsl"

#define LINE_LENGTH int(n)
#define LINE_COUNT int(line_count)
#define FUSED_PIVOT_FAILED(line) report_pivot_failure(uint(line))

shared float scratch[SCRATCH_FLOATS];

void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    load_coefficients(uint(line), uint(pos), a, b, c);
    d = rhs[element_index(uint(line), uint(pos))];
}

vec2 store_input(int line, int pos) { return vec2(0.0); }

float store_value(int line, int pos, float x, vec2 old_state) { return x; }

void store(int line, int pos, float x, vec2 old_state) {
    solution[element_index(uint(line), uint(pos))] = x;
}

#include "tridiagonal/fused_lines.glsl"
