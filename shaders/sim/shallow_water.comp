#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#ifdef SUBGROUP_SUM
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
// Shallow water after Kass & Miller (1990), "Rapid, stable fluid dynamics for computer
// graphics": h_tt = g d (h_xx + h_yy), d = max(h - b, 0) (dry cells have no depth). ADI: the x
// sweep solves
//     (I + L_x) h* = h^{n-1} + (1 - damping) (h^{n-1} - h^{n-2}),
// the y sweep (I + L_y) h^n = h*, with L = -g dt^2 d/dx (D d/dx) from the depths of h^{n-1} in
// both (rebuilt every step). Row i of a line: e_i = 1 + g dt^2 (D_{i-1/2} + D_{i+1/2}) / (2 dh^2),
// f_i = -g dt^2 D_{i+1/2} / (2 dh^2) between i and i+1 (the end rows keep only their one edge),
// with the paper's edge conductance D_{i+1/2} = d_i + d_{i+1} (see "Wet and dry" below for the one
// change). L is symmetric with zero row sums, so every row and column of I + L sums to 1.
//
// Volume. Summing the x sweep over the grid: sum h* = sum h^{n-1} + (1 - damping) S, with
// S = sum (h^{n-1} - h^{n-2}); the y sweep keeps the sum. So the volume V changes by (1 - damping) S
// every step, and S^n = V^n - V^{n-1}: the volume is constant exactly while S = 0. Anything that
// changes h^{n-1} but not h^{n-2} (or the reverse) makes S != 0, and with damping 0 that change is
// re-applied by every later step (a source added to the right-hand side is an initial velocity
// dh/dt, carried on forever). Hence:
//   - disturbances (scenario pushes and drops, the brush) displace the surface: they add the same
//     bump to h^{n-1} and h^{n-2}, i.e. to h and not to v below (KERNEL_DISPLACE, before the
//     step's sweeps). The volume changes once, by the bump's sum; S stays 0. A bump that would
//     dig below the bottom takes only the water that is there.
//   - the dry correction (KERNEL_SETTLE) changes h^n and v^n by the same amounts with a zero sum:
//     V and S both unchanged;
//   - the velocity term is made to sum to zero (below, "Dry cells and the mean velocity").
//
// Wet and dry. With D = d_i + d_{i+1}, a dry cell (d = 0) whose bottom stands above a wet
// neighbour's surface still has the edge D = d_wet, so it drains water it does not hold; the
// former clamp h^n = max(h^n, b) then created that water, and S != 0 carried the gain on. Two
// parts, both conservative:
//   1. Upstream limit. D_{i+1/2} = min(d_i + d_{i+1}, 2 d_up), d_up the depth of the cell with the
//      higher surface (where the flow comes from). Where the water flows from the deeper cell to
//      the shallower one (everywhere on a flat bottom, where surface and depth order agree) this is
//      the paper's d_i + d_{i+1}; where it flows out of a shallow cell the edge carries at most
//      what twice that cell's depth would, and nothing out of a dry one. Still symmetric with zero
//      row sums (both rows of an edge compute it from the same two cells in the same order).
//   2. Settling. The implicit step can still overdraw a shallow cell (large dt, or the inertia
//      term draining it past empty): wet = h + dv < b. Instead of clamping, a cell with the
//      deficit delta = b - wet takes water back from its four neighbours in proportion to their
//      depths d_k after the step: it draws the ratio r = min(delta / W, 1/4) of each, W = sum d_k,
//      so it gains r W <= delta and neighbour k gives d_k sum_{cells i next to k} r_i <= d_k (at
//      most four takers, 1/4 each: no neighbour is driven dry by it). What is given is what is
//      taken (sum_i r_i W_i = sum_k d_k sum r_i), and h and v change alike. A deficit that its
//      neighbours cannot cover stays (h below b: zero depth, no coupling out of it) and is paid
//      back in later steps: water is neither created nor destroyed. A cell filled back up to
//      its bottom has v = h^n - h^{n-1} as the clamp gave it, so it does not keep draining.
//
// Dry cells and the mean velocity. A cell that is dry at the start of a step (depth 0, whether
// at its bottom or below it with a deficit still to be paid back) holds no water and so no
// inertia: the x sweep uses v = 0 there. Otherwise a cell drained past empty, with neighbours
// as dry as itself (no edge to them: their depths are 0), would keep its v < 0 and sink on
// step after step. Among the wet cells, S_wet = sum v is the scheme's one neutral mode: with
// damping 0 nothing pulls it back, so the fp32 rounding of each solve's sum(dv) adds up in it as
// a random walk, and the volume, which grows by S every step, would drift as steps^1.5 (2e-5 of
// it in 10,000 steps of the default dam-break at 32^2). So every step ends by summing v^n and
// counting the wet cells per work group, the last group forms S_wet / N_wet (water_sums.glsl),
// and the x sweep takes it out of every wet cell's v. The y window sums as it stores (its parts,
// and the step's sums in fixed point, step_sums.glsl); settling, where it runs, sums the settled
// state instead. The right-hand side's velocity term then sums to 0 (to rounding) every step
// whatever v holds, so the volume changes only by disturbances and rounds only as a random walk
// (steps^0.5). Where every cell stays wet, S is 0 in exact arithmetic (disturbances leave v
// alone, settling moves v with a zero sum) and the mean taken out is rounding only; where cells
// dry out, the v dropped with them leaves the wet cells' v summing to minus it, and taking the
// mean out spreads that evenly over the wet cells (the one non-local step, of the size of the
// dried cells' last change).
//
// Round-off-safe form: the state is h = h^{n-1} and v = h^{n-1} - h^{n-2} (not h^{n-2}), and the
// sweeps solve for increments:
//     x: (I + L_x) dx = (1 - damping) v' - L_x h,     h* = h + dx   (v' = v - mean, 0 if dry)
//     y: (I + L_y) dv = dx - L_y h,                  wet = h + dv, v^n = dv,
// then settling: h^n = wet + c, v^n = dv + c (c = 0 where nothing is dry).
// Algebraically the same as above; but in fp32 the recurrence 2 h^{n-1} - h^{n-2} of full
// heights turns a rounding bias into a volume drift that grows with the square of the step
// count (1% after 1000 steps), while here only small increments are rounded.
//
// Compensated heights. Once the surface calms, most increments dv are far below an ulp of h (1.2e-7
// at h = 1 m): h + dv rounds, and the roundings of the many small increments do not cancel (calm
// regions drain or fill by sub-ulp amounts of one sign while the waves' larger increments keep the
// other). The lost parts summed to a volume drift that grew linearly with the steps (1e-5 of the
// dam-break's volume in 10,000 steps at 128^2, faster on larger grids). So every write of h is a
// compensated (Kahan) sum: the exact rounding error of h + increment (TwoSum, `precise` so that
// no compiler reassociates it away) is kept per cell in c and added to the next increment, and
// h + c is the surface to fp32's precision of the increments. The velocity never sees c: it is
// position, not momentum. The volume sum(h) then differs from the conserved sum(h + c) by at most
// half an ulp per cell, without growing.
//
// Blow-ups: every row flags a non-finite diagonal or right-hand side (an overflowed matrix, a NaN
// in h or v), and the y sweep's store flags NaN / Inf in wet (so in dv: wet = h + dv) as it
// comes out of the solve (every solver path stores through it), before any min / max could
// hide it.
// Checks gathered per invocation and reported once (adi_common.glsl says why).
#define DEFERRED_CHECKS
#include "sim/adi_common.glsl"

