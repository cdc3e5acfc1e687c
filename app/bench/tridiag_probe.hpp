#pragma once
// Issue 3's slow-state probe for `--bench tridiag` (diagnostics, off by default): the 4096^2
// y solve of `lu-window` measured 0.10 ms in some processes and 0.21-0.34 ms in others, more
// often after the x / general-coefficient configurations had run in the same process.
//
// ADILAB_BENCH_YPROBE=R: buffers of the bench's largest grid are allocated when the bench
// starts (before any configuration: "early"); after the bench's own configurations (the
// prelude, chosen with --direction / --coefficients / --solver), the same measurements run R
// rounds on the early buffers and on buffers allocated then ("late"), one printed line each:
//   probe <early|late> r<round> <name> <ms> [err=<max rel error vs float64>]
// Measured: column-scan shapes of lu-window (tile, ORDER, row bands per dispatch), the window
// kernel, lu-scan, plain copies with the y pattern (from a storage buffer, and from an R32F 2D
// texture of the same values) and the x pattern, and an empty dispatch + barrier. Every solve
// variant is checked once against the float64 reference (err=), every copy on one row.
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
