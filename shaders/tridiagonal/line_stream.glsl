#ifndef LINE_STREAM_GLSL
#define LINE_STREAM_GLSL
// line_stream.glsl — lines whose rows are one set away from their walls (advection's: one
// velocity and one diffusivity a line), solved by the scans of window_scan.glsl in work groups
// that walk their lines from one end to the other, a segment at a time, and carry the forward
// recurrence's value exactly from each segment into the next: no warm-up upstream at all.
//
// Why: the scan windows start each window's forward recurrence from nothing and rebuild its
// carry-in from HALO_LOW rows before the window. Where the flow along the lines is fast (the
// vortex's outer lines: 128 rows upstream at 4096^2, 256 at 8192^2) those rows are a large part
// of what a window loads, every window pays them, and the lines need window bands of their own
// halos. Here a segment's chunks fold in the exact value at the end of the segment before (the
// entry) in place of the rows before it, so each row is loaded once, but for the short warm-up
// downstream (HIGH_CHUNKS at a segment's end, the back substitution's: the next segment loads
// them again and stores them).
//
// The walk runs in the frame of the lines' flow: where it runs backwards (c's transfer larger
// than a's), position q of the walk is position LINE_LENGTH - 1 - q of the line, with a and c
// swapped, so that the long recurrence is always the forward one and HALO_LOW its halo. A work
// group takes the frame of its first line: the host gives streams only to lines whose groups
// flow one way.
//
// Layout: along y (DIRECTION 1), invocation t is column t % LANES of the group's LANES and chunk
// t / LANES of the STREAM_CHUNKS chunks of CHUNK rows stacked down them; along x, a work group
// walks one row, invocation t its chunk t. A segment is those chunks, of which the first
// STREAM_CHUNKS - HIGH_CHUNKS store (STEP positions) and the rest are the back substitution's
// warm-up. Each chunk runs both recurrences over its rows from zero, as in window_scan.glsl, and
// folds in the chunks before it (up to LOW_CHUNKS of them, then the segment's entry, which holds
// everything before: the fold is the windows' truncation at most) and HIGH_CHUNKS after it. The
// chunks at a wall take their own multipliers (inverse_at: the first wall's pivots computed once,
// the last row's, identity rows past it), so that nothing but a chunk's forward values or
// solution and its old values stays live across the barriers: a work group of 1,024 invocations
// gets 64 registers each, and the stream needs 61 without spilling.
//
// The includer defines what window_scan.glsl asks for, and
//     void line_row(int line, int pos, out float a, out float b, out float c);
//         // the row at position pos of the line: the walls' rows at 0 and LINE_LENGTH - 1,
//         // identity rows past them
#include "tridiagonal/window_layout.glsl"

#if DIRECTION == 0
const int STREAM_LANES = 1;  // a row a work group
#else
const int STREAM_LANES = LANES;
#endif
const int STREAM_CHUNKS = GROUP_SIZE / STREAM_LANES;     // chunks a segment
const int STORED_CHUNKS = STREAM_CHUNKS - HIGH_CHUNKS;  // chunks a segment stores
const int STEP = STORED_CHUNKS * CHUNK;                 // positions a segment moves the walk on

// A chunk's last forward value from zero, LOW_CHUNKS chunks of zeros before the first (so that
// the fold reads every chunk before it unconditionally), of which the last holds the segment's
// entry: the exact forward value before its first chunk, one for each of the group's lines.
const int ENDS_BEFORE = LOW_CHUNKS * STREAM_LANES;
shared float forward_ends[ENDS_BEFORE + GROUP_SIZE];
shared float backward_starts[GROUP_SIZE];  // a chunk's first backward value, from zero
// The reciprocal pivots of the first CHUNK rows from the walk's first wall, of each line.
shared float first_inverses[CHUNK * STREAM_LANES];

// The walk's row q: the line's row q, or its row LINE_LENGTH - 1 - q mirrored (a and c swapped).
void walk_row(int line, int q, bool mirrored, out float a, out float b, out float c) {
    if (mirrored)
        line_row(line, LINE_LENGTH - 1 - q, c, b, a);
    else
        line_row(line, q, a, b, c);
}

// What the walk of an invocation's line keeps: its interior rows' a and c, LU's reciprocal
// pivots (the limit's, and the last row's), and the limit's multipliers with their CHUNK-th
// powers.
struct Walk {
    float a, c, inverse_pivot, inverse_last, lower, upper, lower_chunk, upper_chunk;
};

