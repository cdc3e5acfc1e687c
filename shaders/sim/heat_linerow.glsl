#ifndef HEAT_LINEROW_GLSL
#define HEAT_LINEROW_GLSL
// Heat's x half step with whole rows per work group, for heat_linerow.comp (its header has the
// maths and the options): line_rows() stages the rows through a shared tile, line_rows_direct()
// (X_DIRECT) has each invocation load and store its own chunk; both solve by chunk_solve().
// (Kept apart from the .comp so that another kernel can run the x half step inside a larger
// dispatch.) The includer defines CHUNK, CHUNKS, LINES, GROUP_SIZE (= LINES * CHUNKS), HALO,
// DIRECTION 0, optionally SUBGROUPS, X_VEC4, FORM_PLAIN, X_DIRECT, X_PAIR, LONG_LINE, and the
// arrays LINE_IN / LINE_OUT (float) and with X_VEC4 LINE_IN4 / LINE_OUT4 (vec4) it reads T from
// and writes T* (or the pairs) to; then includes sim/heat_scan.glsl and this file.

uniform float log2_rho;    // log2(rho)
uniform float rho_n;       // rho^nx
uniform float wall_scale;  // 1 / (1 - rho^(2 nx))
uniform int wall_reach;    // positions from a wall where rho^distance > 2^-30

#ifndef X_DIRECT
const int SPAN = CHUNKS * CHUNK;  // positions a row holds in the tile (zeros past nx)
const int STAGED = LINES * SPAN;
// Position f of the group's rows at f + f / 32: an invocation's chunk (stride CHUNK, a power of
// two) then hits 32 different banks across a subgroup.
shared float tile[STAGED + STAGED / 32 + 1];
int slot(int f) { return f + (f >> 5); }
#endif
shared vec2 walls[LINES];  // (B_0, F_(nx - 1)) of each row

#ifdef SUBGROUPS
const int SLICE = CHUNKS < 32 ? CHUNKS : 32;  // chunks of a row in one subgroup
const int SLICES = CHUNKS / SLICE;
#if CHUNKS > 32
shared vec2 slice_ends[LINES * SLICES];  // (F at a slice's last chunk, B at its first)
#endif
#else
shared vec2 scan_buffer[2][GROUP_SIZE];
#endif

float rho_power(int e) { return exp2(float(e) * log2_rho); }

// The carries of chunk p of row slot l: (full F at the position before the chunk, full B at the
// position after it), without the walls' terms, from the chunk's own (F at its last position,
// B at its first) from zero carries. Every invocation of the group calls it.
vec2 chunk_carries(vec2 y, int l, int p, float rho_chunk) {
#ifdef SUBGROUPS
    const int q = p % SLICE;
    float m = rho_chunk;
    for (int delta = 1; delta < SLICE; delta *= 2) {
        const float lower = subgroupShuffleUp(y.x, uint(delta));
        const float upper = subgroupShuffleDown(y.y, uint(delta));
        if (q >= delta) y.x += m * lower;
        if (q + delta < SLICE) y.y += m * upper;
        m *= m;
    }
    vec2 outside = vec2(0.0);  // full F at the previous slice's end, full B at the next's start
#if CHUNKS > 32
    const int g = p / SLICE;
    if (q == SLICE - 1) slice_ends[l * SLICES + g].x = y.x;
    if (q == 0) slice_ends[l * SLICES + g].y = y.y;
    memoryBarrierShared();
    barrier();
    // m = rho^(CHUNK SLICE) now.
    for (int h = 0; h < SLICES; ++h)
        if (h < g) outside.x = outside.x * m + slice_ends[l * SLICES + h].x;
    for (int h = SLICES - 1; h >= 0; --h)
        if (h > g) outside.y = outside.y * m + slice_ends[l * SLICES + h].y;
    y.x += rho_power(CHUNK * (q + 1)) * outside.x;
    y.y += rho_power(CHUNK * (SLICE - q)) * outside.y;
#endif
    const float lower = subgroupShuffleUp(y.x, 1u);
    const float upper = subgroupShuffleDown(y.y, 1u);
    return vec2(q > 0 ? lower : outside.x, q + 1 < SLICE ? upper : outside.y);
#else
    const int t = int(gl_LocalInvocationID.x);
    int current = 0;
    scan_buffer[0][t] = y;
    memoryBarrierShared();
    barrier();
    float m = rho_chunk;
    for (int delta = 1; delta < CHUNKS; delta *= 2) {
        if (p >= delta) y.x += m * scan_buffer[current][t - delta].x;
        if (p + delta < CHUNKS) y.y += m * scan_buffer[current][t + delta].y;
        current ^= 1;
        scan_buffer[current][t] = y;
        memoryBarrierShared();
        barrier();
        m *= m;
    }
    return vec2(p > 0 ? scan_buffer[current][t - 1].x : 0.0,
                p + 1 < CHUNKS ? scan_buffer[current][t + 1].y : 0.0);
#endif
}

