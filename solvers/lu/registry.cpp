// The LU variants by name, for the CLI (--bench lu --impl NAME) and the GUI, and the block sizes
// the blocked one takes.
#include <algorithm>
#include <array>
#include <string>

#include "solvers/gl/error.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/lu/variants.hpp"

namespace adilab::lu {

std::span<const int> supported_blocks() {
    static constexpr std::array<int, 5> kBlocks = {8, 16, 32, 64, 128};
    return kBlocks;
}

const Variants& variants() {
    // {name, summary, on_gpu}, blocked.
    static const Variants all(
        "LU",
        {
            {{{"cpu", "float32 on the host, column by column (reads back and uploads)", false}},
             [](int, const Tuning&) { return make_cpu_solver(); }},
            {{{"gpu-unblocked",
               "column by column (Fig. 2): pivot search, swap and scale, rank-1 update"}},
             [](int, const Tuning&) { return make_unblocked_solver(); }},
            {{{"gpu-blocked",
               "right-looking blocked (Fig. 3-4): one-dispatch panel beside the trailing GEMM "
               "(look-ahead), block row by explicit inverse + GEMM"},
              true},
             [](int block, const Tuning& tuning) {
                 auto blocks = supported_blocks();
                 if (std::find(blocks.begin(), blocks.end(), block) == blocks.end())
                     throw Error("gpu-blocked: block size " + std::to_string(block) +
                                 " is not supported (use 8, 16, 32, 64 or 128)");
                 return make_blocked_solver(block, tuning);
             }},
        });
    return all;
}

std::unique_ptr<Solver> make_solver(const std::string& name, int block, const Tuning& tuning) {
    return variants().make(name, block, tuning);
}

}  // namespace adilab::lu
