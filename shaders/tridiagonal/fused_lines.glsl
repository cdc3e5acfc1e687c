// fused_lines.glsl — whole lines solved in one dispatch, their rows built by the includer's
// functions and the solution handed back to them, so that nothing between the two goes to
// memory: the simulations' fused ADI half steps (shaders/sim/*.comp build each row from the state)
// and `partition`'s lines (partition_lines.comp reads the rows from the coefficient buffers).
//
// Needs, before the #include: LINE_LENGTH and LINE_COUNT (ints), LINES (lines per work group),
// GROUP_SIZE, THREADS_PER_LINE (P, a power of two), CHUNK (K >= 2, K * P >= line length),
// REDUCED_SOLVE (1: subgroup solve, needs WARP <= P and, for real shuffles, SUBGROUPS; 2: warp
// hierarchy, needs WARP <= P <= WARP^2, and SUBGROUPS for real shuffles; 0: shared-memory PCR;
// SUBGROUPS needs GL_KHR_shader_subgroup_basic and _shuffle enabled at the top of the shader),
// `shared float scratch[]` of at least solvers/tridiagonal/fused_lines.hpp's reduced floats, and
// the functions
//     void row_system(int line, int pos, out float a, out float b, out float c, out float d);
//     vec2 store_input(int line, int pos);  // what store() reads of the old state
//     void store(int line, int pos, float x, vec2 input);
// Optionally:
//   X_STORE4: lines along rows of LINE_LENGTH floats, each starting on 16 bytes (CHUNK a multiple
//     of 4), whose solution leaves 16 bytes at a time into binding 1 as
//     float store_value(int line, int pos, float x, vec2 input) gives it;
//   TILED (the sim's x half step, adi_common.glsl): the group's rows staged through `scratch`
//     first, see main; with float field_global(int field, int index), store_value and
//     void store_flat(int index, float v);
//   FUSED_PIVOT_FAILED(line): called where a chunk of the line met a zero or non-finite pivot;
//   KERNEL_EXIT(): called by every invocation last, on each way out of main (the simulations
//     report their stability checks there, sim/adi_common.glsl);
//   SWEEP_SKIPPED(): true where the work group is to end before it loads anything (a guarded
//     sweep that is not this step's, sim/model.hpp).
//
// Solve: the partition method of Laszlo, Giles & Appleyard (2016), a Thomas / PCR hybrid. Each
// thread owns K consecutive rows of one line in registers and eliminates them to the form
//     a'_k x_first + x_k + c'_k x_last = d'_k,
// except its first and last rows, which couple to the neighbouring chunks' ends. Those 2P rows
// form a reduced tridiagonal system (unit diagonal). REDUCED_SOLVE 1 hands it to one subgroup
// per line, which applies the partition method once more (2P / WARP rows per lane) and solves
// the lanes' 2 WARP end rows by PCR with subgroup shuffles: 2 work-group barriers in all.
// REDUCED_SOLVE 0 runs PCR over all 2P rows in shared memory (2 barriers per level, 2 log2 2P
// in all). REDUCED_SOLVE 2 splits the work between the subgroups: each eliminates its own 2 WARP
// rows by PCR in shuffles and one subgroup joins their outer rows (2 barriers; see main).
// Measured on an H200, the reduced solve is a minor part of a dispatch at 1024^2 (skipping it
// altogether saved ~20%); the shape rules (sim/fused_shape.cpp, solvers/tridiagonal/partition.cpp)
// pick the faster per line length. Then each thread substitutes back. Rows past the line's end
// are identity rows. No pivoting: the rows must be diagonally dominant, as every model's are
// (heat, upwind advection, Kass–Miller); FUSED_PIVOT_FAILED reports a chunk where they were not.
//
// Thread layout: invocation t works on line t % LINES, chunk t / LINES, so the LINES threads of
// one chunk sit side by side: in the y half step (lines = columns) their loads coalesce. In the
// x half step each thread's K cells are consecutive floats of one row, so a warp's loads touch a
// separate sector per lane; with TILED (heat, advection) the group's rows (and the rows above
// and below) are loaded whole into shared memory first, and invocation t works on line
// t / THREADS_PER_LINE, chunk t % THREADS_PER_LINE; the new values leave the same way. The warp
// hierarchy takes that layout too (a subgroup's lanes are consecutive chunks of one line), with
// t numbered subgroup by subgroup.
#include "tridiagonal/partition_rows.glsl"

