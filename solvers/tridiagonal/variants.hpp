#pragma once
// Factories of the variants listed in registry.cpp (one .cpp per variant), and the CPU
// baseline's host entry point for the bench.
#include <memory>
#include <string>
#include <utility>

#include "solvers/tridiagonal/lu_factors.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/tuning.hpp"

namespace adilab::tridiag {

std::unique_ptr<Solver> make_cr_shared();
std::unique_ptr<Solver> make_cr_pingpong();
std::unique_ptr<Solver> make_partition(const PartitionTuning& tuning);
std::unique_ptr<Solver> make_thomas_cpu();
// General coefficients, and constant x lines of at least tuning.partition_x_min unknowns, go to
// `partition` (with `partition`'s shape).
std::unique_ptr<Solver> make_lu_scan(const std::string& name, const ScanTuning& tuning,
                                     const PartitionTuning& partition = {});
// lu-window (lu_window.cpp): lines of constant, dominant coefficients solved by the column scan
// or inside a decay window; everything else goes to `exact`.
std::unique_ptr<Solver> make_lu_window(const std::string& name, const WindowTuning& tuning,
                                       std::unique_ptr<Solver> exact);
// The column scan's warm-up chunks per group end for y lines of n unknowns (0: the group holds
// the whole column, exact), or ~0u when lu-window with this tuning would not take the column
// scan (it then tries the window kernel, then the exact lu-scan).
unsigned lu_colscan_halo(unsigned n, const ConstantCoefficients& k, const WindowTuning& tuning);
// The column scan's chunks per work group for that warm-up (scan_warps, or more for wide ones).
unsigned lu_colscan_warps(unsigned halo, const WindowTuning& tuning);
// Whether that column scan takes the lean form (scan_form, and for 2 the interior row blocks).
bool lu_colscan_lean(unsigned n, const ConstantCoefficients& k, const WindowTuning& tuning);
// The rows [first, last] whose fp32 factors (m, r, q) all equal the converged ones, which
// lu-window's kernels use as constants ({-1, -2}: none; n < 3 or a bad pivot).
std::pair<int, int> lu_window_interior_rows(unsigned n, const ConstantCoefficients& k);
// The window lu-window takes for lines of n unknowns (usable == false: the exact path).
DecayWindow lu_window_plan(unsigned n, const ConstantCoefficients& k, unsigned max_window);

// Conjugate gradient: `iterations` > 0 runs exactly that many; 0 runs to tolerance.
std::unique_ptr<Solver> make_cg(int iterations);

// A grid's systems in host memory: general coefficients when a, b, c are set, else `constant`.
struct HostSystem {
    const float* a = nullptr;
    const float* b = nullptr;
    const float* c = nullptr;
    ConstantCoefficients constant;
    const float* k = nullptr;
    float* x = nullptr;
};
// thomas-cpu's arithmetic on host arrays, threaded over lines; returns the first line with a
// zero or non-finite pivot, or -1.
int thomas_cpu_solve_host(Grid grid, Direction direction, const HostSystem& system);

}  // namespace adilab::tridiag
