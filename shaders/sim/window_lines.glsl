#ifndef WINDOW_LINES_GLSL
#define WINDOW_LINES_GLSL
// window_lines.glsl — a half step whose lines have general (row by row) coefficients, solved
// inside decay windows: advection's `fused` path wherever its implicit weight allows
// (sim/advection.cpp). One dispatch a half step, no reduced system in memory, no carries between
// work groups: each output position is solved from the rows within HALO positions of it.
//
// Why it is exact to fp32: each window solves the principal submatrix of the line's system on
// its positions, which is the exact system with the couplings to the rows outside dropped. With
// rows dominant by |a_i| + |c_i| <= theta |b_i|, theta < 1, the error this makes at a position m
// rows inside the window is at most theta^m times the solution just outside (by induction from
// the window's far end: each row passes on at most |a| / (|b| - theta |c|) <= theta of it), so
// at least HALO + 1 rows inside, from either end, at most 2 theta^(HALO + 1) max |x|. The model
// picks HALO so that this is below 2^-26 max |x| (general_window_halo, sim/model.hpp), or takes
// the exact line solve (fused_lines.glsl). Windows that reach a wall are exact there: the rows
// past the wall are identity rows with no coupling to the line.
//
// The solve is the partition method of fused_lines.glsl (Laszlo, Giles & Appleyard 2016): each
// invocation eliminates its chunk of CHUNK rows in registers to its first and last
// unknowns; the chunk ends form the window's reduced system, which
//   x (ROW_WINDOW, rows): lives in one subgroup, lane j the chunk j of 32 consecutive chunks of a
//     row, and is solved by PCR with shuffles (1 + log2 32 steps, no barriers); the HALO_LANES
//     lanes at each end are the warm-up, whose values are not stored;
//   y (COLUMN_WINDOW, columns): lane c of every subgroup is column c of the group's 32 (loads and
//     stores coalesce along rows), subgroup w the chunk w of WARPS stacked down the columns; the
//     chunk ends go through shared memory, and the first subgroup solves each column's 2 WARPS
//     rows by Thomas (two barriers); the HALO_WARPS subgroups at each end are the warm-up.
//
// The includer defines DIRECTION, CHUNK (K, a multiple of 4 along x), WARPS, GROUP_SIZE
// (32 WARPS), HALO, along x SUBGROUPS where the device has 32-wide subgroup shuffles (else a
// shared-memory exchange with barriers: llvmpipe, the same arithmetic), and the functions
//     void window_rows(int line, int p0, out float a[CHUNK], out float b[CHUNK],
//                      out float c[CHUNK], out float d[CHUNK],
//                      out vec2 inputs[CHUNK]);  // rows p0 .. p0 + K - 1 of the line,
//                      // positions off the line clamped onto it (replaced here by identities)
//     float store_value(int line, int pos, float x, vec2 input);  // x: what the x rows store
//     void store(int line, int pos, float x, vec2 input);         // y: store and check
// and along x the output as vec4s at binding 1 (x_out4): 16-byte stores where nx allows.
#include "sim/adi_common.glsl"
#include "tridiagonal/partition_rows.glsl"

#pragma optionNV(unroll all)

layout(local_size_x = GROUP_SIZE) in;

const int LANES = 32;

// The chunk's rows (positions p0 .. p0 + K - 1 of a line of n; off the line identity rows)
// eliminated to a_k x_first + x_k + c_k x_last = d_k inside the chunk, the first row coupled to
// the previous chunk's last unknown (a_0) and the last row to the next chunk's first (c_{K-1}).
void eliminate_chunk(int p0, int n, inout float a[CHUNK], float b[CHUNK],
                     inout float c[CHUNK], inout float d[CHUNK]) {
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = p0 + k;
        float bk = b[k];
        if (pos <= 0) a[k] = 0.0;
        if (pos >= n - 1) c[k] = 0.0;
        if (pos < 0 || pos >= n) {
            bk = 1.0;
            d[k] = 0.0;
        }
        if (k < 2) {
            const float r = 1.0 / bk;
            a[k] *= r;
            c[k] *= r;
            d[k] *= r;
        } else {
            const float r = 1.0 / (bk - a[k] * c[k - 1]);
            d[k] = r * (d[k] - a[k] * d[k - 1]);
            a[k] = -r * a[k] * a[k - 1];
            c[k] = r * c[k];
        }
    }
    PARTITION_BACKWARD(a, c, d, CHUNK);
}

