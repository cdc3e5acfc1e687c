// split_solve.glsl — batched tridiagonal lines of any length solved in three dispatches by the
// partition method (Laszlo, Giles & Appleyard 2016; the split into a coarse system in memory and
// a recomputing last pass as in Klein & Strzodka's tridigpu, ACM TOPC 2023). Used by
// solvers/tridiagonal's `partition` variant and by the simulations' long y sweeps
// (sim/model.cpp), which build each row on the fly from their fields.
//
// Why three dispatches: a work group cannot hold a long line whole with its loads coalesced.
// Even 8 side-by-side columns (one 32-byte sector a row) of 4096 rows are 384 KiB of eliminated
// rows (3 floats each), more than an SM's registers and shared memory together, and a group of
// fewer columns leaves most of every sector it reads to other groups. Here a
// work group takes 32 lines (one per lane, so that the y half step reads 128 bytes per warp and
// row) and a span of WARPS * CHUNK positions; each line's span is reduced to two rows, those
// rows from every span of the line form a small coarse system, and the last pass rebuilds the
// rows (reading them a second time) instead of keeping them in memory between the passes.
//
// Stages (one per dispatch, chosen by the includer's #define):
//   SPLIT_REDUCE     each invocation eliminates its CHUNK rows to their first and last unknowns,
//                    the group eliminates its 2 WARPS such rows per line to the span's first and
//                    last, and writes those two rows to `coarse`;
//   SPLIT_COARSE     solves each line's 2 * split_spans() coarse rows (unit diagonal) by the
//                    partition method once more, in blocks of COARSE_BLOCK rows, and leaves x
//                    in coarse[].w;
//   SPLIT_SUBSTITUTE rebuilds and eliminates the rows as SPLIT_REDUCE did, takes the span's end
//                    values from `coarse`, recovers its chunks' end values, then every row's.
//
// The includer, before `#include "tridiagonal/split_solve.glsl"`:
//   - #define LINE_LENGTH and LINE_COUNT (int expressions), CHUNK (rows per invocation, >= 2),
//     WARPS (chunks per work group along the line), COARSE_BINDING (the vec4 buffer's binding),
//     one of the stage names above, and for SPLIT_COARSE COARSE_BLOCK (>= 2) and COARSE_WARPS
//     with COARSE_BLOCK * COARSE_WARPS >= 2 * split_spans() (split_shape, solvers/tridiagonal/split.hpp);
//   - for SPLIT_REDUCE and SPLIT_SUBSTITUTE, the functions
//         void row_system(int line, int pos, out float a, out float b, out float c, out float d);
//         vec2 store_input(int line, int pos);            // what store() reads of the old state
//         void store(int line, int pos, float x, vec2 old_state);
//     (row_system must return the same row in both stages: it is called twice per row);
//   - optionally #define SPLIT_PIVOT_FAILED(line): called where a chunk met a zero or
//     non-finite pivot, and SPLIT_STAGE(first_line, first_pos): called first in the reduce and
//     substitute stages by every invocation (uniform control flow), to stage the group's 32
//     lines x WARPS * CHUNK positions before row_system reads them; SPLIT_UNSTAGE(): called
//     in the substitute stage by every invocation, after every store(); KERNEL_EXIT(): called
//     last in the reduce and substitute stages by every invocation (the simulations report
//     their stability checks there, sim/adi_common.glsl); SWEEP_SKIPPED(): true where the work
//     group is to end before it loads anything (a guarded sweep that is not this step's,
//     sim/model.hpp).
// Dispatch: SPLIT_REDUCE and SPLIT_SUBSTITUTE (ceil(LINE_COUNT / 32), split_spans()) groups of
// 32 x WARPS invocations, or (split_spans(), ceil(LINE_COUNT / 32)) with SPLIT_SPANS_FIRST: the
// groups in flight (consecutive indices) then work along the same 32 lines instead of across
// many. For lines whose elements are adjacent (x rows) that keeps the memory they touch at once
// within a few pages; the other order read general x rows of 8192 at 0.3% of the bandwidth,
// every group in flight 32 rows (1 MiB) away from the next, four buffers each. SPLIT_COARSE:
// ceil(LINE_COUNT / 32) groups of 32 x COARSE_WARPS. With SPLIT_SUBSTITUTE_FROM_LAST the
// substitute stage numbers its groups from the last (main says why).
// coarse holds 2 * split_spans() vec4 rows (a, c, d, x) per line: row r of line l at
// r * LINE_COUNT + l. No pivoting: meant for diagonally dominant lines, like every model's.

// Every loop over a chunk, a span's rows or a coarse block unrolled, so that the row arrays
// stay in registers (the fused kernel's pragma, fused_lines.glsl; other compilers ignore it).
#pragma optionNV(unroll all)

#ifndef KERNEL_EXIT
#define KERNEL_EXIT()
#endif

#define SPLIT_LANES 32
const int SPLIT_SPAN = WARPS * CHUNK;
int split_spans() { return (LINE_LENGTH + SPLIT_SPAN - 1) / SPLIT_SPAN; }

