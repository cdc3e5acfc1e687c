// Heat's y half step (default of the `fused` solver where lambda allows; ADILAB_HEAT_COLSCAN =
// "warps,chunk" or 0) with the same closed-form inverse as
// heat_window.comp (read its header: dT_p = g (F_p + B_p - d_p), F and B the two first-order
// recurrences with ratio rho over the mirrored right-hand side, truncation below 2^-26 max |d|
// after HALO terms), with no d tile: lane c of every subgroup is column c of the group's 32
// (loads and stores coalesce along rows), and subgroup w owns the CHUNK rows r0 + w CHUNK ...
// Each invocation runs both recurrences over its own rows from zero and publishes its chunk's
// end value; after one barrier it folds in the end values of the chunks above (F) and below (B)
// of its column, S_v weighted by rho^(CHUNK (distance - 1)). Exact inside the group's rows, so
// only the HALO_WARPS subgroups at each end (>= HALO rows) are a warm-up whose rows are not
// stored.
//
// Needs: CHUNK, HALO, WARPS (subgroups a work group, > 2 HALO_WARPS), GROUP_SIZE = 32 WARPS.
#define DIRECTION 1
#include "sim/adi_common.glsl"

#pragma optionNV(unroll all)

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };

uniform float lambda;
uniform float rho;
uniform float gain;
uniform vec2 heater_left;
uniform vec2 heater_right;
uniform float heater_radius;
uniform float heater_temperature;

const int LANES = 32;
const int HALO_WARPS = (HALO + CHUNK - 1) / CHUNK;
const int OUT_WARPS = WARPS - 2 * HALO_WARPS;
const int SEGMENT = OUT_WARPS * CHUNK;  // rows stored per group

bool in_heater(ivec2 cell) {
    if (heater_radius <= 0.0) return false;
    const vec2 p = vec2(cell) + 0.5;
    const vec2 l = p - heater_left, r = p - heater_right;
    const float r2 = heater_radius * heater_radius;
    return dot(l, l) <= r2 || dot(r, r) <= r2;
}

bool box_touches_heater(ivec2 lo, ivec2 hi) {
    if (heater_radius <= 0.0) return false;
    const vec2 a = vec2(lo), b = vec2(hi) + 1.0;
    const vec2 l = clamp(heater_left, a, b) - heater_left;
    const vec2 r = clamp(heater_right, a, b) - heater_right;
    const float r2 = heater_radius * heater_radius;
    return dot(l, l) <= r2 || dot(r, r) <= r2;
}

int mirrored(int p, int n) {
    if (p >= 0 && p < n) return p;
    const int period = 2 * n;
    // p mod period from non-negative operands (GLSL leaves % of negatives undefined)
    const int m = p >= 0 ? p % period : period - 1 - (-p - 1) % period;
    return m < n ? m : period - 1 - m;
}

float temperature_at(int column, int row, bool heaters) {
    const ivec2 cell = ivec2(clamp(column, 0, nx - 1), mirrored(row, ny));
    return heaters && in_heater(cell) ? heater_temperature : field_in[index_of(cell)];
}

shared float forward_ends[GROUP_SIZE];   // chunk w, column c at w * 32 + c
shared float backward_ends[GROUP_SIZE];

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int lane = t % LANES, w = t / LANES;
    const int first_column = int(gl_WorkGroupID.x) * LANES;
    const int column = first_column + lane;
    const int start = int(gl_WorkGroupID.y) * SEGMENT - HALO_WARPS * CHUNK;  // chunk 0's row
    const int r0 = start + w * CHUNK;

    // The group's cells: near a wall the mirrored rows may be anywhere in the column.
    const bool folded = start - 1 < 0 || start + WARPS * CHUNK >= ny;
    const bool heaters = box_touches_heater(
        ivec2(max(first_column - 1, 0), folded ? 0 : start - 1),
        ivec2(min(first_column + LANES, nx - 1), folded ? ny - 1 : start + WARPS * CHUNK));

    float centre[CHUNK], d[CHUNK];
    {
        float left[CHUNK], right[CHUNK];
        float up, down;  // the rows before and after the chunk
        if (!heaters && column >= 1 && column + 1 < nx && r0 >= 1 && r0 + CHUNK < ny) {
            const int id = r0 * nx + column;
            for (int k = 0; k < CHUNK; ++k) {
                centre[k] = field_in[id + k * nx];
                left[k] = field_in[id + k * nx - 1];
                right[k] = field_in[id + k * nx + 1];
            }
            up = field_in[id - nx];
            down = field_in[id + CHUNK * nx];
        } else {
            for (int k = 0; k < CHUNK; ++k) {
                centre[k] = temperature_at(column, r0 + k, heaters);
                left[k] = temperature_at(column - 1, r0 + k, heaters);
                right[k] = temperature_at(column + 1, r0 + k, heaters);
            }
            up = temperature_at(column, r0 - 1, heaters);
            down = temperature_at(column, r0 + CHUNK, heaters);
        }
        for (int k = 0; k < CHUNK; ++k) {
            const float c = centre[k];
            const float u = k == 0 ? up : centre[k - 1];
            const float v = k == CHUNK - 1 ? down : centre[k + 1];
            d[k] = lambda * ((left[k] - c) + (right[k] - c) + (u - c) + (v - c));
        }
    }

    float power[CHUNK];  // rho^(k + 1)
    power[0] = rho;
    for (int k = 1; k < CHUNK; ++k) power[k] = power[k - 1] * rho;
    const float step = power[CHUNK - 1];  // rho^CHUNK

    // Both recurrences over the chunk from zero; publish the ends.
    float forward[CHUNK], x[CHUNK];
    {
        float f = 0.0;
        for (int k = 0; k < CHUNK; ++k) {
            f = d[k] + rho * f;
            forward[k] = f;
        }
        float b = 0.0;
        for (int k = CHUNK - 1; k >= 0; --k) {
            b = d[k] + rho * b;
            x[k] = b;
        }
        forward_ends[t] = f;
        backward_ends[t] = b;
    }
    memoryBarrierShared();
    barrier();
    // The chunks above (F) and below (B) of this column, nearest last.
    float above = 0.0, below = 0.0;
    for (int v = 0; v < WARPS; ++v)
        if (v < w) above = above * step + forward_ends[v * LANES + lane];
    for (int v = WARPS - 1; v >= 0; --v)
        if (v > w) below = below * step + backward_ends[v * LANES + lane];
    for (int k = 0; k < CHUNK; ++k)
        x[k] = gain * (forward[k] + power[k] * above + x[k] + power[CHUNK - 1 - k] * below - d[k]);

    if (w < HALO_WARPS || w >= WARPS - HALO_WARPS || column >= nx) return;
    for (int k = 0; k < CHUNK; ++k) {
        const int row = r0 + k;
        if (row >= ny) break;
        const ivec2 cell = ivec2(column, row);
        const float value = heaters && in_heater(cell) ? heater_temperature : centre[k] + x[k];
        flag_if_not_finite(value);
        field_out[index_of(cell)] = value;
    }
}
