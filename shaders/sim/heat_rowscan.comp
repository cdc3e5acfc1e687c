#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif
// Heat's x half step (default of the `fused` solver where lambda allows; ADILAB_HEAT_ROWSCAN =
// "warps,chunk" or 0) with the same closed-form inverse as
// heat_window.comp (read its header: dT_p = g (F_p + B_p - d_p), F and B the two first-order
// recurrences with ratio rho over the mirrored right-hand side, truncation below 2^-26 max |d|
// after HALO terms), but without shared tiles or work-group barriers: each subgroup (32 lanes)
// owns a segment of one row, lane j the CHUNK consecutive positions p0 + j CHUNK .. ; a lane runs
// both recurrences over its chunk from zero, and the 32 chunks are joined by a scan across the
// lanes (F: Y_j = S_j + rho^CHUNK Y_(j-1), log2 32 shuffle steps; B the mirror image). The scan is
// exact inside the segment, so only the HALO_LANES lanes at each end (>= HALO positions) are a
// warm-up whose values are not stored.
//
// Needs: CHUNK, HALO, WARPS (subgroups a work group), GROUP_SIZE = 32 WARPS; SUBGROUPS where
// the device has 32-wide subgroup shuffles, else a shared-memory exchange with work-group
// barriers (llvmpipe: same arithmetic).
#define DIRECTION 0
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
const int HALO_LANES = (HALO + CHUNK - 1) / CHUNK;
const int OUT_LANES = LANES - 2 * HALO_LANES;
const int SEGMENT = OUT_LANES * CHUNK;  // positions stored per subgroup

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

float temperature_at(int row, int p, bool heaters) {
    const ivec2 cell = ivec2(mirrored(p, nx), clamp(row, 0, ny - 1));
    return heaters && in_heater(cell) ? heater_temperature : field_in[index_of(cell)];
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

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int lane = t % LANES;
    const int segments = (nx + SEGMENT - 1) / SEGMENT;
    const int warp = int(gl_WorkGroupID.x) * WARPS + t / LANES;
    const bool has_row = warp < segments * ny;
    const int row = min(warp / segments, ny - 1);
    const int start = (warp % segments) * SEGMENT - HALO_LANES * CHUNK;  // lane 0's position
    const int p0 = start + lane * CHUNK;

    // The subgroup's cells: near a wall the mirrored positions may be anywhere on the row.
    const bool folded = start - 1 < 0 || start + LANES * CHUNK >= nx;
    const bool heaters = box_touches_heater(ivec2(folded ? 0 : start - 1, max(row - 1, 0)),
                                            ivec2(folded ? nx - 1 : start + LANES * CHUNK,
                                                  min(row + 1, ny - 1)));

    // T on the row and the rows above and below; d in registers.
    float centre[CHUNK], d[CHUNK];
    float left, right;
    {
        float up[CHUNK], down[CHUNK];
        if (!heaters && p0 >= 1 && p0 + CHUNK < nx) {
            const int id = row * nx + p0;
            const int above = row > 0 ? -nx : 0, below = row < ny - 1 ? nx : 0;
            for (int k = 0; k < CHUNK; ++k) {
                centre[k] = field_in[id + k];
                up[k] = field_in[id + k + above];
                down[k] = field_in[id + k + below];
            }
            left = field_in[id - 1];
            right = field_in[id + CHUNK];
        } else {
            for (int k = 0; k < CHUNK; ++k) {
                centre[k] = temperature_at(row, p0 + k, heaters);
                up[k] = temperature_at(row - 1, p0 + k, heaters);
                down[k] = temperature_at(row + 1, p0 + k, heaters);
            }
            left = temperature_at(row, p0 - 1, heaters);
            right = temperature_at(row, p0 + CHUNK, heaters);
        }
        for (int k = 0; k < CHUNK; ++k) {
            const float c = centre[k];
            const float l = k == 0 ? left : centre[k - 1];
            const float r = k == CHUNK - 1 ? right : centre[k + 1];
            d[k] = lambda * ((up[k] - c) + (down[k] - c) + (l - c) + (r - c));
        }
    }

    // rho^(k + 1), k < CHUNK, and rho^(CHUNK 2^s) for the scan.
    float power[CHUNK];
    power[0] = rho;
    for (int k = 1; k < CHUNK; ++k) power[k] = power[k - 1] * rho;

    // Forward recurrence in the chunk from zero, then the lanes joined.
    float forward[CHUNK];
    {
        float f = 0.0;
        for (int k = 0; k < CHUNK; ++k) {
            f = d[k] + rho * f;
            forward[k] = f;
        }
        float y = f, step = power[CHUNK - 1];  // Y_j = S_j + rho^CHUNK Y_(j-1)
        for (int delta = 1; delta < LANES; delta *= 2) {
            const float lower = from_lower(y, delta);
            if (lane >= delta) y += step * lower;
            step *= step;
        }
        float carry = from_lower(y, 1);
        if (lane == 0) carry = 0.0;
        for (int k = 0; k < CHUNK; ++k) forward[k] += power[k] * carry;
    }
    // Backward likewise from the upper lanes; then dT.
    float x[CHUNK];
    {
        float b = 0.0;
        for (int k = CHUNK - 1; k >= 0; --k) {
            b = d[k] + rho * b;
            x[k] = b;
        }
        float y = b, step = power[CHUNK - 1];
        for (int delta = 1; delta < LANES; delta *= 2) {
            const float upper = from_upper(y, delta);
            if (lane + delta < LANES) y += step * upper;
            step *= step;
        }
        float carry = from_upper(y, 1);
        if (lane == LANES - 1) carry = 0.0;
        for (int k = 0; k < CHUNK; ++k)
            x[k] = gain * (forward[k] + x[k] + power[CHUNK - 1 - k] * carry - d[k]);
    }

    if (!has_row || lane < HALO_LANES || lane >= LANES - HALO_LANES) return;
    for (int k = 0; k < CHUNK; ++k) {
        const int p = p0 + k;
        if (p >= nx) break;
        const ivec2 cell = ivec2(p, row);
        field_out[index_of(cell)] =
            heaters && in_heater(cell) ? heater_temperature : centre[k] + x[k];
    }
}
