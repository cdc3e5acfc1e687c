#pragma once
// The power method for the dominant eigenpair of a square sparse matrix (seed 004):
//   y = A x_k;  lambda_k = the element of y of largest magnitude (sign kept);
//   x_{k+1} = y / lambda_k;  converged when max_i |x_{k+1,i} - x_{k,i}| < tol.
// Keeping lambda's sign lets a negative dominant eigenvalue converge too (normalising by
// max |y_i| would flip x every iteration). Ties in magnitude pick the positive element, so
// every variant and every reduction order picks the same element.
//
// Variants (a registry of names, listed by variant_names()):
//   host            everything on the CPU (float64), the reference;
//   gpu-naive       SpMV on the GPU, lambda, scaling and the stop test on the host (paper's
//                   G-NAIVE): x goes up and y comes down every iteration;
//   gpu-full        SpMV, max-reduction and the update + error reduction as separate GPU kernels,
//                   the host reads lambda and the error each iteration (G-FULL);
//   gpu-opt         three kernels (G-OPT): Step1 SpMV fused with the first reduction stage,
//                   Step2 the rest of the reduction, Step3 scale and set a not-converged flag
//                   (no norm); the host reads the flag every iteration;
//   gpu-opt-async   gpu-opt, reading the flag only every Options::check_every iterations. The
//                   GPU records the iteration where the flag first stayed clear and freezes x and
//                   lambda there, so the result is the same as gpu-opt's, iteration included.
// GPU SpMV layouts (Options::layout):
//   stream  CSR-stream: a work group walks the nonzeros of 256 consecutive rows as one
//           contiguous range (coalesced loads, many independent gathers of x in flight), then
//           each thread adds up its row from shared memory;
//   rows    a cluster of threads_per_row (1..32) threads of one subgroup per row, summed with
//           subgroup shuffles (shared memory where subgroups are missing); 1 is the paper's
//           one-thread-per-row kernel;
//   automatic: rows with threads_per_row from choose_threads_per_row, unless a row is far
//           longer than the mean (a power-law graph, PageRank's teleport row): then stream,
//           whose coalesced walk does not leave one cluster gathering a whole long row.
// x is gathered from a 2D texture by default (Options::x_storage; power/x_image.glsl), which
// halved the SpMV on an H200. Measured there (2M rows x 10, float64, x texture): rows-tpr4
// 0.174 ms, rows-tpr1 unrolled 0.206 ms, stream512 0.169 ms, cuSPARSE 0.184 ms; from the storage
// buffer every layout took 0.41-0.47 ms. 2M x 50: rows-tpr2 1.21 ms (cuSPARSE 0.79 ms).
//
// Breakdown: when A x_k = 0 (lambda = 0: a zero start, a nilpotent or zero matrix), the method
// stops with lambda = 0, x = x_k, converged = false and breakdown = true. A zero start vector is
// refused up front (adilab::Error).
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "solvers/common/csr.hpp"

