#ifndef WINDOW_LINES_GLSL
#define WINDOW_LINES_GLSL
// window_lines.glsl — lines with general (row by row) coefficients solved inside decay windows,
// one dispatch, no reduced system in memory, no carries between work groups: each output
// position is solved from the rows within HALO_LOW positions before it and HALO_HIGH after it.
// Advection's and shallow water's `fused` half steps wherever the implicit weight allows
// (shaders/sim/*.comp build the rows from the state), and `partition`'s guarded window
// (partition_window.comp reads them from the coefficients).
//
// Why it is exact to fp32: a window solves the principal submatrix of the line's system on its
// positions, the exact system with the couplings to the rows outside dropped. Where every row of
// the window is strictly diagonally dominant, the error this makes at position m, from the
// coupling a_s x_{s-1} dropped at its start s, is at most |x_{s-1}| prod_{k=s..m} sigma_k with
// sigma_k = |a_k| / (|b_k| - |c_k|) < 1, and from the coupling dropped at its end e at most
// |x_{e+1}| prod_{k=m..e} rho_k with rho_k = |c_k| / (|b_k| - |a_k|): the first and last columns
// of the window's inverse, by elimination from the far end, shrink by those factors a row.
// The models' rows have columns dominant by theta < 1 (sim/model.hpp, general_window_tail,
// derives it and the bound): the models pick HALO_LOW and HALO_HIGH so that the error is below
// 2^-27 max |x| from each end (general_window_halo), or take the exact line solve
// (fused_lines.glsl). With WINDOW_GUARD the kernel checks the bound itself, from the rows it
// loaded: each storing chunk multiplies the sigma of every row of the warm-up chunks before it
// and the rho of every row of those after it (the factors of its own rows, below 1, only make
// the true bound smaller), and where a row is not strictly dominant or the two products add up
// to more than 2^-27, calls the includer's window_guard_failed() and does not store: the last
// window to end on the line solves it exactly (exact_windows and solve_lines_exactly, below), so
// that no other dispatch follows the window. Windows that reach a wall are exact there: the rows
// past the wall are identity rows with no coupling to the line.
//
// The solve is the partition method of fused_lines.glsl (Laszlo, Giles & Appleyard 2016): each
// invocation eliminates its chunk of CHUNK rows in registers to its first and last unknowns,
// and publishes those two rows (the window's reduced system) in shared memory; after one
// barrier, each chunk that stores solves the reduced rows of the LOW_CHUNKS chunks before it,
// the HIGH_CHUNKS after it and its own by Thomas, from shared memory, and substitutes back. Its
// positions are then at least LOW_CHUNKS CHUNK >= HALO_LOW rows inside that local window from
// its start and HALO_HIGH from its end: the bound above holds for it as for the whole one, and
// no invocation waits on a serial solve of the whole window.
// A window is a run of chunks of one line, laid out so that global loads coalesce:
//   x (DIRECTION 0, rows): ROW_WINDOW_CHUNKS consecutive invocations (32 by default, one
//     subgroup) are as many consecutive chunks of a row (16-byte loads and stores where the rows
//     allow), GROUP_SIZE / ROW_WINDOW_CHUNKS windows a work group;
//   y (DIRECTION 1, columns): invocation t is column t % COLUMN_LANES of the group's
//     COLUMN_LANES (32 by default, or 16; loads and stores coalesce along rows) and chunk
//     t / COLUMN_LANES of those stacked down the columns.
// The LOW_CHUNKS chunks at a window's start and HIGH_CHUNKS at its end are its warm-up: their
// values are not stored. With WHOLE_LINES (along x, with WINDOW_GUARD) a window holds its whole
// line, so it needs no warm-up, reads each row once and solves its line exactly itself where
// the bound breaks.
//
// The includer defines DIRECTION, LINE_LENGTH and LINE_COUNT (ints), CHUNK (a multiple of 4
// along x), GROUP_SIZE (a multiple of 32), HALO_LOW, HALO_HIGH, and the functions
//     int line_index(int line, int pos);  // the element's index in the fields
//     void window_rows(int line, int p0, out float a[CHUNK], out float b[CHUNK],
//                      out float c[CHUNK], out float d[CHUNK], out vec2 inputs[CHUNK]);
//         // rows p0 .. p0 + CHUNK - 1 of the line, positions off the line clamped onto it
//         // (replaced here by identity rows)
//     float store_value(int line, int pos, float x, vec2 input);  // x: what the rows store
//     void store(int line, int pos, float x, vec2 input);         // store (and check) a value
// Along x, on rows of LINE_LENGTH floats each starting where the last ends, the new values leave
// 16 bytes at a time where LINE_LENGTH is a multiple of 4, through binding 1 seen as vec4s
// (x_out4 here: the includer's output field there), as store_value gives them.
// Optionally SWEEP_SKIPPED(): true where the work group is to end before it loads anything (a
// guarded sweep that is not this step's, sim/model.hpp).
// With WINDOW_GUARD, the includer's window_guard_failed() (above) and WINDOW_PIVOT_FAILED(line),
// called where the exact solve met a zero or non-finite pivot; binding 7 holds the exact solve's
// carries (solve_lines_exactly), 2 floats a line and block of WINDOW_CHUNKS chunks, and binding 8
// the windows' counts (exact_windows), a word a line (x) or column group (y), zero before the
// first solve (each solve leaves them so).
// With WINDOW_GROUP_END defined (not with WINDOW_GUARD), every invocation calls the includer's
// window_group_end() after the stores (shallow water's y sweep sums its work group's new cells
// there); the arrays of the reduced rows are free by then, after a barrier. Every invocation calls
// KERNEL_EXIT() last, on each way out (the simulations' stability checks' report,
// sim/adi_common.glsl), where the includer defines it. Lines of one set of rows away from their
// walls (advection's) have a faster solver with the same layout: window_scan.glsl.
#include "tridiagonal/partition_rows.glsl"