// LU's reciprocal pivot of the walk's row q: from the first wall's own for its first CHUNK
// rows (first_inverses), the limit's past them (the host checks that they settle within a
// chunk: sim/advection.cpp, pivots_settle), the last row's own, 1 past it (identity rows).
float inverse_at(Walk walk, int q, int lane) {
    if (q < CHUNK) return first_inverses[max(q, 0) * STREAM_LANES + lane];
    if (q == LINE_LENGTH - 1) return walk.inverse_last;
    return q >= LINE_LENGTH ? 1.0 : walk.inverse_pivot;
}
// The multipliers of the walk's row q: forwards -a_q / u_(q-1), backwards -c_q / u_q (no
// coupling through the walls, nor past them).
float forwards_at(Walk walk, int q, int lane) {
    return q <= 0 || q >= LINE_LENGTH ? 0.0 : -walk.a * inverse_at(walk, q - 1, lane);
}
float backwards_at(Walk walk, int q, int lane) {
    return q >= LINE_LENGTH - 1 ? 0.0 : -walk.c * inverse_at(walk, q, lane);
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int n = LINE_LENGTH;
    const int chunk = t / STREAM_LANES, lane = t % STREAM_LANES;
    const int group = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    const int first_line = band_first + group * STREAM_LANES;
    const bool has_line = first_line + lane < band_first + band_lines;
    const int line = min(first_line + lane, LINE_COUNT - 1);

    // The group's frame from its first line: backwards where c carries more than a.
    float a, b, c;
    interior_row(min(first_line, LINE_COUNT - 1), a, b, c);
    const bool mirrored = c < a;  // both negative: -c > -a
    interior_row(line, a, b, c);
    Walk walk;
    walk.a = mirrored ? c : a;
    walk.c = mirrored ? a : c;
    const float pivot = 0.5 * (b + sqrt(b * b - 4.0 * walk.a * walk.c));
    walk.inverse_pivot = 1.0 / pivot;
    walk.lower = -walk.a * walk.inverse_pivot;
    walk.upper = -walk.c * walk.inverse_pivot;
    walk.lower_chunk = walk.lower;
    walk.upper_chunk = walk.upper;
    for (int k = 1; k < CHUNK; ++k) {
        walk.lower_chunk *= walk.lower;
        walk.upper_chunk *= walk.upper;
    }
    // The first wall's pivots, from its row (a = 0) on, and zeros before the first chunk's ends.
    if (chunk == 0) {
        float inverse_prev = 0.0, c_prev = 0.0;
        for (int k = 0; k < CHUNK; ++k) {
            walk_row(line, k, mirrored, a, b, c);
            inverse_prev = 1.0 / (b - a * inverse_prev * c_prev);
            first_inverses[k * STREAM_LANES + lane] = inverse_prev;
            c_prev = c;
        }
    }
    for (int i = t; i < ENDS_BEFORE; i += GROUP_SIZE) forward_ends[i] = 0.0;
    memoryBarrierShared();
    barrier();
    walk_row(line, n - 1, mirrored, a, b, c);
    walk.inverse_last = 1.0 / (b - a * walk.c * inverse_at(walk, n - 2, lane));

    const int segments = (n + STEP - 1) / STEP;
    for (int s = 0; s < segments; ++s) {
        const int q0 = s * STEP + chunk * CHUNK;
        const int p0 = mirrored ? n - q0 - CHUNK : q0;  // the chunk's first row of the line
        const bool wall = q0 < 1 || q0 + CHUNK >= n;
        float rows_a[CHUNK], rows_b[CHUNK], rows_c[CHUNK], natural[CHUNK];
        vec2 inputs[CHUNK];
        window_rows(line, p0, rows_a, rows_b, rows_c, natural, inputs);
        wall_rows(p0, n, rows_a, rows_b, rows_c, natural);

        // Forwards: the chunk from zero, then the chunks before it and the entry folded in.
        float y[CHUNK];
        float f = 0.0;
        if (wall) {
            for (int k = 0; k < CHUNK; ++k) {
                f = (mirrored ? natural[CHUNK - 1 - k] : natural[k]) +
                    forwards_at(walk, q0 + k, lane) * f;
                y[k] = f;
            }
        } else {
            for (int k = 0; k < CHUNK; ++k) {
                f = (mirrored ? natural[CHUNK - 1 - k] : natural[k]) + walk.lower * f;
                y[k] = f;
            }
        }
        forward_ends[ENDS_BEFORE + t] = f;
        memoryBarrierShared();
        barrier();
        float carry = 0.0;
        for (int j = LOW_CHUNKS; j >= 1; --j)
            carry = forward_ends[ENDS_BEFORE + t - j * STREAM_LANES] + walk.lower_chunk * carry;
        if (wall) {
            for (int k = 0; k < CHUNK; ++k) {
                carry *= forwards_at(walk, q0 + k, lane);
                y[k] += carry;
            }
        } else {
            for (int k = 0; k < CHUNK; ++k) {
                carry *= walk.lower;
                y[k] += carry;
            }
        }
        const float entry = y[CHUNK - 1];

        // Backwards likewise, from the chunks after it.
        float x[CHUNK];
        float g = 0.0;
        if (wall) {
            for (int k = CHUNK - 1; k >= 0; --k) {
                g = inverse_at(walk, q0 + k, lane) * y[k] + backwards_at(walk, q0 + k, lane) * g;
                x[k] = g;
            }
        } else {
            for (int k = CHUNK - 1; k >= 0; --k) {
                g = walk.inverse_pivot * y[k] + walk.upper * g;
                x[k] = g;
            }
        }
        backward_starts[t] = g;
        memoryBarrierShared();
        barrier();
        // The next segment's entry, after every fold of this one has read the last.
        if (chunk == STORED_CHUNKS - 1) forward_ends[ENDS_BEFORE - STREAM_LANES + lane] = entry;
        if (has_line && chunk < STORED_CHUNKS && q0 < n) {
            carry = 0.0;
            for (int j = HIGH_CHUNKS; j >= 1; --j)
                carry = backward_starts[t + j * STREAM_LANES] + walk.upper_chunk * carry;
            if (wall) {
                for (int k = CHUNK - 1; k >= 0; --k) {
                    carry *= backwards_at(walk, q0 + k, lane);
                    x[k] += carry;
                }
            } else {
                for (int k = CHUNK - 1; k >= 0; --k) {
                    carry *= walk.upper;
                    x[k] += carry;
                }
            }
            float values[CHUNK];  // in the line's order
            for (int k = 0; k < CHUNK; ++k) values[k] = mirrored ? x[CHUNK - 1 - k] : x[k];
            if (p0 >= 0) {
                store_chunk_values(line, p0, values, inputs);
            } else {
                for (int k = 0; k < CHUNK; ++k)
                    if (p0 + k >= 0) store(line, p0 + k, values[k], inputs[k]);
            }
        }
    }
    KERNEL_EXIT();
}
#endif
