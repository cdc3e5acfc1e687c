#ifndef HEAT_SCAN_GLSL
#define HEAT_SCAN_GLSL
// Heat's constant-coefficient half step by the closed-form inverse (the `fused` solver's path
// wherever lambda <= ~7): the x half step as a scan across subgroup lanes (row_scan), the y half
// step with chunk ends joined in shared memory (column_scan). Used by heat_rowscan.comp and
// heat_colscan.comp (one dispatch per half step).
//
// The system: the same increment system as heat.comp (either scheme, through lambda and
// lambda_across, compiled in with EXPLICIT_ACROSS), without heaters (sim/heat.cpp takes this
// path only where no cell is pinned: a pinned cell breaks the constant matrix),
//     (1 - lambda d_xx) dT = lambda d_xx T + lambda_across d_yy T   (x sweep; y the reverse),
// but solved through the closed-form inverse of its constant matrix instead of a line solve.
//
// The matrix: off-diagonals -lambda, diagonal 1 + 2 lambda, 1 + lambda in the wall rows (mirrored
// ghosts). On the infinite line it factors as (lambda / rho)(1 - rho S)(1 - rho S^T) with
//     rho = 2 lambda / (1 + 2 lambda + sqrt(1 + 4 lambda)) < 1,
// so its inverse is the two-sided exponential G_m = g rho^|m|, g = (1 - rho) / (1 + rho) (each
// row sums to 1). The insulated walls are mirrors: the Neumann system's solution is the
// infinite-line solution for the right-hand side extended evenly about both walls (period 2n),
// exactly, near the walls too. So
//     dT_p = g (F_p + B_p - d_p),  F_p = d_p + rho F_{p-1},  B_p = d_p + rho B_{p+1}
// over the mirrored d. Truncating both recurrences to HALO terms before p leaves out at most
//     2 rho^(HALO+1) / (1 + rho) * max |d|,
// which sim/heat.cpp keeps below 2^-26 max |d| (under fp32 round-off of dT) by its choice of
// HALO; where that needs HALO > 48 (lambda > ~7) heat uses the exact fused line solve instead.
// The truncated operator still has equal column sums, so heat stays conserved to round-off.
//
// The includer defines, before including this file: GROUP_SIZE, HALO_LOW = HALO_HIGH (HALO); for
// row_scan ROW_SCAN, X_WARPS (subgroups a row tile), X_CHUNK, ROW_IN / ROW_OUT (the buffer
// arrays read and written) and SUBGROUPS where the device has 32-wide subgroup shuffles (else a
// shared-memory exchange with work-group barriers: llvmpipe, same arithmetic), optionally X_VEC4
// (16-byte loads through ROW_IN4 and stores through ROW_OUT4, X_CHUNK a multiple of 4) and
// X_ROWS (rows a subgroup, default 1); for column_scan COLUMN_SCAN, Y_WARPS (= GROUP_SIZE / 32),
// Y_CHUNK, COLUMN_IN / COLUMN_OUT. column_scan's stores go through adi_common.glsl's check_value
// (the stability check): its kernel calls report_checks() after it.
#include "sim/adi_common.glsl"

// The closed-form inverse is symmetric, so heat's windows are too (sim/heat.cpp): the one HALO
// of AdiModel::build_window's two.
#if HALO_LOW != HALO_HIGH
#error "heat's window scans take one halo both ways"
#endif
#define HALO HALO_LOW

#pragma optionNV(unroll all)

uniform float lambda;         // implicit weight along the line
#ifdef EXPLICIT_ACROSS
uniform float lambda_across;  // explicit weight across it
#endif
uniform float rho;
uniform float gain;

const int LANES = 32;

// Position p of a line of n cells, folded by the mirrors at both walls (period 2n): the even
// extension that makes the infinite-line inverse the Neumann one.
int mirrored(int p, int n) {
    if (p >= 0 && p < n) return p;
    const int period = 2 * n;
    // p mod period from non-negative operands (GLSL leaves % of negatives undefined)
    const int m = p >= 0 ? p % period : period - 1 - (-p - 1) % period;
    return m < n ? m : period - 1 - m;
}

#ifdef ROW_SCAN
// The x half step. Each subgroup (32 lanes) owns a segment of one row, lane j the X_CHUNK
// consecutive positions p0 + j X_CHUNK .. ; a lane runs both recurrences over its chunk from
// zero, and the 32 chunks are joined by a scan across the lanes (F: Y_j = S_j + rho^CHUNK
// Y_(j-1), log2 32 shuffle steps; B the mirror image). The scan is exact inside the segment, so
// only the HALO_LANES lanes at each end (>= HALO positions) are a warm-up whose values are not
// stored.
const int HALO_LANES = (HALO + X_CHUNK - 1) / X_CHUNK;
const int OUT_LANES = LANES - 2 * HALO_LANES;
const int ROW_SEGMENT = OUT_LANES * X_CHUNK;  // positions stored per subgroup