// h + increment rounded, with its exact rounding error carried in the cell's compensation c (see
// "Compensated heights" above): returns the new h and updates c.
float compensated_add(float h, float increment, inout float c) {
    precise float add = increment + c;
    precise float sum = h + add;
    precise float add_part = sum - h;
    precise float h_part = sum - add_part;
    c = (h - h_part) + (add - add_part);
    return sum;
}

// The compensation in storage: c in binary16, scaled by 2^24, two cells a 32-bit word, (x, 2j) in
// its low half and (x, 2j + 1) in its high half, word j nx + x (sim/compensation.hpp decodes it
// on the host). Why 16 bits: c is read and written by the y window for every cell of every step,
// 8 of the 24 bytes a cell it moved in 32 bits, where the window is bound by memory. Why that is
// enough: |c| is at most half an ulp of the height it goes with (TwoSum's error), so for
// 2^-15 m < |h| < 2^15 m the scaled c is a normal binary16 number below 2^15 (its largest is
// 65504), and storing it rounds c by at most 2^-12 of itself, 2^-13 ulp(h): the sub-ulp parts
// of the increments, which c is there to keep, are kept to that (the scenes' volume drifted no
// more than with c in 32 bits). Smaller heights keep c to 2^-48 m; from 2^15 m the scaled c is
// clamped instead of becoming Inf (compensation lost there, never a NaN).
#ifndef MEASURE_ONLY
layout(std430, binding = 12) buffer Compensation { uint compensation[]; };
#endif
const float kCompensationScale = 16777216.0;  // 2^24
int compensation_word(ivec2 cell) { return (cell.y >> 1) * nx + cell.x; }
int compensation_shift(ivec2 cell) { return (cell.y & 1) * 16; }
uint encode_compensation(vec2 c) {
    return packHalf2x16(clamp(c * kCompensationScale, -65504.0, 65504.0));
}
vec2 decode_compensation(uint word) { return unpackHalf2x16(word) * (1.0 / kCompensationScale); }

