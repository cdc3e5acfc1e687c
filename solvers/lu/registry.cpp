#include <algorithm>
#include <array>
#include <cstdlib>
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
         "(look-ahead), fused swap + TRSM",
         true, true},
    };
    return all;
}

std::span<const int> supported_blocks() {
    static constexpr std::array<int, 5> blocks = {8, 16, 32, 64, 128};
    return blocks;
}

TrailingUpdate parse_trailing_update(const std::string& text) {
    if (text == "own") return TrailingUpdate::own;
    if (text == "matmul") return TrailingUpdate::matmul;
    throw Error("unknown trailing update '" + text + "' (available: own, matmul)");
}

const char* to_string(TrailingUpdate update) {
    return update == TrailingUpdate::own ? "own" : "matmul";
}

Panel parse_panel(const std::string& text) {
    if (text == "fused") return Panel::fused;
    if (text == "one-trip") return Panel::one_trip;
    if (text == "lean") return Panel::lean;
    if (text == "registers") return Panel::registers;
    throw Error("unknown panel '" + text + "' (available: fused, one-trip, lean, registers)");
}

Panel effective_panel(Panel requested) {
    const char* kind = std::getenv("ADILAB_LU_PANEL");
    return kind ? parse_panel(kind) : requested;
}

const char* to_string(Panel panel) {
    switch (panel) {
        case Panel::fused: return "fused";
        case Panel::one_trip: return "one-trip";
        case Panel::lean: return "lean";
        case Panel::registers: return "registers";
    }
    return "?";
}

std::unique_ptr<Solver> make_solver(const std::string& name, int block, TrailingUpdate update,
                                    Panel panel) {
    if (name == "cpu") return make_cpu_solver();
    if (name == "gpu-unblocked") return make_unblocked_solver();
    if (name == "gpu-blocked") {
        auto blocks = supported_blocks();
        if (std::find(blocks.begin(), blocks.end(), block) == blocks.end())
            throw Error("gpu-blocked: block size " + std::to_string(block) +
                        " is not supported (use 8, 16, 32, 64 or 128)");
        return make_blocked_solver(block, update, panel);
    }
    std::string known;
    for (const VariantInfo& v : variants()) known += (known.empty() ? "" : ", ") + v.name;
    throw Error("unknown LU variant '" + name + "' (available: " + known + ")");
}

}  // namespace adilab::lu
