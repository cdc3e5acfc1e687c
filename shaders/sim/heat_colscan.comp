// Heat's y sweep in one dispatch where no cell is pinned and lambda allows (sim/heat.cpp):
// column_scan of heat_scan.glsl (its header has the maths), work group (x, y) = tile (x, y).
//
// Needs: CHUNK, HALO_LOW = HALO_HIGH, WARPS (> 2 ceil(HALO / CHUNK)), GROUP_SIZE = 32 WARPS.
#define DIRECTION 1
#define COLUMN_SCAN 1
#define Y_WARPS WARPS
#define Y_CHUNK CHUNK
#define COLUMN_IN field_in
#define COLUMN_OUT field_out

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) buffer FieldOut { float field_out[]; };

#include "sim/heat_scan.glsl"

void main() {
    column_scan(ivec2(gl_WorkGroupID.xy));
    report_checks();
}