#ifndef MEASURE_ONLY
// compensated_add at `cell` with its stored c: the cell's half of the word changed by an atomic
// XOR, since another invocation may change the other half at the same time (only this one
// changes this half, so the plain load reads it right).
float add_compensated_at(ivec2 cell, float h, float increment) {
    const int word = compensation_word(cell), shift = compensation_shift(cell);
    const uint old_bits = (compensation[word] >> shift) & 0xffffu;
    float c = decode_compensation(old_bits).x;
    const float sum = compensated_add(h, increment, c);
    const uint new_bits = encode_compensation(vec2(c, 0.0)) & 0xffffu;
    if (new_bits != old_bits) atomicXor(compensation[word], (old_bits ^ new_bits) << shift);
    return sum;
}
#endif

// The bottom b: a field, or with FLAT_BOTTOM (the same everywhere: the flat terrain, the `free`
// scene) the uniform flat_bottom, and the kernels leave its loads out.
#ifdef FLAT_BOTTOM
uniform float flat_bottom;
float bottom_at(int id) { return flat_bottom; }
#else
layout(std430, binding = 8) readonly buffer Bottom { float bottom[]; };
float bottom_at(int id) { return bottom[id]; }
#endif

// Settling's tiles of 32 x 8 SETTLE_ROWS cells (SETTLE_ROWS cells an invocation of its work
// group): the y sweep stores the step's index for every tile in which a cell came out below its
// bottom (wet < b), so that settling does its neighbour work only near those (KERNEL_SETTLE). A
// stale index only costs that work again. A tile's rows are TILE_CHUNKS of the y window's chunks
// (the host gives both: sim/shallow_water.cpp, settle_rows), so that it holds TILE_CHUNKS whole
// parts of the window's sums (WINDOW_SUMS), one subgroup's 32 columns x CHUNK rows each:
// settling takes the sums of the tiles it does not change from them.
const ivec2 kSettleTile = ivec2(32, 8 * SETTLE_ROWS);
const int kChunkRows = 8 * SETTLE_ROWS / TILE_CHUNKS;  // the y window's CHUNK
int settle_tile(ivec2 cell) {
    return (cell.y / kSettleTile.y) * ((nx + kSettleTile.x - 1) / kSettleTile.x) +
           cell.x / kSettleTile.x;
}
int settle_tile_count() {
    return ((ny + kSettleTile.y - 1) / kSettleTile.y) * ((nx + kSettleTile.x - 1) / kSettleTile.x);
}

#if defined(KERNEL_WINDOW) && DIRECTION == 1
// The y window sums its new cells for the next step, 32 invocations at a time: the parts, which
// settling sums where a cell came out below its bottom, and the step's sums (step_sums.glsl),
// which settling reads where none did: then they are the new state's, and settling applies
// nothing (see "Settling" and "Dry cells and the mean velocity").
#define WINDOW_SUMS
#endif

#if defined(KERNEL_SETTLE) || defined(WINDOW_SUMS)
// A part of the sums over the new state (water_sums.glsl): (sum of v, wet cells, deepest water,
// 1 where a cell came out below its bottom).
vec4 combine(vec4 p, vec4 q) { return vec4(p.xy + q.xy, max(p.zw, q.zw)); }
// What a cell adds: (v, 1, depth, 0) where it is wet (a NaN depth counts as too deep for the
// window: the line solve runs, and the flag has it already).
vec4 wet_part(float v, float depth) {
    vec4 part = depth > 0.0 ? vec4(v, 1.0, depth, 0.0) : vec4(0.0);
    if (!(depth <= 3.4e38)) part.z = 3.4e38;
    return part;
}
#endif