#pragma optionNV(unroll all)

#ifndef KERNEL_EXIT
#define KERNEL_EXIT()
#endif

layout(local_size_x = GROUP_SIZE) in;  // LINES * THREADS_PER_LINE

#ifdef X_STORE4
// The solution (the includer's binding 1) as vec4s; store_value() gives what store() writes.
layout(std430, binding = 1) writeonly buffer XOut4 { vec4 x_out4[]; };
#endif

// The first work group's index among all the lines' groups: 0 for a dispatch over every line;
// a model that solves only some lines here (heat: the lines across its heaters) dispatches their
// groups from this one on.
uniform int first_group;

const int REDUCED = 2 * THREADS_PER_LINE;
// The reduced systems live in scratch (with TILED it held the input rows before): a, c and d
// arrays of LINES lines, line l's rows from l * REDUCED_PITCH. For the PCR an odd pitch puts the
// lines in different banks; the subgroup solve's transposed layout needs none.
#if REDUCED_SOLVE == 1
const int REDUCED_PITCH = REDUCED;
#elif REDUCED_SOLVE == 2
const int REDUCED_PITCH = 2 * THREADS_PER_LINE / WARP;  // the top system's rows (below)
#else
const int REDUCED_PITCH = REDUCED + 1;
#endif
const int REDUCED_FLOATS = LINES * REDUCED_PITCH;
#define reduced_a(i) scratch[(i)]
#define reduced_c(i) scratch[REDUCED_FLOATS + (i)]
#define reduced_d(i) scratch[2 * REDUCED_FLOATS + (i)]
#if REDUCED_SOLVE == 1
// WARP: the subgroup size with SUBGROUPS = 1; otherwise 32 invocations that exchange values
// through shared memory with work-group barriers (llvmpipe without subgroups; slow but the same
// arithmetic). THREADS_PER_LINE >= WARP, so that the group has a subgroup for each line.
const int J = REDUCED / WARP;
int reduced_slot(int row) { return (row % J) * WARP + row / J; }

#ifdef SUBGROUPS
vec3 lane_value(vec3 v, int lane) {
    return vec3(subgroupShuffle(v.x, uint(lane)), subgroupShuffle(v.y, uint(lane)),
                subgroupShuffle(v.z, uint(lane)));
}
#else
// Only the first LINES virtual subgroups hold lines; the others take part in the barriers.
shared vec3 exchange[LINES * WARP];
vec3 lane_value(vec3 v, int lane) {
    const int t = min(int(gl_LocalInvocationID.x), LINES * WARP - 1);
    barrier();
    if (int(gl_LocalInvocationID.x) < LINES * WARP) exchange[t] = v;
    memoryBarrierShared();
    barrier();
    return exchange[(t / WARP) * WARP + lane];
}
#endif

// Row (a, 1, c | d) of the reduced system combined with its neighbours at -stride (m) and
// +stride (p): one parallel cyclic reduction step, renormalised to a unit diagonal.
vec3 pcr_step(vec3 row, vec3 m, vec3 p) {
    const float r = 1.0 / (1.0 - row.x * m.y - row.y * p.x);
    return vec3(-r * row.x * m.x, -r * row.y * p.y, r * (row.z - row.x * m.z - row.y * p.z));
}