namespace adilab::power {

struct Options {
    double tol = 1e-10;
    int max_iter = 1000;
    int check_every = 16;     // gpu-opt-async: iterations between two reads of the flag
    enum class Layout { automatic, stream, rows };
    Layout layout = Layout::automatic;
    int threads_per_row = 0;  // rows layout: 1..32 (0: choose_threads_per_row)
    int stream_chunk = 1024;  // stream layout: nonzeros per pass (a multiple of 256, <= 4096)
    int max_groups = 8192;    // SpMV work groups at most (they stride over the rows)
    bool x_texture = false;   // SpMV gathers x through a buffer texture (the texture path)
    bool x_storage = false;   // SpMV gathers x from its storage buffer, not the 2D texture
                              // (the default where it fits: twice as fast on the H200)
    // Which texel of the 2D texture holds a pair of rows (power/x_image.glsl): by default 32
    // consecutive pairs fill one whole 512-byte GOB of NVIDIA's block-linear layout, GOBs go
    // down columns of x_block_gobs GOBs (0: 16, fewer where the texture needs fewer GOB rows;
    // else a power of two 1..32); x_linear = the old row-major map (p & 4095, p >> 12), whose
    // warps wrote 64 B into each of 8 GOBs. Results are the same bit for bit either way.
    // Measured (H200, 2M x 10, tol 0, alternating processes; RESULTS.md session 3 step3g):
    // three-kernel gpu-opt 0.2228 -> 0.2136 ms/it (Step3 29.0 -> 23.0 us with one texel a pass,
    // Step1 -3.3 us), the default two-dispatch form 0.2166 -> 0.2078; block columns of 1, 16
    // or 32 GOBs alike.
    bool x_linear = false;
    int x_block_gobs = 0;
    // Tests: gpu-opt(-async) poisons the storage-buffer x (NaN words) at the end of a solve that
    // left x in the texture only, so the copy-back must write every row of the eigenvector.
    bool poison_x = false;
    int unroll = 8;           // rows layout, 1 thread per row: gathers in flight per thread
                              // (0: the plain loop)
    bool no_subgroups = false;  // use the shared-memory reductions even where subgroups exist
    // gpu-opt's Step3: work groups at most (0: about one wave on an H100/H200, 1024) and texels
    // (pairs of rows) each thread loads before it computes, per pass (1..8). With the GOB map
    // 1 texel a pass measured 22.9 us against 23.8-24.1 for 2 (36 for 4); 2048 groups once
    // 21.7 us against 22.9-23.2 (one process: not yet the default).
    int step3_groups = 0;
    int step3_pairs = 1;
    bool flag_store_always = false;  // Step3 stores the flag without reading it first
    // gpu-opt: L >= 1 = after queueing iteration k (Step2, Step3, the next Step1) the host
    // reads the books of iteration k - L + 1 (Step2's copy in mapped memory), so the GPU has
    // up to L iterations queued while the host looks; 0 = it reads the control block after
    // every iteration, draining the queue (the paper's G-OPT loop). Up to 16.
    int flag_lag = 1;
    // gpu-opt, flag_lag >= 1: poll the stamp word of the books in the mapped memory instead of
    // waiting on a fence (no fence and no client-mapped barrier queued per iteration). The
    // default: measured 11 us an iteration faster than the fence on the H200 (RESULTS.md).
    bool flag_poll = true;
    // gpu-opt, flag_lag >= 1: glFlush after every flush_every queued iterations (a wait for a
    // fence that has not signalled flushes as well).
    int flush_every = 1;
    // gpu-opt: keep Step2 even where GL_NV_shader_atomic_int64 exists (there, by default,
    // Step1's groups atomicMax a 64-bit key that orders as maxmag, Step3 decodes lambda from it
    // and keeps the books: two dispatches an iteration). Without the extension Step2 always.
    bool no_atomic_max = false;
    // Tests: where the extension is missing, run that path with the 64-bit max emulated under a
    // lock (slow; so that a GPU-less CI exercises the books Step3 keeps).
    bool emulate_atomic_max = false;
    // Without Step2 (real atomics): Step1's group leaders read the key (coherent) and skip the
    // atomicMax where it already holds a key at least theirs. An option until measured.
    bool key_check = false;
    // Without Step2: Step1's work groups spread their atomicMax over this many slots (group g
    // into slot g % S, 128 bytes apart) and Step3 takes the max over them (bit-identical
    // lambda and x); 1 = one key. 1..256. Measured (H200, 2M x 10, tol 0, two processes each;
    // RESULTS.md session 3): 64 slots took Step1 from 0.1884 to 0.1831 ms and gave Step3 2.5 us
    // back (its groups reduce the slots): gpu-opt 0.2204 -> 0.2177 ms/it, async 0.2161 ->
    // 0.2145; 128 slots: Step3 +5 us, no gain. A later sweep (same setting, two processes each,
    // 2026-11-21 09:25 UTC), gpu-opt / async ms per iteration: 64 slots 0.2180 / 0.2150, 32
    // 0.2165 / 0.2135, 16 0.2165 / 0.2130, 8 0.2162 / 0.2130 (Step3 30.0-30.4 us against 32.3):
    // fewer slots cost Step3 less and still spread Step1's atomics enough.
    int key_slots = 8;
};

struct Result {
    double lambda = 0.0;
    int iterations = 0;       // y = A x products done until the stop
    bool converged = false;
    bool breakdown = false;   // A x = 0 met
    double error = 0.0;       // max |x_{k+1} - x_k| of the last iteration (NaN where the
                              // variant never computes it: gpu-opt has no norm)
    int queued = 0;           // gpu-opt(-async): iterations the host queued before it stopped,
                              // frozen ones past the stop included (0 for the other variants)
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
};

std::vector<std::string> variant_names();
// Throws adilab::Error listing the names when `name` is unknown.
std::unique_ptr<Variant> make_variant(std::string_view name);

// The element of largest magnitude, ties to the positive one (0 for an empty span).
double max_magnitude(std::span<const double> y);
// ||A x - lambda x||_inf.
double residual(const CsrMatrix& a, double lambda, const std::vector<double>& x);
// The layout `automatic` resolves to for `a`: stream when the longest row exceeds 64 times the
// mean plus 64, else rows.
Options::Layout choose_layout(const CsrMatrix& a);
// Threads per row for the rows layout: the power of two at most mean / 2, from 1 to 32.
int choose_threads_per_row(const CsrMatrix& a);
// Times the GPU SpMV kernel alone (ms per product, median) in `layout` (threads_per_row and
// stream_chunk from `options`), on a prepared GPU variant's matrix; throws adilab::Error for
// the host variant.
double time_spmv(Variant& variant, const Options& options, int repeats);
// Checks a square matrix and a start vector (length n, not all zero); throws adilab::Error.
void check_problem(const CsrMatrix& a, std::span<const double> start);

// Convenience: prepare, solve, download the eigenvector and compute the residual.
struct Solution {
    Result result;
    std::vector<double> vector;
    double residual = 0.0;
};
Solution solve(Variant& variant, const CsrMatrix& a, const Options& options,
               std::span<const double> start = {});

}  // namespace adilab::power