// Row (a, 1, c | d) combined with its neighbours at -stride (m) and +stride (p): one parallel
// cyclic reduction step, renormalised to a unit diagonal.
vec3 pcr_step(vec3 row, vec3 m, vec3 p) {
    const float r = 1.0 / (1.0 - row.x * m.y - row.y * p.x);
    return vec3(-r * row.x * m.x, -r * row.y * p.y, r * (row.z - row.x * m.z - row.y * p.z));
}

#if DIRECTION == 0
// The x half step: subgroup `warp` of the dispatch (segments in row order) solves one window of
// one row, 32 chunks; the middle 32 - 2 HALO_LANES chunks are stored. Every invocation of the
// work group calls it (the exchange without subgroups has barriers).
const int HALO_LANES = (HALO + CHUNK - 1) / CHUNK;
const int ROW_SEGMENT = (LANES - 2 * HALO_LANES) * CHUNK;  // positions stored a window

layout(std430, binding = 1) writeonly buffer XOut4 { vec4 x_out4[]; };

#ifdef SUBGROUPS
vec3 lane_value(vec3 v, int lane) {
    return vec3(subgroupShuffle(v.x, uint(lane)), subgroupShuffle(v.y, uint(lane)),
                subgroupShuffle(v.z, uint(lane)));
}
#else
shared vec3 exchange[GROUP_SIZE];
vec3 lane_value(vec3 v, int lane) {
    const int t = int(gl_LocalInvocationID.x);
    barrier();
    exchange[t] = v;
    memoryBarrierShared();
    barrier();
    return exchange[(t / LANES) * LANES + lane];
}
#endif

void row_window(int warp) {
    const int lane = int(gl_LocalInvocationID.x) % LANES;
    const int n = LINE_LENGTH;
    const int segments = (n + ROW_SEGMENT - 1) / ROW_SEGMENT;
    const bool has_row = warp < segments * LINE_COUNT;
    const int line = min(warp / segments, LINE_COUNT - 1);
    const int p0 = (warp % segments) * ROW_SEGMENT + (lane - HALO_LANES) * CHUNK;

    float a[CHUNK], b[CHUNK], c[CHUNK], d[CHUNK];
    vec2 inputs[CHUNK];
    window_rows(line, p0, a, b, c, d, inputs);
    eliminate_chunk(p0, n, a, b, c, d);

    // The window's reduced system: lane l holds rows 2l (its first) and 2l + 1 (its last); the
    // rows beyond the subgroup are absent (the window's truncation).
    vec3 first_row = vec3(a[0], c[0], d[0]);
    vec3 last_row = vec3(a[CHUNK - 1], c[CHUNK - 1], d[CHUNK - 1]);
    const vec3 none = vec3(0.0);
    {
        const vec3 before = lane_value(last_row, max(lane - 1, 0));
        const vec3 after = lane_value(first_row, min(lane + 1, LANES - 1));
        const vec3 f = pcr_step(first_row, lane > 0 ? before : none, last_row);
        const vec3 l = pcr_step(last_row, first_row, lane < LANES - 1 ? after : none);
        first_row = f;
        last_row = l;
    }
    for (int m = 1; m < LANES; m *= 2) {
        const vec3 fm = lane_value(first_row, max(lane - m, 0));
        const vec3 fp = lane_value(first_row, min(lane + m, LANES - 1));
        const vec3 lm = lane_value(last_row, max(lane - m, 0));
        const vec3 lp = lane_value(last_row, min(lane + m, LANES - 1));
        const bool has_before = lane >= m, has_after = lane + m < LANES;
        first_row = pcr_step(first_row, has_before ? fm : none, has_after ? fp : none);
        last_row = pcr_step(last_row, has_before ? lm : none, has_after ? lp : none);
    }
    const float x_first = first_row.z, x_last = last_row.z;

    if (!has_row || lane < HALO_LANES || lane >= LANES - HALO_LANES || p0 >= n) return;
    float x[CHUNK];
    for (int k = 0; k < CHUNK; ++k)
        x[k] = k == 0                  ? x_first
               : k == CHUNK - 1 ? x_last
                                       : d[k] - a[k] * x_first - c[k] * x_last;
    if ((nx & 3) == 0 && p0 + CHUNK <= n) {
        // 16 bytes a store: with one float a store, each of a subgroup's store instructions
        // writes 4 bytes every CHUNK floats, four times the L2 write requests.
        const int quad = index_of(cell_of(line, p0)) >> 2;
        for (int q = 0; q < CHUNK / 4; ++q) {
            vec4 v;
            for (int e = 0; e < 4; ++e) {
                const int k = 4 * q + e;
                v[e] = store_value(line, p0 + k, x[k], inputs[k]);
            }
            x_out4[quad + q] = v;
        }
        return;
    }
    for (int k = 0; k < CHUNK; ++k)
        if (p0 + k < n) store(line, p0 + k, x[k], inputs[k]);
}

