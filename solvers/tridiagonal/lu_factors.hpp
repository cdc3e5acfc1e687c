#pragma once
// The Thomas factorisation of a constant-coefficient line (shared by every line of a grid), and
// the decay window that `lu-window` derives from it. Host-side float64 arithmetic, no GL.
#include <vector>

#include "solvers/tridiagonal/solver.hpp"

namespace adilab::tridiag {

// The per-row recurrence coefficients of A = L U for a line of n unknowns:
//   forward  y_i = k_i + m_i y_{i-1}      (m_i = -l_i, m_0 = 0)
//   backward x_i = r_i y_i + q_i x_{i+1}  (r_i = 1 / u_i, q_i = -c / u_i, q_{n-1} = 0)
// in float64. False when a pivot u_i is zero or not finite (or 1 / u_i overflows fp32).
bool factorise(unsigned n, const ConstantCoefficients& k, std::vector<double>& m,
               std::vector<double>& r, std::vector<double>& q);

// The decay window of a constant-coefficient line (lu_window.cpp explains the derivation):
// x_i depends on k_j with a weight that falls geometrically in |i - j| for dominant rows, so a
// chunk of rows can be solved from the right-hand sides of the chunk and `rows` more on either
// side, starting both recurrences from zero. `bound` bounds the resulting
// max|x - x_exact| / max|x_exact| (before fp32 rounding, which is that of Thomas).
struct DecayWindow {
    bool usable = false;      // false: the exact path (weak or no dominance, a bad pivot)
    unsigned rows = 0;        // K, rounded up to a multiple of `round_to`
    unsigned exact_rows = 0;  // the smallest K meeting `target` (before rounding)
    double bound = 0.0;       // the truncation bound for `rows`
};
// The smallest window (at most max_rows) whose truncation bound is <= target.
DecayWindow plan_decay_window(unsigned n, const ConstantCoefficients& k, unsigned max_rows,
                              double target, unsigned round_to = 8);
// The truncation bound of a window of `rows` (infinity when a pivot fails).
double decay_window_bound(unsigned n, const ConstantCoefficients& k, unsigned rows);

}  // namespace adilab::tridiag
