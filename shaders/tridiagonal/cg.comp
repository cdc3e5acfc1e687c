// cg.comp — `cg`, `cg-1`, `cg-2`: conjugate gradient, the paper's GPU comparator (Kim & Lee
// 2005, Fig. 11), one work group per line, every iteration inside ONE dispatch (the
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
// One array per reduction of an iteration (p.Ap, then r.r with max|r|), so that no reduction
// ever overwrites partial sums another invocation may still be reading.
shared vec2 partial_pq[WG_SIZE];
shared vec2 partial_rr[WG_SIZE];

// (sum of .x, max of .y) over the work group, written out in main() at each use rather than as
// a function holding barriers (kept simple for every driver's uniform-control-flow analysis).
#define GROUP_REDUCE(ARRAY, VALUE, RESULT)                                                    \
    ARRAY[tid] = VALUE;                                                                       \
    memoryBarrierShared();                                                                    \
    barrier();                                                                                \
    for (uint half_size = WG_SIZE / 2u; half_size > 0u; half_size /= 2u) {                    \
        if (tid < half_size) {                                                                \
            const vec2 mine = ARRAY[tid], other = ARRAY[tid + half_size];                     \
            ARRAY[tid] = vec2(mine.x + other.x, max(mine.y, other.y));                        \
        }                                                                                     \
        memoryBarrierShared();                                                                \
        barrier();                                                                            \
    }                                                                                         \
    RESULT = ARRAY[0];                                                                        \
    memoryBarrierShared();                                                                    \
    barrier();

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
            float ai, bi, ci;  // via scalars: out parameters bound to array elements are
            load_coefficients(line, i, ai, bi, ci);  // a corner some compilers get wrong
            a[e] = ai;
            b[e] = bi;
            c[e] = ci;
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
        vec2 reduced;
        GROUP_REDUCE(partial_rr, vec2(sum, k_max), reduced)
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
        vec2 reduced_pq;
        GROUP_REDUCE(partial_pq, vec2(p_q, 0.0), reduced_pq)
        const float pAp = reduced_pq.x;
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
        vec2 reduced;  // the reduction's barriers also order the p reads above
        GROUP_REDUCE(partial_rr, vec2(sum, r_max), reduced)
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
