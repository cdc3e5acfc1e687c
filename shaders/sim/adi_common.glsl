#ifndef ADI_COMMON_GLSL
#define ADI_COMMON_GLSL
// Shared by the sim kernels: the grid, the line addressing of one ADI half step, and the
// stability check.
//
// DIRECTION 0: the x half step (implicit along x): line = row j, position = i.
// DIRECTION 1: the y half step (implicit along y): line = column i, position = j.
// Fields are row-major: cell (i, j) at j * nx + i.
uniform int nx;
uniform int ny;
uniform int step_index;  // 1-based number of the step being computed (sources, flag)

// The stability check: the first step that wrote a NaN or Inf, or a value outside the bounds the
// model derived from its inputs (sim/model.hpp, field_bounds: e.g. heat's maximum principle),
// and which of the two it was. A clamp must never hide a value from it: models check what they
// computed, before any clamp.
layout(std430, binding = 7) buffer StabilityFlag {
    int first_bad_step;  // 0x7fffffff while every value checked so far was finite and in bounds
    int bad_kinds;       // bit 0: NaN or Inf; bit 1: outside [bound_low, bound_high]
};
uniform float bound_low;
uniform float bound_high;

#if DIRECTION == 0
#define GRID_LINE_LENGTH nx
#define LINE_COUNT ny
#else
#define GRID_LINE_LENGTH ny
#define LINE_COUNT nx
#endif
#ifdef SEGMENT
// The line solve over a segment of every line, positions segment_first .. segment_first +
// segment_length - 1 of the grid's (heat's lines across its heaters, sim/heat.cpp): the kernel's
// position pos is segment_first + pos on the grid. Not with TILED or X_STORE4, which take whole
// rows.
uniform int segment_first;
uniform int segment_length;
#define LINE_LENGTH segment_length
#if defined(TILED) || defined(X_STORE4)
#error "a segment of the lines is neither staged nor stored by whole rows"
#endif
#else
const int segment_first = 0;
#define LINE_LENGTH GRID_LINE_LENGTH
#endif
#if DIRECTION == 0
ivec2 cell_of(int line, int pos) { return ivec2(segment_first + pos, line); }
#else
ivec2 cell_of(int line, int pos) { return ivec2(line, segment_first + pos); }
#endif

int index_of(ivec2 cell) { return cell.y * nx + cell.x; }
int line_index(int line, int pos) { return index_of(cell_of(line, pos)); }

#ifdef KERNEL_FUSED
// The fused kernel's shared memory (tridiagonal/fused_lines.glsl): with TILED first the x half
// step's input rows, then the reduced systems. SCRATCH_FLOATS comes from the host (sim/model.cpp).
shared float scratch[SCRATCH_FLOATS];
#endif
#ifdef TILED
// Row r of the tile, column i at r * TILE_PITCH + i + i / CHUNK: one padding word after every
// chunk, so that the 32 invocations of a subgroup (32 consecutive chunks of one line, each reading
// its k-th value) hit 32 different banks (bank p (CHUNK + 1) + k, CHUNK + 1 odd).
const int TILE_PITCH = THREADS_PER_LINE * (CHUNK + 1);
int tile_slot(int row, int i) { return row * TILE_PITCH + i + i / CHUNK; }
// TILE_FIELDS fields, each of LINES + 2 TILE_HALO rows; field f from f * TILE_FIELD_FLOATS.
const int TILE_ROWS = LINES + 2 * TILE_HALO;
const int TILE_FIELD_FLOATS = TILE_ROWS * TILE_PITCH;
int tile_first_row;  // grid row held by tile row 0 (set by the fused kernel)
// A staged field at a cell inside the grid (x half step of the fused kernel).
float tiled_value(int field, ivec2 cell) {
    return scratch[field * TILE_FIELD_FLOATS + tile_slot(cell.y - tile_first_row, cell.x)];
}
float tiled_field(ivec2 cell) { return tiled_value(0, cell); }
#endif
// Index of cell clamped into the grid: the ghost cell beyond a wall mirrors the edge cell, which
// is a zero-gradient (Neumann / insulated) wall for a cell-centred grid.
int clamped_index(ivec2 cell) { return index_of(clamp(cell, ivec2(0), ivec2(nx - 1, ny - 1))); }

// flag_if_not_finite(value): NaN or Inf only, for what has no bound of its own (a velocity, a
// matrix coefficient); check_value(value): NaN, Inf, or outside the model's bounds, for the field
// itself. Every kernel that checks calls report_checks() last, on each way out (the line solves'
// shared mains through their KERNEL_EXIT() hook, defined here).
//
// Two forms, the model's choice. By default a failing value sets the flag at once (an atomic in
// a branch), and report_checks() has nothing to do. With DEFERRED_CHECKS (shallow water) each
// invocation gathers its checks in two booleans and report_checks() sets the flag once. Why
// both: shallow water's y window loads between its checks (each row's dx, each store's
// compensation), and a possible atomic after every value kept the compiler from batching those
// loads: deferred, its y window took a fifth less time at 4096^2. Heat's and advection's y
// kernels only store between their checks, and deferred they ran 2-6% slower at 4096^2 and
// 8192^2 (docs/performance.md has both).
void flag_the_step(int kinds) {
    atomicMin(first_bad_step, step_index);
    atomicOr(bad_kinds, kinds);
}
#ifdef DEFERRED_CHECKS
bool seen_not_finite = false;
bool seen_out_of_bounds = false;

void flag_if_not_finite(float value) {
    seen_not_finite = seen_not_finite || isnan(value) || isinf(value);
}

void check_value(float value) {
    const bool finite = !(isnan(value) || isinf(value));
    seen_not_finite = seen_not_finite || !finite;
    seen_out_of_bounds =
        seen_out_of_bounds || (finite && (value < bound_low || value > bound_high));
}

void report_checks() {
    if (seen_not_finite || seen_out_of_bounds)
        flag_the_step((seen_not_finite ? 1 : 0) | (seen_out_of_bounds ? 2 : 0));
}
#else
void flag_if_not_finite(float value) {
    if (isnan(value) || isinf(value)) flag_the_step(1);
}

void check_value(float value) {
    if (isnan(value) || isinf(value))
        flag_the_step(1);
    else if (value < bound_low || value > bound_high)
        flag_the_step(2);
}

void report_checks() {}
#endif
#define KERNEL_EXIT() report_checks()
#endif