// The subgroup of line w (w < LINES) solves that line's reduced system in place (x into
// reduced_d). Each lane eliminates its J consecutive rows to its first and last unknowns (the
// partition method again, one level down), the 2 WARP rows of the lanes' ends are solved by
// PCR with shuffles (1 + log2 WARP steps, no barriers), and the lanes substitute back.
void solve_reduced_in_subgroups() {
#ifdef SUBGROUPS
    const int w = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
    if (w >= LINES) return;
#else
    // Every virtual subgroup runs (barriers in lane_value stay uniform); the extra ones work on
    // line 0's rows and write nothing.
    const int t = int(gl_LocalInvocationID.x);
    const int w = t / WARP, lane = t % WARP;
#endif
    const int base = min(w, LINES - 1) * REDUCED;
    float ra[J], rc[J], rd[J];
    for (int j = 0; j < J; ++j) {
        const int s = base + j * WARP + lane;
        ra[j] = reduced_a(s);
        rc[j] = reduced_c(s);
        rd[j] = reduced_d(s);
    }
    // Rows have a unit diagonal: each lane's J rows to its first and last unknowns.
    PARTITION_UNIT_ROWS(ra, rc, rd, J);
    // Lane l's first row is reduced row 2l, its last 2l + 1 (2 WARP rows in all).
    vec3 first_row = vec3(ra[0], rc[0], rd[0]);
    vec3 last_row = vec3(ra[J - 1], rc[J - 1], rd[J - 1]);
    const vec3 none = vec3(0.0);
    {
        // stride 1: first couples to the previous lane's last and its own last; last to its own
        // first and the next lane's first.
        const vec3 before = lane_value(last_row, max(lane - 1, 0));
        const vec3 after = lane_value(first_row, min(lane + 1, WARP - 1));
        const vec3 f = pcr_step(first_row, lane > 0 ? before : none, last_row);
        const vec3 l = pcr_step(last_row, first_row, lane < WARP - 1 ? after : none);
        first_row = f;
        last_row = l;
    }
    for (int m = 1; m < WARP; m *= 2) {
        // stride 2m: the same row kind m lanes away.
        const vec3 fm = lane_value(first_row, max(lane - m, 0));
        const vec3 fp = lane_value(first_row, min(lane + m, WARP - 1));
        const vec3 lm = lane_value(last_row, max(lane - m, 0));
        const vec3 lp = lane_value(last_row, min(lane + m, WARP - 1));
        const bool has_before = lane >= m, has_after = lane + m < WARP;
        first_row = pcr_step(first_row, has_before ? fm : none, has_after ? fp : none);
        last_row = pcr_step(last_row, has_before ? lm : none, has_after ? lp : none);
    }
    const float x_first = first_row.z, x_last = last_row.z;
#ifndef SUBGROUPS
    if (w >= LINES) return;
#endif
    for (int j = 0; j < J; ++j) {
        float x;
        if (j == 0)
            x = x_first;
        else if (j == J - 1)
            x = x_last;
        else
            x = rd[j] - ra[j] * x_first - rc[j] * x_last;
        reduced_d(base + j * WARP + lane) = x;
    }
}
#elif REDUCED_SOLVE == 2
// WARP consecutive chunks of a line share a subgroup: THREADS_PER_LINE = LINE_WARPS * WARP, with
// LINE_WARPS <= WARP so that one subgroup can solve the line's top system (below).
const int LINE_WARPS = THREADS_PER_LINE / WARP;
#define top_a(i) scratch[(i)]
#define top_c(i) scratch[REDUCED_FLOATS + (i)]
#define top_d(i) scratch[2 * REDUCED_FLOATS + (i)]

#ifdef SUBGROUPS
float lane_float(float v, int lane) { return subgroupShuffle(v, uint(lane)); }
// The invocation's index in the work group, numbered subgroup by subgroup, so that WARP
// consecutive chunks of a line are the lanes of one subgroup whatever the device's numbering.
int invocation_index() { return int(gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID); }
#else
// Virtual subgroups of WARP consecutive invocations that exchange through shared memory with
// work-group barriers (llvmpipe): slow, but the same arithmetic. Every invocation calls it.
shared float exchange[GROUP_SIZE];
float lane_float(float v, int lane) {
    const int t = int(gl_LocalInvocationID.x);
    barrier();
    exchange[t] = v;
    memoryBarrierShared();
    barrier();
    return exchange[(t / WARP) * WARP + lane];
}
int invocation_index() { return int(gl_LocalInvocationID.x); }
#endif