float row_temperature(int row, int p) {
    return ROW_IN[index_of(ivec2(mirrored(p, nx), clamp(row, 0, ny - 1)))];
}

#ifdef SUBGROUPS
float from_lower(float v, int delta) { return subgroupShuffleUp(v, uint(delta)); }
float from_upper(float v, int delta) { return subgroupShuffleDown(v, uint(delta)); }
#else
shared float exchange[GROUP_SIZE];
float lane_value(float v, int lane) {
    const int t = int(gl_LocalInvocationID.x);
    barrier();
    exchange[t] = v;
    memoryBarrierShared();
    barrier();
    return exchange[(t / LANES) * LANES + clamp(lane, 0, LANES - 1)];
}
float from_lower(float v, int delta) {
    return lane_value(v, int(gl_LocalInvocationID.x) % LANES - delta);
}
float from_upper(float v, int delta) {
    return lane_value(v, int(gl_LocalInvocationID.x) % LANES + delta);
}
#endif

#ifndef X_ROWS
#define X_ROWS 1
#endif

// Row `row`'s cells p0 .. p0 + X_CHUNK - 1 (rows beyond the walls clamped: the mirror); `plain`:
// no wall inside p0 - 1 .. p0 + X_CHUNK (plain indexing, 16-byte loads with X_VEC4).
void load_row(int row, int p0, bool plain, out float v[X_CHUNK]) {
    if (plain) {
        const int id = clamp(row, 0, ny - 1) * nx + p0;
#ifdef X_VEC4
        // 16-byte loads: X_CHUNK is a multiple of 4 and so is every lane's p0 (segments and
        // halos are whole chunks); so are the row starts where nx is a multiple of 4.
        if ((nx & 3) == 0) {
            for (int q = 0; q < X_CHUNK / 4; ++q) {
                const vec4 c = ROW_IN4[(id >> 2) + q];
                for (int e = 0; e < 4; ++e) v[4 * q + e] = c[e];
            }
            return;
        }
#endif
        for (int k = 0; k < X_CHUNK; ++k) v[k] = ROW_IN[id + k];
    } else {
        for (int k = 0; k < X_CHUNK; ++k) v[k] = row_temperature(row, p0 + k);
    }
}

