#pragma once
// Issue 3's slow-state probe for `--bench tridiag` (diagnostics, off by default): the 4096^2
// y solve of `lu-window` (then its column scan) measured 0.10 ms in some processes and
// 0.21-0.41 ms in others, after the 4096^2 x / general-coefficient configurations had run in
// the same process (a transient state: lu_window.cpp has the account).
//
// ADILAB_BENCH_YPROBE=R: buffers of the bench's largest grid are allocated when the bench
// starts (before any configuration: "early"); after the bench's own configurations (the
// prelude, chosen with --direction / --coefficients / --solver):
//  A. R rounds on the early buffers and on buffers allocated then ("late"), one line each:
//       probe <early|late> r<round> <name> <ms> [err=<max rel error vs float64>]
//     lu-window (defaults), its column scan (8 x 8) and its window kernel (16 rows) forced,
//     lu-scan; plain copies with the x pattern, the y pattern from a storage buffer and from
//     an R32F 2D texture; an empty dispatch + barrier.
//  B. the slow state on purpose: new column-scan / lu-scan instances timed fresh, after 16
//     solve + check_pivots() cycles (what the bench does per configuration), with a never-read
//     buffer at the pivot flag's binding, and after 300 solves without checks; once with the
//     flag read back directly (the old way) and once through the staging copy (gpu_solver.hpp):
//       probe repro <direct|staged> <step> colscan-8x8 <ms> copy-y32 <ms> copy-x <ms> empty <ms>
//             lu-scan <ms> evictions <driver's count>
//     (H200: no effect of either; the slow state is transient, after reallocations: lu_window.cpp)
// Every solve variant is checked once against the float64 reference (err=), every copy whole.
// Constant coefficients a = c = -0.5, b = 2 (decay window K = 16, as the bench's random ones).
#include <memory>
#include <ostream>

namespace adilab::bench {

class YProbe {
public:
    // Allocates and fills the early buffers (n x n) now.
    explicit YProbe(int n);
    ~YProbe();
    void run(std::ostream& out, int rounds);

private:
    struct State;
    std::unique_ptr<State> state_;
};

// R from ADILAB_BENCH_YPROBE (0: no probe).
int y_probe_rounds();

}  // namespace adilab::bench