// A row of unit diagonal whose right-hand side is linear in the subgroup's two outer unknowns
// X0 and X1: a x_{i-s} + x_i + c x_{i+s} = d + e X0 + f X1.
struct Row {
    float a, c, d, e, f;
};
const Row kNoRow = Row(0.0, 0.0, 0.0, 0.0, 0.0);
Row lane_row(Row r, int lane) {
    return Row(lane_float(r.a, lane), lane_float(r.c, lane), lane_float(r.d, lane),
               lane_float(r.e, lane), lane_float(r.f, lane));
}
Row present(Row r, bool here) { return here ? r : kNoRow; }
// Row r combined with its neighbours m at -s and p at +s: one PCR step.
Row pcr_row(Row r, Row m, Row p) {
    const float q = 1.0 / (1.0 - r.a * m.c - r.c * p.a);
    return Row(-q * r.a * m.a, -q * r.c * p.c, q * (r.d - r.a * m.d - r.c * p.d),
               q * (r.e - r.a * m.e - r.c * p.e), q * (r.f - r.a * m.f - r.c * p.f));
}
// PCR over a subgroup's 2 WARP rows, lane l holding rows 2l (first) and 2l + 1 (last); rows
// past either end of the subgroup are absent. 1 + log2 WARP steps decouple every row: then
// x = d + e X0 + f X1.
void subgroup_pcr(inout Row first, inout Row last, int lane) {
    {
        const Row before = lane_row(last, max(lane - 1, 0));
        const Row after = lane_row(first, min(lane + 1, WARP - 1));
        const Row f = pcr_row(first, present(before, lane > 0), last);
        const Row l = pcr_row(last, first, present(after, lane < WARP - 1));
        first = f;
        last = l;
    }
    for (int m = 1; m < WARP; m *= 2) {
        const Row fm = lane_row(first, max(lane - m, 0));
        const Row fp = lane_row(first, min(lane + m, WARP - 1));
        const Row lm = lane_row(last, max(lane - m, 0));
        const Row lp = lane_row(last, min(lane + m, WARP - 1));
        const bool has_before = lane >= m, has_after = lane + m < WARP;
        first = pcr_row(first, present(fm, has_before), present(fp, has_after));
        last = pcr_row(last, present(lm, has_before), present(lp, has_after));
    }
}
#endif

