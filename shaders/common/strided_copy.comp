// strided_copy.comp — `adilab --bench strided`: copies an n x n float field with the access
// pattern of a column (y) solve, to find what limits the y solvers' bandwidth (issue 3).
// Each invocation owns one column and ROWS consecutive rows of it ("a chunk"); the 32 lanes of a
// warp own 32 adjacent columns, so every load / store instruction of a warp touches one
// contiguous 128-byte row segment, `stride` floats after the previous row's. Loads are issued
// BATCH at a time (independent, in flight together) then stored, like the solvers' chunks.
// Prelude:
//   COLS  columns per work group (a multiple of 32), CHUNKS chunks per work group (stacked down
//         the same columns), WG_SIZE = COLS * CHUNKS, ROWS rows per chunk (multiple of BATCH).
//   ORDER 0: consecutive work groups take consecutive column blocks of the same rows (a grid's
//         rows are swept like an x solve); 1: consecutive work groups go down one column block.
//   CONTIGUOUS 1: the x pattern for comparison — the same loads per invocation, but a warp's
//         successive loads are consecutive 128-byte blocks (no stride).
// Uniforms: n (field side; a multiple of COLS and of ROWS * CHUNKS), stride_in / stride_out
// (floats between two rows: n, or n + padding), row_offset (added to every row: chunk starts off
// powers of two; rows past n are skipped).
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) readonly buffer Source { float source[]; };
layout(std430, binding = 1) writeonly buffer Destination { float destination[]; };

uniform uint n;
uniform uint stride_in;
uniform uint stride_out;
uniform uint row_offset;

#define BATCH (ROWS < 32 ? ROWS : 32)

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const uint column_blocks = n / COLS;
    const uint chunk_blocks = (n + ROWS * CHUNKS - 1u) / (ROWS * CHUNKS);
    if (group >= column_blocks * chunk_blocks) return;
#if ORDER == 0
    const uint column_block = group % column_blocks, chunk_block = group / column_blocks;
#else
    const uint column_block = group / chunk_blocks, chunk_block = group % chunk_blocks;
#endif
    const uint column = column_block * COLS + tid % COLS;
    const uint chunk = chunk_block * CHUNKS + tid / COLS;
    const uint first_row = chunk * ROWS + row_offset;
    float v[BATCH];
    for (uint r0 = 0u; r0 < ROWS; r0 += BATCH) {
#if CONTIGUOUS
        // The same volume per invocation, read as an x solve reads it: warp w of the grid owns
        // ROWS consecutive 128-byte blocks.
        const uint warp = (group * WG_SIZE + tid) / 32u, lane = tid % 32u;
        for (uint t = 0u; t < BATCH; ++t) {
            const uint f = (warp * ROWS + r0 + t) * 32u + lane;
            v[t] = f < n * n ? source[f] : 0.0;
        }
        for (uint t = 0u; t < BATCH; ++t) {
            const uint f = (warp * ROWS + r0 + t) * 32u + lane;
            if (f < n * n) destination[f] = v[t];
        }
#else
        for (uint t = 0u; t < BATCH; ++t) {
            const uint row = first_row + r0 + t;
            v[t] = row < n ? source[row * stride_in + column] : 0.0;
        }
        for (uint t = 0u; t < BATCH; ++t) {
            const uint row = first_row + r0 + t;
            if (row < n) destination[row * stride_out + column] = v[t];
        }
#endif
    }
}
