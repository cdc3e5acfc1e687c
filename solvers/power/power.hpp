#pragma once
// The power method's variants: the method itself (what they compute, the result, breakdown)
// is defined in method.hpp, which the float64 reference shares.
//
// Variants (the registry below, variants()):
//   host            everything on the CPU (float64), the reference;
//   gpu-naive       SpMV on the GPU, lambda, scaling and the stop test on the host (paper's
//                   G-NAIVE): x goes up and y comes down every iteration;
//   gpu-full        SpMV, max-reduction and the update + error reduction as separate GPU kernels,
//                   the host reads lambda and the error each iteration (G-FULL);
//   gpu-opt         three kernels (G-OPT): Step1 SpMV fused with the first reduction stage,
//                   Step2 the rest of the reduction, Step3 scale and set a not-converged flag
//                   (no norm); the host reads the flag every iteration;
//   gpu-opt-async   gpu-opt, reading the flag only every Tuning::check_every iterations. The
//                   GPU records the iteration where the flag first stayed clear and freezes x and
//                   lambda there, so the result is the same as gpu-opt's, iteration included.
// GPU SpMV layouts (Options::layout):
//   stream  CSR-stream: a work group walks the nonzeros of 256 consecutive rows as one
//           contiguous range (coalesced loads, many independent gathers of x in flight), then
//           each thread adds up its row from shared memory;
//   rows    a cluster of Tuning::threads_per_row (1..32) threads of one subgroup per row,
//           summed with subgroup shuffles (shared memory where subgroups are missing); 1 is the
//           paper's one-thread-per-row kernel;
//   automatic: rows with threads_per_row from choose_threads_per_row, unless a row is far
//           longer than the mean (a power-law graph, PageRank's teleport row): then stream,
//           whose coalesced walk does not leave one cluster gathering a whole long row.
// x is gathered from a 2D texture by default (Tuning::x_image; power/x_image.glsl): random
// gathers through the texture path took half the time of gathers from the storage buffer
// (docs/performance.md, "Power method").
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "solvers/common/csr.hpp"
#include "solvers/common/registry.hpp"
#include "solvers/common/tuning.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/power/method.hpp"

namespace adilab::power {

// The GPU variants' knobs, explicit (solvers/common/tuning.hpp): the bench sets them with
// `--tune power.FIELD=VALUE` and records every one in its rows. The defaults are the fastest
// configuration measured (docs/performance.md, "Power method"); each field says why.
struct Tuning {
    // rows layout: threads per row, a power of two 1..32 (0: choose_threads_per_row, from the
    // mean row length: 2-4 nonzeros a thread keeps the gathers in flight without idle lanes).
    int threads_per_row = 0;
    // stream layout: nonzeros a work group walks per pass (a multiple of 256, <= 4096; its
    // (chunk + 256) doubles of shared memory must fit the device). 1024: 10 KiB, several groups
    // an SM, long enough a walk to amortise the row bookkeeping.
    int stream_chunk = 1024;
    // SpMV work groups at most (they stride over the rows); 8192 fills an H100/H200 several
    // times over while Step2 reads only 8 partial results a thread.
    int max_groups = 8192;
    // 1: the SpMV gathers x from a 2D texture (x_image.glsl) where it fits the device's texture
    // size, and gpu-opt's Step3 keeps x there; 0: from the storage buffer. The texture path's
    // cache serves random gathers better.
    int x_image = 1;
    // x's texture: GOBs (512-byte tiles of NVIDIA's block-linear layout) a block column, a
    // power of two up to 32 (0: 16, fewer where the texture needs fewer GOB rows, so a small
    // x does not get an 8 MB texture). 32 consecutive pairs of rows fill one GOB, so Step3's
    // warps store whole GOBs.
    int x_block_gobs = 0;
    // rows layout with one thread a row: gathers in flight per thread, 0..16 (0: the plain
    // loop). 8 covers the latency of a gather with the values' loads of one row.
    int unroll = 8;
    // 1: subgroup shuffles in the reductions where the device has them; 0: shared memory.
    int subgroups = 1;
    // gpu-opt's Step3: work groups at most. GL tells no SM count; 1024 is about one wave of
    // 256-thread groups on an H100/H200 (132 SMs x 8), and more waves measured slower.
    int step3_groups = 1024;
    // gpu-opt-async: iterations between two reads of the flag (each costs a host round trip;
    // up to check_every - 1 frozen iterations are queued past the stop).
    int check_every = 16;
    // gpu-opt: L >= 1 = after queueing iteration k (Step2, Step3, the next Step1) the host
    // reads the books of iteration k - L + 1 (a copy in mapped memory), so the GPU has up to L
    // iterations queued while the host looks and never waits for it; 0 = it reads the control
    // block after every iteration, draining the queue (the paper's G-OPT loop). Up to 16.
    int flag_lag = 1;
    // gpu-opt, flag_lag >= 1: 1 = poll the stamp word of the books in mapped memory; 0 = wait
    // on a fence (which queues a fence and a client-mapped barrier every iteration).
    int flag_poll = 1;
    // gpu-opt, flag_lag >= 1: glFlush after every flush_every queued iterations, so the GPU
    // starts each one at once.
    int flush_every = 1;
    // gpu-opt: 1 = where GL_NV_shader_atomic_int64 exists, Step1's groups atomicMax a 64-bit
    // key that orders as maxmag, Step3 decodes lambda from it and keeps the books: two
    // dispatches an iteration instead of three; 0 = Step2 always.
    int atomic_max = 1;
    // Tests: where the extension is missing, run that path with the 64-bit max emulated under
    // a lock (slow; so that a GPU-less CI exercises the books Step3 keeps).
    int emulate_atomic_max = 0;
    // Without Step2: Step1's work groups spread their atomicMax over this many slots (group g
    // into slot g % S, 128 bytes apart) and Step3 takes the max over them (bit-identical
    // lambda and x); 1 = one key; 1..256. A few slots spread the atomics enough, and each one
    // costs Step3 a load.
    int key_slots = 8;

