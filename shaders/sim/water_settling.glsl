#ifndef WATER_SETTLING_GLSL
#define WATER_SETTLING_GLSL
// water_settling.glsl — shallow water's settling (shaders/sim/shallow_water.comp, KERNEL_SETTLE):
// wet = h + dv of the y sweep -> h^n, and v^n, with dry cells' deficits taken back from their
// neighbours (see "Settling" there), in place: the y sweep's output is the new state; and the
// sums the next step needs (water_sums.glsl). With MEASURE_ONLY, the sums of a stored state only.
//
// The cells go in tiles of 32 x 8 SETTLE_ROWS, 256 invocations a tile, SETTLE_ROWS cells an
// invocation 8 rows apart, so that the rows above and below a cell are mostly read by the same
// group, from its cache, and each invocation has that many cells' loads in flight: one cell an
// invocation was bound by latency (at 4096^2 on the H100 0.226 ms, four cells 0.122, eight
// 0.110; docs/performance.md). Cells change only in a tile next to one the y sweep marked
// (deficit_near, "near" below). After a step of the y window, the tiles that are not near keep
// the window's values, and their sums are the window's parts: only the near tiles are read (a
// full pass over the state cost the basin at 4096^2 0.12 ms a step on the H100).
//
// A step's settling is one dispatch. After a step of the y window on which no cell came out
// below its bottom, work group 0 stores the mean velocity and chooses the next step's sweeps from
// the window's step sums (step_sums.glsl), and the other groups end at once. Otherwise each group
// takes a run of tiles and computes the changes of those near a dry cell (rare) into the dead
// h^{n-1} buffer; each tile, once the changes of the tiles around it are found, is applied and
// its settled state summed (the y window's parts where nothing changed), and the group that sums
// the last tile stores the mean velocity and chooses the next step's sweeps. Why a tile waits
// for those around it: a cell's change reads the surface two cells around it, which a group
// beside it may be changing. Two dispatches did that with a barrier between them, and the second
// cost its stage after most steps, with nothing to apply: 3.1 us of the H100's 41 us step at
// 1024^2 (docs/performance.md). No group waits here: the group whose count completes a tile
// applies it.
#define GROUP_SIZE 256
layout(local_size_x = GROUP_SIZE) in;
shared float sums_x[GROUP_SIZE], sums_y[GROUP_SIZE], sums_z[GROUP_SIZE], sums_w[GROUP_SIZE];
#include "sim/water_sums.glsl"

bool inside(ivec2 c) { return c.x >= 0 && c.y >= 0 && c.x < nx && c.y < ny; }
ivec2 settle_tiles() { return (ivec2(nx, ny) + kSettleTile - 1) / kSettleTile; }
// Cell r of invocation t (0 .. 255) in a tile: column t % 32, row t / 32 + 8 r.
ivec2 settle_cell(ivec2 tile, int t, int r) {
    return tile * kSettleTile + ivec2(t % 32, t / 32 + 8 * r);
}

#ifdef MEASURE_ONLY
// A tile a work group (the dispatch is the tiles): the sums of the stored state, for the next
// step's sweeps and, with measures_mean, the mean velocity (a new field, a loaded state that has
// no mean of its own).
layout(std430, binding = 0) readonly buffer HeightIn { float height_in[]; };
layout(std430, binding = 2) readonly buffer Velocity { float velocity[]; };
uniform int measures_mean;  // 0: only the next sweeps (the mean the last step left is kept)

void main() {
    const ivec2 tile = ivec2(gl_WorkGroupID.xy);
    vec4 mine = vec4(0.0);
    for (int r = 0; r < SETTLE_ROWS; ++r) {
        const ivec2 cell = settle_cell(tile, int(gl_LocalInvocationIndex), r);
        if (!inside(cell)) continue;
        const int id = index_of(cell);
        mine = combine(mine, wet_part(velocity[id], height_in[id] - bottom_at(id)));
    }
    const uvec2 groups = gl_NumWorkGroups.xy;
    vec4 sums;
    if (!sum_of_groups(mine, int(uint(tile.y) * groups.x + uint(tile.x)), int(groups.x * groups.y),
                       sums))
        return;
    if (measures_mean != 0) store_mean(sums);
    choose_sweeps(sums.z <= window_depth);
}