#if defined(KERNEL_DISPLACE) || defined(KERNEL_SETTLE)
// The windowed sweeps' halo holds for water up to window_depth deep (sim/shallow_water.cpp,
// resolve_window); past it the sweeps take the exact line solve. The choice is made here, on
// the GPU, for the next step's two sweeps: AdiModel's sweep arguments (sim/model.hpp), entries
// 0 and 2 the windows, 1 and 3 .. 5 the line solves; entries 6 .. 11 hold each one's full work
// groups, word 36 counts the steps that took the line solve.
layout(std430, binding = 14) buffer SweepArguments { uint sweep_arguments[]; };
const int kLineSolveSteps = 36;
uniform float window_depth;
void choose_sweeps(bool window) {
    for (int entry = 0; entry < 6; ++entry) {
        const bool is_window = entry == 0 || entry == 2;
        for (int k = 0; k < 3; ++k)
            sweep_arguments[3 * entry + k] = is_window == window ? sweep_arguments[18 + 3 * entry + k]
                                                                 : 0u;
    }
}
#endif

#if defined(KERNEL_DISPLACE)
// Adds a bump to the surface, v unchanged (= the same bump on h^{n-1} and h^{n-2}); where the
// bump is negative it removes at most the water above the bottom.
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Height { float height[]; };
uniform int shape;        // 1 a band along the diagonal x = y of the domain, 2 a round bump
uniform float strength;   // m at the centre
uniform float width;      // cells: the band's half width, the bump's radius
uniform vec2 center;      // cells (round bump)

// The bump strength * exp(-r^2) (cut at r = 3) at a cell; r is the distance from the diagonal or
// the centre in units of `width`. sim/shallow_water.cpp computes the same sums in float64.
float bump(ivec2 cell) {
    const vec2 p = vec2(cell) + 0.5;
    float r2;
    if (shape == 1) {
        // distance from the diagonal x = y of the domain (scaled to a square)
        const vec2 q = p / vec2(nx, ny) * float(min(nx, ny));
        const float s = (q.x - q.y) * 0.70710678;
        r2 = s * s / (width * width);
    } else {
        const vec2 r = (p - center) / width;
        r2 = dot(r, r);
    }
    return r2 < 9.0 ? strength * exp(-r2) : 0.0;
}

void main() {
    const int id = int(gl_GlobalInvocationID.x);
    if (id >= nx * ny) return;
    const float add = bump(ivec2(id % nx, id / nx));
    if (add == 0.0) return;
    const float h = height[id];
    // No digging: a negative bump stops at the bottom (and a cell already below it loses nothing).
    const float raised =
        add_compensated_at(ivec2(id % nx, id / nx), h, max(add, min(bottom_at(id) - h, 0.0)));
    height[id] = raised;
    // Deeper than the window's halo holds for: this step's sweeps take the line solve (every
    // invocation that finds it writes the same counts).
    if (!(raised - bottom_at(id) <= window_depth)) choose_sweeps(false);
}

#elif defined(KERNEL_SETTLE)
#include "sim/water_settle.glsl"
#endif
#else
layout(std430, binding = 0) readonly buffer Height { float height[]; };      // h^{n-1}
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };          // dx, or wet
layout(std430, binding = 2) buffer Velocity { float velocity[]; };           // v (y sweep: dv)
layout(std430, binding = 9) readonly buffer Intermediate { float intermediate[]; };  // dx
layout(std430, binding = 11) readonly buffer Mean { float mean_velocity; };  // the last sums'
layout(std430, binding = 15) buffer DeficitSteps { int deficit_step[]; };  // y sweep

