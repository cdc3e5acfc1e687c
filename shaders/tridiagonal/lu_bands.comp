// lu_bands.comp — `lu-scan` for long y lines (the columns of a big grid): the same shared LU
// factorisation as lu_scan.comp (tabulated on the host in float64), but one invocation per column
// and band of ROWS rows, and the bands joined through a small carry buffer in three dispatches:
//   PASS 1 (reduce): per band and column, the forward recurrence y_i = k_i + m_i y_{i-1} from a
//          zero carry, then the backward one x_i = r_i y_i + q_i x_{i+1} from a zero carry on
//          those y; stores (y~_e, x~_s): the band's end value and start value.
//   PASS 2 (carries): per column, walks the bands in order: the true carry-in
//          Y_b = y_{s-1} = y~_e(b-1) + G_{b-1} Y_{b-1}, then back up: the true carry-in from
//          below X_b = x_{e+1} = x_s(b+1) with x_s(b) = x~_s(b) + P_b Y_b + H_b X_b, where
//          G_b = m_s...m_e, H_b = q_s...q_e and P_b (the zero-carry backward recurrence run on
//          the G products: how y_{s-1} reaches x_s) are tabulated per band.
//   PASS 3 (apply): per band and column, Thomas from the true carries (Y_b, X_b); stores x.
// Why: a warp reads 128 contiguous bytes of one row, and the work groups in flight take
// consecutive column blocks of the same bands, so the GPU reads whole rows like an x solve.
// Every one-pass layout of a 4096-wide grid's columns (8..64 columns per group, whole-column or
// band-walking) ran far below the copy bandwidth; this one is only a little faster: reading in
// row order is not what the wide y solve lacks (docs/performance.md has the figures).
// Traffic: the rhs read twice, the solution written once, plus 16 bytes per band and column.
// Prelude: PASS (1, 2, 3), ROWS (rows per band), WG_SIZE (columns per work group),
// CONSTANT_COEFFICIENTS = 1. Bindings: lines.glsl's, 6 rows (m_i, r_i, q_i, 0) per row,
// 7 bands (G_b, H_b, P_b, 0) per band, 8 carries: vec2 per band and column.
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

#include "tridiagonal/lines.glsl"

layout(std430, binding = 6) readonly buffer RowTable { vec4 row_table[]; };
layout(std430, binding = 7) readonly buffer BandTable { vec4 band_table[]; };
layout(std430, binding = 8) buffer Carries { vec2 carries[]; };
uniform uint band_count;

void main() {
#if PASS == 2
    const uint line = gl_WorkGroupID.x * WG_SIZE + gl_LocalInvocationID.x;
    if (line >= line_count) return;
    // Down: Y_b. Loads are batched (8 bands) so that their latencies overlap; only the FMA
    // chain is serial.
    float y_carry = 0.0;
    for (uint b0 = 0u; b0 < band_count; b0 += 8u) {
        vec2 reduced[8];
        for (uint j = 0u; j < 8u; ++j)
            reduced[j] = b0 + j < band_count ? carries[(b0 + j) * line_count + line] : vec2(0.0);
        for (uint j = 0u; j < 8u; ++j) {
            const uint b = b0 + j;
            if (b < band_count) {
                carries[b * line_count + line].x = y_carry;  // Y_b replaces y~_e(b)
                y_carry = reduced[j].x + band_table[b].x * y_carry;
            }
        }
    }
    // Up: X_b.
    float x_carry = 0.0;
    for (uint b0 = 0u; b0 < band_count; b0 += 8u) {
        vec2 joined[8];
        for (uint j = 0u; j < 8u; ++j)
            joined[j] = b0 + j < band_count
                            ? carries[(band_count - 1u - b0 - j) * line_count + line]
                            : vec2(0.0);
        for (uint j = 0u; j < 8u; ++j) {
            if (b0 + j < band_count) {
                const uint b = band_count - 1u - b0 - j;
                carries[b * line_count + line].y = x_carry;  // X_b replaces x~_s(b)
                const vec4 band = band_table[b];
                x_carry = joined[j].y + band.z * joined[j].x + band.y * x_carry;
            }
        }
    }
#else
    // Consecutive work groups: consecutive column blocks of one band (whole rows in flight).
    const uint blocks = (line_count + WG_SIZE - 1u) / WG_SIZE;
    const uint group = work_group_line();
    const uint band = group / blocks;
    if (band >= band_count) return;
    const uint line = (group % blocks) * WG_SIZE + gl_LocalInvocationID.x;
    if (line >= line_count) return;
    const uint s = band * ROWS;
    float v[ROWS];
    for (uint t = 0u; t < ROWS; ++t)
        v[t] = s + t < n ? rhs[element_index(line, s + t)] : 0.0;
#if PASS == 1
    float y = 0.0;
#else
    const vec2 carry = carries[band * line_count + line];
    float y = carry.x;
#endif
    for (uint t = 0u; t < ROWS; ++t) {
        if (s + t < n) y = v[t] + row_table[s + t].x * y;
        v[t] = y;
    }
#if PASS == 1
    float x = 0.0;
#else
    float x = carry.y;
#endif
    for (uint u = 0u; u < ROWS; ++u) {
        const uint t = ROWS - 1u - u;
        if (s + t < n) {
            const vec4 row = row_table[s + t];
            x = row.y * v[t] + row.z * x;
#if PASS == 3
            solution[element_index(line, s + t)] = x;
#endif
        }
    }
#if PASS == 1
    carries[band * line_count + line] = vec2(y, x);
#endif
#endif
}
