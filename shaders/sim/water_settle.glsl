#ifndef WATER_SETTLE_GLSL
#define WATER_SETTLE_GLSL
// water_settle.glsl — shallow water's settling kernel (KERNEL_SETTLE, and with MEASURE_ONLY the
// kernel that measures a stored state), included by shaders/sim/shallow_water.comp after what it
// uses from there: the compensated heights, the bottom, the settling tiles, combine / wet_part,
// choose_sweeps and window_depth.
//
// wet = h + dv of the y sweep -> h^n, and v^n, with dry cells' deficits taken back from their
// neighbours (see "Settling" in shallow_water.comp), in place: the y sweep's output is the new
// state; then the new state's sums (water_sums.glsl): the mean velocity and the next step's sweeps.
// One dispatch a step. After a step of the y window on which no cell came out below its bottom
// (most steps of most scenes) the window's step sums are the new state's (step_sums.glsl), and work
// group 0 only reads them. Otherwise the work groups claim items in order (an atomic count): item k
// finds the changes of tile k, where it is near a cell below its bottom (deficit_near), into the
// dead h^{n-1} and marks the tile's changes found, then settles tile k - lag: it waits until the
// changes of every tile around it are found (a change reads the surface two cells around it, which
// the tile beside it may be changing), applies its own and sums the tile. With lag = the tiles
// across + 2 every tile around k - lag comes before k, so a group waits only on items claimed
// before its own, by groups that are running or done: the wait ends whatever the number of groups
// and the order in which the GPU starts them. A dispatch to find the changes and one to apply them
// cost the step a dispatch and a barrier more (2 us at 1024^2 on an H200, docs/performance.md).
// The cells go in tiles of 32 x 8 SETTLE_ROWS, 256 invocations a tile, SETTLE_ROWS cells an
// invocation 8 rows apart, so that the rows above and below a cell are mostly read by the same
// group, from its cache, and each invocation has that many cells' loads in flight: one cell an
// invocation was bound by latency (at 4096^2 on the H100 0.226 ms, four cells 0.122, eight
// 0.110; docs/performance.md). Cells change only in a tile next to one the y sweep marked
// (deficit_near, "near" below). After a step of the y window, the tiles that are not near keep
// the window's values, and settling takes their sums from the window's parts and reads only the
// near tiles (a full pass over the state cost the basin at 4096^2 0.12 ms a step on the H100).
// With MEASURE_ONLY, KERNEL_SETTLE settles nothing and only sums the stored state (a work group
// a tile), for the next step's sweeps and, with measures_mean, the mean velocity (a new field, a
// loaded state that has no mean of its own).
#define GROUP_SIZE 256
layout(local_size_x = GROUP_SIZE) in;  // a tile, SETTLE_ROWS rows an invocation
shared float sums_x[GROUP_SIZE], sums_y[GROUP_SIZE], sums_z[GROUP_SIZE], sums_w[GROUP_SIZE];
#include "sim/water_sums.glsl"

bool inside(ivec2 c) { return c.x >= 0 && c.y >= 0 && c.x < nx && c.y < ny; }
ivec2 settle_tiles() { return (ivec2(nx, ny) + kSettleTile - 1) / kSettleTile; }
// Cell r of invocation t (0 .. 255) in a tile: column t % 32, row t / 32 + 8 r.
ivec2 settle_cell(ivec2 tile, int t, int r) {
    return tile * kSettleTile + ivec2(t % 32, t / 32 + 8 * r);
}

#ifdef MEASURE_ONLY
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
    vec4 sums;
    if (!sum_of_groups(mine, sums)) return;
    if (measures_mean != 0) store_mean(sums);
    choose_sweeps(sums.z <= window_depth);
}

#else
layout(std430, binding = 0) coherent buffer Changes { float changes[]; };  // the dead h^{n-1}
layout(std430, binding = 1) buffer Wet { float wet[]; };            // wet -> h^n
layout(std430, binding = 2) buffer Velocity { float velocity[]; };  // dv -> v^n
layout(std430, binding = 18) readonly buffer WindowParts { vec4 window_parts[]; };
// The items claimed, this dispatch's mark (one more each dispatch that settles; never 0, the
// marks' first value), and each tile's mark once its changes are found.
layout(std430, binding = 19) coherent buffer SettleProgress {
    uint items_claimed;
    uint settle_mark;
    uint changes_found[];
};
uniform int sums_window;  // 1 where the y sweep may be the window (guarded), else 0
// After a step of the y window (the same for the whole dispatch: the last group rewrites the
// entry for the next step after every group has read it).
bool window_step() { return sums_window != 0 && sweep_arguments[6] != 0u; }

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

