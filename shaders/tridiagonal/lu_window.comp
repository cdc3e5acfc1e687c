// lu_window.comp — `lu-window`: constant, diagonally dominant coefficients along y (columns,
// stride nx), every unknown of the grid in ONE fully parallel dispatch, no carries, no reduced
// system ("truncated SPIKE" with the spikes' geometric decay doing the joining).
// The Thomas recurrences of the shared factorisation (tabulated in float64 on the host, rounded
// once: row_table[i] = (m_i, r_i, q_i, 0)):
//   forward  y_i = k_i + m_i y_{i-1},   backward x_i = r_i y_i + q_i x_{i+1}.
// Each invocation owns ROWS rows [s, e] of one column. It runs the forward recurrence from row
// s - WINDOW with a zero carry through row e + WINDOW, then the backward one from there with a
// zero carry down to s, and stores x_s .. x_e. The zero carries are wrong by terms that have
// been multiplied by WINDOW factors |m| or |q| < 1 by the time they reach [s, e]; the host picks
// WINDOW so that the error is below 2^-26 max|x| (solvers/tridiagonal/lu_factors.cpp derives the
// bound), or takes the exact path. Windows reaching an end of the column use the exact factors
// there (m_0 = 0, q_{n-1} = 0), so they are exact at the ends.
// Memory: the 32 lanes of a warp own 32 adjacent columns and the same rows, so every load and
// store of a warp is one contiguous 128-byte row segment, and the row's table entry is one
// broadcast load. The CHUNKS warps of a work group own consecutive chunks of the same columns:
// their windows overlap, and the overlap is served by L1. Consecutive work groups take
// consecutive column blocks of the same rows (ORDER 0) or go down a column block (ORDER 1).
// All ROWS + 2 WINDOW loads of an invocation are issued before the arithmetic (in flight together).
// Prelude: WG_SIZE = COLS * CHUNKS, COLS (a multiple of 32), CHUNKS, ROWS, WINDOW, ORDER,
// CONSTANT_COEFFICIENTS = 1. Bindings: lines.glsl's, 6: row table.
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

#include "tridiagonal/lines.glsl"

layout(std430, binding = 6) readonly buffer RowTable { vec4 row_table[]; };

#define SPAN (ROWS + 2 * WINDOW)

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint group = work_group_line();
    const uint column_blocks = (line_count + COLS - 1u) / COLS;
    const uint chunk_blocks = (n + ROWS * CHUNKS - 1u) / (ROWS * CHUNKS);
    if (group >= column_blocks * chunk_blocks) return;
#if ORDER == 0
    const uint column_block = group % column_blocks, chunk_block = group / column_blocks;
#else
    const uint column_block = group / chunk_blocks, chunk_block = group % chunk_blocks;
#endif
    const uint line = column_block * COLS + tid % COLS;
    const uint s = (chunk_block * CHUNKS + tid / COLS) * ROWS;
    // No barriers in this kernel: idle invocations simply leave.
    if (s >= n || line >= line_count) return;
    // Row of window slot t: s - WINDOW + t (as int: the window may start above row 0).
    const int first = int(s) - WINDOW;

    float v[SPAN];
    for (int t = 0; t < SPAN; ++t) {
        const int row = first + t;
        v[t] = (row >= 0 && uint(row) < n) ? rhs[element_index(line, uint(row))] : 0.0;
    }
    // Forward from a zero carry (rows above the column are skipped; m_0 = 0 makes row 0 exact).
    float y = 0.0;
    for (int t = 0; t < SPAN; ++t) {
        const int row = first + t;
        if (row >= 0 && uint(row) < n) y = v[t] + row_table[row].x * y;
        v[t] = y;
    }
    // Backward from a zero carry below the window (q_{n-1} = 0: exact at the column's end).
    float x = 0.0;
    for (int t = SPAN - 1; t >= WINDOW; --t) {
        const int row = first + t;
        if (uint(row) < n) {
            const vec4 factors = row_table[row];
            x = factors.y * v[t] + factors.z * x;
            if (t < WINDOW + ROWS) solution[element_index(line, uint(row))] = x;
        }
    }
}