#include "tridiagonal/window_layout.glsl"

#if COLUMN_LANES != 32 && (defined(WINDOW_GUARD) || defined(WINDOW_GROUP_END))
#error "the guard's counts and window_group_end() take the work group's columns in 32s"
#endif
#if defined(WHOLE_LINES) && (DIRECTION != 0 || !defined(WINDOW_GUARD))
#error "windows of whole lines are laid out along x only, and guarded"
#endif
#if defined(WINDOW_BAND) && (defined(WINDOW_GUARD) || defined(WHOLE_LINES))
#error "a band of lines is a window of runs of chunks, not guarded"
#endif
#if defined(WINDOW_GROUP_END) && defined(WINDOW_GUARD)
#error "a guarded window's exact solve and window_group_end() both use the reduced rows' arrays"
#endif

// The chunk's rows eliminated to a_k x_first + x_k + c_k x_last = d_k inside the chunk, the
// first row coupled to the previous chunk's last unknown (a_0) and the last row to the next
// chunk's first (c_{K-1}).
// Returns whether every pivot was finite and not zero.
bool eliminate_chunk(inout float a[CHUNK], inout float b[CHUNK], inout float c[CHUNK],
                     inout float d[CHUNK]) {
    bool pivots_ok = true;
    for (int k = 0; k < CHUNK; ++k)
        PARTITION_FORWARD_ROW(a, c, d, k, a[k], b[k], c[k], d[k], pivots_ok);
    PARTITION_BACKWARD(a, c, d, CHUNK);
    return pivots_ok;
}

// The local window's reduced rows: LOW_CHUNKS chunks before the storing chunk, its own and
// HIGH_CHUNKS after it, two rows each; the storing chunk's are rows 2 LOW_CHUNKS and
// 2 LOW_CHUNKS + 1. Where the window holds its whole line, the chunks of a local window past the
// line's ends are absent (identity rows): nothing was dropped there.
const int LOCAL_ROWS = 2 * (LOW_CHUNKS + HIGH_CHUNKS + 1);
const int OWN_FIRST = 2 * LOW_CHUNKS;