#else
// Whether a cell of the tile or of the eight around it came out of the y sweep below its
// bottom: settling changes only cells next to such a cell, and reads the depths around those
// (two cells: the neighbouring tiles are at least that wide).
layout(std430, binding = 15) buffer DeficitSteps { int deficit_step[]; };
bool deficit_near(ivec2 tile) {
    const ivec2 tiles = settle_tiles();
    bool near = false;
    for (int j = max(tile.y - 1, 0); j <= min(tile.y + 1, tiles.y - 1); ++j)
        for (int i = max(tile.x - 1, 0); i <= min(tile.x + 1, tiles.x - 1); ++i)
            near = near || deficit_step[j * tiles.x + i] == step_index;
    return near;
}

// The changes go into the dead h^{n-1}, for the group that applies them (coherent).
layout(std430, binding = 0) coherent buffer Changes { float changes[]; };
layout(std430, binding = 1) buffer Wet { float wet[]; };            // wet -> h^n
layout(std430, binding = 2) buffer Velocity { float velocity[]; };  // dv -> v^n
layout(std430, binding = 18) readonly buffer WindowParts { vec4 window_parts[]; };
uniform int sums_window;  // 1 where the y sweep may be the window (guarded), else 0

float depth_after(ivec2 c) {
    if (!inside(c)) return 0.0;
    const int id = index_of(c);
    return max(wet[id] - bottom_at(id), 0.0);
}
const ivec2 kNeighbours[4] = ivec2[4](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));
float neighbour_depths(ivec2 c) {
    float w = 0.0;
    for (int k = 0; k < 4; ++k) w += depth_after(c + kNeighbours[k]);
    return w;
}
// The share r of each neighbour's depth that cell c draws (0 unless c is below its bottom).
float draw_ratio(ivec2 c) {
    if (!inside(c)) return 0.0;
    const int id = index_of(c);
    const float deficit = bottom_at(id) - wet[id];
    if (!(deficit > 0.0)) return 0.0;
    const float w = neighbour_depths(c);
    return w > 0.0 ? min(deficit / w, 0.25) : 0.0;
}

// The y window's layout (window_lines.glsl): work group (x, y) takes columns 32 x .. and its
// window y down them, window_warps subgroups, the first window_first_chunk of them its warm-up,
// then window_stored_chunks that store a chunk of kChunkRows rows each, and one part of the
// sums a subgroup, at [(y * tiles.x + x) * window_warps + subgroup].
uniform int window_warps;
uniform int window_first_chunk;
uniform int window_stored_chunks;

// The window's parts of a tile: its TILE_CHUNKS chunks of rows, in order, their loads issued
// together.
vec4 tile_parts(ivec2 tile, ivec2 tiles) {
    vec4 parts[TILE_CHUNKS];
    for (int j = 0; j < TILE_CHUNKS; ++j) {
        const int chunk = TILE_CHUNKS * tile.y + j;  // rows chunk * kChunkRows ..
        const int group = (chunk / window_stored_chunks) * tiles.x + tile.x;
        // Chunks past the grid's last row have no part (index 0 keeps the load in bounds).
        const bool on_grid = chunk * kChunkRows < ny;
        const int part =
            on_grid ? group * window_warps + window_first_chunk + chunk % window_stored_chunks : 0;
        parts[j] = on_grid ? window_parts[part] : vec4(0.0);
    }
    vec4 sum = vec4(0.0);
    for (int j = 0; j < TILE_CHUNKS; ++j) sum = combine(sum, parts[j]);
    return sum;
}

#include "sim/step_sums.glsl"

// A tile is applied once the changes of the tiles around it (and its own) are found: they read
// its cells' depths. The group that finds a tile's changes counts that in settle_counts[kReady
// + k] of each tile k within a tile of it (a relation both ways: tile k waits for as many counts
// as it has tiles around it), and the group whose count completes a tile applies it, so that
// no group waits for another.
const int kReady = 1;
int tiles_around(int index, ivec2 tiles) {
    const ivec2 tile = ivec2(index % tiles.x, index / tiles.x);
    const ivec2 low = max(tile - 1, ivec2(0)), high = min(tile + 1, tiles - 1);
    return (high.x - low.x + 1) * (high.y - low.y + 1);
}