layout(std430, binding = COARSE_BINDING) buffer Coarse { vec4 coarse[]; };

// The first group of 32 lines a dispatch solves (0 unless set): heat's y sweep solves only the
// columns across its heaters this way (sim/heat.cpp).
uniform int first_line_group;

#include "tridiagonal/partition_rows.glsl"

#ifdef SPLIT_COARSE
// The coarse rows of 32 lines per work group, COARSE_BLOCK consecutive rows per invocation and
// COARSE_WARPS blocks down the lines (the host sizes them to cover every row): each block is
// eliminated to its end rows in registers (partition_rows.glsl), the 2 COARSE_WARPS end rows of a
// line are solved by Thomas in shared memory by one lane, and the blocks substitute back. A
// Thomas walk over the whole coarse line instead was latency-bound: hundreds of dependent
// loads and stores per line, with few lines to overlap them.
layout(local_size_x = SPLIT_LANES, local_size_y = COARSE_WARPS) in;

shared vec3 block_rows[2 * COARSE_WARPS * SPLIT_LANES];
shared float block_x[2 * COARSE_WARPS * SPLIT_LANES];

void main() {
#ifdef SWEEP_SKIPPED
    if (SWEEP_SKIPPED()) return;  // a guarded sweep that is not this step's
#endif
    const int lane = int(gl_LocalInvocationID.x);
    const int warp = int(gl_LocalInvocationID.y);
    const int line = (first_line_group + int(gl_WorkGroupID.x)) * SPLIT_LANES + lane;
    const bool line_active = line < LINE_COUNT;
    const int rows = 2 * split_spans();
    const int first = warp * COARSE_BLOCK;
    float ra[COARSE_BLOCK], rc[COARSE_BLOCK], rd[COARSE_BLOCK];
    for (int j = 0; j < COARSE_BLOCK; ++j) {
        const int r = first + j;
        // Rows past the last coarse row are identity rows (x = 0), decoupled from it: the last
        // row's c is 0 (the line's end).
        const vec4 row = line_active && r < rows ? coarse[r * LINE_COUNT + line] : vec4(0.0);
        ra[j] = row.x;
        rc[j] = row.y;
        rd[j] = row.z;
    }
    PARTITION_UNIT_ROWS(ra, rc, rd, COARSE_BLOCK);
    block_rows[(2 * warp) * SPLIT_LANES + lane] = vec3(ra[0], rc[0], rd[0]);
    block_rows[(2 * warp + 1) * SPLIT_LANES + lane] =
        vec3(ra[COARSE_BLOCK - 1], rc[COARSE_BLOCK - 1], rd[COARSE_BLOCK - 1]);
    memoryBarrierShared();
    barrier();
    if (warp == 0) {
        // Thomas on the blocks' end rows (unit diagonal): forward into (c', d') in place ...
        float c_prev = 0.0, d_prev = 0.0;
        for (int r = 0; r < 2 * COARSE_WARPS; ++r) {
            const vec3 row = block_rows[r * SPLIT_LANES + lane];
            const float scale = 1.0 / (1.0 - row.x * c_prev);
            c_prev = scale * row.y;
            d_prev = scale * (row.z - row.x * d_prev);
            block_rows[r * SPLIT_LANES + lane] = vec3(row.x, c_prev, d_prev);
        }
        // ... then back substitution.
        float x = 0.0;
        for (int r = 2 * COARSE_WARPS - 1; r >= 0; --r) {
            const vec3 row = block_rows[r * SPLIT_LANES + lane];
            x = row.z - row.y * x;
            block_x[r * SPLIT_LANES + lane] = x;
        }
    }
    memoryBarrierShared();
    barrier();
    if (!line_active) return;
    const float x_first = block_x[(2 * warp) * SPLIT_LANES + lane];
    const float x_last = block_x[(2 * warp + 1) * SPLIT_LANES + lane];
    for (int j = 0; j < COARSE_BLOCK; ++j) {
        const int r = first + j;
        const float x = j == 0                  ? x_first
                        : j == COARSE_BLOCK - 1 ? x_last
                                                : rd[j] - ra[j] * x_first - rc[j] * x_last;
        if (r < rows) coarse[r * LINE_COUNT + line].w = x;
    }
}

#else
layout(local_size_x = SPLIT_LANES, local_size_y = WARPS) in;

// The 2 WARPS end rows of the group's chunks, per lane, with a unit diagonal: (a, c, d), row r
// of lane l at [r * SPLIT_LANES + l] (the lanes of a warp touch consecutive words).
shared vec3 span_rows[2 * WARPS * SPLIT_LANES];
shared float span_x[2 * WARPS * SPLIT_LANES];

