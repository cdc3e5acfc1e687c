#pragma once
// Factories of the variants listed in registry.cpp (one .cpp per variant), and the CPU
// baseline's host entry point for the bench.
#include <memory>
#include <string>
#include <utility>

#include "solvers/tridiagonal/lu_factors.hpp"
#include "solvers/tridiagonal/solver.hpp"

namespace adilab::tridiag {

std::unique_ptr<Solver> make_cr_shared();
std::unique_ptr<Solver> make_cr_pingpong();
std::unique_ptr<Solver> make_thomas_cpu();
// chunk_x / chunk_y: unknowns per invocation for x / y lines; lines: at most this many lines
// per work group; band_rows: rows per band of the three-pass y kernel (lu_bands.comp; 0 = off),
// used for y lines of at least band_min_n unknowns; subgroups: carry scans by subgroup shuffles
// (where the GPU has them).
std::unique_ptr<Solver> make_lu_scan(const std::string& name, unsigned chunk_x, unsigned chunk_y,
                                     unsigned lines, unsigned band_rows = 0,
                                     unsigned band_min_n = 0, bool subgroups = false);
// lu-window (lu_window.cpp): lines of constant, dominant coefficients solved chunk by chunk
// inside a decay window; everything else goes to `exact`.
// The defaults are the H200 measurements' best (lu_window.cpp's notes give the figures).
struct WindowSettings {
    unsigned rows = 16;        // y: rows per invocation
    unsigned chunks = 16;      // y: warps (chunks of the same 32 columns) per work group
    unsigned max_window = 32;  // wider windows take the exact path
    // Grids of fewer unknowns take the exact path: up to 2048^2 the field stays in L2 and the
    // exact lu-scan was measured faster (dispatch- and latency-bound sizes).
    unsigned min_unknowns = (1u << 22) + 1;
    unsigned order = 0;        // y: lu_window.comp's ORDER
    bool x_lines = true;       // x lines by the window too (else by `exact`)
    unsigned rows_x = 16;      // x: unknowns per invocation
    unsigned group_x = 32;     // x: invocations per work group (a multiple of 32)
    // y by the column-scan kernel (lu_colscan.comp) instead of the window, on every grid size:
    // chunks of scan_rows rows, scan_warps of them down the same 32 columns per work group
    // (more when the warm-up needs them: lu_window.cpp), joined exactly in shared memory;
    // scan_order is its ORDER. Defaults: the H200 sweep's best (lu_window.cpp's notes).
    bool scan_y = true;
    unsigned scan_rows = 8;
    unsigned scan_warps = 8;
    // 0, 1 or (lean form only; the first form takes it as 0) 2: the row blocks that take the
    // factor table first (H200, 1024^2 y: 0.00728 ms against 0.00968 with 0;
    // lu_colscan_lean.comp).
    unsigned scan_order = 2;
    // 0: the first column scan (lu_colscan.comp), 1: the lean form (lu_colscan_lean.comp:
    // uniform factors in interior groups, only the right-hand sides kept across the barrier),
    // 2: the lean form where at least half the row blocks are interior, else the first
    // (lu_window.cpp: colscan_lean).
    unsigned scan_form = 2;
    bool scan_keep_factors = false;  // the lean form's KEEP_FACTORS (an experiment)
    // Grids of more unknowns take the window kernel (rows x chunks above) along y instead of
    // the column scan: at 4096^2 it took 0.070-0.071 ms against the scan's 0.102 (H200, 16
    // processes), and 0.150-0.204 against 0.31-0.41 in the transient slow state (lu_window.cpp).
    unsigned scan_max_unknowns = 2048u * 2048u;
};
std::unique_ptr<Solver> make_lu_window(const std::string& name, WindowSettings settings,
                                       std::unique_ptr<Solver> exact);
// The column scan's warm-up chunks per group end for y lines of n unknowns (0: the group holds
// the whole column, exact), or ~0u when lu-window with these settings would not take the column
// scan (it then tries the window kernel, then the exact lu-scan).
unsigned lu_colscan_halo(unsigned n, const ConstantCoefficients& k,
                         const WindowSettings& settings);
// The column scan's chunks per work group for that warm-up (scan_warps, or more for wide ones).
unsigned lu_colscan_warps(unsigned halo, const WindowSettings& settings);
// Whether that column scan takes the lean form (scan_form, and for 2 the interior row blocks).
bool lu_colscan_lean(unsigned n, const ConstantCoefficients& k, const WindowSettings& settings);
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