void main() {
    const int group = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    row_window(group * WARPS + int(gl_LocalInvocationID.x) / LANES);
}
#else
// The y half step: work group (x, y) takes columns 32 x .. 32 x + 31 and the rows of window y.
const int HALO_WARPS = (HALO + CHUNK - 1) / CHUNK;
const int COLUMN_SEGMENT = (WARPS - 2 * HALO_WARPS) * CHUNK;  // rows stored a window

// The chunk ends of every column: row r (chunk r / 2's first or last) of column c at r * 32 + c;
// the solution goes back into reduced_d.
shared float reduced_a[2 * WARPS * LANES];
shared float reduced_c[2 * WARPS * LANES];
shared float reduced_d[2 * WARPS * LANES];

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int lane = t % LANES, w = t / LANES;
    const int n = LINE_LENGTH;
    const int column = int(gl_WorkGroupID.x) * LANES + lane;
    const int line = min(column, LINE_COUNT - 1);
    const int p0 = int(gl_WorkGroupID.y) * COLUMN_SEGMENT + (w - HALO_WARPS) * CHUNK;

    float a[CHUNK], b[CHUNK], c[CHUNK], d[CHUNK];
    vec2 inputs[CHUNK];
    window_rows(line, p0, a, b, c, d, inputs);
    eliminate_chunk(p0, n, a, b, c, d);
    const int first_slot = 2 * w * LANES + lane, last_slot = first_slot + LANES;
    reduced_a[first_slot] = a[0];
    reduced_c[first_slot] = c[0];
    reduced_d[first_slot] = d[0];
    reduced_a[last_slot] = a[CHUNK - 1];
    reduced_c[last_slot] = c[CHUNK - 1];
    reduced_d[last_slot] = d[CHUNK - 1];
    memoryBarrierShared();
    barrier();
    if (w == 0) {
        // Thomas over the column's 2 WARPS unit-diagonal rows; the first row's coupling above
        // and the last row's below are dropped (the window's truncation). c' in reduced_c.
        float c_prev = 0.0, d_prev = 0.0;
        for (int r = 0; r < 2 * WARPS; ++r) {
            const int s = r * LANES + lane;
            const float ar = r == 0 ? 0.0 : reduced_a[s];
            const float q = 1.0 / (1.0 - ar * c_prev);
            c_prev = r == 2 * WARPS - 1 ? 0.0 : q * reduced_c[s];
            d_prev = q * (reduced_d[s] - ar * d_prev);
            reduced_c[s] = c_prev;
            reduced_d[s] = d_prev;
        }
        float x = d_prev;
        for (int r = 2 * WARPS - 2; r >= 0; --r) {
            const int s = r * LANES + lane;
            x = reduced_d[s] - reduced_c[s] * x;
            reduced_d[s] = x;
        }
    }
    memoryBarrierShared();
    barrier();
    const float x_first = reduced_d[first_slot], x_last = reduced_d[last_slot];
    if (column >= LINE_COUNT || w < HALO_WARPS || w >= WARPS - HALO_WARPS) return;
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = p0 + k;
        const float x = k == 0                  ? x_first
                        : k == CHUNK - 1 ? x_last
                                                : d[k] - a[k] * x_first - c[k] * x_last;
        if (pos < n) store(line, pos, x, inputs[k]);
    }
}
#endif
#endif
