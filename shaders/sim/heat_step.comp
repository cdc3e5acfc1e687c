#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif
// Heat's persistent step: `steps` whole PR steps (x half step T -> half, y half step half -> T,
// heat_scan.glsl's row_scan and column_scan, its header has the maths) in ONE dispatch, with a
// grid barrier between consecutive half steps instead of a dispatch + glMemoryBarrier (H200:
// ~5.8 us each at 1024^2, about half of a two-dispatch step). Each work group loops over the row
// tiles (WARPS segments each), then over the column tiles (32 columns x COLUMN_SEGMENT rows).
//
// Measured (H200, 2026-11-21): SLOWER than two dispatches a step (1024^2: 23,773 steps/s with 1
// group a SM, 30,992 with 2, against 36,306; 4096^2: 3,510 / 4,202 against 5,574), so it is not
// the default (sim/heat.cpp, ADILAB_HEAT_STEP); 3 and 4 groups a SM are not all resident there.
//
// Limits: the grid barrier needs every work group resident at once; the host launches at most
// one group of GROUP_SIZE invocations per SM on hardware (from gl_SMCountNV) and one group on a
// software renderer (which runs groups one after another). A wait that spins past spin_limit
// sets `failed` (and the stability flag) and ends the dispatch instead of hanging; the host
// turns that into an error naming the cause.
//
// The barrier: every group adds 1 to one counter that runs on across dispatches (the host passes
// its value at the start, arrivals_base), then waits until it reaches arrivals_base + k groups
// for barrier k. No reset, no epoch word; uint wrap-around is handled by the signed difference.
// Writes are made visible by memoryBarrier() before arriving; the fields are `coherent` because
// a group reads, in the next phase, cells that other SMs wrote (their L1s are not coherent).
//
// Needs: HALO, WARPS, GROUP_SIZE = 32 WARPS, X_CHUNK, Y_CHUNK (WARPS > 2 ceil(HALO / Y_CHUNK),
// 32 > 2 ceil(HALO / X_CHUNK)); SUBGROUPS as heat_rowscan.comp.
#define DIRECTION 0
#define ROW_SCAN 1
#define COLUMN_SCAN 1
#define X_WARPS WARPS
#define Y_WARPS WARPS
#define ROW_IN temperature
#define ROW_OUT half_field
#define COLUMN_IN half_field
#define COLUMN_OUT temperature
#define TILE_LOOP 1

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) coherent buffer Temperature { float temperature[]; };
layout(std430, binding = 1) coherent buffer Half { float half_field[]; };
// The barrier's words; the same buffer twice: atomics through the first block, the spinning
// reads through the volatile view (so that every read goes to memory).
layout(std430, binding = 6) coherent buffer GridBarrier {
    uint arrivals;
    uint failed;
    int failed_step;  // INT_MAX until a wait gives up
};
layout(std430, binding = 6) coherent volatile buffer GridBarrierSeen {
    uint arrivals_seen;
    uint failed_seen;
};

uniform int steps;              // whole steps in this dispatch; the first is step_index
uniform uint arrivals_base;     // the counter's value when this dispatch starts
uniform uint expected_groups;   // gl_NumWorkGroups.x (one more only to inject a failure: tests)
uniform uint spin_limit;        // reads of the counter before a wait gives up

#include "sim/heat_scan.glsl"

shared bool abandoned;

// Grid barrier `number` (1-based within the dispatch); false when a wait gave up here or in
// another group (the whole group then leaves).
bool grid_barrier(uint number) {
    memoryBarrier();
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        atomicAdd(arrivals, 1u);
        const uint target = arrivals_base + number * expected_groups;
        uint spins = 0u;
        bool ok = true;
        while (int(arrivals_seen - target) < 0) {
            if (failed_seen != 0u || ++spins > spin_limit) {
                ok = false;
                break;
            }
        }
        if (!ok) {
            atomicMax(failed, 1u);
            atomicMin(failed_step, scan_step);
            atomicMin(first_bad_step, scan_step);
        }
        abandoned = !ok;
    }
    memoryBarrierShared();
    barrier();
    memoryBarrier();
    return !abandoned;
}

void main() {
    const int group = int(gl_WorkGroupID.x), groups = int(gl_NumWorkGroups.x);
    const int warp = int(gl_LocalInvocationID.x) / LANES;
    const int segments = (nx + ROW_SEGMENT - 1) / ROW_SEGMENT;
    const int row_tiles = (segments * ny + WARPS - 1) / WARPS;
    const int columns = (nx + LANES - 1) / LANES;
    const int column_tiles = columns * ((ny + COLUMN_SEGMENT - 1) / COLUMN_SEGMENT);
    uint number = 0u;
    for (int s = 0; s < steps; ++s) {
        scan_step = step_index + s;
        for (int tile = group; tile < row_tiles; tile += groups) row_scan(tile * WARPS + warp);
        if (!grid_barrier(++number)) return;
        for (int tile = group; tile < column_tiles; tile += groups)
            column_scan(ivec2(tile % columns, tile / columns));
        if (s + 1 < steps && !grid_barrier(++number)) return;
    }
}
