// The tridiagonal variants by name, for the CLI (--bench tridiag --solver NAME) and the GUI.
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

const Variants& variants() {
    static const Variants all(
        "tridiagonal",
        {
            {{"cr-shared",
              "one work group per line, CR -> PCR in shared memory, one dispatch "
              "(global-memory fallback for long lines)"},
             [](const Tuning&) { return make_cr_shared(); }},
            {{"cr-pingpong",
              "the paper's cyclic reduction: one dispatch per level, packed levels, ping-pong "
              "buffers"},
             [](const Tuning&) { return make_cr_pingpong(); }},
            {{"partition",
              "any coefficients, any line length: register chunks of the partition method; "
              "lines of up to 8192 (x) or 2048 (y) unknowns whole in a work group, one "
              "dispatch; longer ones 32 a work group, a coarse system in memory, three "
              "dispatches"},
             [](const Tuning& t) { return make_partition(t.partition); }},
            // Its shape (chunks, bands, subgroup scans) is ScanTuning's (tuning.hpp).
            {{"lu-scan",
              "constant coefficients: shared LU factorisation tabulated once, per-line Thomas "
              "recurrences as chunked scans, one dispatch (long y lines: three passes over bands "
              "of rows; general coefficients and long x lines -> partition)"},
             [](const Tuning& t) { return make_lu_scan("lu-scan", t.scan, t.partition); }},
            {{"lu-window",
              "constant coefficients: y up to 2048^2 by a column scan (chunks of 8 rows stacked "
              "down the same 32 columns, joined exactly in shared memory; between work groups a "
              "decay-window warm-up, truncation < 2^-26 max|x|), larger grids (and x) by decay "
              "windows, one dispatch (weak dominance, general coefficients -> lu-scan)"},
             [](const Tuning& t) {
                 return make_lu_window("lu-window", t.window,
                                       make_lu_scan("lu-scan", t.scan, t.partition));
             }},
            {{"thomas-cpu", "the paper's CPU baseline: Thomas in float32, threaded over lines",
              false},
             [](const Tuning&) { return make_thomas_cpu(); }},
            {{"cg",
              "conjugate gradient to max|r| <= 1e-6 max|k|, one dispatch (symmetric "
              "positive definite lines only)"},
             [](const Tuning&) { return make_cg(0); }},
            {{"cg-1", "conjugate gradient, 1 iteration (the paper's Fig. 11)"},
             [](const Tuning&) { return make_cg(1); }},
            {{"cg-2", "conjugate gradient, 2 iterations (the paper's Fig. 11)"},
             [](const Tuning&) { return make_cg(2); }},
        });
    return all;
}

std::unique_ptr<Solver> make_solver(const std::string& name, const Tuning& tuning) {
    return variants().make(name, tuning);
}

}  // namespace adilab::tridiag