float cell_value(int row, int i, bool heaters) {
    return heaters && in_heater(ivec2(i, row)) ? heater_temperature : LINE_IN[row * nx + i];
}

// The right-hand side at cell (i, row) from its centre value c and the rows above and below
// (rows clamped: the mirrored walls).
float right_hand_side(int row, int i, float c, bool heaters) {
    const float up = cell_value(max(row - 1, 0), i, heaters);
    const float down = cell_value(min(row + 1, ny - 1), i, heaters);
#ifdef FORM_PLAIN
    return c + lambda * ((up - c) + (down - c));
#else
    const float left = cell_value(row, max(i - 1, 0), heaters);
    const float right = cell_value(row, min(i + 1, nx - 1), heaters);
    return lambda * ((up - c) + (down - c) + (left - c) + (right - c));
#endif
}

#ifdef X_VEC4
// right_hand_side for the 4 cells (i .. i + 3, row) by 16-byte loads, where no heater can be
// among them or beside them; c gets their values.
vec4 right_hand_side4(int row, int i, out vec4 c) {
    const int id = row * nx + i;
    c = LINE_IN4[id >> 2];
    const vec4 up = LINE_IN4[(max(row - 1, 0) * nx + i) >> 2];
    const vec4 down = LINE_IN4[(min(row + 1, ny - 1) * nx + i) >> 2];
#ifdef FORM_PLAIN
    return c + lambda * ((up - c) + (down - c));
#else
    const float before = i > 0 ? LINE_IN[id - 1] : c.x;
    const float after = i + 4 < nx ? LINE_IN[id + 4] : c.w;
    const vec4 left = vec4(before, c.xyz), right = vec4(c.yzw, after);
    return lambda * ((up - c) + (down - c) + (left - c) + (right - c));
#endif
}
#endif