// Invocation t's chunk's first and last rows (unit diagonal: a, c, d).
shared float first_a[GROUP_SIZE], first_c[GROUP_SIZE], first_d[GROUP_SIZE];
shared float last_a[GROUP_SIZE], last_c[GROUP_SIZE], last_d[GROUP_SIZE];

#ifdef WINDOW_GUARD
// Invocation t's chunk's products of sigma (down the line) and rho (up it), +Inf where a row is
// not strictly dominant.
shared float decay_down[GROUP_SIZE], decay_up[GROUP_SIZE];
vec2 chunk_decay(float a[CHUNK], float b[CHUNK], float c[CHUNK]) {
    vec2 decay = vec2(1.0);
    bool dominant = true;
    for (int k = 0; k < CHUNK; ++k) {
        const float ak = abs(a[k]), bk = abs(b[k]), ck = abs(c[k]);
        dominant = dominant && ak + ck < bk;  // false for a NaN too
        decay *= vec2(ak == 0.0 ? 0.0 : ak / (bk - ck), ck == 0.0 ? 0.0 : ck / (bk - ak));
    }
    return dominant ? decay : vec2(uintBitsToFloat(0x7f800000u));
}
#endif

// Publishes the chunk's eliminated first and last rows (unit diagonal: a, c, d) for the others.
void publish_chunk(int t, float a[CHUNK], float c[CHUNK], float d[CHUNK]) {
    first_a[t] = a[0];
    first_c[t] = c[0];
    first_d[t] = d[0];
    last_a[t] = a[CHUNK - 1];
    last_c[t] = c[CHUNK - 1];
    last_d[t] = d[CHUNK - 1];
}

// Substitutes the chunk's end values into its eliminated rows and stores the positions on the
// line.
void store_chunk(int line, int p0, float a[CHUNK], float c[CHUNK], float d[CHUNK],
                 vec2 inputs[CHUNK], float x_first, float x_last) {
    float x[CHUNK];
    for (int k = 0; k < CHUNK; ++k)
        x[k] = k == 0 ? x_first : k == CHUNK - 1 ? x_last : d[k] - a[k] * x_first - c[k] * x_last;
    store_chunk_values(line, p0, x, inputs);
}

#ifdef WINDOW_GUARD
// The work group's windows: where the bound broke (bit w for window w of the group, set by its
// storing chunks), and, from bit 16 on, those whose lines the group solves exactly.
shared uint group_votes;

// The exact solve's carries: the forward sweep's (c', d') before each block of a line.
layout(std430, binding = 7) buffer WindowCarries { vec2 window_carries[]; };
// The windows that have ended on each line (x) or column group (y), 65537 for one that found the
// bound broken: the last window to end sees them all, and clears the count for the next solve.
layout(std430, binding = 8) buffer WindowCounts { uint window_counts[]; };

// Thomas's forward sweep over the reduced rows of `chunks` chunks of a window (2 rows each, unit
// diagonal, chunk k's at t + k CHUNK_STRIDE), in shared memory, by one invocation, from the
// sweep's (c', d') of the rows before them, which it leaves at their last: c' and d' into
// first_c / first_d and last_c / last_d. Returns whether every pivot was finite and not zero.
// The loops run to a bound that the compiler cannot unroll where it is the line's (windows of
// whole lines): unrolled, up to 2048 rows each, they took the NVIDIA compiler minutes.
bool reduced_forward(int t, int chunks, inout float c_prev, inout float d_prev) {
    bool pivots_ok = true;
    for (int r = 0; r < 2 * chunks; ++r) {
        const int s = t + (r / 2) * CHUNK_STRIDE;
        const bool first_row = r % 2 == 0;
        const float ar = first_row ? first_a[s] : last_a[s];
        const float cr = first_row ? first_c[s] : last_c[s];
        const float dr = first_row ? first_d[s] : last_d[s];
        const float pivot = 1.0 - ar * c_prev;
        pivots_ok = pivots_ok && pivot != 0.0 && !isnan(pivot) && !isinf(pivot);
        const float q = 1.0 / pivot;
        c_prev = q * cr;
        d_prev = q * (dr - ar * d_prev);
        if (first_row) {
            first_c[s] = c_prev;
            first_d[s] = d_prev;
        } else {
            last_c[s] = c_prev;
            last_d[s] = d_prev;
        }
    }
    return pivots_ok;
}

