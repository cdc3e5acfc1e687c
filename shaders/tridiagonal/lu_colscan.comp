// lu_colscan.comp — the column-scan y kernel of `lu-window` (its default along y): constant
// coefficients, columns (stride nx), ONE dispatch, each invocation walking only CHUNK rows.
// Shape (after the heat engineer's heat_colscan.comp): lane c of every subgroup is column c of
// the work group's 32 (loads and stores coalesce along rows), and the WARPS subgroups own
// consecutive chunks of CHUNK rows of the SAME columns, rows start + w CHUNK ... The chunks of a
// column are joined exactly through shared memory with ONE barrier.
// Algebra (the Thomas recurrences of the shared factorisation, tabulated in float64 on the host
// and rounded once: row_table[i] = (m_i, r_i, q_i, 0)):
//   forward  y_i = k_i + m_i y_{i-1},   backward x_i = r_i y_i + q_i x_{i+1}.
// Both are first order, so over a chunk [s, e] everything is affine in the carries Y = y_{s-1}
// and X = x_{e+1}:
//   y_i = y~_i + G_i Y              (y~: forward from zero, G_i = m_s ... m_i)
//   x_i = x~_i + P_i Y + H_i X      (x~: backward over y~ from zero, P: backward over r G from
//                                    zero, H_i = q_i ... q_e)
// Each invocation computes these for its chunk and publishes (G_e, y~_e) and (x~_s, P_s, H_s).
// After the barrier it folds the forward maps of the chunks from the top of the group down (the
// Y of every chunk at and below its own), then the backward maps from the bottom up to its own
// chunk (X), and finishes its rows: 2 WARPS fused multiply-adds from shared memory instead of a
// walk over the rows.
// The group's ends: a group covering the whole column (HALO_WARPS = 0) is exact (m_0 = 0 and
// q_{n-1} = 0 make the line's ends exact; rows outside the line read k = 0 and zero factors).
// Otherwise the HALO_WARPS chunks at each end of the group are a warm-up whose rows are not
// stored: the zero carries entering there have been multiplied by HALO_WARPS * CHUNK >= K
// factors |m| or |q| < 1 by the time they reach a stored row, K being the decay window that the
// host derived for these coefficients (lu_factors.cpp: truncation below 2^-26 max|x|).
// Prelude: CHUNK, WARPS, HALO_WARPS (WARPS > 2 HALO_WARPS), WG_SIZE = 32 WARPS,
// CONSTANT_COEFFICIENTS = 1 (consecutive groups take consecutive column blocks of the same rows). Bindings: lines.glsl's, 6: row table. No subgroup operations: the
// same code runs on llvmpipe (32 invocations of a "lane" group are just indices here).
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

#include "tridiagonal/lines.glsl"

layout(std430, binding = 6) restrict readonly buffer RowTable { vec4 row_table[]; };

#define LANES 32
#define SEGMENT ((WARPS - 2 * HALO_WARPS) * CHUNK)  // rows stored per group

// Chunk v, column c at v * LANES + c: a warp reads 32 consecutive words (no bank conflicts).
shared float forward_factor[WG_SIZE];   // G_e
shared float forward_value[WG_SIZE];    // y~_e
shared float backward_value[WG_SIZE];   // x~_s
shared float backward_y[WG_SIZE];       // P_s
shared float backward_factor[WG_SIZE];  // H_s

void main() {
    const uint t = gl_LocalInvocationID.x;
    const uint lane = t % LANES, w = t / LANES;
    const uint column_blocks = (line_count + LANES - 1u) / LANES;
    const uint row_blocks = (n + SEGMENT - 1u) / SEGMENT;
    const uint group = work_group_line();
    if (group >= column_blocks * row_blocks) return;  // whole work group: the barrier is uniform
    const uint column_block = group % column_blocks, row_block = group / column_blocks;
    const uint line = column_block * LANES + lane;
    const bool line_ok = line < line_count;
    const int r0 = int(row_block * SEGMENT) - HALO_WARPS * CHUNK + int(w * CHUNK);

    // Every load of the chunk issued before the arithmetic (CHUNK loads in flight); the table
    // entry of a row is the same for the whole warp (one broadcast).
    float k[CHUNK];
    vec3 f[CHUNK];
    for (int j = 0; j < CHUNK; ++j) {
        const int row = r0 + j;
        const bool inside = row >= 0 && uint(row) < n;
        k[j] = (inside && line_ok) ? rhs[element_index(line, uint(row))] : 0.0;
        f[j] = inside ? row_table[row].xyz : vec3(0.0);
    }

    // Forward from a zero carry; G_i in registers (fp32 products of fp32 factors).
    float g[CHUNK];
    float y = 0.0, product = 1.0;
    for (int j = 0; j < CHUNK; ++j) {
        y = k[j] + f[j].x * y;
        product *= f[j].x;
        k[j] = y;  // y~_j
        g[j] = product;
    }
    forward_factor[t] = product;
    forward_value[t] = y;
    // Backward from a zero carry over y~ (x~), over r G (P) and the products of q (H).
    float p[CHUNK], h[CHUNK];
    float x = 0.0, py = 0.0, hq = 1.0;
    for (int j = CHUNK - 1; j >= 0; --j) {
        x = f[j].y * k[j] + f[j].z * x;
        py = f[j].y * g[j] + f[j].z * py;
        hq *= f[j].z;
        k[j] = x;
        p[j] = py;
        h[j] = hq;
    }
    backward_value[t] = x;
    backward_y[t] = py;
    backward_factor[t] = hq;
    memoryBarrierShared();
    barrier();

    // Y entering every chunk of the column (zero above the group: row < 0 or the warm-up).
    float carry_y[WARPS];
    float fold = 0.0;
    for (int v = 0; v < WARPS; ++v) {
        carry_y[v] = fold;
        const uint e = uint(v) * LANES + lane;
        fold = forward_factor[e] * fold + forward_value[e];
    }
    // X leaving the chunk below this one, folded up from the group's bottom (zero there).
    float carry_x = 0.0;
    for (int v = WARPS - 1; v > 0; --v) {
        if (uint(v) <= w) break;
        const uint e = uint(v) * LANES + lane;
        carry_x = backward_value[e] + backward_y[e] * carry_y[v] + backward_factor[e] * carry_x;
    }
    float own_y = 0.0;
    for (int v = 0; v < WARPS; ++v)
        if (uint(v) == w) own_y = carry_y[v];

    if (w < uint(HALO_WARPS) || w >= uint(WARPS - HALO_WARPS) || !line_ok) return;
    for (int j = 0; j < CHUNK; ++j) {
        const int row = r0 + j;
        if (uint(row) < n)
            solution[element_index(line, uint(row))] = k[j] + p[j] * own_y + h[j] * carry_x;
    }
}