// The guarded sweeps (AdiModel::guard_window, sim/model.hpp). Where the window and the line solve
// of a half step are both dispatched whole (SWEEP_GUARD_BY_STORAGE: up to 1024^2 cells by default,
// and sweep_guarded), each runs only while its entry in the sweep arguments is live (settling
// writes them), read here as storage: the kernel that chooses then needs no GL_COMMAND_BARRIER_BIT
// behind it, which cost 2 us of a 36 us step at 1024^2 (H200, docs/performance.md). The sweep not
// chosen ends before its first row is solved.
#ifdef SWEEP_GUARD_BY_STORAGE
layout(std430, binding = 14) readonly buffer SweepArguments { uint sweep_arguments[]; };
uniform int sweep_guarded;
#if defined(KERNEL_WINDOW)
const int kSweepEntry = DIRECTION == 0 ? 0 : 2;
#elif defined(SPLIT_REDUCE)
const int kSweepEntry = 3;
#elif defined(SPLIT_COARSE)
const int kSweepEntry = 4;
#elif defined(SPLIT_SUBSTITUTE)
const int kSweepEntry = 5;
#else
const int kSweepEntry = DIRECTION == 0 ? 1 : 3;
#endif
bool sweep_skipped() { return sweep_guarded != 0 && sweep_arguments[3 * kSweepEntry] == 0u; }
#define SWEEP_SKIPPED() sweep_skipped()
#endif

uniform float coupling;   // g dt^2 / (2 dh^2)
uniform float damping;    // tau in [0, 1]

float depth(ivec2 cell) {
#ifdef TILED
    return tiled_value(1, cell);
#else
    const int id = index_of(cell);
    return max(height[id] - bottom_at(id), 0.0);
#endif
}

// The x half step's rows read h and the depth along the line: staged as fields 0 and 1 of the
// fused kernel's tile (TILED; the velocity term is one load per cell and stays global).
float field_global(int field, int index) {
    return field == 0 ? height[index] : max(height[index] - bottom_at(index), 0.0);
}
float height_at(ivec2 cell) {
#ifdef TILED
    return tiled_value(0, cell);
#else
    return height[index_of(cell)];
#endif
}

// The conductance D of the edge between cells p (first along the line) and q (next): the paper's
// d_p + d_q, limited to twice the depth of the upstream cell (the higher surface). Both rows of
// the edge call it with the same arguments in the same order, so they get the same value and L
// stays symmetric (volume conserving).
float edge_conductance(float depth_p, float height_p, float depth_q, float height_q) {
    const float upstream = height_p >= height_q ? depth_p : depth_q;
    return min(depth_p + depth_q, 2.0 * upstream);
}

void row_system(int line, int pos, out float a, out float b, out float c, out float d) {
    const ivec2 cell = cell_of(line, pos);
#if DIRECTION == 0
    const ivec2 along = ivec2(1, 0);
#else
    const ivec2 along = ivec2(0, 1);
#endif
    const float here = depth(cell);
    const int id = index_of(cell);
    const float h = height_at(cell);
    float left_edge = 0.0, right_edge = 0.0, left_step = 0.0, right_step = 0.0;
    if (pos > 0) {
        const ivec2 left = cell - along;
        const float h_left = height_at(left);
        left_edge = edge_conductance(depth(left), h_left, here, h);
        left_step = h - h_left;
    }
    if (pos < LINE_LENGTH - 1) {
        const ivec2 right = cell + along;
        const float h_right = height_at(right);
        right_edge = edge_conductance(here, h, depth(right), h_right);
        right_step = h - h_right;
    }
    a = -coupling * left_edge;
    c = -coupling * right_edge;
    b = 1.0 + coupling * (left_edge + right_edge);
    // L h along the line, as edge fluxes: sums to zero over the line.
    const float flux_divergence = coupling * (left_edge * left_step + right_edge * right_step);
#if DIRECTION == 0
    const float v = here > 0.0 ? velocity[id] - mean_velocity : 0.0;  // dry: no inertia
    d = (1.0 - damping) * v - flux_divergence;
#else
    d = intermediate[id] - flux_divergence;
#endif
    // A matrix that overflowed (g dt^2 / dh^2 times the depths past fp32) is flagged here: a
    // solver may stop on it without writing a NaN (CG gives up on a non-finite residual).
    flag_if_not_finite(b);
    flag_if_not_finite(d);
}

// The y sweep's h, read before the solve (see heat.comp).
vec2 store_input(int line, int pos) {
#if DIRECTION == 0
    return vec2(0.0);
#else
    return vec2(height[index_of(cell_of(line, pos))], 0.0);
#endif
}

