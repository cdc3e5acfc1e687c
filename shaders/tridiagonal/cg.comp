// cg.comp — `cg`, `cg-1`, `cg-2`: conjugate gradient, the paper's GPU comparator (Kim & Lee
// 2005, seed 001, Fig. 11), one work group per line, every iteration inside ONE dispatch (the
// dot products are work-group reductions in shared memory, so no host round trip and no
// dispatch per iteration). Each line is its own system: the dot products are per line (CG on
// the block-diagonal matrix of all lines; a grid-wide dot product would only slow convergence).
// CG needs a symmetric positive definite matrix: c_i = a_{i+1}, b_i > 0 (the PDEs' systems are
// symmetric and diagonally dominant). A line that breaks this — a diagonal that is not positive
// and finite, an asymmetric pair, p.Ap <= 0 or non-finite, or (to-tolerance mode) no
// convergence within `max_iterations` — is reported through the pivot flag; its x is whatever
// the iteration reached.
// x0 = 0. Fixed mode runs exactly `iterations` iterations (1 and 2 in the paper: fast, not
// accurate). Tolerance mode stops when max|r| <= tolerance * max|k| (max norms so that the
// bound on the error of every unknown follows from diagonal dominance; see cg.cpp).
// Prelude: WG_SIZE, ELEMENTS (unknowns per invocation, WG_SIZE * ELEMENTS >= n),
// CONSTANT_COEFFICIENTS.
layout(local_size_x = WG_SIZE) in;
#include "tridiagonal/lines.glsl"

uniform uint iterations;     // fixed count, or the cap in tolerance mode
uniform uint to_tolerance;   // 1: stop at the tolerance
uniform float tolerance;

shared float p_line[WG_SIZE * ELEMENTS];
shared vec2 partial[WG_SIZE];

// (sum of v.x, max of v.y) over the work group.
vec2 group_reduce(vec2 v) {
    const uint tid = gl_LocalInvocationID.x;
    partial[tid] = v;
    memoryBarrierShared();
    barrier();
    for (uint half_size = WG_SIZE / 2u; half_size > 0u; half_size /= 2u) {
        if (tid < half_size) {
            const vec2 other = partial[tid + half_size];
            partial[tid] = vec2(partial[tid].x + other.x, max(partial[tid].y, other.y));
        }
        memoryBarrierShared();
        barrier();
    }
    const vec2 result = partial[0];
    memoryBarrierShared();
    barrier();  // everyone has read partial[0] before the next reduction overwrites it
    return result;
}

void main() {
    const uint line = work_group_line();
    if (line >= line_count) return;
    const uint tid = gl_LocalInvocationID.x;
    // Element e of this invocation is unknown i = tid + e * WG_SIZE (coalesced along x lines).
    float a[ELEMENTS], b[ELEMENTS], c[ELEMENTS], x[ELEMENTS], r[ELEMENTS];
    bool ok = true;
    float k_max = 0.0;
    for (uint e = 0u; e < ELEMENTS; ++e) {
        const uint i = tid + e * WG_SIZE;
        a[e] = 0.0; b[e] = 1.0; c[e] = 0.0; x[e] = 0.0; r[e] = 0.0;
        if (i < n) {
            load_coefficients(line, i, a[e], b[e], c[e]);
            ok = ok && b[e] > 0.0 && !isinf(b[e]);
#if !CONSTANT_COEFFICIENTS
            if (i > 0u) ok = ok && a[e] == coef_c_buf[element_index(line, i - 1u)];
#endif
            r[e] = rhs[element_index(line, i)];  // r = k - A x0, x0 = 0
            k_max = max(k_max, abs(r[e]));
        }
        p_line[i] = r[e];
    }
    float rr;
    {
        float sum = 0.0;
        for (uint e = 0u; e < ELEMENTS; ++e) sum += r[e] * r[e];
        const vec2 reduced = group_reduce(vec2(sum, k_max));
        rr = reduced.x;
        k_max = reduced.y;
    }
    bool converged = rr == 0.0;
    for (uint iteration = 0u; iteration < iterations && !converged; ++iteration) {
        // q = A p (neighbours from shared memory; outside the line p = 0).
        float q[ELEMENTS];
        float p_q = 0.0;
        for (uint e = 0u; e < ELEMENTS; ++e) {
            const uint i = tid + e * WG_SIZE;
            q[e] = 0.0;
            if (i < n) {
                q[e] = b[e] * p_line[i];
                if (i > 0u) q[e] += a[e] * p_line[i - 1u];
                if (i + 1u < n) q[e] += c[e] * p_line[i + 1u];
                p_q += p_line[i] * q[e];
            }
        }
        const float pAp = group_reduce(vec2(p_q, 0.0)).x;
        if (!(pAp > 0.0) || isinf(pAp)) {
            ok = false;
            break;  // uniform: every invocation sees the same pAp
        }
        const float alpha = rr / pAp;
        float sum = 0.0, r_max = 0.0;
        for (uint e = 0u; e < ELEMENTS; ++e) {
            const uint i = tid + e * WG_SIZE;
            if (i < n) {
                x[e] += alpha * p_line[i];
                r[e] -= alpha * q[e];
                sum += r[e] * r[e];
                r_max = max(r_max, abs(r[e]));
            }
        }
        const vec2 reduced = group_reduce(vec2(sum, r_max));  // also orders the p reads above
        const float beta = reduced.x / rr;
        rr = reduced.x;
        converged = rr == 0.0 || (to_tolerance != 0u && reduced.y <= tolerance * k_max);
        for (uint e = 0u; e < ELEMENTS; ++e) {
            const uint i = tid + e * WG_SIZE;
            if (i < n) p_line[i] = r[e] + beta * p_line[i];
        }
        memoryBarrierShared();
        barrier();
    }
    if (to_tolerance != 0u && !converged) ok = false;
    for (uint e = 0u; e < ELEMENTS; ++e) {
        const uint i = tid + e * WG_SIZE;
        if (i < n) solution[element_index(line, i)] = x[e];
    }
    if (!ok) report_pivot_failure(line);
}