    // The defaults above, with stream_chunk lowered to what the device's shared memory holds.
    static Tuning defaults(const gl::DeviceInfo& device);
};
// The fields of `t`, for --tune and the reports.
std::vector<TuningField> tuning_fields(Tuning& t);
// "power.threads_per_row=0 power.stream_chunk=1024 ...": every field.
std::string describe(const Tuning& t);

struct Options {
    double tol = 1e-10;
    int max_iter = 1000;
    enum class Layout { automatic, stream, rows };
    Layout layout = Layout::automatic;
    Tuning tuning;
    // Tests: gpu-opt(-async) poisons the storage-buffer x (NaN words) at the end of a solve that
    // left x in the texture only, so the copy-back must write every row of the eigenvector.
    bool poison_x = false;
};

// Milliseconds of one iteration's parts (the paper's Fig. 14): SpMV (with the first reduction
// stage where fused), the max-reduction, and the new x + stop test, host round trips included.
struct PhaseTimes {
    double spmv_ms = 0.0, max_ms = 0.0, newx_stop_ms = 0.0;
};

class Variant {
  public:
    virtual ~Variant() = default;
    virtual std::string name() const = 0;
    virtual bool on_gpu() const = 0;
    // Takes the matrix (uploads it, allocates scratch). `a` must outlive the variant's use.
    // Throws adilab::Error for a non-square matrix or one too large for the device.
    virtual void prepare(const CsrMatrix& a, const Options& options) = 0;
    // Runs the method from `start` (empty: all ones). The eigenvector stays where the variant
    // keeps it until eigenvector() is asked for (the timed part excludes that download).
    virtual Result solve(std::span<const double> start, const Options& options) = 0;
    virtual std::vector<double> eigenvector() = 0;
    // Times `iterations` non-converging iterations part by part; medians.
    virtual PhaseTimes phase_times(const Options& options, int iterations) = 0;
    // The SpMV layout the variant uses: "stream", "rows-tpr<N>" ("" for host).
    virtual std::string spmv_layout() const { return ""; }
    // The kernels an iteration ran, where the device decided: gpu-opt's "step1+step2+step3", or
    // "step1+step3" where Step1's 64-bit atomicMax replaced Step2 ("" for the others).
    virtual std::string kernels() const { return ""; }
};

// The registry (solvers/common/registry.hpp).
using VariantInfo = adilab::VariantInfo;
using Variants = Registry<VariantInfo, Variant>;
const Variants& variants();
// variants().make(name): throws adilab::Error naming the variant and listing the known ones if
// `name` is unknown.
std::unique_ptr<Variant> make_variant(std::string_view name);

// ||A x - lambda x||_inf.
double residual(const CsrMatrix& a, double lambda, const std::vector<double>& x);
// The layout `automatic` resolves to for `a`: stream when the longest row exceeds 64 times the
// mean plus 64, else rows.
Options::Layout choose_layout(const CsrMatrix& a);
// Threads per row for the rows layout: the power of two at most mean / 2, from 1 to 32.
int choose_threads_per_row(const CsrMatrix& a);
// Times the GPU SpMV kernel alone (ms per product, median) in the layout the prepared GPU
// variant uses; throws adilab::Error for the host variant.
double time_spmv(Variant& variant, int repeats);
// Every storage buffer a GPU variant allocates for a matrix of `rows` rows and `nnz` stored
// entries, named for messages: the CSR row offsets, columns and values, x, the all-ones start,
// y, the reduction partials and the control block. The bench checks them (against the limits
// of gl/capacity.hpp) before it builds or reads a matrix, prepare() once more before uploading.
std::vector<gl::BufferNeed> buffer_needs(std::int64_t rows, std::int64_t nnz);

// Convenience: prepare, solve, download the eigenvector and compute the residual.
struct Solution {
    Result result;
    std::vector<double> vector;
    double residual = 0.0;
};
Solution solve(Variant& variant, const CsrMatrix& a, const Options& options,
               std::span<const double> start = {});

}  // namespace adilab::power
