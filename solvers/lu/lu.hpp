#pragma once
// LU decomposition with partial pivoting ("Blocked LU decomposition on the GPU", the LU paper):
// P A = L U for a dense n x n float32 matrix, on the GPU, and what the factors give: solve(b),
// the determinant and log|det|.
//
// Layout. The matrix is row-major, n*n floats in one storage buffer, element (i, j) at i*n + j.
// It is factored in place into packed L\U (L unit lower triangular below the diagonal, U on and
// above it). Pivots are n ints, LAPACK's convention 0-based: at step k rows k and pivots[k]
// were interchanged, in order. A tie in the pivot search goes to the smallest row index, as in
// the CPU reference (solvers/reference/lu.hpp), so pivot sequences compare.
//
// A zero pivot (all of the remaining column is zero) does not stop the factorisation and never
// makes a NaN: L's column stays zero and U(k,k) = 0. The first such column is recorded on the
// GPU (`status`); singular_column() reads it back.
//
// Variants (registry below): `cpu` (float32 on the host: reads back and uploads, bench only),
// `gpu-unblocked` (the paper's Fig. 2: column by column) and `gpu-blocked` (its Fig. 3-4:
// right-looking blocked, with the knobs of Tuning below).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "solvers/common/registry.hpp"
#include "solvers/common/tuning.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/objects.hpp"

namespace adilab::lu {

// A matrix on the GPU and, after factor(), its factors.
struct Factors {
    int n = 0;
    gl::Buffer values;  // n*n floats: the matrix, then packed L\U
    gl::Buffer pivots;  // n ints
    gl::Buffer status;  // 2 ints: first zero-pivot column (n if none), failure flag

    // Allocates for an n x n matrix and uploads `matrix` (row-major, n*n).
    static Factors upload(std::span<const float> matrix, int n);
    // Copies a matrix (n*n floats) already on the GPU into `values`, resetting the status.
    void load(const gl::Buffer& matrix);
};

// Every buffer an n x n factorisation allocates on the GPU, named for messages: Factors' (the
// matrix, its pivots and status) and, for block > 0, gpu-blocked's scratch (the panel exchange,
// the inverse of the diagonal block, the interchanged block row, the row origins). Callers
// check them (gl::check_buffers_fit) before allocating anything; Factors::upload and
// gpu-blocked check their own once more.
std::vector<gl::BufferNeed> buffer_needs(std::int64_t n, int block = 0);

class Solver {
  public:
    virtual ~Solver() = default;
    virtual std::string name() const = 0;
    // Factors f.values in place and writes f.pivots and f.status. GPU variants enqueue work only:
    // no host read-back, no allocation after the first call for a size, no shader compile after
    // the first call.
    virtual void factor(Factors& f) = 0;
};

// gpu-blocked's knobs, explicit (solvers/common/tuning.hpp): the bench sets them with
// `--tune lu.FIELD=VALUE` and records every one in its rows. The defaults are the fastest
// configuration measured (docs/performance.md, "LU"); each field says why it is what it is.
struct Tuning {
    // The panel: 1 = `registers` (shaders/lu/panel_registers.comp: each invocation holds one
    // column of its group's rows in registers, so the rank-1 update is one multiply-add an
    // element), which falls back to `lean` where that would need more than 64 rows an
    // invocation (registers spill past that; with the defaults n > 64 x (512 / nb) x 128);
    // 0 = `lean` everywhere (shaders/lu/panel_lean.comp: the rows in shared memory, the same
    // exchange).
    int registers_panel = 1;
    // Rows a panel group takes at least (0: 64 with the registers panel, 128 with lean). Fewer
    // rows mean more groups: the panel alone gets faster, but it leaves less room beside it for
    // the trailing GEMM of the look-ahead, and the whole factorisation slower.
    int panel_rows = 0;
    // Panel work groups at most, where the panel's rows fit them (a panel too tall for the
    // resident groups takes the column-by-column path whatever this says). 128, the number of
    // exchange slots: all groups must be resident at once (they wait on each other once a
    // column), which 128 groups of 512 invocations are on the GPUs adilab targets.
    int panel_groups = 128;
    // Invocations of a panel group: 512 holds nb = 128's columns 4 invocations deep and 4
    // groups fit an SM's 2048 invocations; Tuning::defaults() caps it at the device's limit.
    int panel_group_size = 512;
    // Columns a work group of the row interchanges takes (nb / 16 invocations a column): 64
    // gives 512-invocation groups at nb = 128; wider or narrower measured no better.
    int swap_columns = 64;
    // 1: the next panel is factored beside the rest of the trailing update (look-ahead; it
    // hides most of the panel's latency-bound time behind the GEMM); 0: one after the other.
    int lookahead = 1;
    // 1: subgroup shuffles in the panel's reductions where the device has them (else shared
    // memory); 0: shared memory always (for a driver whose subgroups misbehave).
    int subgroups = 1;

    // The defaults above, with panel_group_size capped at the device's work-group limit.
    static Tuning defaults(const gl::DeviceInfo& device);
    // A copy with panel_rows = 0 replaced by the rows it stands for.
    Tuning resolved() const;
};
// The fields of `t`, for --tune and the reports.
std::vector<TuningField> tuning_fields(Tuning& t);
// "lu.registers_panel=1 lu.panel_rows=64 ...": every field, panel_rows resolved.
std::string describe(const Tuning& t);

// What gpu-blocked's panels run as on this device for an n x n matrix: "registers", "lean",
// or "columns" (the paper's column-by-column panel, where the rows do not fit the groups that
// can be resident: one on a software renderer, 128 on a GPU), joined by "+" where the first
// panels take one path and the later, shorter ones another (e.g. "columns+lean").
std::string panel_that_runs(const gl::DeviceInfo& device, int n, int block, const Tuning& t);

// The registry (solvers/common/registry.hpp). A factory takes a block size and the tuning, which
// the blocked variant uses and the others ignore; a block size outside supported_blocks() is an
// adilab::Error naming it.
struct VariantInfo : adilab::VariantInfo {
    bool blocked = false;  // takes a block size
};
using Variants = Registry<VariantInfo, Solver, int, const Tuning&>;
const Variants& variants();
// variants().make(name, block, tuning): throws adilab::Error naming the variant and listing the
// known ones if `name` is unknown.
std::unique_ptr<Solver> make_solver(const std::string& name, int block = 64,
                                    const Tuning& tuning = Tuning{});
// Block sizes the blocked variant accepts.
std::span<const int> supported_blocks();

// --- What the factors give (solvers/lu/operations.cpp) ---------------------------------------

// Reads the status back: the first zero-pivot column, or nothing. Throws adilab::Error if the
// factorisation failed (gpu-blocked's one-dispatch panel on a GPU that cannot hold its groups at
// once).
std::optional<int> singular_column(const Factors& f);

// Solves A x = b on the GPU by the row interchanges, forward substitution (L, unit diagonal)
// and back substitution (U). b and x are n floats; x may be b. Throws adilab::Error naming the
// column when the matrix is singular (a read-back of the status, so not for per-step use).
void solve(const Factors& f, const gl::Buffer& b, gl::Buffer& x);

struct Determinant {
    int sign = 1;          // +1, -1, or 0 when singular
    double log_abs = 0.0;  // log|det A|; -inf when singular. Use it for large n.
    double value() const;  // sign * exp(log_abs): +-inf if it overflows a double, never NaN
};
// Reduced on the GPU (sum of log|U(k,k)|, sign from U's diagonal and the interchanges); reads
// back three numbers.
Determinant determinant(const Factors& f);

}  // namespace adilab::lu
