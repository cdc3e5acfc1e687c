#pragma once
// Matrix multiplication C = A * B (the OpenGL matmul paper and Kwon & Lee): A is m x n, B is n x l,
// C is m x l, all fp32 row-major and tightly packed (leading dimensions n, l, l). Any m, n, l >= 1.
//
// Named variants (the registry below lists them for the CLI and the GUI):
//   cpu-ijk      the OpenGL matmul paper Algorithm 3 / Kwon & Lee "CPU1": the naive i-j-k loop, one
//   thread cpu-ikj      Kwon & Lee "CPU2": i-k-j order (B and C read along rows), one thread
//   cpu-blocked  i-k-j on cache blocks, 4 rows of C per pass, all hardware threads
//   gpu-tiled32  the OpenGL matmul paper Algorithms 1-2: 32 x 32 work groups, two 32 x 32 shared
//   tiles,
//                dispatched in chunks of at most 64 x 64 work groups
//   gpu-fast     register-blocked GEMM (shaders/matmul/gemm.comp), tiles from GemmTiles
//   cpgpu        Kwon & Lee: the GPU (gpu-fast) computes the first g rows of C while the CPU
//   threads
//                compute the rest, g balanced from rates measured on this machine
//
// Two entries. multiply_host() takes host arrays and includes every host <-> device transfer (how
// the seeds timed); multiply_gpu() takes GPU buffers and leaves C there (GPU variants only).
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "solvers/common/registry.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/objects.hpp"