// x = the exact Neumann solve's values at chunk p (positions s = p CHUNK ..) of row slot l from
// the chunk's right-hand side d (zeros past nx); every invocation of the work group calls it.
void chunk_solve(float d[CHUNK], out float x[CHUNK], int l, int p) {
    const int s = p * CHUNK;
    float forward[CHUNK], backward[CHUNK];
    float power[CHUNK];  // rho^(k + 1)
    power[0] = rho;
    for (int k = 1; k < CHUNK; ++k) power[k] = power[k - 1] * rho;
    {
        float f = 0.0, b = 0.0;
        for (int k = 0; k < CHUNK; ++k) {
            f = d[k] + rho * f;
            forward[k] = f;
            b = d[CHUNK - 1 - k] + rho * b;
            backward[CHUNK - 1 - k] = b;
        }
    }
    const vec2 carry = chunk_carries(vec2(forward[CHUNK - 1], backward[0]), l, p, power[CHUNK - 1]);
    for (int k = 0; k < CHUNK; ++k) {
        forward[k] += power[k] * carry.x;
        backward[k] += power[CHUNK - 1 - k] * carry.y;
    }

    // The walls: B_0 and F_(nx - 1) of the row, then alpha and beta.
    const int last = nx - 1;
    float f_last = 0.0;
    for (int k = 0; k < CHUNK; ++k)
        if (k == last % CHUNK) f_last = forward[k];
#ifdef LONG_LINE
    // rho^nx below 2^-30 (rho_n = 0, wall_scale = 1), the wall_reach chunks at the left wall in
    // the row's first subgroup and those at the right wall in the subgroup of the chunk holding
    // nx - 1 (sim/heat.cpp checks both; rows start at lane 0): the two values by shuffles, no
    // barrier.
    const vec2 ends = vec2(subgroupShuffle(backward[0], 0u),
                           subgroupShuffle(f_last, uint((last / CHUNK) % SLICE)));
#else
    if (p == 0) walls[l].x = backward[0];
    if (p == last / CHUNK) walls[l].y = f_last;
    memoryBarrierShared();
    barrier();
    const vec2 ends = walls[l];
#endif
    if (s < wall_reach) {
        const float alpha = (ends.x + rho_n * ends.y) * wall_scale;
        for (int k = 0; k < CHUNK; ++k) forward[k] += rho_power(s + k + 1) * alpha;
    }
    if (nx - (s + CHUNK) < wall_reach) {
        const float beta = (ends.y + rho_n * ends.x) * wall_scale;
        for (int k = 0; k < CHUNK; ++k)
            if (s + k < nx) backward[k] += rho_power(nx - s - k) * beta;
    }
    for (int k = 0; k < CHUNK; ++k) x[k] = gain * (forward[k] + backward[k] - d[k]);
}

#ifndef X_DIRECT
// Rows group * LINES .. of the x half step; every invocation of the work group calls it.
void line_rows(int group) {
    const int tid = int(gl_LocalInvocationID.x);
    const int first_row = group * LINES;
    // Whether a heater can touch the group's rows or the rows beside them (uniform per group:
    // groups away from the heaters skip the per-cell tests).
    const bool heaters = box_touches_heater(ivec2(0, max(first_row - 1, 0)),
                                            ivec2(nx - 1, min(first_row + LINES, ny - 1)));

    // Staged loads: the group's rows in order, each invocation CHUNK positions GROUP_SIZE apart.
    float centre[CHUNK];  // T at the staged positions (delta form: T* = T + x)
#ifdef X_VEC4
    const bool wide = !heaters;
#else
    const bool wide = false;
#endif
    if (wide) {
#ifdef X_VEC4
        for (int u = 0; u < CHUNK / 4; ++u) {
            const int f = 4 * (tid + u * GROUP_SIZE);
            const int l = f / SPAN, i = f % SPAN;
            const int row = min(first_row + l, ny - 1);
            vec4 value = vec4(0.0);
            if (i < nx) {
                vec4 c;
                value = right_hand_side4(row, i, c);
                for (int e = 0; e < 4; ++e) centre[4 * u + e] = c[e];
            }
            for (int e = 0; e < 4; ++e) tile[slot(f + e)] = value[e];
        }
#endif
    } else {
        for (int u = 0; u < CHUNK; ++u) {
            const int f = tid + u * GROUP_SIZE;
            const int l = f / SPAN, i = f % SPAN;
            const int row = min(first_row + l, ny - 1);
            float value = 0.0;
            if (i < nx) {
                centre[u] = cell_value(row, i, heaters);
                value = right_hand_side(row, i, centre[u], heaters);
            }
            tile[slot(f)] = value;
        }
    }
    memoryBarrierShared();
    barrier();

    // The chunk's right-hand side, solved in place.
    const int l = tid / CHUNKS, p = tid % CHUNKS, s = p * CHUNK;
    float d[CHUNK], x[CHUNK];
    for (int k = 0; k < CHUNK; ++k) d[k] = tile[slot(l * SPAN + s + k)];
    chunk_solve(d, x, l, p);
    // x into the chunk's own slots (only this invocation reads them).
    for (int k = 0; k < CHUNK; ++k) tile[slot(l * SPAN + s + k)] = x[k];
    memoryBarrierShared();
    barrier();

    // Staged stores, as the loads.
    if (wide) {
#ifdef X_VEC4
        for (int u = 0; u < CHUNK / 4; ++u) {
            const int f = 4 * (tid + u * GROUP_SIZE);
            const int l2 = f / SPAN, i = f % SPAN;
            const int row = first_row + l2;
            if (i >= nx || row >= ny) continue;
            vec4 x;
            for (int e = 0; e < 4; ++e) x[e] = tile[slot(f + e)];
#ifndef FORM_PLAIN
            for (int e = 0; e < 4; ++e) x[e] += centre[4 * u + e];
#endif
            LINE_OUT4[(row * nx + i) >> 2] = x;
        }
#endif
    } else {
        for (int u = 0; u < CHUNK; ++u) {
            const int f = tid + u * GROUP_SIZE;
            const int l2 = f / SPAN, i = f % SPAN;
            const int row = first_row + l2;
            if (i >= nx || row >= ny) continue;
            float x = tile[slot(f)];
#ifndef FORM_PLAIN
            x += centre[u];
#endif
            const ivec2 cell = ivec2(i, row);
            LINE_OUT[row * nx + i] = heaters && in_heater(cell) ? heater_temperature : x;
        }
    }
}