#ifdef WINDOW_SUMS
vec4 window_part = vec4(0.0);  // this invocation's stored cells' part of the sums
#endif
#if defined(KERNEL_WINDOW) && DIRECTION == 1 && CHUNK % 2 == 0
// The y window stores each chunk's rows in order from an even row (chunks start at multiples of
// CHUNK, on every path of window_lines.glsl), so an invocation holds both cells of each word it
// stores: it loads the word at the even row and stores it whole at the odd one (or at the
// line's last row), without atomics. The other y solves, and odd chunks, change a half at a time.
#define PAIRED_COMPENSATION
vec2 pair_compensation = vec2(0.0);  // the word's two cells' c, the even one's updated first
#endif

float store_value(int line, int pos, float increment, vec2 old_state) { return increment; }
void store_flat(int index, float x) { field_out[index] = x; }  // x half step: dx

void store(int line, int pos, float increment, vec2 old_state) {
    const int id = index_of(cell_of(line, pos));
#if DIRECTION == 0
    field_out[id] = increment;
#else
    // wet = h + dv, unclamped (settling conserves), checked here on every solver path: NaN,
    // Inf, or past the depth bound, before anything could hide it.
    // v keeps the solved increment, not wet - h: the rounding of h + dv must not become
    // momentum that every later step re-applies (that made the volume drift as steps^1.5); the
    // rounding goes into the compensation c instead.
#ifdef PAIRED_COMPENSATION
    const ivec2 cell = cell_of(line, pos);
    const bool even = (cell.y & 1) == 0;
    if (even) pair_compensation = decode_compensation(compensation[compensation_word(cell)]);
    float c = even ? pair_compensation.x : pair_compensation.y;
    const float wet = compensated_add(old_state.x, increment, c);
    if (even)
        pair_compensation.x = c;
    else
        pair_compensation.y = c;
    if (!even || pos == LINE_LENGTH - 1)
        compensation[compensation_word(cell)] = encode_compensation(pair_compensation);
#else
    const float wet = add_compensated_at(cell_of(line, pos), old_state.x, increment);
#endif
    field_out[id] = wet;
    velocity[id] = increment;
    check_value(wet);  // a NaN or Inf increment makes wet one
    const float depth = wet - bottom_at(id);
    const bool below = depth < 0.0;
    if (below) deficit_step[settle_tile(cell_of(line, pos))] = step_index;
#ifdef WINDOW_SUMS
    window_part = combine(window_part, wet_part(increment, depth));
    if (below) window_part.w = 1.0;
#endif
#endif
}

#if DIRECTION == 0
float solved_value(int id) { return field_out[id]; }
#else
float solved_value(int id) { return velocity[id]; }  // the generic y solve writes dv there
#endif

