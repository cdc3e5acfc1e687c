// The matmul registry and the size checks every entry point runs before any work.
#include <climits>

#include "solvers/gl/capacity.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/matmul/variants.hpp"

namespace adilab::matmul {

const Variants& variants() {
    // {name, summary, on_gpu}, uses_gpu, cpu_baseline.
    static const Variants all(
        "matmul",
        {
            {{{"cpu-ijk",
               "naive i-j-k loop, one thread (the OpenGL matmul paper Alg. 3, Kwon & Lee CPU1)",
               false},
              false,
              true},
             [](std::optional<GemmTiles>) { return make_cpu_ijk(); }},
            {{{"cpu-ikj", "i-k-j loop order, one thread (Kwon & Lee CPU2)", false}, false, true},
             [](std::optional<GemmTiles>) { return make_cpu_ikj(); }},
            {{{"cpu-blocked", "cache-blocked i-k-j, 4 rows per pass, all threads", false},
              false,
              true},
             [](std::optional<GemmTiles>) { return make_cpu_blocked(); }},
            {{{"gpu-tiled32",
               "32x32 shared tiles, 64x64-group chunks (the OpenGL matmul paper Alg. 1-2)"}},
             [](std::optional<GemmTiles>) { return make_gpu_tiled32(); }},
            {{{"gpu-fast",
               "register-blocked GEMM: up to 256x128 blocks, 8x16 per invocation, vec4, "
               "double buffer"}},
             [](std::optional<GemmTiles> tiles) { return make_gpu_fast(tiles); }},
            {{{"cpgpu",
               "GPU takes the first g rows, CPU threads the rest, g from measured rates "
               "(Kwon & Lee)",
               false}},
             [](std::optional<GemmTiles> tiles) { return make_cpgpu(tiles); }},
        });
    return all;
}

std::unique_ptr<Multiplier> make_multiplier(const std::string& name,
                                            std::optional<GemmTiles> tiles) {
    return variants().make(name, tiles);
}

void check_shape(Shape s, bool on_gpu, const gl::DeviceInfo& device, int copies) {
    const std::string what =
        std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.l);
    if (s.m <= 0 || s.n <= 0 || s.l <= 0)
        throw Error("matmul size " + what + ": m, n and l must be at least 1");
    if (!on_gpu) return;
    const struct {
        const char* name;
        long long rows, cols;
    } matrices[3] = {{"A", s.m, s.n}, {"B", s.n, s.l}, {"C", s.m, s.l}};
    std::vector<gl::BufferNeed> needs;
    for (int copy = 0; copy < copies; ++copy)
        for (const auto& m : matrices) {
            const long long count = m.rows * m.cols;
            // Shaders index with 32-bit ints; keep a block of slack for the last tile's offsets.
            if (count > INT_MAX - 4096)
                throw Error("matmul size " + what + ": matrix " + m.name +
                            " has more than 2^31 "
                            "elements, beyond 32-bit shader indices");
            needs.push_back({std::string(copy ? "the kernel timing's copy of matrix " : "matrix ") +
                                 m.name + " (" + std::to_string(m.rows) + " x " +
                                 std::to_string(m.cols) + " floats)",
                             std::uint64_t(count) * sizeof(float)});
        }
    // A tenth of the free memory is left to the driver, the programs and the readbacks.
    gl::Limits limits = gl::limits_of(device);
    if (limits.free_bytes > 0) limits.free_bytes = limits.free_bytes / 10 * 9;
    const std::string problem = gl::capacity_problem(needs, limits);
    if (!problem.empty()) throw gl::CapacityError("matmul size " + what + ": " + problem);
}

}  // namespace adilab::matmul
