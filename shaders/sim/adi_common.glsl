#ifndef ADI_COMMON_GLSL
#define ADI_COMMON_GLSL
// Shared by the sim kernels: the grid, the line addressing of one ADI half step, and the
// stability flag.
//
// DIRECTION 0: the x half step (implicit along x): line = row j, position = i.
// DIRECTION 1: the y half step (implicit along y): line = column i, position = j.
// Fields are row-major: cell (i, j) at j * nx + i.
uniform int nx;
uniform int ny;
uniform int step_index;  // 1-based number of the step being computed (sources, flag)

layout(std430, binding = 7) buffer StabilityFlag {
    int first_bad_step;  // 0x7fffffff while every field written so far was finite
};

#if DIRECTION == 0
#define LINE_LENGTH nx
#define LINE_COUNT ny
ivec2 cell_of(int line, int pos) { return ivec2(pos, line); }
#else
#define LINE_LENGTH ny
#define LINE_COUNT nx
ivec2 cell_of(int line, int pos) { return ivec2(line, pos); }
#endif

int index_of(ivec2 cell) { return cell.y * nx + cell.x; }
// Index of cell clamped into the grid: the ghost cell beyond a wall mirrors the edge cell, which
// is a zero-gradient (Neumann / insulated) wall for a cell-centred grid.
int clamped_index(ivec2 cell) { return index_of(clamp(cell, ivec2(0), ivec2(nx - 1, ny - 1))); }

void flag_if_not_finite(float value) {
    if (isnan(value) || isinf(value)) atomicMin(first_bad_step, step_index);
}
#endif