// The back substitution over the same rows from x_next, the unknown after them, which it leaves
// at their first: x into first_d and last_d.
void reduced_backward(int t, int chunks, inout float x_next) {
    for (int r = 2 * chunks - 1; r >= 0; --r) {
        const int s = t + (r / 2) * CHUNK_STRIDE;
        if (r % 2 == 0) {
            x_next = first_d[s] - first_c[s] * x_next;
            first_d[s] = x_next;
        } else {
            x_next = last_d[s] - last_c[s] * x_next;
            last_d[s] = x_next;
        }
    }
}

// The windows whose lines the work group solves exactly, a bit each (a value the whole group
// reads; barriers inside, every invocation calls it). A window of a run of chunks shares its line
// with other work groups: each window counts itself in window_counts when its chunks have stored
// (its first invocation, with an atomic), and the last window of a line (along y of a column
// group) solves it where the bound broke in any window of it. No chunk stores where its bound
// broke, so whatever else is stored on such a line, before the exact values or after them, is
// within the bound of them (2^-27 max |x|).
#ifndef WHOLE_LINES
uint exact_windows(int t, int window_in_group, bool counted, uint counter, uint windows_on_it) {
    memoryBarrierShared();
    barrier();
    const uint broken = group_votes & 0xffffu;
    if (t % (WINDOW_CHUNKS * CHUNK_STRIDE) == 0 && counted) {
        const uint mine = (broken >> window_in_group & 1u) != 0u ? 65537u : 1u;
        const uint seen = atomicAdd(window_counts[counter], mine) + mine;
        if ((seen & 0xffffu) == windows_on_it) {
            window_counts[counter] = 0u;
            if (seen >= 65536u) atomicOr(group_votes, 1u << (16 + window_in_group));
        }
    }
    memoryBarrierShared();
    barrier();
    return group_votes >> 16;
}

// The exact solve of the lines of the windows that solve theirs (`solves_line`): each window's
// invocations sweep its whole line in blocks of WINDOW_CHUNKS chunks. A block's chunks are loaded
// and eliminated as the window's are, and the window's first invocation carries Thomas's sweep
// over the block's reduced rows into the next: forward over every block but the last, keeping
// the carry before each (window_carries), then back from the last block to the first, each block
// loaded again, swept from its carry and substituted back, and its chunks stored. Serial over a
// line's reduced rows and two passes over its rows, but it runs only where the bound broke, once
// a line, where an exact solve in another dispatch cost every solve its launch (about 4 us at
// 1024^2 on the H100 and the H200). Zero and non-finite pivots are reported with the line. Every
// invocation of the group calls it (barriers inside).
// The chunk at p0 of the line loaded, eliminated and its end rows published, as the window's are;
// returns whether its pivots were finite and not zero.
bool load_chunk(int t, int line, int p0, out float a[CHUNK], out float b[CHUNK],
                out float c[CHUNK], out float d[CHUNK], out vec2 inputs[CHUNK]) {
    window_rows(line, p0, a, b, c, d, inputs);
    wall_rows(p0, LINE_LENGTH, a, b, c, d);
    const bool pivots_ok = eliminate_chunk(a, b, c, d);
    publish_chunk(t, a, c, d);
    return pivots_ok;
}