#if defined(KERNEL_FUSED)
#include "tridiagonal/fused_lines.glsl"
#elif defined(KERNEL_WINDOW)
// The window kernels' rows (tridiagonal/window_lines.glsl): positions p0 .. p0 + CHUNK - 1 of
// `line`, each cell's height and depth loaded once for the row and its neighbours' (row_system's
// arithmetic), along rows that allow it 16 bytes at a time; positions off the line are clamped
// onto it (the window replaces their rows).
#if DIRECTION == 0
layout(std430, binding = 4) readonly buffer Height4 { vec4 height4[]; };      // h as vec4s
layout(std430, binding = 2) readonly buffer Velocity4 { vec4 velocity4[]; };  // v as vec4s
#endif
void window_rows(int line, int p0, out float a[CHUNK], out float b[CHUNK], out float c[CHUNK],
                 out float d[CHUNK], out vec2 inputs[CHUNK]) {
    const int n = LINE_LENGTH;
    float h[CHUNK + 2], dep[CHUNK + 2];  // positions p0 - 1 .. p0 + CHUNK
#if DIRECTION == 0
    float v[CHUNK];
    const bool quads = (nx & 3) == 0 && p0 >= 1 && p0 + CHUNK < n;
    if (quads) {
        const int id = index_of(cell_of(line, p0));  // a multiple of 4: so are nx and p0
        for (int q = 0; q < CHUNK / 4; ++q) {
            const vec4 hq = height4[(id >> 2) + q], vq = velocity4[(id >> 2) + q];
            for (int e = 0; e < 4; ++e) {
                h[1 + 4 * q + e] = hq[e];
                v[4 * q + e] = vq[e];
            }
        }
        h[0] = height[id - 1];
        h[CHUNK + 1] = height[id + CHUNK];
        for (int k = 0; k < CHUNK + 2; ++k) dep[k] = max(h[k] - bottom_at(id - 1 + k), 0.0);
    } else
#endif
    {
        for (int k = 0; k < CHUNK + 2; ++k) {
            const int id = index_of(cell_of(line, clamp(p0 - 1 + k, 0, n - 1)));
            h[k] = height[id];
            dep[k] = max(h[k] - bottom_at(id), 0.0);
        }
    }
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = clamp(p0 + k, 0, n - 1);
        float left_edge = 0.0, right_edge = 0.0;
        if (pos > 0) left_edge = edge_conductance(dep[k], h[k], dep[k + 1], h[k + 1]);
        if (pos < n - 1) right_edge = edge_conductance(dep[k + 1], h[k + 1], dep[k + 2], h[k + 2]);
        a[k] = -coupling * left_edge;
        c[k] = -coupling * right_edge;
        b[k] = 1.0 + coupling * (left_edge + right_edge);
        const float flux_divergence = coupling * (left_edge * (h[k + 1] - h[k]) +
                                                  right_edge * (h[k + 1] - h[k + 2]));
        const int id = index_of(cell_of(line, pos));
#if DIRECTION == 0
        const float v_wet = dep[k + 1] > 0.0 ? (quads ? v[k] : velocity[id]) - mean_velocity : 0.0;
        d[k] = (1.0 - damping) * v_wet - flux_divergence;
        inputs[k] = vec2(0.0);
#else
        d[k] = intermediate[id] - flux_divergence;
        inputs[k] = vec2(h[k + 1], 0.0);
#endif
        flag_if_not_finite(b[k]);
        flag_if_not_finite(d[k]);
    }
}
#ifdef WINDOW_SUMS
#define WINDOW_GROUP_END
void window_group_end();
#endif
#include "tridiagonal/window_lines.glsl"
#ifdef WINDOW_SUMS
// Every 32 invocations' part at [group * WARPS + t / 32], for settling: a subgroup's by
// subgroup operations where subgroups are 32 wide (SUBGROUP_SUM; no barrier, so
// that no invocation waits on the group's slowest: the work group fills the multiprocessor, and
// a group-wide sum with its barriers and the last group's atomic count at the end of each cost
// the y half step 20% at 4096^2 on the H100), else by a tree in the reduced rows' arrays.
layout(std430, binding = 18) writeonly buffer WindowParts { vec4 window_parts[]; };
#include "sim/step_sums.glsl"
void window_group_end() {
    const int t = int(gl_LocalInvocationID.x);
    const int slot =
        int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WARPS + t / 32;
#ifdef SUBGROUP_SUM
    const vec4 part = vec4(subgroupAdd(window_part.xy), subgroupMax(window_part.zw));
    if (subgroupElect()) {
        window_parts[slot] = part;
        add_step_sums(slot, part);
    }
#else
    barrier();  // every invocation's Thomas has read the reduced rows
    first_a[t] = window_part.x;
    first_c[t] = window_part.y;
    first_d[t] = window_part.z;
    last_a[t] = window_part.w;
    for (int stride = 16; stride > 0; stride /= 2) {
        memoryBarrierShared();
        barrier();
        if ((t & 31) < stride) {
            const vec4 sum = combine(vec4(first_a[t], first_c[t], first_d[t], last_a[t]),
                                     vec4(first_a[t + stride], first_c[t + stride],
                                          first_d[t + stride], last_a[t + stride]));
            first_a[t] = sum.x;
            first_c[t] = sum.y;
            first_d[t] = sum.z;
            last_a[t] = sum.w;
        }
    }
    if ((t & 31) == 0) {
        const vec4 part = vec4(first_a[t], first_c[t], first_d[t], last_a[t]);
        window_parts[slot] = part;
        add_step_sums(slot, part);
    }
#endif
}
#endif
#elif defined(KERNEL_SPLIT)
#define COARSE_BINDING 13
#include "tridiagonal/split_solve.glsl"
#elif defined(KERNEL_ROWS)
#define WRITE_COEFFICIENTS
#include "sim/adi_rows.glsl"
#else
#include "sim/adi_finish.glsl"
#endif
#endif