#endif  // !X_DIRECT

#ifdef X_DIRECT
#ifdef X_PAIR
shared float pair_edges[2][GROUP_SIZE];  // T* at each chunk's first and last position
#endif
// The x half step with CHUNK = 4 and nx a multiple of 4: each invocation loads its own chunk
// (16-byte loads, coalesced across the lanes) and stores it, no staging tile. X_PAIR: writes
// (T*, e) per cell, e = lambda d_xx T* (the y half step's explicit part along x, from T* of the
// row: a chunk's neighbours through shared memory), as two vec4 per chunk to LINE_OUT4.
void line_rows_direct(int group) {
    const int tid = int(gl_LocalInvocationID.x);
    const int first_row = group * LINES;
    const bool heaters = box_touches_heater(ivec2(0, max(first_row - 1, 0)),
                                            ivec2(nx - 1, min(first_row + LINES, ny - 1)));
    const int l = tid / CHUNKS, p = tid % CHUNKS, s = p * CHUNK;
    const int row = min(first_row + l, ny - 1);
    const bool inside = s < nx;
    vec4 c = vec4(0.0), rhs = vec4(0.0);
    if (inside) {
        if (!heaters) {
            rhs = right_hand_side4(row, s, c);
        } else {
            for (int k = 0; k < 4; ++k) {
                c[k] = cell_value(row, s + k, true);
                rhs[k] = right_hand_side(row, s + k, c[k], true);
            }
        }
    }
    float d[CHUNK], x[CHUNK];
    for (int k = 0; k < CHUNK; ++k) d[k] = rhs[k];
    chunk_solve(d, x, l, p);
    vec4 t = vec4(x[0], x[1], x[2], x[3]);
#ifndef FORM_PLAIN
    t += c;
#endif
    if (heaters)
        for (int k = 0; k < 4; ++k)
            if (in_heater(ivec2(s + k, row))) t[k] = heater_temperature;
    const bool stores = inside && first_row + l < ny;
#ifdef X_PAIR
    pair_edges[0][tid] = t.x;
    pair_edges[1][tid] = t.w;
    memoryBarrierShared();
    barrier();
    // The mirrors: T* beyond a wall is the edge cell's.
    const float before = p > 0 ? pair_edges[1][tid - 1] : t.x;
    const float after = s + 4 < nx ? pair_edges[0][tid + 1] : t.w;
    const vec4 e = lambda * ((vec4(before, t.xyz) - t) + (vec4(t.yzw, after) - t));
    if (stores) {
        const int id = (row * nx + s) >> 1;  // vec4 = two cells' (T*, e)
        LINE_OUT4[id] = vec4(t.x, e.x, t.y, e.y);
        LINE_OUT4[id + 1] = vec4(t.z, e.z, t.w, e.w);
    }
#else
    if (stores) LINE_OUT4[(row * nx + s) >> 2] = t;
#endif
}
#endif  // X_DIRECT
#endif  // HEAT_LINEROW_GLSL