// Subgroup `dispatched` of the half step (segments in row order, X_ROWS consecutive rows a
// subgroup: each row's T is loaded once and reused as the next row's "above"); every lane of the
// work group calls it (the exchange without subgroups has barriers).
void row_scan(int dispatched) {
    const int lane = int(gl_LocalInvocationID.x) % LANES;
    const int segments = (nx + ROW_SEGMENT - 1) / ROW_SEGMENT;
    const int row_blocks = (ny + X_ROWS - 1) / X_ROWS;
    const bool has_rows = dispatched < segments * row_blocks;
    // The subgroups take the rows from the last: the y half step before this one stored the
    // last rows last, and what the cache still holds of its output is theirs (the y scan then
    // starts at the first rows, which this one stores last).
    const int warp = max(segments * row_blocks - 1 - dispatched, 0);
    const int first_row = min(warp / segments, row_blocks - 1) * X_ROWS;
    const int last_row = min(first_row + X_ROWS - 1, ny - 1);
    const int start = (warp % segments) * ROW_SEGMENT - HALO_LANES * X_CHUNK;  // lane 0's
    const int p0 = start + lane * X_CHUNK;

    const bool plain = p0 >= 1 && p0 + X_CHUNK < nx;

    // rho^(k + 1), k < X_CHUNK, and rho^(X_CHUNK 2^s) for the scan.
    float power[X_CHUNK];
    power[0] = rho;
    for (int k = 1; k < X_CHUNK; ++k) power[k] = power[k - 1] * rho;

    // T on the row (and with EXPLICIT_ACROSS the rows above and below, moved up a row per row).
    float centre[X_CHUNK];
#ifdef EXPLICIT_ACROSS
    float up[X_CHUNK], down[X_CHUNK];
    load_row(first_row - 1, p0, plain, up);
    load_row(first_row, p0, plain, centre);
    load_row(first_row + 1, p0, plain, down);
#endif
    for (int rr = 0; rr < X_ROWS; ++rr) {
        // Past the last row (a partial block): computed on the clamped row, not stored; no early
        // exit, since without subgroups the lane exchange has work-group barriers.
        const bool stores = has_rows && first_row + rr < ny;
        const int row = min(first_row + rr, ny - 1);
#ifdef EXPLICIT_ACROSS
        if (rr > 0) {
            for (int k = 0; k < X_CHUNK; ++k) {
                up[k] = centre[k];
                centre[k] = down[k];
            }
            load_row(row + 1, p0, plain, down);
        }
#else
        load_row(row, p0, plain, centre);
#endif
        float left, right;
        if (plain) {
            const int id = row * nx + p0;
            left = ROW_IN[id - 1];
            right = ROW_IN[id + X_CHUNK];
        } else {
            left = row_temperature(row, p0 - 1);
            right = row_temperature(row, p0 + X_CHUNK);
        }
        float d[X_CHUNK];
        for (int k = 0; k < X_CHUNK; ++k) {
            const float c = centre[k];
            const float l = k == 0 ? left : centre[k - 1];
            const float r = k == X_CHUNK - 1 ? right : centre[k + 1];
            d[k] = lambda * ((l - c) + (r - c));
#ifdef EXPLICIT_ACROSS
            d[k] += lambda_across * ((up[k] - c) + (down[k] - c));
#endif
        }

        // Forward recurrence in the chunk from zero, then the lanes joined.
        float forward[X_CHUNK];
        {
            float f = 0.0;
            for (int k = 0; k < X_CHUNK; ++k) {
                f = d[k] + rho * f;
                forward[k] = f;
            }
            float y = f, step = power[X_CHUNK - 1];  // Y_j = S_j + rho^CHUNK Y_(j-1)
            for (int delta = 1; delta < LANES; delta *= 2) {
                const float lower = from_lower(y, delta);
                if (lane >= delta) y += step * lower;
                step *= step;
            }
            float carry = from_lower(y, 1);
            if (lane == 0) carry = 0.0;
            for (int k = 0; k < X_CHUNK; ++k) forward[k] += power[k] * carry;
        }
        // Backward likewise from the upper lanes; then dT.
        float x[X_CHUNK];
        {
            float b = 0.0;
            for (int k = X_CHUNK - 1; k >= 0; --k) {
                b = d[k] + rho * b;
                x[k] = b;
            }
            float y = b, step = power[X_CHUNK - 1];
            for (int delta = 1; delta < LANES; delta *= 2) {
                const float upper = from_upper(y, delta);
                if (lane + delta < LANES) y += step * upper;
                step *= step;
            }
            float carry = from_upper(y, 1);
            if (lane == LANES - 1) carry = 0.0;
            for (int k = 0; k < X_CHUNK; ++k)
                x[k] = gain * (forward[k] + x[k] + power[X_CHUNK - 1 - k] * carry - d[k]);
        }

        if (stores && lane >= HALO_LANES && lane < LANES - HALO_LANES) {
#ifdef X_VEC4
            // 16 bytes a store where the rows allow it: with one float a store, each of a
            // subgroup's store instructions writes 4 bytes every X_CHUNK floats, into 16 or 32
            // different 32-byte sectors: four times the L2 write requests.
            const bool quads = (nx & 3) == 0 && p0 + X_CHUNK <= nx;
            if (quads) {
                const int quad = (row * nx + p0) >> 2;
                for (int q = 0; q < X_CHUNK / 4; ++q)
                    ROW_OUT4[quad + q] = vec4(centre[4 * q] + x[4 * q],
                                              centre[4 * q + 1] + x[4 * q + 1],
                                              centre[4 * q + 2] + x[4 * q + 2],
                                              centre[4 * q + 3] + x[4 * q + 3]);
            }
#else
            const bool quads = false;
#endif
            for (int k = 0; k < X_CHUNK && !quads; ++k) {
                const int p = p0 + k;
                if (p >= nx) break;
                ROW_OUT[index_of(ivec2(p, row))] = centre[k] + x[k];
            }
        }
    }
}
#endif  // ROW_SCAN

#ifdef COLUMN_SCAN
// The y half step, with no d tile: lane c of every subgroup is column c of the group's 32
// (loads and stores coalesce along rows), and subgroup w owns the Y_CHUNK rows r0 + w Y_CHUNK ..
// Each invocation runs both recurrences over its own rows from zero and publishes its chunk's
// end value; after one barrier it folds in the end values of the chunks above (F) and below (B)
// of its column, S_v weighted by rho^(CHUNK (distance - 1)). Exact inside the group's rows, so
// only the HALO_WARPS subgroups at each end (>= HALO rows) are a warm-up whose rows are not
// stored. Needs Y_WARPS > 2 HALO_WARPS.
const int HALO_WARPS = (HALO + Y_CHUNK - 1) / Y_CHUNK;
const int OUT_WARPS = Y_WARPS - 2 * HALO_WARPS;
const int COLUMN_SEGMENT = OUT_WARPS * Y_CHUNK;  // rows stored per group

float column_temperature(int column, int row) {
    return COLUMN_IN[index_of(ivec2(clamp(column, 0, nx - 1), mirrored(row, ny)))];
}

