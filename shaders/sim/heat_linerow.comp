#ifdef SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#ifdef LONG_LINE
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#endif
// Heat's x half step with WHOLE rows per work group and the closed-form inverse made exact at the
// walls: no warm-up lanes, no truncation (sim/heat.cpp: the `fused` solver's x kernel where the
// measured rule picks it; ADILAB_HEAT_XLINE). The bare `lu-scan` x solve's shape (one row of
// CHUNKS invocations x CHUNK positions, the row staged through a shared tile so that every
// global load and store is coalesced), with the explicit part of the PR step computed in the
// staged loads and the solve by the closed form of heat_scan.glsl (its header has the maths).
//
// Exact walls. Let F_p, B_p be the two recurrences run over the row from zero carries at its
// ends (F from position 0, B from n - 1). The mirrored (even, period 2n) extension adds
//     F^_p = F_p + rho^(p + 1) alpha,   B^_p = B_p + rho^(n - p) beta,
// with alpha = F^_(-1) = B^_0 (the mirror at the left wall) and beta = B^_n = F^_(n - 1) (right
// wall), i.e. alpha = B_0 + rho^n beta, beta = F_(n - 1) + rho^n alpha, so
//     alpha = (B_0 + rho^n F_(n-1)) / (1 - rho^(2n)),
//     beta = (F_(n-1) + rho^n B_0) / (1 - rho^(2n)),
// and x_p = g (F^_p + B^_p - d_p) is the Neumann solve exactly (any n >= 1, any lambda), up to
// fp32 round-off. The wall terms are added where rho^(distance) > 2^-30 (wall_reach positions
// from each wall, host-computed; beyond, they are below a quarter of the round-off of x).
// Heat is conserved to round-off: no truncated operator at all along x.
//
// The chunks of a row are joined by scans of their end values (F: Y_p = S_p + rho^CHUNK Y_(p-1);
// B the mirror image), forward and backward independent of each other: across subgroup lanes with
// slice totals in shared memory (SUBGROUPS, 32-wide subgroups), or a Hillis-Steele scan in shared
// memory (any device; llvmpipe).
//
// Forms: the delta form (default) d = lambda (d_xx + d_yy) T, T* = T + x, as heat_scan.glsl;
// FORM_PLAIN: r = T + lambda d_yy T (three loads a cell instead of five), T* = x (the float64
// stepper's form; round-off relative to |T| instead of |dT|).
//
// X_DIRECT (chunks of 4, nx = 4k; the measured default, sim/heat.cpp): no staging tile, each
// invocation loads its own 4 cells (and the rows above and below) with 16-byte loads, coalesced
// across the lanes, and stores them likewise; X_PAIR (with X_DIRECT): writes (T*, e) per cell,
// e = lambda d_xx T*, for heat_colpair.comp (the y half step then loads one 8-byte pair a cell
// instead of T* and its two neighbours); LONG_LINE: the walls' two values by subgroup shuffles
// instead of a barrier where rho^nx is negligible (heat_linerow.glsl).
// Measured on the H200 (1024^2, timestamped): x 13.1 us with X_DIRECT, X_PAIR, LONG_LINE and the
// plain form, against 17.5 us for the row scan (heat_rowscan.comp); figures in sim/heat.cpp.
//
// Needs: CHUNK (positions an invocation), CHUNKS (a power of two, CHUNKS * CHUNK >= nx), LINES
// (rows a work group), GROUP_SIZE = LINES * CHUNKS; SUBGROUPS where the device has 32-wide
// subgroup shuffles; X_VEC4 for 16-byte loads and stores (nx and CHUNKS * CHUNK multiples of 4;
// bindings 4 and 5); FORM_PLAIN; X_DIRECT, X_PAIR, LONG_LINE (sim/heat.cpp checks their
// conditions). Bindings: 0 T in, 1 T* out (X_PAIR: the pairs), 4 and 5 the same as vec4.
#define DIRECTION 0

layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer FieldIn { float field_in[]; };
layout(std430, binding = 1) writeonly buffer FieldOut { float field_out[]; };
#ifdef X_VEC4
layout(std430, binding = 4) readonly buffer FieldIn4 { vec4 field_in4[]; };
layout(std430, binding = 5) writeonly buffer FieldOut4 { vec4 field_out4[]; };
#endif

#define LINE_IN field_in
#define LINE_OUT field_out
#define LINE_IN4 field_in4
#define LINE_OUT4 field_out4

#include "sim/heat_scan.glsl"
#include "sim/heat_linerow.glsl"

void main() {
    scan_step = step_index;
#ifdef X_DIRECT
    line_rows_direct(int(gl_WorkGroupID.x));
#else
    line_rows(int(gl_WorkGroupID.x));
#endif
}