void main() {
#ifdef SWEEP_SKIPPED
    if (SWEEP_SKIPPED()) return;  // a guarded sweep that is not this step's
#endif
#if REDUCED_SOLVE == 2
    const int t = invocation_index();
#else
    const int t = int(gl_LocalInvocationID.x);
#endif
#if defined(TILED) || REDUCED_SOLVE == 2
    // A line's chunks side by side: conflict-free tile reads, and the warp hierarchy's
    // subgroups.
    const int line_in_group = t / THREADS_PER_LINE;
    const int chunk = t % THREADS_PER_LINE;
#else
    const int line_in_group = t % LINES;
    const int chunk = t / LINES;
#endif
    const int group = first_group + int(gl_WorkGroupID.x);
    const int line = group * LINES + line_in_group;
    const bool line_active = line < LINE_COUNT;
    const int first = chunk * CHUNK;
    const int n = LINE_LENGTH;
    const int first_line = group * LINES;

#ifdef TILED
    // x half step: the group's rows and the one above and below (clamped: the mirrored walls)
    // are contiguous in memory; loaded whole, coalesced, into the tile that row_system() reads
    // through tiled_field(). Per-thread loads of K consecutive floats of different rows would
    // touch a separate 32-byte sector in every lane.
    {
        tile_first_row = first_line - TILE_HALO;
        const int count = TILE_ROWS * nx;
        const int STAGE = (TILE_ROWS * THREADS_PER_LINE * CHUNK + GROUP_SIZE - 1) / GROUP_SIZE;
        float staged[TILE_FIELDS][STAGE];
        for (int s = 0; s < STAGE; ++s) {
            const int f = t + s * GROUP_SIZE;
            const int row = clamp(tile_first_row + f / nx, 0, ny - 1);
            for (int field = 0; field < TILE_FIELDS; ++field)
                staged[field][s] = f < count ? field_global(field, row * nx + f % nx) : 0.0;
        }
        for (int s = 0; s < STAGE; ++s) {
            const int f = t + s * GROUP_SIZE;
            for (int field = 0; field < TILE_FIELDS; ++field)
                if (f < count)
                    scratch[field * TILE_FIELD_FLOATS + tile_slot(f / nx, f % nx)] = staged[field][s];
        }
        memoryBarrierShared();
        barrier();
    }
#endif

    // Forward sweep inside the chunk while the rows are built. Rows are built at clamped
    // positions with no branch around them, so that the compiler can issue every row's loads
    // at once instead of one L2 round trip per row; padding rows are replaced afterwards.
    float ca[CHUNK], cc[CHUNK], cd[CHUNK];
    vec2 inputs[CHUNK];  // store()'s reads, issued now with the rows' loads
    const int safe_line = min(line, LINE_COUNT - 1);
    bool pivots_ok = true;  // read where FUSED_PIVOT_FAILED reports
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = first + k;
        float a, b, c, d;
        row_system(safe_line, min(pos, n - 1), a, b, c, d);
        inputs[k] = store_input(safe_line, min(pos, n - 1));
        if (pos == 0) a = 0.0;
        if (pos >= n - 1) c = 0.0;
        if (!line_active || pos >= n) {
            a = 0.0;
            b = 1.0;
            d = 0.0;
        }
        PARTITION_FORWARD_ROW(ca, cc, cd, k, a, b, c, d, pivots_ok);
    }
    // Backward sweep: rows 1 .. K-2 in terms of the chunk's first and last unknowns.
    PARTITION_BACKWARD(ca, cc, cd, CHUNK);
#ifdef FUSED_PIVOT_FAILED
    if (!pivots_ok && line_active) FUSED_PIVOT_FAILED(line);
#endif

#ifdef TILED
    barrier();  // every row is built: the tile's memory takes the reduced systems now
#endif

    // Reduced system: unknown 2p is chunk p's first row, 2p + 1 its last.
#if REDUCED_SOLVE == 1
    // One subgroup per line solves its REDUCED rows: lane l owns rows l J .. l J + J - 1
    // (J = REDUCED / WARP >= 2), stored transposed (row r at (r % J) WARP + r / J) so that the
    // lanes' loads hit distinct banks. Two work-group barriers in all, against 2 log2(2P) for a
    // shared-memory PCR over the whole reduced system.
    const int base = line_in_group * REDUCED;
    const int row0 = 2 * chunk;
    {
        const int s0 = reduced_slot(row0), s1 = reduced_slot(row0 + 1);
        reduced_a(base + s0) = ca[0];
        reduced_c(base + s0) = cc[0];
        reduced_d(base + s0) = cd[0];
        reduced_a(base + s1) = ca[CHUNK - 1];
        reduced_c(base + s1) = cc[CHUNK - 1];
        reduced_d(base + s1) = cd[CHUNK - 1];
    }
    memoryBarrierShared();
    barrier();
    solve_reduced_in_subgroups();
    memoryBarrierShared();
    barrier();
    const float x_first = reduced_d(base + reduced_slot(row0));
    const float x_last = reduced_d(base + reduced_slot(row0 + 1));
