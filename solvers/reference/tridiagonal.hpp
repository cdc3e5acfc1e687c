#pragma once
// The float64 CPU reference for the batched tridiagonal solvers (Kim & Lee 2005): the Thomas
// algorithm (Gaussian elimination without pivoting, O(N) per line) in double precision. Every GPU
// variant in solvers/tridiagonal is checked against it.
//
// Layout and conventions are those of solvers/tridiagonal/solver.hpp: an nx * ny row-major grid,
// element (i, j) at j * nx + i; Direction::x solves the ny rows, Direction::y the nx columns;
// a_0 and c_{N-1} are ignored (read as 0). Constant coefficients: row 0 has diagonal b_first,
// row N-1 has b_last, a line of one unknown uses b_first.
#include <cstddef>
#include <span>
#include <vector>

namespace adilab::reference {

// One system of n unknowns; a, b, c, k, x are read / written at first + i * stride. Returns false
// (x left partly written) when a pivot is zero or not finite.
bool thomas_line(std::size_t n, const float* a, const float* b, const float* c, const float* k,
                 double* x, std::size_t first, std::size_t stride);

// Constant interior coefficients a, b, c with the end diagonals b_first and b_last.
bool thomas_line_constant(std::size_t n, double a, double b, double c, double b_first,
                          double b_last, const float* k, double* x, std::size_t first,
                          std::size_t stride);

// The diagonal of row i of a constant-coefficient line of n unknowns (the convention above).
inline double constant_diagonal(std::size_t i, std::size_t n, double b, double b_first,
                                double b_last) {
    if (i == 0) return b_first;
    if (i + 1 == n) return b_last;
    return b;
}

struct GridSolveResult {
    std::vector<double> x;
    int failed_line = -1;  // first line with a zero / non-finite pivot, -1 if none
};

// Every line of an nx * ny grid along x (direction_x) or y.
GridSolveResult solve_grid_general(int nx, int ny, bool direction_x, std::span<const float> a,
                                   std::span<const float> b, std::span<const float> c,
                                   std::span<const float> k);
GridSolveResult solve_grid_constant(int nx, int ny, bool direction_x, double a, double b, double c,
                                    double b_first, double b_last, std::span<const float> k);

// Random diagonally dominant test systems for an nx * ny grid: off-diagonals uniform in
// [-1, 1], |b_i| = |a_i| + |c_i| + margin * U[1, 2] with a random sign (positive when
// `symmetric`, which also sets c_i = a_{i+1} along x lines and y lines alike so that every line
// is symmetric positive definite), right-hand side uniform in [-1, 1]. The constant
// coefficients satisfy the same dominance (b_first / b_last against their one neighbour).
struct Problem {
    int nx = 0, ny = 0;
    std::vector<float> a, b, c, k;
    double const_a = 0, const_b = 1, const_c = 0, const_b_first = 1, const_b_last = 1;
};
Problem random_dominant_problem(int nx, int ny, bool direction_x, unsigned seed,
                                double margin = 0.5, bool symmetric = false);

// max_i |x_i - reference_i| / max_i |reference_i|: the error relative to the solution's scale
// (a per-element relative error is meaningless where a solution component crosses zero).
// Non-finite x gives +infinity.
double max_relative_error(std::span<const float> x, std::span<const double> reference);

}  // namespace adilab::reference