// Applies the changes of a tile near a dry cell (or, after a step of the line solve, of any
// tile) and sums its settled state, in invocation 0 (every invocation calls it).
vec4 apply_tile(int index, ivec2 tiles, bool near, bool window_step, int t) {
    const ivec2 tile = ivec2(index % tiles.x, index / tiles.x);
    vec4 mine = vec4(0.0);
    // After a step of the line solve, water too deep for the windows there.
    if (t == 0 && !window_step && deficit_step[tiles.x * tiles.y + index] == step_index)
        mine.z = 3.4e38;
    for (int r = 0; r < SETTLE_ROWS; ++r) {
        const ivec2 cell = settle_cell(tile, t, r);
        if (!inside(cell)) continue;
        const int id = index_of(cell);
        float h = wet[id];
        float v = velocity[id];
        const float change = near ? changes[id] : 0.0;
        if (change != 0.0) {  // only next to dry cells
            h = add_compensated_at(cell, h, change);
            wet[id] = h;
            v += change;
            velocity[id] = v;
        }
        // The cells the next x sweep counts as wet, and the depth its rows see.
        mine = combine(mine, wet_part(v, h - bottom_at(id)));
    }
    return group_sum(mine);
}

#ifdef SUBGROUP_SUM
// apply_tile by one subgroup of 32, a column of the tile a lane: a slow group's tiles near a dry
// cell side by side, where one after the other they lengthened a shoreline's step by a quarter at
// 1024^2 (H100). The sums in the subgroup's first invocation.
vec4 apply_tile_columns(int index, ivec2 tiles, bool near, bool window_step) {
    const ivec2 corner = ivec2(index % tiles.x, index / tiles.x) * kSettleTile;
    const int lane = int(gl_SubgroupInvocationID);
    vec4 mine = vec4(0.0);
    for (int row = 0; row < kSettleTile.y; ++row) {
        const ivec2 cell = corner + ivec2(lane, row);
        if (!inside(cell)) continue;
        const int id = index_of(cell);
        float h = wet[id];
        float v = velocity[id];
        const float change = near ? changes[id] : 0.0;
        if (change != 0.0) {
            h = add_compensated_at(cell, h, change);
            wet[id] = h;
            v += change;
            velocity[id] = v;
        }
        mine = combine(mine, wet_part(v, h - bottom_at(id)));
    }
    vec4 sums = vec4(subgroupAdd(mine.xy), subgroupMax(mine.zw));
    if (!window_step && deficit_step[tiles.x * tiles.y + index] == step_index) sums.z = 3.4e38;
    return sums;
}
#endif

shared int near_tiles[GROUP_SIZE];
shared uint near_count;
shared int completed_tiles[GROUP_SIZE];
shared bool completed_reads[GROUP_SIZE], completed_near[GROUP_SIZE];
shared uint completed_count;

