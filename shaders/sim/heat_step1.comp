#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#endif
// Heat's whole Peaceman–Rachford step in ONE dispatch (sim/heat.cpp, ADILAB_HEAT_STEP1), without
// redundant work and without a grid barrier: the first x_groups work groups are the x half step
// (line_rows of heat_linerow.glsl: whole rows, exact walls), the rest the y half step
// (column_scan of heat_scan.glsl: the column scan with its warm-up chunks). A y group waits only
// for the x rows it reads. Work is handed out by tickets in the order the work groups actually
// start (an atomic counter, not gl_WorkGroupID): every x ticket is taken, by a running work group,
// before any y ticket, so the waits end under any scheduler that runs a started work group to
// completion (in-order on NVIDIA; llvmpipe hands blocks of ids to its threads). Every x group, after its stores, adds its rows to the counter of
// their band of BAND rows (release: memoryBarrierBuffer, barrier, one atomic); a y group's first
// invocation spins on the counters of the bands of its rows (acquire: atomic reads, then
// memoryBarrierBuffer, barrier). A wait that outlasts MAX_SPINS (never seen) flags the step as
// unstable instead of hanging. The counters only grow: a band is done in dispatch number `epoch`
// (1, 2, ...) when its counter reaches epoch * (its rows), and the tickets of dispatch `epoch`
// are (epoch - 1) * groups ..; the host zeroes them with epoch.
// In place: y writes T^(n+1) over T^n (binding 0); a y group writes only rows whose readers (x
// rows r - 1 .. r + 1) it has waited for. T* (binding 1) is `coherent`: y reads what other work
// groups of this dispatch wrote (its loads bypass the non-coherent L1).
// Needs: CHUNK, CHUNKS, LINES (x: as heat_linerow.comp), Y_CHUNK (y rows a chunk), GROUP_SIZE
// (= LINES * CHUNKS = 32 Y_WARPS), HALO; optionally SUBGROUPS, X_VEC4, FORM_PLAIN.
#define DIRECTION 0
#define COLUMN_SCAN 1
#define Y_WARPS (GROUP_SIZE / 32)

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) buffer Field { float field[]; };  // T^n in, T^(n+1) out
layout(std430, binding = 1) coherent buffer Half { float half_field[]; };  // T*
#ifdef X_VEC4
layout(std430, binding = 4) readonly buffer Field4 { vec4 field4[]; };
layout(std430, binding = 5) coherent writeonly buffer Half4 { vec4 half4[]; };
#endif
// [0]: tickets handed out; [1 + b]: rows of band b done.
layout(std430, binding = 6) coherent buffer RowsDone { int rows_done[]; };

#define LINE_IN field
#define LINE_OUT half_field
#define LINE_IN4 field4
#define LINE_OUT4 half4
#define COLUMN_IN half_field
#define COLUMN_OUT field

#include "sim/heat_scan.glsl"
#include "sim/heat_linerow.glsl"

uniform int x_groups;  // tickets 0 .. x_groups - 1 do the x half step
uniform int groups;    // work groups a dispatch
uniform int epoch;     // this dispatch's number since the counters were zeroed

shared int ticket;

const int BAND = 32;  // rows a counter
const int MAX_SPINS = 1 << 27;  // llvmpipe with more threads than cores spins long

int band_rows(int b) { return min(ny, (b + 1) * BAND) - b * BAND; }

void main() {
    scan_step = step_index;
    if (gl_LocalInvocationID.x == 0) ticket = atomicAdd(rows_done[0], 1) - (epoch - 1) * groups;
    memoryBarrierShared();
    barrier();
    const int group = ticket;
    if (group < x_groups) {
        line_rows(group);
        memoryBarrierBuffer();
        barrier();
        if (gl_LocalInvocationID.x == 0) {
            const int first = group * LINES, last = min(first + LINES, ny) - 1;
            for (int b = first / BAND; b <= last / BAND; ++b)
                atomicAdd(rows_done[1 + b], min(last, b * BAND + BAND - 1) - max(first, b * BAND) + 1);
        }
        return;
    }
    const int y = group - x_groups;
    const int column_blocks = (nx + 31) / 32;
    const ivec2 tile = ivec2(y % column_blocks, y / column_blocks);
    // The T* rows the tile reads (column_scan: rows start - 1 .. start + Y_WARPS Y_CHUNK, folded
    // by the mirrors at the walls).
    const int start = tile.y * COLUMN_SEGMENT - HALO_WARPS * Y_CHUNK;
    int lo = start - 1, hi = start + Y_WARPS * Y_CHUNK;
    if (lo < 0) {  // p < 0 mirrors to -1 - p
        hi = max(hi, -lo - 1);
        lo = 0;
    }
    if (hi >= ny) {  // p >= ny mirrors to 2 ny - 1 - p
        lo = min(lo, 2 * ny - 1 - hi);
        hi = ny - 1;
    }
    if (lo < 0 || hi >= ny) {  // several images: anywhere in the column
        lo = 0;
        hi = ny - 1;
    }
    if (gl_LocalInvocationID.x == 0) {
        for (int b = lo / BAND; b <= hi / BAND; ++b) {
            const int target = epoch * band_rows(b);
            int spins = 0;
            while (atomicAdd(rows_done[1 + b], 0) < target) {
                if (++spins >= MAX_SPINS) {
                    atomicMin(first_bad_step, scan_step);
                    break;
                }
            }
        }
        memoryBarrierBuffer();
    }
    barrier();
    column_scan(tile);
}