#elif REDUCED_SOLVE == 2
    // The warp hierarchy: each subgroup eliminates its 2 WARP reduced rows (WARP chunks) in
    // terms of its own outer unknowns X0 (its first chunk's first row) and X1 (its last chunk's
    // last row) by PCR in shuffles, carrying X0 and X1 as two more right-hand sides; the
    // subgroups' outer rows then form the line's top system, 2 LINE_WARPS rows, which one
    // subgroup solves the same way. Two work-group barriers in all, as with the subgroup solve,
    // but every subgroup shares the work instead of one walking J rows a lane.
    const int lane = chunk % WARP, warp = chunk / WARP;
    const Row outer_first = Row(ca[0], cc[0], cd[0], 0.0, 0.0);
    const Row outer_last = Row(ca[CHUNK - 1], cc[CHUNK - 1], cd[CHUNK - 1], 0.0, 0.0);
    // Inside the subgroup its outer rows are the identities x = X0 and x = X1.
    Row head = lane == 0 ? Row(0.0, 0.0, 0.0, 1.0, 0.0) : outer_first;
    Row tail = lane == WARP - 1 ? Row(0.0, 0.0, 0.0, 0.0, 1.0) : outer_last;
    subgroup_pcr(head, tail, lane);
    // The outer rows with their inner neighbours (x_1, x_{2 WARP - 2}) substituted, scaled to a
    // unit diagonal: X0 couples to the previous subgroup's X1 and to X1, X1 to X0 and to the
    // next subgroup's X0, a tridiagonal system of the line's 2 LINE_WARPS outer unknowns.
    const int top = line_in_group * REDUCED_PITCH + 2 * warp;
    if (lane == 0) {
        const float r = 1.0 / (1.0 + outer_first.c * tail.e);
        top_a(top) = r * outer_first.a;
        top_c(top) = r * outer_first.c * tail.f;
        top_d(top) = r * (outer_first.d - outer_first.c * tail.d);
    }
    if (lane == WARP - 1) {
        const float r = 1.0 / (1.0 + outer_last.a * head.f);
        top_a(top + 1) = r * outer_last.a * head.e;
        top_c(top + 1) = r * outer_last.c;
        top_d(top + 1) = r * (outer_last.d - outer_last.a * head.d);
    }
    memoryBarrierShared();
    barrier();
    {
        // The line's first subgroup solves the top system: lane w holds subgroup w's X0 and X1.
        const int slot = line_in_group * REDUCED_PITCH + 2 * lane;
        const bool held = lane < LINE_WARPS;
        Row top_first = kNoRow, top_last = kNoRow;
        if (held) {
            top_first = Row(top_a(slot), top_c(slot), top_d(slot), 0.0, 0.0);
            top_last = Row(top_a(slot + 1), top_c(slot + 1), top_d(slot + 1), 0.0, 0.0);
        }
#ifdef SUBGROUPS
        if (warp == 0) subgroup_pcr(top_first, top_last, lane);
#else
        subgroup_pcr(top_first, top_last, lane);  // every invocation: lane_float has barriers
#endif
        if (warp == 0 && held) {
            top_d(slot) = top_first.d;
            top_d(slot + 1) = top_last.d;
        }
    }
    memoryBarrierShared();
    barrier();
    const float x0 = top_d(top), x1 = top_d(top + 1);
    const float x_first = head.d + head.e * x0 + head.f * x1;
    const float x_last = tail.d + tail.e * x0 + tail.f * x1;
