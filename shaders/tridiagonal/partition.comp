// partition.comp — `partition`: every line of the grid by split_solve.glsl's three stages (the
// partition method with a coarse system in memory), for general and constant coefficients.
// Prelude: CONSTANT_COEFFICIENTS, CHUNK, WARPS, and one of SPLIT_REDUCE, SPLIT_COARSE,
// SPLIT_SUBSTITUTE.
#include "tridiagonal/lines.glsl"

#define LINE_LENGTH int(n)
#define LINE_COUNT int(line_count)
#define COARSE_BINDING 6
#define SPLIT_PIVOT_FAILED(line) report_pivot_failure(uint(line))

void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    load_coefficients(uint(line), uint(pos), a, b, c);
    d = rhs[element_index(uint(line), uint(pos))];
}

vec2 store_input(int line, int pos) { return vec2(0.0); }

void store(int line, int pos, float x, vec2 old_state) {
    solution[element_index(uint(line), uint(pos))] = x;
}

#include "tridiagonal/split_solve.glsl"