shared float forward_ends[GROUP_SIZE];   // chunk w, column c at w * 32 + c
shared float backward_ends[GROUP_SIZE];

// The solve and the stores of the column scan, given the
// chunk's right-hand side d and its T values centre: both recurrences over the chunk from zero,
// the chunk ends published, one barrier (every invocation of the work group calls it), the ends
// of the chunks above (F) and below (B) of the column folded in, nearest last; then
// T + dT (flagged) stored for the chunks outside the warm-ups where `stores`.
void column_solve_and_store(int t, int w, int column, int r0, bool stores,
                            float centre[Y_CHUNK], float d[Y_CHUNK]) {
    const int lane = t % LANES;
    float power[Y_CHUNK];  // rho^(k + 1)
    power[0] = rho;
    for (int k = 1; k < Y_CHUNK; ++k) power[k] = power[k - 1] * rho;
    const float step = power[Y_CHUNK - 1];  // rho^CHUNK

    float forward[Y_CHUNK], x[Y_CHUNK];
    float f = 0.0;
    for (int k = 0; k < Y_CHUNK; ++k) {
        f = d[k] + rho * f;
        forward[k] = f;
    }
    float b = 0.0;
    for (int k = Y_CHUNK - 1; k >= 0; --k) {
        b = d[k] + rho * b;
        x[k] = b;
    }
    forward_ends[t] = f;
    backward_ends[t] = b;
    memoryBarrierShared();
    barrier();
    float above = 0.0, below = 0.0;
    for (int v = 0; v < Y_WARPS; ++v)
        if (v < w) above = above * step + forward_ends[v * LANES + lane];
    for (int v = Y_WARPS - 1; v >= 0; --v)
        if (v > w) below = below * step + backward_ends[v * LANES + lane];
    for (int k = 0; k < Y_CHUNK; ++k)
        x[k] = gain * (forward[k] + power[k] * above + x[k] + power[Y_CHUNK - 1 - k] * below -
                       d[k]);

    if (w >= HALO_WARPS && w < Y_WARPS - HALO_WARPS && stores) {
        for (int k = 0; k < Y_CHUNK; ++k) {
            const int row = r0 + k;
            if (row >= ny) break;
            const float value = centre[k] + x[k];
            check_value(value);
            COLUMN_OUT[index_of(ivec2(column, row))] = value;
        }
    }
}

// The group's tile: columns 32 tile.x .., rows from tile.y COLUMN_SEGMENT; every invocation of
// the work group calls it.
void column_scan(ivec2 tile) {
    const int t = int(gl_LocalInvocationID.x);
    const int lane = t % LANES, w = t / LANES;
    const int first_column = tile.x * LANES;
    const int column = first_column + lane;
    const int start = tile.y * COLUMN_SEGMENT - HALO_WARPS * Y_CHUNK;  // chunk 0's row
    const int r0 = start + w * Y_CHUNK;

    float centre[Y_CHUNK], d[Y_CHUNK];
    {
        // The columns either side only with EXPLICIT_ACROSS.
        float left[Y_CHUNK], right[Y_CHUNK];
        float up, down;  // the rows before and after the chunk
        if (column >= 1 && column + 1 < nx && r0 >= 1 && r0 + Y_CHUNK < ny) {
            const int id = r0 * nx + column;
            for (int k = 0; k < Y_CHUNK; ++k) {
                centre[k] = COLUMN_IN[id + k * nx];
#ifdef EXPLICIT_ACROSS
                left[k] = COLUMN_IN[id + k * nx - 1];
                right[k] = COLUMN_IN[id + k * nx + 1];
#endif
            }
            up = COLUMN_IN[id - nx];
            down = COLUMN_IN[id + Y_CHUNK * nx];
        } else {
            for (int k = 0; k < Y_CHUNK; ++k) {
                centre[k] = column_temperature(column, r0 + k);
#ifdef EXPLICIT_ACROSS
                left[k] = column_temperature(column - 1, r0 + k);
                right[k] = column_temperature(column + 1, r0 + k);
#endif
            }
            up = column_temperature(column, r0 - 1);
            down = column_temperature(column, r0 + Y_CHUNK);
        }
        for (int k = 0; k < Y_CHUNK; ++k) {
            const float c = centre[k];
            const float u = k == 0 ? up : centre[k - 1];
            const float v = k == Y_CHUNK - 1 ? down : centre[k + 1];
            d[k] = lambda * ((u - c) + (v - c));
#ifdef EXPLICIT_ACROSS
            d[k] += lambda_across * ((left[k] - c) + (right[k] - c));
#endif
        }
    }

    column_solve_and_store(t, w, column, r0, column < nx, centre, d);
}
#endif  // COLUMN_SCAN

#endif  // HEAT_SCAN_GLSL
