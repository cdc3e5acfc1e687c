#ifndef WINDOW_SCAN_GLSL
#define WINDOW_SCAN_GLSL
// window_scan.glsl — lines whose rows are one set away from their walls (advection's: one
// velocity and one diffusivity a line), solved in the decay windows of window_lines.glsl (the
// same layout, halos and work groups) by LU with the pivots' limit and two scans across the
// window's chunks, instead of a reduced system a storing chunk.
//
// Away from the walls every row is (a, b, c), so LU's pivots settle on the limit
//     u = (b + sqrt(b^2 - 4 a c)) / 2,   from u_k = b - a c / u_(k-1),
// and its two recurrences have constant multipliers: forwards y_p = d_p + lower y_(p-1) with
// lower = -a / u, backwards x_p = y_p / u + upper x_(p+1) with upper = -c / u. A chunk runs both
// over its own rows from zero; a chunk's true values are its own plus its neighbours' carried in
// with the multipliers' powers, so each chunk folds in the chunks before it (forwards) and after
// it (backwards) from shared memory: one barrier each way, no division in a chunk away from the
// walls. The chunks at a wall or past it take their own pivots from their own rows (the includer's
// wall rows; identity rows past the walls, as window_layout.glsl's wall_rows sets them), from
// the limit before them: so a wall's chunk is exact, and the chunk after the first wall starts
// from the limit, which the host checks the pivots reach to 2^-24 within a chunk's rows.
//
// Why the chunk multipliers can stay constant across a wall: the rows before the first wall are
// identity rows (d = 0), so their chunks carry nothing into it, whatever the multiplier; past the
// last wall the same holds backwards, and the last wall's row has c = 0, so nothing past it
// reaches the line.
//
// The truncation: a storing chunk folds in LOW_CHUNKS chunks before it (>= HALO_LOW rows) and
// HIGH_CHUNKS after it (>= HALO_HIGH rows). Dropping y before them misses the forward values by
// lower^(HALO_LOW + 1) |y| at most, and |y| <= (u - c) max |x| (y = u x_p - c x_(p+1)); the
// backward recurrence damps that by 1 / (u (1 - lower upper)). Dropping x after them misses by
// upper^(HALO_HIGH + 1) max |x|. Both multipliers are below the window bound's decay per row
// (transfer / (1 + transfer): u > 1 + transfer), and the prefactors below its own, so the
// window's halos (general_window_halo, sim/model.hpp) hold here too, as the window tests'
// ScanTruncationIsWithinTheWindowBoundOnUniformLines checks in float64.
//
// The includer defines what window_lines.glsl asks for, and
//     void interior_row(int line, out float a, out float b, out float c);  // the line's rows
#include "tridiagonal/window_layout.glsl"

shared float forward_ends[GROUP_SIZE];     // a chunk's last forward value, from zero
shared float backward_starts[GROUP_SIZE];  // a chunk's first backward value, from zero

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int n = LINE_LENGTH;
    const WindowPlace place = window_place(t);
    const int line = place.line, p0 = place.p0, chunk = place.chunk;
    const bool stores = window_stores(place);  // here, before the loads: see window_stores

    float a[CHUNK], b[CHUNK], c[CHUNK], d[CHUNK];
    vec2 inputs[CHUNK];
    window_rows(line, p0, a, b, c, d, inputs);
    wall_rows(p0, n, a, b, c, d);

    float line_a, line_b, line_c;
    interior_row(line, line_a, line_b, line_c);
    const float pivot = 0.5 * (line_b + sqrt(line_b * line_b - 4.0 * line_a * line_c));
    const float inverse_pivot = 1.0 / pivot;
    const float lower = -line_a * inverse_pivot, upper = -line_c * inverse_pivot;
    float lower_chunk = lower, upper_chunk = upper;  // lower^CHUNK, upper^CHUNK
    for (int k = 1; k < CHUNK; ++k) {
        lower_chunk *= lower;
        upper_chunk *= upper;
    }

    // Each row's forward multiplier, reciprocal pivot and backward multiplier: the limit's, or
    // at a wall the chunk's own from the limit before it.
    float forwards[CHUNK], inverse[CHUNK], backwards[CHUNK];
    if (p0 < 1 || p0 + CHUNK >= n) {
        float u_prev = pivot, c_prev = line_c;
        for (int k = 0; k < CHUNK; ++k) {
            const float m = a[k] / u_prev;
            const float u = b[k] - m * c_prev;
            forwards[k] = -m;
            inverse[k] = 1.0 / u;
            backwards[k] = -c[k] * inverse[k];
            u_prev = u;
            c_prev = c[k];
        }
    } else {
        for (int k = 0; k < CHUNK; ++k) {
            forwards[k] = lower;
            inverse[k] = inverse_pivot;
            backwards[k] = upper;
        }
    }

    // Forwards: the chunk from zero, then the chunks before it folded in.
    float y[CHUNK];
    float f = 0.0;
    for (int k = 0; k < CHUNK; ++k) {
        f = d[k] + forwards[k] * f;
        y[k] = f;
    }
    forward_ends[t] = f;
    memoryBarrierShared();
    barrier();
    // The chunks whose values the storing ones need: their own and HIGH_CHUNKS after each.
    const bool solves = chunk >= WARM_LOW;
    if (solves) {
        float carry = 0.0;
        for (int j = LOW_CHUNKS; j >= 1; --j)
            carry = forward_ends[t - j * CHUNK_STRIDE] + lower_chunk * carry;
        for (int k = 0; k < CHUNK; ++k) {
            carry *= forwards[k];
            y[k] += carry;
        }
    }

    // Backwards likewise, from the chunks after it.
    float x[CHUNK];
    float g = 0.0;
    for (int k = CHUNK - 1; k >= 0; --k) {
        g = inverse[k] * y[k] + backwards[k] * g;
        x[k] = g;
    }
    backward_starts[t] = g;
    memoryBarrierShared();
    barrier();
    if (stores) {
        float carry = 0.0;
        for (int j = HIGH_CHUNKS; j >= 1; --j)
            carry = backward_starts[t + j * CHUNK_STRIDE] + upper_chunk * carry;
        for (int k = CHUNK - 1; k >= 0; --k) {
            carry *= backwards[k];
            x[k] += carry;
        }
        store_chunk_values(line, p0, x, inputs);
    }
    KERNEL_EXIT();
}
#endif