void main() {
    const int t = int(gl_LocalInvocationIndex);
    const int group = int(gl_WorkGroupID.x), groups = int(gl_NumWorkGroups.x);
    if (sums_window != 0 && step_sums_hold()) {  // the y window's step sums are the state's
        if (group == 0) store_step_sums(t);
        return;
    }
    zero_step_sums(group * GROUP_SIZE + t, groups * GROUP_SIZE);  // not the state's sums
    const ivec2 tiles = settle_tiles();
    const int tile_count = tiles.x * tiles.y;
    const int tiles_per_group = (tile_count + groups - 1) / groups;  // <= GROUP_SIZE
    if (group * tiles_per_group >= tile_count) return;  // no tiles
    // After a step of the y window: the same for the whole dispatch (the group that sums the
    // last tile rewrites the entry for the next step after every group has read it).
    const bool window_step = sums_window != 0 && sweep_arguments[6] != 0u;

    // The changes of this group's run of tiles: those near a cell that came out below its bottom.
    if (t == 0) near_count = 0u;
    memoryBarrierShared();
    barrier();
    const int checked = group * tiles_per_group + t;
    if (t < tiles_per_group && checked < tile_count &&
        deficit_near(ivec2(checked % tiles.x, checked / tiles.x)))
        near_tiles[atomicAdd(near_count, 1u)] = checked;
    memoryBarrierShared();
    barrier();
    const uint near = near_count;
    for (uint k = 0u; k < near; ++k) {
        const ivec2 tile = ivec2(near_tiles[k] % tiles.x, near_tiles[k] / tiles.x);
        for (int r = 0; r < SETTLE_ROWS; ++r) {
            const ivec2 cell = settle_cell(tile, t, r);
            if (!inside(cell)) continue;
            float change = draw_ratio(cell) * neighbour_depths(cell);  // taken (only where dry)
            const float d = depth_after(cell);
            if (d > 0.0) {  // given
                float drawn = 0.0;
                for (int n = 0; n < 4; ++n) drawn += draw_ratio(cell + kNeighbours[n]);
                change -= d * drawn;
            }
            changes[index_of(cell)] = change;
        }
    }
    memoryBarrierBuffer();  // the changes, and the reads of wet, before the counts
    barrier();

    // Count this group's changes found for every tile within a tile of its own (GROUP_SIZE
    // counts at a time), and apply the tiles that this completes. A slow group (the last of its
    // neighbourhood to find its changes, along a shoreline) completes up to nine tiles a tile
    // of its own: those that read no cell take an invocation each, so that the tiles applied one
    // after the other are only those near a dry cell. Every tile's sums go to its own part, which
    // the group that counts the last sums in tile order: the same sums every run, whichever
    // group applies which tile.
    const int first = group * tiles_per_group;
    const int counts = min(tiles_per_group, tile_count - first) * 9;
    for (int batch = 0; batch < counts; batch += GROUP_SIZE) {
        if (t == 0) {
            completed_count = 0u;
            last_group = false;
        }
        memoryBarrierShared();
        barrier();
        const int count = batch + t;
        if (count < counts) {
            const int index = first + count / 9;
            const ivec2 around = ivec2(index % tiles.x, index / tiles.x) +
                                 ivec2(count % 9 % 3 - 1, count % 9 / 3 - 1);
            if (all(greaterThanEqual(around, ivec2(0))) && all(lessThan(around, tiles))) {
                const int k = around.y * tiles.x + around.x;
                const uint waits_for = uint(tiles_around(k, tiles));
                if (atomicAdd(settle_counts[kReady + k], 1u) == waits_for - 1u) {
                    settle_counts[kReady + k] = 0u;  // for the next step: every count is in
                    completed_tiles[atomicAdd(completed_count, 1u)] = k;
                }
            }
        }
        memoryBarrierShared();
        barrier();
        const uint completed = completed_count;
        memoryBarrierBuffer();
        bool reads = false, near = false;
        if (t < int(completed)) {
            const int k = completed_tiles[t];
            const ivec2 tile = ivec2(k % tiles.x, k / tiles.x);
            near = deficit_near(tile);
            reads = near || !window_step;
            if (!reads) {  // as the y window stored it
                partials[k] = tile_parts(tile, tiles);
                if (count_part(tile_count)) last_group = true;
            }
        }
        completed_reads[t] = reads;
        completed_near[t] = near;
        memoryBarrierShared();
        barrier();
#ifdef SUBGROUP_SUM
        if (gl_SubgroupSize == 32u) {
            for (uint j = gl_SubgroupID; j < completed; j += gl_NumSubgroups) {
                if (!completed_reads[j]) continue;
                const int k = completed_tiles[j];
                const vec4 sums = apply_tile_columns(k, tiles, completed_near[j], window_step);
                if (subgroupElect()) {
                    partials[k] = sums;
                    if (count_part(tile_count)) last_group = true;
                }
            }
        } else
#endif
            for (uint j = 0u; j < completed; ++j) {
                if (!completed_reads[j]) continue;
                const int k = completed_tiles[j];
                const vec4 sums = apply_tile(k, tiles, completed_near[j], window_step, t);
                if (t == 0) {
                    partials[k] = sums;
                    if (count_part(tile_count)) last_group = true;
                }
            }
        memoryBarrierShared();
        barrier();
        if (last_group) {  // the last tile: the state's sums, and the next step's sweeps
            const vec4 sums = sum_parts(tile_count);
            if (t == 0) {
                store_mean(sums);
                const bool window_next = sums.z <= window_depth;
                if (sums_window != 0 && window_next != window_step) choose_sweeps(window_next);
                if (!window_step) ++sweep_arguments[36];  // a step of the line solve
            }
        }
        barrier();  // the lists are read before the next batch writes them
    }
}
#endif
#endif