void solve_lines_exactly(int t, int chunk, int line, bool has_line, bool solves_line) {
    const int n = LINE_LENGTH;
    const int block_rows = WINDOW_CHUNKS * CHUNK;
    const int blocks = (n + block_rows - 1) / block_rows;
    const int chunks = min((n + CHUNK - 1) / CHUNK, WINDOW_CHUNKS);  // a block's, on the line
    const bool sweeps = solves_line && chunk == 0;  // the invocation that sweeps the reduced rows
    const int carries = line * blocks;
    float a[CHUNK], b[CHUNK], c[CHUNK], d[CHUNK];
    vec2 inputs[CHUNK];
    float c_prev = 0.0, d_prev = 0.0;
    for (int j = 0; j + 1 < blocks; ++j) {
        if (solves_line) load_chunk(t, line, j * block_rows + chunk * CHUNK, a, b, c, d, inputs);
        memoryBarrierShared();
        barrier();
        if (sweeps) {
            reduced_forward(t, chunks, c_prev, d_prev);
            if (has_line) window_carries[carries + j + 1] = vec2(c_prev, d_prev);
        }
        memoryBarrierShared();
        barrier();
    }
    float x_next = 0.0;
    for (int j = blocks - 1; j >= 0; --j) {
        const int p0 = j * block_rows + chunk * CHUNK;
        const bool pivots_ok = !solves_line || load_chunk(t, line, p0, a, b, c, d, inputs);
        memoryBarrierShared();
        barrier();
        if (sweeps) {
            const vec2 carry = j == 0 ? vec2(0.0) : window_carries[carries + j];
            c_prev = carry.x;
            d_prev = carry.y;
            if (!reduced_forward(t, chunks, c_prev, d_prev) && has_line) WINDOW_PIVOT_FAILED(line);
            reduced_backward(t, chunks, x_next);
        }
        memoryBarrierShared();
        barrier();
        if (solves_line && has_line && p0 < n) {
            if (!pivots_ok) WINDOW_PIVOT_FAILED(line);
            store_chunk(line, p0, a, c, d, inputs, first_d[t], last_d[t]);
        }
    }
}
#endif
#endif

// Row r of the reduced rows of chunk `chunk`'s local window (invocation t's), unit diagonal: its
// first row's coupling above and its last row's below dropped; where the window holds its whole
// line, the chunks past the line's ends identity rows.
void local_row(int t, int chunk, int r, out float ar, out float cr, out float dr) {
    const int neighbour = chunk + r / 2 - LOW_CHUNKS;
    const bool present = !WHOLE || (neighbour >= 0 && neighbour < WINDOW_CHUNKS);
    const int s = present ? t + (r / 2 - LOW_CHUNKS) * CHUNK_STRIDE : t;
    const bool first_row = r % 2 == 0;
    ar = r == 0 ? 0.0 : first_row ? first_a[s] : last_a[s];
    cr = r == LOCAL_ROWS - 1 ? 0.0 : first_row ? first_c[s] : last_c[s];
    dr = first_row ? first_d[s] : last_d[s];
    if (!present) ar = cr = dr = 0.0;
}

// Thomas's forward sweep over two consecutive rows of unit diagonal, a1 x_0 + x_1 + c1 x_2 = d1
// and a2 x_1 + x_2 + c2 x_3 = d2, in one step from the sweep's (c', d') before them, which it
// leaves at the second. Row by row the step is p1 = 1 - a1 c', then p2 = 1 - a2 c1 / p1, two
// reciprocals one after the other; as a product, p1 p2 = p1 - a2 c1, one reciprocal. It halves
// the chain of dependent steps of a local solve with a long side (the vortex's bands: 36 reduced
// rows upstream of a chunk at 4096^2) for a little less arithmetic, which gave the vortex 1.6%
// there: its local solves cost what they compute more than how long their chain is.
void forward_two_rows(float a1, float c1, float d1, float a2, float c2, float d2,
                      inout float c_prev, inout float d_prev) {
    const float p1 = 1.0 - a1 * c_prev;
    const float q = 1.0 / (p1 - a2 * c1);
    const float d_first = d1 - a1 * d_prev;  // the first row's d', times p1
    c_prev = c2 * p1 * q;
    d_prev = (d2 * p1 - a2 * d_first) * q;
}

