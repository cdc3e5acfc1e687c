// The shared LU factorisation of constant-coefficient lines, and the decay window of `lu-window`.
//
// Decay window: the derivation of its truncation bound (all in float64, per coefficient set).
// Thomas on a line: y_i = k_i + m_i y_{i-1}, x_i = r_i y_i + q_i x_{i+1} (lu_factors.hpp).
// `lu-window` solves the rows [s, e] of a line by running the forward recurrence from row
// w = s - K with y_{w-1} taken as 0, through row z = e + K, then the backward one from row z with
// x_{z+1} taken as 0, down to s (rows outside [0, n) dropped: a window reaching an end of the
// line is exact there, as m_0 = 0 and q_{n-1} = 0). With |k| <= kmax (kmax factored out below):
//  * Bounds of the exact values, by the triangle inequality on the recurrences:
//      |y_i| <= Y_i = 1 + |m_i| Y_{i-1},   |x_i| <= X_i = |r_i| Y_i + |q_i| X_{i+1},
//    and the gain from errors in y to errors in x: g_i = |r_i| + |q_i| g_{i+1}.
//  * Forward truncation: for i >= w the computed y differs by (m_w ... m_i) y_{w-1}; for the
//    rows the window keeps (i >= s = w + K) that is at most
//      E_f = max_w P_K(w) S_{w+K} Y_{w-1},   P_K(w) = |m_w ... m_{w+K-1}|,
//    where S_t = max(1, |m_t| S_{t+1}) bounds the products of the factors after the window
//    (1 where they are all <= 1, as in dominant rows; more where an end row is weaker, e.g.
//    |a| > |b_first|), and it reaches x through the backward recurrence with gain at most
//    G = max g_i.
//  * Backward truncation: x_i for i <= e misses (q_i ... q_z) x_{z+1}, at most
//      E_b = max_z Q_K(z) R_{z-K} X_{z+1},   Q_K(z) = |q_{z-K+1} ... q_z|,
//    R_e = max(1, |q_e| R_{e-1}) likewise for the factors q_i ... q_e inside the chunk.
//  * So |x - x_exact| <= (G E_f + E_b) kmax, and max|x_exact| >= kmax / ||A||_inf (A x = k), so
//      max|x - x_exact| / max|x_exact| <= ||A||_inf (G E_f + E_b)  =: bound(K).
// bound(K) never grows with K (P_{K+1}(w) S_{w+K+1} <= P_K(w) S_{w+K} since S_t >= |m_t| S_{t+1},
// likewise for Q and R), and where the factors converge below 1 it falls geometrically, ratio
// rho = |m_inf| (and |q_inf|), the limits of the factorisation: for b = 1 + 2 r, a = c = -r
// (implicit heat) rho = r / u_inf, u_inf = (b + sqrt(b^2 - 4 a c)) / 2, so K ~ log(bound) /
// log(rho): r = 1 -> rho 0.38, K ~ 25; r = 10 -> rho 0.73, K ~ 70; r = 100 -> 0.905, K ~ 250.
// The target used by lu-window, 2^-26, keeps the truncation under a quarter of fp32's unit
// roundoff relative to max|x|, i.e. below the rounding the fp32 arithmetic adds anyway.
#include "solvers/tridiagonal/lu_factors.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace adilab::tridiag {

bool factorise(unsigned n, const ConstantCoefficients& k, std::vector<double>& m,
               std::vector<double>& r, std::vector<double>& q) {
    m.assign(n, 0.0);
    r.assign(n, 0.0);
    q.assign(n, 0.0);
    bool ok = true;
    double u = k.b_first;
    for (unsigned i = 0; i < n; ++i) {
        if (i > 0) {
            const double diagonal = i + 1 == n ? k.b_last : k.b;
            const double l = k.a / u;
            u = diagonal - l * k.c;
            m[i] = -l;
        }
        ok = ok && u != 0.0 && std::isfinite(u) && std::isfinite(float(1.0 / u));
        r[i] = 1.0 / u;
        q[i] = i + 1 < n ? -k.c / u : 0.0;
    }
    return ok;
}

