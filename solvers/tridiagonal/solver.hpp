#pragma once
// Batched tridiagonal solves on a 2-D grid (Kim & Lee 2005, cyclic reduction on the GPU): every
// grid line along one direction is an independent system
//   a_i x_{i-1} + b_i x_i + c_i x_{i+1} = k_i,  i = 0 .. N-1,
// solved in one call, on the GPU, with no host round trip.
//
// Layout. Fields are nx * ny float32 arrays, row-major: element (i, j) is at j * nx + i.
//  - Direction::x: ny systems of length N = nx, one per row (contiguous).
//  - Direction::y: nx systems of length N = ny, one per column (stride nx).
// a_0 and c_{N-1} lie outside the system and are ignored (read as 0).
//
// Coefficients come in two forms:
//  - General: per-unknown a, b, c buffers in the field's layout (shallow water rebuilds them
//    every step).
//  - Constant: the same a, b, c on every interior row, passed as uniforms (heat); the first and
//    last rows may have their own diagonal (Neumann ends give b + a there). The fast path
//    reads no coefficient arrays.
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "solvers/common/registry.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/objects.hpp"
#include "solvers/tridiagonal/tuning.hpp"

namespace adilab::tridiag {

enum class Direction { x, y };

struct Grid {
    int nx = 0, ny = 0;
};

struct ConstantCoefficients {
    float a = 0, b = 1, c = 0;  // interior rows
    float b_first = 1;          // diagonal of row 0
    float b_last = 1;           // diagonal of row N-1
    bool operator==(const ConstantCoefficients&) const = default;
};

struct GeneralCoefficients {
    const gl::Buffer* a = nullptr;
    const gl::Buffer* b = nullptr;
    const gl::Buffer* c = nullptr;
};

using Coefficients = std::variant<ConstantCoefficients, GeneralCoefficients>;

// A zero or non-finite pivot met during a solve (the system was not diagonally dominant enough
// for a method without pivoting).
struct PivotFailure {
    int line = -1;  // which system
};

class Solver {
  public:
    virtual ~Solver() = default;
    virtual std::string name() const = 0;
    // Solves every line of `grid` in `direction`: rhs and solution are nx * ny float buffers.
    // rhs is left unchanged; solution may not alias rhs. Scratch buffers are allocated on the
    // first call for a grid size and reused after, so a per-step call allocates nothing.
    virtual void solve(Grid grid, Direction direction, const Coefficients& coefficients,
                       const gl::Buffer& rhs, gl::Buffer& solution) = 0;
    // The grid-sized scratch buffers solve() may allocate for `grid` (either direction, any
    // coefficients), named ("cr-pingpong's reduction levels"), so that a model or a benchmark
    // can check them against the GPU before it allocates anything (solvers/gl/capacity.hpp);
    // solve() checks them itself too. Per-line-length tables (a few floats a row) are left out.
    virtual std::vector<gl::BufferNeed> scratch_needs(Grid) const { return {}; }
    // Reads the GPU's pivot-failure flag of the solves since the last check, and clears it.
    // A host read-back: for diagnostics and tests, never called per step.
    virtual std::optional<PivotFailure> check_pivots() = 0;
    // Which path the last solve took, where a variant picks at run time (partition: "one
    // pass", "three stages", "window" or "window, then exact: bound broken"), else empty. A
    // host read-back: for reports and tests, never called per step.
    virtual std::string last_path() { return {}; }
};

// The registry (solvers/common/registry.hpp): every variant by name, for the CLI and the GUI.
// lu-scan and lu-window take their shape from the Tuning (tuning.hpp); the others ignore it.
using VariantInfo = adilab::VariantInfo;
using Variants = Registry<VariantInfo, Solver, const Tuning&>;
const Variants& variants();
// variants().make(name, tuning): throws adilab::Error naming the variant and listing the known
// ones if `name` is unknown.
std::unique_ptr<Solver> make_solver(const std::string& name, const Tuning& tuning = {});

}  // namespace adilab::tridiag
