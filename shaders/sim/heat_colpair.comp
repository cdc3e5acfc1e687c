// Heat's y half step from the (T*, e) pairs of the whole-row x kernel (heat_linerow.comp with
// X_PAIR; sim/heat.cpp: the pair path): column_scan_pair of heat_scan.glsl, work group (x, y) =
// tile (x, y). One 8-byte load a cell (T* and lambda d_xx T*) instead of T* and its two
// neighbours along x.
//
// Needs: CHUNK, HALO, WARPS (> 2 ceil(HALO / CHUNK)), GROUP_SIZE = 32 WARPS.
#define DIRECTION 1
#define COLUMN_SCAN 1
#define COLUMN_PAIR 1
#define Y_WARPS WARPS
#define Y_CHUNK CHUNK
#define COLUMN_IN field_out
#define COLUMN_PAIR_IN pairs
#define COLUMN_OUT field_out

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer Pairs { vec2 pairs[]; };
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };

#include "sim/heat_scan.glsl"

void main() {
    scan_step = step_index;
    column_scan_pair(ivec2(gl_WorkGroupID.xy));
}
