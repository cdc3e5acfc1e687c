#include <algorithm>
#include <array>
#include <vector>

#include "solvers/gl/error.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/lu/variants.hpp"

namespace adilab::lu {

std::span<const VariantInfo> variants() {
    static const std::vector<VariantInfo> all = {
        {"cpu", "float32 on the host, column by column (reads back and uploads)", false, false},
        {"gpu-unblocked", "column by column (Fig. 2): pivot search, swap and scale, rank-1 update",
         true, false},
        {"gpu-blocked",
         "right-looking blocked (Fig. 3-4): one-dispatch panel beside the trailing GEMM "
         "(look-ahead), block row by explicit inverse + GEMM",
         true, true},
    };
    return all;
}

std::span<const int> supported_blocks() {
    static constexpr std::array<int, 5> blocks = {8, 16, 32, 64, 128};
    return blocks;
}

std::unique_ptr<Solver> make_solver(const std::string& name, int block, const Tuning& tuning) {
    if (name == "cpu") return make_cpu_solver();
    if (name == "gpu-unblocked") return make_unblocked_solver();
    if (name == "gpu-blocked") {
        auto blocks = supported_blocks();
        if (std::find(blocks.begin(), blocks.end(), block) == blocks.end())
            throw Error("gpu-blocked: block size " + std::to_string(block) +
                        " is not supported (use 8, 16, 32, 64 or 128)");
        return make_blocked_solver(block, tuning);
    }
    std::string known;
    for (const VariantInfo& v : variants()) known += (known.empty() ? "" : ", ") + v.name;
    throw Error("unknown LU variant '" + name + "' (available: " + known + ")");
}

}  // namespace adilab::lu