void main() {
#ifdef SWEEP_SKIPPED
    if (SWEEP_SKIPPED()) return;  // a guarded sweep that is not this step's
#endif
    const int lane = int(gl_LocalInvocationID.x);
    const int warp = int(gl_LocalInvocationID.y);
#ifdef SPLIT_SUBSTITUTE_FROM_LAST
    // The work groups in reverse order: the reduce stage took the same rows just before, and
    // what the L2 cache still holds of them is its last groups' (the next solve's reduce stage
    // then starts where this one ends).
    const ivec2 group = ivec2(gl_NumWorkGroups.xy - 1u - gl_WorkGroupID.xy);
#else
    const ivec2 group = ivec2(gl_WorkGroupID.xy);
#endif
#ifdef SPLIT_SPANS_FIRST
    const int line_group = first_line_group + group.y, span = group.x;
#else
    const int line_group = first_line_group + group.x, span = group.y;
#endif
    const int line = line_group * SPLIT_LANES + lane;
    const bool line_active = line < LINE_COUNT;
    const int safe_line = min(line, LINE_COUNT - 1);
    const int first = (span * WARPS + warp) * CHUNK;
    const int n = LINE_LENGTH;
#ifdef SPLIT_STAGE
    // The includer's staging of the group's rows (e.g. through shared memory): called by every
    // invocation with the group's first line and first position, barriers allowed.
    SPLIT_STAGE(line_group * SPLIT_LANES, span * SPLIT_SPAN);
#endif

    // The chunk's rows, eliminated while they are built (the fused kernel's sweeps,
    // fused_lines.glsl): rows 1 .. K-2 end as a_k x_first + x_k + c_k x_last = d_k. Rows are
    // built at clamped positions without a branch, so that their loads issue together; rows past
    // the line's end become identity rows.
    float ca[CHUNK], cc[CHUNK], cd[CHUNK];
#ifdef SPLIT_SUBSTITUTE
    vec2 inputs[CHUNK];
#endif
    bool ok = true;
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = first + k;
        float a, b, c, d;
        row_system(safe_line, min(pos, n - 1), a, b, c, d);
#ifdef SPLIT_SUBSTITUTE
        inputs[k] = store_input(safe_line, min(pos, n - 1));
#endif
        if (pos == 0) a = 0.0;
        if (pos >= n - 1) c = 0.0;
        if (!line_active || pos >= n) {
            a = 0.0;
            b = 1.0;
            c = 0.0;
            d = 0.0;
        }
        PARTITION_FORWARD_ROW(ca, cc, cd, k, a, b, c, d, ok);
    }
    PARTITION_BACKWARD(ca, cc, cd, CHUNK);
#ifdef SPLIT_PIVOT_FAILED
    if (!ok && line_active) SPLIT_PIVOT_FAILED(line);
#endif

    // The group's chunk ends, per line: rows 2 w and 2 w + 1 of the span.
    span_rows[(2 * warp) * SPLIT_LANES + lane] = vec3(ca[0], cc[0], cd[0]);
    span_rows[(2 * warp + 1) * SPLIT_LANES + lane] = vec3(ca[CHUNK - 1], cc[CHUNK - 1], cd[CHUNK - 1]);
    memoryBarrierShared();
    barrier();
    const int span_row0 = 2 * span;  // the span's first coarse row; its last is span_row0 + 1
    if (warp == 0) {
        float sa[2 * WARPS], sc[2 * WARPS], sd[2 * WARPS];
        for (int j = 0; j < 2 * WARPS; ++j) {
            const vec3 row = span_rows[j * SPLIT_LANES + lane];
            sa[j] = row.x;
            sc[j] = row.y;
            sd[j] = row.z;
        }
        PARTITION_UNIT_ROWS(sa, sc, sd, 2 * WARPS);
#ifdef SPLIT_REDUCE
        if (line_active) {
            coarse[span_row0 * LINE_COUNT + line] = vec4(sa[0], sc[0], sd[0], 0.0);
            coarse[(span_row0 + 1) * LINE_COUNT + line] =
                vec4(sa[2 * WARPS - 1], sc[2 * WARPS - 1], sd[2 * WARPS - 1], 0.0);
        }
#else
        const float x_first = coarse[span_row0 * LINE_COUNT + safe_line].w;
        const float x_last = coarse[(span_row0 + 1) * LINE_COUNT + safe_line].w;
        for (int j = 0; j < 2 * WARPS; ++j) {
            const float x = j == 0                 ? x_first
                            : j == 2 * WARPS - 1   ? x_last
                                                   : sd[j] - sa[j] * x_first - sc[j] * x_last;
            span_x[j * SPLIT_LANES + lane] = x;
        }
#endif
    }
#ifdef SPLIT_SUBSTITUTE
    memoryBarrierShared();
    barrier();
    const float x_first = span_x[(2 * warp) * SPLIT_LANES + lane];
    const float x_last = span_x[(2 * warp + 1) * SPLIT_LANES + lane];
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = first + k;
        const float x = k == 0           ? x_first
                        : k == CHUNK - 1 ? x_last
                                         : cd[k] - ca[k] * x_first - cc[k] * x_last;
        if (line_active && pos < n) store(line, pos, x, inputs[k]);
    }
#ifdef SPLIT_UNSTAGE
    SPLIT_UNSTAGE();
#endif
#endif
    KERNEL_EXIT();
}
#endif
