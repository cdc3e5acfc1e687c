#pragma once
// LU decomposition with partial pivoting (seed 003): P A = L U for a dense n x n float32 matrix,
// on the GPU, and what the factors give: solve(b), the determinant and log|det|.
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
// `gpu-unblocked` (Fig. 2: column by column) and `gpu-blocked` (Fig. 3-4: right-looking blocked).
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

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

class Solver {
  public:
    virtual ~Solver() = default;
    virtual std::string name() const = 0;
    // Factors f.values in place and writes f.pivots and f.status. GPU variants enqueue work only:
    // no host read-back, no allocation after the first call for a size, no shader compile after
    // the first call.
    virtual void factor(Factors& f) = 0;
};

struct VariantInfo {
    std::string name;
    std::string summary;
    bool on_gpu = true;    // false: the CPU variant (reads back and uploads)
    bool blocked = false;  // takes a block size
};

std::span<const VariantInfo> variants();

// The trailing update's kernel in gpu-blocked: `own` is shaders/lu/trailing_gemm.comp (one
// dispatch, 128 x 128 tiles), `matmul` is matmul::gemm (solvers/matmul, double-buffered,
// tuned tiles, up to 3 dispatches). matmul is the default: the whole factorisation measured
// 21.8 / 64.1 ms with it against 22.9 / 75.2 ms with `own` at n = 4096 / 8192 (H200, nb = 64).
// Only `matmul` runs with the look-ahead (blocked.cpp), which took 8192 to 51.6 ms.
enum class TrailingUpdate { own, matmul };
TrailingUpdate parse_trailing_update(const std::string& text);  // throws adilab::Error
const char* to_string(TrailingUpdate update);

// gpu-blocked's panel (where a panel fits the co-resident work groups): `fused`
// (shaders/lu/panel_fused.comp: per column, the groups exchange their candidates, then fetch the
// winner's row: two dependent L2 round trips, six barriers) or `one-trip`
// (shaders/lu/panel_one_trip.comp: every group publishes its candidate with its row and reads
// all of them at once: one round trip, three barriers) or `lean` (panel_one_trip.comp with
// TWO_TRIP: the headers, then the winner's row, as `fused`, but with `one-trip`'s three
// barriers). The environment variable ADILAB_LU_PANEL (fused | one-trip | lean), where set,
// overrides the choice (tests, bench scripts). `lean` is the default: the fastest in every
// configuration measured (H200, 2026-11-21, one call, blocked block-row solve; n = 4096 /
// 8192): nb 64: lean 16.67 / 42.54 ms, fused 17.48 / 43.32, one-trip 19.01 / 47.51; nb 128: lean
// 15.88 / 39.12, fused 16.78 / 40.77, one-trip 24.42 / 61.74 (cuSOLVER getrf 11.85 / 34.20).
// The panel alone at 8192: lean 27.1 ms, fused 28.8, one-trip 34.1 (nb 64) / 53.1 (nb 128):
// the exchange's cost is not one round trip more or less, it is what every group reads (one-trip
// reads every candidate's row: (groups + 1) x nb values a group a column).
// `registers` (shaders/lu/panel_registers.comp, the default since session 5): lean's exchange,
// with each invocation holding one column of its group's rows in registers, so the rank-1
// update is one multiply-add an element (H200, 8192, nb 128: the panel alone 22.8 ms against
// lean's 30.7 in another call; the whole factorisation 33.2-33.4 against 36.3, cuSOLVER 34.0;
// blocked.cpp has the figures).
enum class Panel { fused, one_trip, lean, registers };
Panel parse_panel(const std::string& text);  // throws adilab::Error
// The panel gpu-blocked runs: ADILAB_LU_PANEL's where set (tests, bench scripts), else
// `requested`; the bench labels its rows with it.
Panel effective_panel(Panel requested);
const char* to_string(Panel panel);
constexpr Panel kDefaultPanel = Panel::registers;

// block, update: of blocked variants (ignored by the others). Throws adilab::Error naming the
// variant and listing the known ones if `name` is unknown, or naming a bad block size.
std::unique_ptr<Solver> make_solver(const std::string& name, int block = 64,
                                    TrailingUpdate update = TrailingUpdate::matmul,
                                    Panel panel = kDefaultPanel);
// Block sizes the blocked variant accepts.
std::span<const int> supported_blocks();

// --- What the factors give (solvers/lu/operations.cpp) ---------------------------------------

// Reads the status back: the first zero-pivot column, or nothing. Throws adilab::Error if the
// factorisation failed (gpu-blocked's fused panel on a GPU that cannot hold its groups at once).
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