namespace adilab::matmul {

struct SplitRates;
struct SplitReport;

struct Shape {
    int m = 0, n = 0, l = 0;
    double flops() const {
        return 2.0 * m * static_cast<double>(n) * l;
    }  // the OpenGL matmul paper eq. (1)
};

// --- The reusable GEMM (gpu-fast's kernel) ---------------------------------------------------

// Tile sizes of gemm.comp, passed to it as #define preludes. Constraints (checked): BM % TM == 0,
// BN % TN == 0, TM, TN, BK multiples of 4, (BM/TM)*(BN/TN) <= the work-group limit, and the two
// double-buffered shared tiles within the shared-memory limit.
struct GemmTiles {
    int bm = 128, bn = 128, bk = 8, tm = 8, tn = 8;
    int apad = 1;  // vec4s of padding per row of the transposed A tile (bank conflicts on stores)
    std::string label() const;  // "128x128x8x8x8" (bm x bn x bk x tm x tn), "x<apad>" if not 1
    // Parses a label; throws adilab::Error naming the text when it is not 5 or 6 integers.
    static GemmTiles parse(const std::string& text);
    int threads() const { return (bm / tm) * (bn / tn); }
    std::size_t shared_bytes() const;
};
// The tile configurations `--bench matmul --tiles` measured best, largest first: 256x128x8x8x16,
// 128x128x8x16x8, 64x128x8x8x8, 32x64x8x4x8, 32x32x8x4x4 (the small ones for matrices too small
// to fill the GPU otherwise; docs/performance.md, "Matmul", has the figures).
std::span<const GemmTiles> tuned_tiles();
// The first tuned configuration that gives C at least 128 work groups (enough to fill the GPU's
// SMs; fewer, larger blocks leave most of them idle), else the smallest one.
GemmTiles choose_tiles(int m, int l);
// Throws adilab::Error saying which constraint `tiles` breaks on `device`.
void check_tiles(const GemmTiles& tiles, const gl::DeviceInfo& device);

// A matrix inside a GPU buffer: element (i, j) is float number offset + i * ld + j.
struct MatrixRef {
    const gl::Buffer* buffer = nullptr;
    std::size_t offset = 0;  // in floats
    int ld = 0;              // leading dimension (row stride) in floats, >= the column count
};

// C = alpha * A * B + beta * C on the GPU, with A m x n, B n x l, C m x l given as MatrixRefs.
// beta = 0 never reads C. A or B may live in the same buffer as C if the regions do not overlap
// (LU's trailing update: C = A22, A = L21, B = U12, alpha = -1, beta = 1). Issues up to three
// dispatches (whole BM x BN blocks, right strip, bottom strip) and a storage | buffer-update
// memory barrier; no host read-back, no compile after the first call per tile configuration.
// vec4 loads are used when every offset and ld is a multiple of 4, scalar loads otherwise.
// tiles: choose_tiles(m, l) unless given. Throws adilab::Error for sizes <= 0, a matrix reaching
// past its buffer or beyond 32-bit indices.
void gemm(int m, int n, int l, float alpha, const MatrixRef& a, const MatrixRef& b, float beta,
          const MatrixRef& c, std::optional<GemmTiles> tiles = std::nullopt);

// --- The variants ------------------------------------------------------------------------------

class Multiplier {
  public:
    virtual ~Multiplier() = default;
    virtual std::string name() const = 0;
    virtual bool on_gpu() const = 0;
    // Host arrays in and out, every transfer included (GPU buffers are kept between calls of the
    // same shape, so allocation is not timed). Needs a current GL context for GPU variants.
    virtual void multiply_host(Shape shape, const float* a, const float* b, float* c) = 0;
    // GPU buffers of m*n, n*l and m*l floats; C is overwritten. Throws for CPU variants.
    virtual void multiply_gpu(Shape shape, const gl::Buffer& a, const gl::Buffer& b, gl::Buffer& c);
    // What it ran with at this shape, for reports (gpu-fast: its tiles); empty if nothing to say.
    virtual std::string config(Shape) const { return {}; }
    // cpgpu: the rows its last run gave the GPU and the rates they came from; others: g = -1.
    virtual SplitReport split() const;
};

// The registry (solvers/common/registry.hpp): on_gpu means the variant has the GPU-buffer entry
// (kernel-only timing); cpgpu, which computes on both, has not.
struct VariantInfo : adilab::VariantInfo {
    bool uses_gpu = true;       // needs GPU memory for the whole problem (GPU variants and cpgpu)
    bool cpu_baseline = false;  // a CPU-only variant: the bench skips it above --cpu-max
};
using Variants = Registry<VariantInfo, Multiplier, std::optional<GemmTiles>>;
const Variants& variants();
// variants().make(name, tiles): throws adilab::Error naming the variant and listing the known
// ones if `name` is unknown. `tiles` fixes gpu-fast's (and cpgpu's GPU part's) tiles; by default
// they follow choose_tiles.
std::unique_ptr<Multiplier> make_multiplier(const std::string& name,
                                            std::optional<GemmTiles> tiles = std::nullopt);

// Throws adilab::Error when `shape` has a size <= 0, or (for GPU variants) a matrix with more
// elements than 32-bit shader indices reach, or more bytes than one storage block or the GPU's
// free memory (where the driver reports it) holds; `copies` sets of A, B, C are kept at once.
void check_shape(Shape shape, bool on_gpu, const gl::DeviceInfo& device, int copies = 1);

// --- Pieces the variants share -------------------------------------------------------------------

// Rows [row_begin, row_end) of C = A * B with the cpu-blocked kernel on `threads` threads
// (C's other rows untouched).
void multiply_rows_blocked(Shape shape, const float* a, const float* b, float* c, int row_begin,
                           int row_end, int threads);
int cpu_threads();  // std::thread::hardware_concurrency(), at least 1

// cpgpu's split (Kwon & Lee): the GPU takes rows [0, g), the CPU rows [g, m).
struct SplitRates {
    double gpu_gflops = 0;         // gpu-fast kernel rate at this shape
    double cpu_gflops = 0;         // cpu-blocked rate on the CPU's threads
    double transfer_gb_per_s = 0;  // host <-> device, both ways averaged
};
struct SplitReport {
    int g = -1;  // rows of C computed on the GPU
    SplitRates rates;
};
// Balances T_gpu(g) + T_transfer(g) = T_cpu(m - g):
//   2 g n l / P_g + 4 (g n + n l + g l) / r = 2 (m - g) n l / P_c
// (Kwon & Lee's T_g - T_m = T_c with the transfer written out), solved for g, clamped to [0, m]
// and rounded to a multiple of 16 rows (whole 4-row passes for the CPU's kernel).
int balanced_gpu_rows(Shape shape, const SplitRates& rates);

}  // namespace adilab::matmul