namespace {

double diagonal_of(unsigned i, unsigned n, const ConstantCoefficients& k) {
    if (i == 0) return k.b_first;
    if (i + 1 == n) return k.b_last;
    return k.b;
}

// What bound(K) needs, computed once per line length and coefficients.
struct WindowState {
    bool ok = false;
    std::vector<double> m, q, y_bound, x_bound;
    std::vector<double> after, before;  // S_t and R_e of the derivation
    double gain = 0.0, norm_a = 0.0;
};

WindowState window_state(unsigned n, const ConstantCoefficients& k) {
    WindowState s;
    std::vector<double> r;
    if (n == 0 || !factorise(n, k, s.m, r, s.q)) return s;
    s.y_bound.assign(n, 0.0);
    s.x_bound.assign(n + 1, 0.0);
    for (unsigned i = 0; i < n; ++i)
        s.y_bound[i] = 1.0 + std::abs(s.m[i]) * (i > 0 ? s.y_bound[i - 1] : 0.0);
    double g = 0.0;
    for (unsigned i = n; i-- > 0;) {
        s.x_bound[i] = std::abs(r[i]) * s.y_bound[i] + std::abs(s.q[i]) * s.x_bound[i + 1];
        g = std::abs(r[i]) + std::abs(s.q[i]) * g;
        s.gain = std::max(s.gain, g);
    }
    s.after.assign(n + 1, 1.0);
    for (unsigned t = n; t-- > 0;) s.after[t] = std::max(1.0, std::abs(s.m[t]) * s.after[t + 1]);
    s.before.assign(n, 1.0);
    for (unsigned e = 0; e < n; ++e)
        s.before[e] = std::max(1.0, std::abs(s.q[e]) * (e > 0 ? s.before[e - 1] : 1.0));
    for (unsigned i = 0; i < n; ++i) {
        const double diagonal = diagonal_of(i, n, k);
        const double row = (i > 0 ? std::abs(double(k.a)) : 0.0) + std::abs(diagonal) +
                           (i + 1 < n ? std::abs(double(k.c)) : 0.0);
        s.norm_a = std::max(s.norm_a, row);
    }
    s.ok = true;
    return s;
}

double bound_of(const WindowState& s, unsigned rows) {
    if (!s.ok) return std::numeric_limits<double>::infinity();
    const std::size_t n = s.m.size(), window = rows;  // K of the derivation above
    if (window == 0) return std::numeric_limits<double>::infinity();
    double forward = 0.0, backward = 0.0;
    // Windows that start at w >= 1 and keep a row s = w + K < n.
    for (std::size_t w = 1; w + window < n; ++w) {
        double p = s.y_bound[w - 1] * s.after[w + window];
        for (std::size_t j = w; j < w + window && p != 0.0; ++j) p *= std::abs(s.m[j]);
        forward = std::max(forward, p);
    }
    // Windows that end at z <= n - 2 and keep a row e = z - K >= 0.
    for (std::size_t z = window; z + 1 < n; ++z) {
        double p = s.x_bound[z + 1] * s.before[z - window];
        for (std::size_t j = z + 1 - window; j <= z && p != 0.0; ++j) p *= std::abs(s.q[j]);
        backward = std::max(backward, p);
    }
    const double bound = s.norm_a * (s.gain * forward + backward);
    return std::isfinite(bound) ? bound : std::numeric_limits<double>::infinity();
}

}  // namespace

double decay_window_bound(unsigned n, const ConstantCoefficients& k, unsigned rows) {
    return bound_of(window_state(n, k), rows);
}

DecayWindow plan_decay_window(unsigned n, const ConstantCoefficients& k, unsigned max_rows,
                              double target, unsigned round_to) {
    DecayWindow plan;
    const WindowState s = window_state(n, k);
    if (!s.ok || max_rows == 0) return plan;
    round_to = std::max(round_to, 1u);
    // bound(K) is non-increasing in K (see above): bisect for the smallest K meeting the target.
    if (!(bound_of(s, max_rows) <= target)) return plan;
    unsigned low = 1, high = max_rows;
    while (low < high) {
        const unsigned mid = low + (high - low) / 2;
        if (bound_of(s, mid) <= target)
            high = mid;
        else
            low = mid + 1;
    }
    plan.exact_rows = low;
    plan.rows = std::min(max_rows, (low + round_to - 1) / round_to * round_to);
    plan.bound = bound_of(s, plan.rows);
    plan.usable = true;
    return plan;
}

}  // namespace adilab::tridiag