#else
    const int base = line_in_group * REDUCED_PITCH;
    const int row0 = 2 * chunk;
    reduced_a(base + row0) = ca[0];
    reduced_c(base + row0) = cc[0];
    reduced_d(base + row0) = cd[0];
    reduced_a(base + row0 + 1) = ca[CHUNK - 1];
    reduced_c(base + row0 + 1) = cc[CHUNK - 1];
    reduced_d(base + row0 + 1) = cd[CHUNK - 1];

    // Parallel cyclic reduction, renormalising to a unit diagonal at every level. Here
    // invocation t takes rows r and r + P of line t / P (r = t % P), so that neighbouring
    // invocations touch neighbouring words: no bank conflicts.
    const int pcr_base = (t / THREADS_PER_LINE) * REDUCED_PITCH;
    const int pcr_row = t % THREADS_PER_LINE;
    for (int stride = 1; stride < REDUCED; stride *= 2) {
        memoryBarrierShared();
        barrier();
        float na[2], nc[2], nd[2];
        for (int e = 0; e < 2; ++e) {
            const int i = pcr_row + e * THREADS_PER_LINE;
            const float ai = reduced_a(pcr_base + i), ci = reduced_c(pcr_base + i);
            float am = 0.0, cm = 0.0, dm = 0.0, ap = 0.0, cp = 0.0, dp = 0.0;
            if (i - stride >= 0) {
                am = reduced_a(pcr_base + i - stride);
                cm = reduced_c(pcr_base + i - stride);
                dm = reduced_d(pcr_base + i - stride);
            }
            if (i + stride < REDUCED) {
                ap = reduced_a(pcr_base + i + stride);
                cp = reduced_c(pcr_base + i + stride);
                dp = reduced_d(pcr_base + i + stride);
            }
            const float r = 1.0 / (1.0 - ai * cm - ci * ap);
            na[e] = -r * ai * am;
            nc[e] = -r * ci * cp;
            nd[e] = r * (reduced_d(pcr_base + i) - ai * dm - ci * dp);
        }
        memoryBarrierShared();
        barrier();
        for (int e = 0; e < 2; ++e) {
            const int i = pcr_row + e * THREADS_PER_LINE;
            reduced_a(pcr_base + i) = na[e];
            reduced_c(pcr_base + i) = nc[e];
            reduced_d(pcr_base + i) = nd[e];
        }
    }
    memoryBarrierShared();
    barrier();
    const float x_first = reduced_d(base + row0);
    const float x_last = reduced_d(base + row0 + 1);

#endif

#ifdef TILED
    // The new values go through the tile too, so that whole rows are written coalesced.
    barrier();  // every x_first / x_last is read
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = first + k;
        const float x = k == 0 ? x_first
                        : k == CHUNK - 1 ? x_last
                                         : cd[k] - ca[k] * x_first - cc[k] * x_last;
        if (pos < n) scratch[tile_slot(line_in_group, pos)] = store_value(line, pos, x, inputs[k]);
    }
    memoryBarrierShared();
    barrier();
    {
        const int count = min(LINES, LINE_COUNT - first_line) * nx;
        const int STAGE = (LINES * THREADS_PER_LINE * CHUNK + GROUP_SIZE - 1) / GROUP_SIZE;
        for (int s = 0; s < STAGE; ++s) {
            const int f = t + s * GROUP_SIZE;
            if (f < count) store_flat((first_line + f / nx) * nx + f % nx, scratch[tile_slot(f / nx, f % nx)]);
        }
    }
#else
    if (!line_active) {
        KERNEL_EXIT();
        return;
    }
#ifdef X_STORE4
    // x lines on rows that start on 16 bytes: a thread's CHUNK consecutive cells leave in
    // CHUNK / 4 stores of 16 bytes. With one float a lane, each of a warp's store instructions
    // writes 4 bytes into 32 different 32-byte sectors: four times the L2 write requests.
    if (first + CHUNK <= n) {
        const int quad = (line * LINE_LENGTH + first) >> 2;
        for (int q = 0; q < CHUNK / 4; ++q) {
            vec4 v;
            for (int e = 0; e < 4; ++e) {
                const int k = 4 * q + e;
                const float x = k == 0           ? x_first
                                : k == CHUNK - 1 ? x_last
                                                 : cd[k] - ca[k] * x_first - cc[k] * x_last;
                v[e] = store_value(line, first + k, x, inputs[k]);
            }
            x_out4[quad + q] = v;
        }
        KERNEL_EXIT();
        return;
    }
#endif
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = first + k;
        float x;
        if (k == 0)
            x = x_first;
        else if (k == CHUNK - 1)
            x = x_last;
        else
            x = cd[k] - ca[k] * x_first - cc[k] * x_last;
        if (pos < n) store(line, pos, x, inputs[k]);
    }
#endif
    KERNEL_EXIT();
}
