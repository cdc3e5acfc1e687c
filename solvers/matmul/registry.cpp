// The matmul registry and the size checks every entry point runs before any work.
#include <climits>

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
              false, true},
             [](std::optional<GemmTiles>) { return make_cpu_ijk(); }},
            {{{"cpu-ikj", "i-k-j loop order, one thread (Kwon & Lee CPU2)", false}, false, true},
             [](std::optional<GemmTiles>) { return make_cpu_ikj(); }},
            {{{"cpu-blocked", "cache-blocked i-k-j, 4 rows per pass, all threads", false},
              false, true},
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
    const long long counts[3] = {static_cast<long long>(s.m) * s.n,
                                 static_cast<long long>(s.n) * s.l,
                                 static_cast<long long>(s.m) * s.l};
    long long total_bytes = 0;
    for (long long count : counts) {
        // Shaders index with 32-bit ints; keep a block of slack for the last tile's offsets.
        if (count > INT_MAX - 4096)
            throw Error("matmul size " + what +
                        ": a matrix has more than 2^31 elements, beyond "
                        "32-bit shader indices");
        const long long bytes = count * static_cast<long long>(sizeof(float));
        if (device.max_storage_block_bytes > 0 && bytes > device.max_storage_block_bytes)
            throw Error("matmul size " + what + ": a matrix needs " + std::to_string(bytes >> 20) +
                        " MiB, more than the largest storage block (" +
                        std::to_string(device.max_storage_block_bytes >> 20) + " MiB)");
        total_bytes += bytes;
    }
    total_bytes *= copies;
    if (device.available_memory_mib > 0 &&
        (total_bytes >> 20) > device.available_memory_mib * 9 / 10)
        throw Error("matmul size " + what + ": A, B and C" +
                    (copies > 1 ? " (" + std::to_string(copies) + " copies)" : "") + " need " +
                    std::to_string(total_bytes >> 20) + " MiB, more than the GPU's free memory (" +
                    std::to_string(device.available_memory_mib) + " MiB)");
}

}  // namespace adilab::matmul
