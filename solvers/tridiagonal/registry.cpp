// The tridiagonal variants by name, for the CLI (--bench tridiag --solver NAME) and the GUI.
#include <algorithm>
#include <functional>
#include <vector>

#include "solvers/gl/error.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

struct Entry {
    VariantInfo info;
    std::function<std::unique_ptr<Solver>()> make;
};

const std::vector<Entry>& entries() {
    static const std::vector<Entry> all = {
        {{"cr-shared",
          "one work group per line, CR -> PCR in shared memory, one dispatch "
          "(global-memory fallback for long lines)"},
         make_cr_shared},
        {{"cr-pingpong",
          "the paper's cyclic reduction: one dispatch per level, packed levels, ping-pong "
          "buffers"},
         make_cr_pingpong},
        // Chunk sizes from the H200 runs of --bench tridiag (chunks of 8, 16 and 32 tried in
        // each direction): 16 unknowns per invocation along x, 32 along y; subgroup carry scans
        // (1024^2: 11.5 -> 10.8 us along x, 12.9 -> 11.9 us along y). y lines of 4096 unknowns
        // and more: the three-pass band kernel, 32 rows per band (0.80-0.85 ms at 4096^2 against
        // 0.89-0.93 ms in one pass; at 2048^2 one pass wins, 0.038 against 0.068 ms).
        {{"lu-scan",
          "constant coefficients: shared LU factorisation tabulated once, per-line Thomas "
          "recurrences as chunked scans, one dispatch (long y lines: three passes over bands "
          "of rows; general coefficients -> cr-shared)"},
         [] { return make_lu_scan("lu-scan", 16, 32, 8, 32, 4096, true); }},
        {{"lu-window",
          "constant coefficients: y up to 2048^2 by a column scan (chunks of 8 rows stacked "
          "down the same 32 columns, joined exactly in shared memory; between work groups a "
          "decay-window warm-up, truncation < 2^-26 max|x|), larger grids (and x) by decay "
          "windows, one dispatch (weak dominance, general coefficients -> lu-scan)"},
         [] {
             return make_lu_window("lu-window", WindowSettings{},
                                   make_lu_scan("lu-scan", 16, 32, 8, 32, 4096, true));
         }},
        {{"thomas-cpu", "the paper's CPU baseline: Thomas in float32, threaded over lines",
          false},
         make_thomas_cpu},
        {{"cg", "conjugate gradient to max|r| <= 1e-6 max|k|, one dispatch (symmetric "
                "positive definite lines only)"},
         [] { return make_cg(0); }},
        {{"cg-1", "conjugate gradient, 1 iteration (the paper's Fig. 11)"},
         [] { return make_cg(1); }},
        {{"cg-2", "conjugate gradient, 2 iterations (the paper's Fig. 11)"},
         [] { return make_cg(2); }},
    };
    return all;
}

}  // namespace

std::span<const VariantInfo> variants() {
    static const std::vector<VariantInfo> all = [] {
        std::vector<VariantInfo> infos;
        for (const Entry& e : entries()) infos.push_back(e.info);
        return infos;
    }();
    return all;
}

std::unique_ptr<Solver> make_solver(const std::string& name) {
    for (const Entry& e : entries())
        if (e.info.name == name) return e.make();
    std::string known;
    for (const VariantInfo& v : variants()) known += (known.empty() ? "" : ", ") + v.name;
    throw Error("unknown tridiagonal solver '" + name + "' (available: " + known + ")");
}

}  // namespace adilab::tridiag
