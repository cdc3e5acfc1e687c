// partition.comp — `partition`: every line of the grid by split_solve.glsl's three stages (the
// partition method with a coarse system in memory), for general and constant coefficients.
// Prelude: CONSTANT_COEFFICIENTS, CHUNK, WARPS, and one of SPLIT_REDUCE, SPLIT_COARSE,
// SPLIT_SUBSTITUTE; X_TILE (x lines): the group's rows staged through shared memory.
//
// Why X_TILE: a work group's 32 lanes are 32 lines, so along x each lane reads CHUNK consecutive
// floats of its own row, a row apart from its neighbour's: every load instruction touches 32
// sectors a row's length apart (32 KiB at 8192 unknowns), which ran at a few percent of the
// bandwidth. Staged, the group reads its 32 rows' segments whole, a warp at a time, and the
// lanes take their chunks from shared memory (one padding word a row: conflict-free).
#include "tridiagonal/lines.glsl"

#define LINE_LENGTH int(n)
#define LINE_COUNT int(line_count)
#define COARSE_BINDING 6
#define SPLIT_PIVOT_FAILED(line) report_pivot_failure(uint(line))

#ifdef X_TILE
const int TILE_WIDTH = WARPS * CHUNK;
const int TILE_PITCH = TILE_WIDTH + 1;
#if CONSTANT_COEFFICIENTS
const int TILE_FIELDS = 1;  // d
#else
const int TILE_FIELDS = 4;  // d, a, b, c
#endif
shared float tile[TILE_FIELDS * 32 * TILE_PITCH];
int tile_first_line, tile_first_pos;

void stage_rows(int first_line, int first_pos) {
    tile_first_line = first_line;
    tile_first_pos = first_pos;
    const int threads = 32 * WARPS;  // split_solve.glsl's work group
    const int t = int(gl_LocalInvocationIndex);
    for (int i = t; i < 32 * TILE_WIDTH; i += threads) {
        const int r = i / TILE_WIDTH, col = i % TILE_WIDTH;
        const uint line = uint(min(first_line + r, LINE_COUNT - 1));
        const uint pos = uint(min(first_pos + col, LINE_LENGTH - 1));
        const uint e = element_index(line, pos);
        tile[r * TILE_PITCH + col] = rhs[e];
#if !CONSTANT_COEFFICIENTS
        tile[(32 + r) * TILE_PITCH + col] = coef_a_buf[e];
        tile[(64 + r) * TILE_PITCH + col] = coef_b_buf[e];
        tile[(96 + r) * TILE_PITCH + col] = coef_c_buf[e];
#endif
    }
    memoryBarrierShared();
    barrier();
}
#define SPLIT_STAGE(first_line, first_pos) stage_rows(first_line, first_pos)

// The solution leaves the way the rows came: store() puts it into the tile's d rows (read long
// before, ahead of the first barrier of split_solve.glsl), then the group writes whole row
// segments.
void unstage_solution() {
    memoryBarrierShared();
    barrier();
    const int t = int(gl_LocalInvocationIndex);
    for (int i = t; i < 32 * TILE_WIDTH; i += 32 * WARPS) {
        const int r = i / TILE_WIDTH, col = i % TILE_WIDTH;
        const int line = tile_first_line + r, pos = tile_first_pos + col;
        if (line < LINE_COUNT && pos < LINE_LENGTH)
            solution[element_index(uint(line), uint(pos))] = tile[r * TILE_PITCH + col];
    }
}
#define SPLIT_UNSTAGE() unstage_solution()

void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    const int slot = (line - tile_first_line) * TILE_PITCH + (pos - tile_first_pos);
    d = tile[slot];
#if CONSTANT_COEFFICIENTS
    load_coefficients(uint(line), uint(pos), a, b, c);
#else
    a = pos == 0 ? 0.0 : tile[32 * TILE_PITCH + slot];
    b = tile[64 * TILE_PITCH + slot];
    c = pos + 1 == LINE_LENGTH ? 0.0 : tile[96 * TILE_PITCH + slot];
#endif
}
#else
void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    load_coefficients(uint(line), uint(pos), a, b, c);
    d = rhs[element_index(uint(line), uint(pos))];
}
#endif

vec2 store_input(int line, int pos) { return vec2(0.0); }

void store(int line, int pos, float x, vec2 old_state) {
#ifdef X_TILE
    tile[(line - tile_first_line) * TILE_PITCH + (pos - tile_first_pos)] = x;
#else
    solution[element_index(uint(line), uint(pos))] = x;
#endif
}

#include "tridiagonal/split_solve.glsl"