void main() {
#ifdef SWEEP_SKIPPED
    const bool skipped = SWEEP_SKIPPED();  // loaded with the rows, tested once they are in
#endif
    const int t = int(gl_LocalInvocationID.x);
    const int n = LINE_LENGTH;
    const WindowPlace place = window_place(t);
    const int chunk = place.chunk, line = place.line, p0 = place.p0;
    const bool has_line = place.has_line;
    const int window_in_group = place.window_in_group;
#ifdef WINDOW_GUARD
    if (t == 0) group_votes = 0u;
#endif

    float a[CHUNK], b[CHUNK], c[CHUNK], d[CHUNK];
    vec2 inputs[CHUNK];
    window_rows(line, p0, a, b, c, d, inputs);
#ifdef SWEEP_SKIPPED
    if (skipped) return;  // a guarded sweep that is not this step's
#endif
    wall_rows(p0, n, a, b, c, d);
#ifdef WINDOW_GUARD
    const vec2 decay = chunk_decay(a, b, c);
    decay_down[t] = decay.x;
    decay_up[t] = decay.y;
#endif
    const bool pivots_ok = eliminate_chunk(a, b, c, d);
    publish_chunk(t, a, c, d);
    memoryBarrierShared();
    barrier();
    // The storing chunks (the warm-up's and those past the line's end only helped the others).
    const bool stores = window_stores(place);
    float x_first = 0.0, x_last = 0.0;
    if (stores) {
        // Thomas over the local window's rows: its first row's coupling above and its last row's
        // below dropped (the truncation). Only the rows between the own chunk's and the end the
        // elimination starts from are kept for the substitution: it starts from the local
        // window's longer side, so that registers hold the shorter side (eliminated from the
        // start, a window band with 128 rows after the chunk took 30% longer than its mirror
        // image, 128 rows before it: the vortex at 4096^2 on the H100). The longer side's chunks
        // are swept two rows a step (forward_two_rows).
        if (HIGH_CHUNKS <= LOW_CHUNKS) {
            float cp[LOCAL_ROWS - OWN_FIRST], dp[LOCAL_ROWS - OWN_FIRST];
            float c_prev = 0.0, d_prev = 0.0;
            for (int r = 0; r < OWN_FIRST; r += 2) {
                float a1, c1, d1, a2, c2, d2;
                local_row(t, chunk, r, a1, c1, d1);
                local_row(t, chunk, r + 1, a2, c2, d2);
                forward_two_rows(a1, c1, d1, a2, c2, d2, c_prev, d_prev);
            }
            for (int r = OWN_FIRST; r < LOCAL_ROWS; ++r) {
                float ar, cr, dr;
                local_row(t, chunk, r, ar, cr, dr);
                const float q = 1.0 / (1.0 - ar * c_prev);
                c_prev = q * cr;
                d_prev = q * (dr - ar * d_prev);
                cp[r - OWN_FIRST] = c_prev;
                dp[r - OWN_FIRST] = d_prev;
            }
            float x_next = dp[LOCAL_ROWS - OWN_FIRST - 1];
            for (int r = LOCAL_ROWS - OWN_FIRST - 2; r >= 0; --r) {
                x_next = dp[r] - cp[r] * x_next;
                dp[r] = x_next;
            }
            x_first = dp[0];
            x_last = dp[1];
        } else {
            // From the end: x_r = d_r - a_r x_{r-1}, then forwards from the first row.
            float ap[OWN_FIRST + 2], dp[OWN_FIRST + 2];
            float a_next = 0.0, d_next = 0.0;
            for (int r = LOCAL_ROWS - 1; r > OWN_FIRST + 1; r -= 2) {
                float a2, c2, d2, a1, c1, d1;
                local_row(t, chunk, r, a2, c2, d2);
                local_row(t, chunk, r - 1, a1, c1, d1);
                forward_two_rows(c2, a2, d2, c1, a1, d1, a_next, d_next);
            }
            for (int r = OWN_FIRST + 1; r >= 0; --r) {
                float ar, cr, dr;
                local_row(t, chunk, r, ar, cr, dr);
                const float q = 1.0 / (1.0 - cr * a_next);
                a_next = q * ar;
                d_next = q * (dr - cr * d_next);
                ap[r] = a_next;
                dp[r] = d_next;
            }
            float x_prev = dp[0];
            for (int r = 1; r <= OWN_FIRST + 1; ++r) {
                x_prev = dp[r] - ap[r] * x_prev;
                dp[r] = x_prev;
            }
            x_first = dp[OWN_FIRST];
            x_last = dp[OWN_FIRST + 1];
        }
        bool bound_held = true;
#ifdef WINDOW_GUARD
        // The products over the local window's other chunks either side (0 where it reaches
        // past the line's end: nothing dropped there), and the own chunk's rows dominant too
        // (its factors, at most 1, left out of the products): else the bound does not hold.
        float from_start = 1.0, from_end = 1.0;
        for (int j = 1; j <= LOW_CHUNKS; ++j)
            from_start *= !WHOLE || chunk - j >= 0 ? decay_down[max(t - j * CHUNK_STRIDE, 0)] : 0.0;
        for (int j = 1; j <= HIGH_CHUNKS; ++j)
            from_end *= !WHOLE || chunk + j < WINDOW_CHUNKS
                            ? decay_up[min(t + j * CHUNK_STRIDE, GROUP_SIZE - 1)]
                            : 0.0;
        const bool own_dominant = decay_down[t] <= 1.0;
        if (!(from_start + from_end <= 1.0 / 134217728.0 && own_dominant)) {  // 2^-27
            window_guard_failed();
            atomicOr(group_votes, 1u << window_in_group);
            bound_held = false;
        }
#endif
#ifndef WHOLE_LINES
        if (bound_held) store_chunk(line, p0, a, c, d, inputs, x_first, x_last);
#endif
    }
#ifdef WHOLE_LINES
    // Windows of whole lines store after the group's vote: where the bound broke in one, its first
    // invocation solves its reduced rows exactly first (Thomas, in shared memory, from the rows
    // every chunk published and still holds in registers).
    memoryBarrierShared();
    barrier();
    const uint broken = group_votes;
    if (broken != 0u) {
        const bool solves_line = (broken >> window_in_group & 1u) != 0u;
        if (solves_line && chunk == 0) {
            const int chunks = min((n + CHUNK - 1) / CHUNK, WINDOW_CHUNKS);
            float c_prev = 0.0, d_prev = 0.0, x_next = 0.0;
            if (!reduced_forward(t, chunks, c_prev, d_prev) && has_line) WINDOW_PIVOT_FAILED(line);
            reduced_backward(t, chunks, x_next);
        }
        memoryBarrierShared();
        barrier();
        if (solves_line) {
            x_first = first_d[t];
            x_last = last_d[t];
            if (stores && !pivots_ok) WINDOW_PIVOT_FAILED(line);
        }
    }
    if (stores) store_chunk(line, p0, a, c, d, inputs, x_first, x_last);
#elif defined(WINDOW_GUARD)
    // Where the bound broke, the lines solved exactly (exact_windows says which windows' lines;
    // a branch the whole group takes or not).
#if DIRECTION == 0
    const uint counter = uint(line), windows_on_it = uint(place.segments);
    const bool counted = has_line;
#else
    const uint counter = gl_WorkGroupID.x, windows_on_it = gl_NumWorkGroups.y;
    const bool counted = true;
#endif
    const uint exact = exact_windows(t, window_in_group, counted, counter, windows_on_it);
    if (exact != 0u)
        solve_lines_exactly(t, chunk, line, has_line, (exact >> window_in_group & 1u) != 0u);
#endif
#ifdef WINDOW_GROUP_END
    // The includer's end of a work group (every invocation reaches it).
    window_group_end();
#endif
    KERNEL_EXIT();
}
#endif
