// lu_scan_banded.comp — `lu-scan` for long y lines (columns of a wide grid): the algebra of
// lu_scan.comp (tabulated shared LU factorisation, chunked scans of the two Thomas recurrences),
// but a work group walks its LINES columns band by band (BAND = CHUNKS * CHUNK rows at a time)
// instead of holding a whole column in registers at once.
// Why: with a whole column per work group, every resident work group touches every row of the
// grid at the same moment (a 4096^2 grid: 4096 rows 16 KiB apart, 64 MiB per buffer), and the
// strided solve ran at ~145 GB/s. Walking in bands keeps the whole GPU's working set to a band
// of rows (all groups start together and advance at about the same pace), like an x solve.
// Two passes over the bands:
//   1. down: the forward recurrence's chunk maps Y -> y~_e + G_e Y are scanned per band and
//      joined to the carry y_{band start - 1}; each chunk's true carry-in y_{s-1} is kept in
//      shared memory (carry_y[], one float per chunk and line: the whole line's worth).
//   2. up: the rhs is read again (the last band is still in registers), y is rebuilt from
//      y~ + G y_{s-1}, and the backward recurrence is scanned per band, joined to the carry
//      x_{band end + 1} from the band below.
// Traffic: rhs read twice (minus one band), solution written once.
// Prelude: as lu_scan.comp with LINES_FASTEST = 1, plus MAX_CHUNKS (shared carry slots per line,
// >= chunks per line). Tables indexed t * table_chunks + global chunk (uniform table_chunks).
#pragma optionNV(unroll all)
layout(local_size_x = WG_SIZE) in;

#include "tridiagonal/lines.glsl"

layout(std430, binding = 6) readonly buffer ForwardTable { vec2 forward_table[]; };
layout(std430, binding = 7) readonly buffer BackwardTable { vec4 backward_table[]; };
uniform uint table_chunks;
uint table_index(uint p, uint t) { return t * table_chunks + p; }

#define BAND (CHUNKS * CHUNK)
shared vec2 scan[2][WG_SIZE];               // (product, carry) per chunk, double-buffered
shared float carry_y[(MAX_CHUNKS + 1) * LINES];  // y_{s-1} of global chunk g at [g * LINES + l]
shared float carry_x[2][LINES];              // x_{band end + 1}, double-buffered by band parity

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint first_line = work_group_line() * LINES;
    if (first_line >= line_count) return;  // whole work group: barriers stay uniform
    const uint lines_here = min(LINES, line_count - first_line);
    const uint l = tid % LINES, p = tid / LINES;
    const uint chunk_id = l * CHUNKS + p;
    const bool line_ok = l < lines_here;
    const uint bands = (max(n, 1u) + BAND - 1u) / BAND;
    const uint line = first_line + l;
    float v[CHUNK];

    if (p == 0u) carry_y[l] = 0.0;
    // ---- pass 1: down the bands, forward recurrence carries only.
    for (uint b = 0u; b < bands; ++b) {
        const uint gp = b * CHUNKS + p;  // global chunk
        const uint s = gp * CHUNK;
        for (uint t = 0u; t < CHUNK; ++t) {
            const uint i = s + t;
            v[t] = (line_ok && i < n) ? rhs[element_index(line, i)] : 0.0;
        }
        float y = 0.0;
        for (uint t = 0u; t < CHUNK; ++t) {
            y = v[t] + forward_table[table_index(gp, t)].x * y;
            v[t] = y;
        }
        const uint e = min(s + CHUNK, max(n, 1u)) - 1u;
        vec2 own = vec2(s < n ? forward_table[table_index(gp, e - s)].y : 1.0, s < n ? y : 0.0);
        uint buffer_index = 0u;
        scan[0][chunk_id] = own;
        memoryBarrierShared();
        barrier();
        for (uint step = 1u; step < CHUNKS; step *= 2u) {
            if (p >= step) {
                const vec2 before = scan[buffer_index][chunk_id - step];
                own = vec2(own.x * before.x, own.y + own.x * before.y);
            }
            buffer_index ^= 1u;
            scan[buffer_index][chunk_id] = own;
            memoryBarrierShared();
            barrier();
        }
        // y at the end of this chunk = composite of the band's chunks 0..p applied to the
        // band's carry-in (written by the previous band's last chunk before the barriers above).
        carry_y[(gp + 1u) * LINES + l] = own.y + own.x * carry_y[b * CHUNKS * LINES + l];
        memoryBarrierShared();
        barrier();
    }

    // ---- pass 2: up the bands, true y, backward recurrence, store.
    if (p == 0u) carry_x[0][l] = 0.0;
    memoryBarrierShared();
    barrier();
    uint parity = 0u;
    for (uint bb = 0u; bb < bands; ++bb) {
        const uint b = bands - 1u - bb;
        const uint gp = b * CHUNKS + p;
        const uint s = gp * CHUNK;
        if (bb > 0u) {  // the last band's y~ is still in v
            for (uint t = 0u; t < CHUNK; ++t) {
                const uint i = s + t;
                v[t] = (line_ok && i < n) ? rhs[element_index(line, i)] : 0.0;
            }
            float y = 0.0;
            for (uint t = 0u; t < CHUNK; ++t) {
                y = v[t] + forward_table[table_index(gp, t)].x * y;
                v[t] = y;
            }
        }
        const float y_before = carry_y[gp * LINES + l];
        float x = 0.0;
        for (uint u = 0u; u < CHUNK; ++u) {
            const uint t = CHUNK - 1u - u;
            const vec4 back = backward_table[table_index(gp, t)];
            const float y_true = v[t] + forward_table[table_index(gp, t)].y * y_before;
            x = back.x * y_true + back.y * x;
            v[t] = x;
        }
        vec2 own = vec2(s < n ? backward_table[table_index(gp, 0u)].z : 1.0, s < n ? x : 0.0);
        uint buffer_index = 0u;
        scan[0][chunk_id] = own;
        memoryBarrierShared();
        barrier();
        for (uint step = 1u; step < CHUNKS; step *= 2u) {
            if (p + step < CHUNKS) {
                const vec2 after = scan[buffer_index][chunk_id + step];
                own = vec2(own.x * after.x, own.y + own.x * after.y);
            }
            buffer_index ^= 1u;
            scan[buffer_index][chunk_id] = own;
            memoryBarrierShared();
            barrier();
        }
        const float x_below = carry_x[parity][l];
        const vec2 next = p + 1u < CHUNKS ? scan[buffer_index][chunk_id + 1u] : vec2(1.0, 0.0);
        const float x_after = next.y + next.x * x_below;
        if (p == 0u) carry_x[parity ^ 1u][l] = own.y + own.x * x_below;
        for (uint t = 0u; t < CHUNK; ++t) {
            const uint i = s + t;
            const float value = v[t] + backward_table[table_index(gp, t)].z * x_after;
            if (line_ok && i < n) solution[element_index(line, i)] = value;
        }
        parity ^= 1u;
        memoryBarrierShared();
        barrier();
    }
}