// An item's first half: the changes of tile `index` where it is near a cell below its bottom,
// from the y sweep's output, then the tile's mark.
void find_changes(int index, uint mark) {
    const ivec2 tiles = settle_tiles();
    const ivec2 tile = ivec2(index % tiles.x, index / tiles.x);
    const int t = int(gl_LocalInvocationIndex);
    if (deficit_near(tile)) {  // the same for the whole work group
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
        memoryBarrierBuffer();
    }
    barrier();  // every invocation's changes before the mark
    if (t == 0) atomicExchange(changes_found[index], mark);
}

// An item's second half: tile `index` settled (once the changes of the tiles around it are
// found) and its sums into partials[index]; a tile that is not near keeps the window's values,
// and its sums are the window's parts.
void settle_tile(int index, uint mark, bool window) {
    const ivec2 tiles = settle_tiles();
    const ivec2 tile = ivec2(index % tiles.x, index / tiles.x);
    const int t = int(gl_LocalInvocationIndex);
    const bool near = deficit_near(tile);  // the same for the whole work group
    if (window && !near) {
        if (t == 0) partials[index] = tile_parts(tile, tiles);
        return;
    }
    if (near) {
        if (t < 9) {  // the tile and the eight around it, one invocation each
            const ivec2 around = tile + ivec2(t % 3 - 1, t / 3 - 1);
            if (all(greaterThanEqual(around, ivec2(0))) && all(lessThan(around, tiles)))
                while (atomicOr(changes_found[around.y * tiles.x + around.x], 0u) != mark) {
                }
        }
        memoryBarrierBuffer();
        barrier();
    }
    vec4 mine = vec4(0.0);
    for (int r = 0; r < SETTLE_ROWS; ++r) {
        const ivec2 cell = settle_cell(tile, t, r);
        if (!inside(cell)) continue;
        const int id = index_of(cell);
        float h = wet[id];
        float v = velocity[id];
        const float y_sweep_depth = h - bottom_at(id);
        const float change = near ? changes[id] : 0.0;
        if (change != 0.0) {  // only next to dry cells
            h = add_compensated_at(cell, h, change);
            wet[id] = h;
            v += change;
            velocity[id] = v;
        }
        // The cells the next x sweep counts as wet; the deepest water as the y sweep left it, as
        // the window's parts hold it for the tiles that are not near (settling only makes the
        // deepest cell shallower, so either chooses sweeps that hold).
        vec4 part = wet_part(v, h - bottom_at(id));
        part.z = max(part.z, wet_part(0.0, y_sweep_depth).z);
        mine = combine(mine, part);
    }
    const vec4 total = group_sum(mine);
    if (t == 0) partials[index] = total;
}

shared uint claimed_item;

void main() {
    const int t = int(gl_LocalInvocationIndex);
    if (sums_window != 0 && step_sums_hold()) {  // the y window's step sums are the state's
        if (gl_WorkGroupID.x == 0u) store_step_sums(t);
        return;
    }
    zero_step_sums(int(gl_WorkGroupID.x) * GROUP_SIZE + t, int(gl_NumWorkGroups.x) * GROUP_SIZE);
    const ivec2 tiles = settle_tiles();
    const int tile_count = tiles.x * tiles.y, lag = tiles.x + 2;
    const bool window = window_step();
    const uint mark = settle_mark;  // the last group changes it once every group has read it
    for (;;) {
        if (t == 0) claimed_item = atomicAdd(items_claimed, 1u);
        memoryBarrierShared();
        barrier();
        const int item = int(claimed_item);
        barrier();  // read by every invocation before the next claim
        if (item >= tile_count + lag) break;
        if (item < tile_count) find_changes(item, mark);
        if (item >= lag) settle_tile(item - lag, mark, window);
    }
    if (!last_group_done()) return;
    const vec4 sums = sum_partials(uint(tile_count));
    if (t != 0) return;
    store_mean(sums);
    items_claimed = 0u;
    settle_mark = mark == 0xffffffffu ? 1u : mark + 1u;
    if (sums_window == 0) return;
    if (!window) ++sweep_arguments[kLineSolveSteps];
    // Rewritten only where the choice changes. Settling only makes the deepest cell shallower (a
    // cell that gives loses water, one that takes ends at its bottom at most), so the depths the
    // y sweep left choose for the settled state too.
    const bool window_next = sums.z <= window_depth;
    if (window_next != window) choose_sweeps(window_next);
}
#endif
