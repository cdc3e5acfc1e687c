#pragma once
// The common machinery of the three ADI models (internal to sim/): parameters by name, grid and
// scenario checks, the solver choice (fused kernel or a tridiagonal Solver), the GPU stability
// flag, stats and save/load of the state. A model adds its buffers, scenarios and step.
#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/fused_shape.hpp"
#include "sim/simulation.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/split.hpp"

namespace adilab::sim::detail {

constexpr int kMinGrid = 4;
constexpr int kMaxGrid = 8192;

// Heat's windowed half step (shaders/sim/heat_scan.glsl), the `fused` path wherever the
// parameters allow it: the inverse of heat's constant PR matrix decays as rho^|m|; the kernels
// keep HALO terms either side of each unknown.
// The decay ratio for lambda = c (dt / 2) / dh^2: rho = 2 lambda / (1 + 2 lambda + sqrt(1 + 4
// lambda)).
double heat_window_rho(double lambda);
// The truncation bound relative to max |d| (the right-hand side): 2 rho^(halo + 1) / (1 + rho).
double heat_window_tail(double lambda, int halo);
// The warm-up length: the smallest of 8, 16, 24, 32, 48 whose bound is <= 2^-26 (below fp32
// round-off of the increment); 0 where none is (lambda above ~7): the exact fused line solve.
int heat_window_halo(double lambda);

// The general-coefficient window (shaders/tridiagonal/window_lines.glsl), advection's and shallow
// water's `fused` path wherever the parameters allow it. A sweep's rows in flux form have columns
// that sum to 1: b_j = 1 + |a_(j+1)| + |c_(j-1)|, where |a_(j+1)| is the transfer out of cell j
// forwards (to j + 1) and |c_(j-1)| backwards. With W bounding each diagonal's excess over 1 the
// transpose is row dominant by theta = W / (1 + W), so |(A^-1)_ii| <= 1 / (1 - theta^2), and going
// from row i towards the window's start each row passes on at most |a_(j+1)| / (b_j - theta
// |c_(j-1)|) <= F / (1 + F) of the inverse's entry, F the largest forward transfer; towards its end
// B / (1 + B), B the largest backward one. A window that drops the coupling (at most W) to the row
// before its start misses by at most W (1 + W) / (1 + theta) (F / (1 + F))^m of max |x| m rows
// after the start, and likewise with B before its end. Upwind flow makes one of F and B small: a
// truncation downstream barely reaches back.
// The bound m rows inside the end whose rows pass on transfer / (1 + transfer) a row.
double general_window_tail(double weight, double transfer, int halo);
// The smallest of 8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 224, 256 rows up to `most` whose
// bound is <= 2^-27 (the two ends' sum <= 2^-26); 0 where none is (the exact fused line solve).
// 48 but for the upstream end of advection's window bands (up to 256): the cap dates from x
// windows of 32 chunks of 8, where 48 rows at both ends left 20 of them storing. Windows now
// widen with their warm-up (AdiModel::row_window_chunks, column_lanes); one window of longer
// halos has not been measured against the line solve.
int general_window_halo(double weight, double transfer, int most = 48);

// Peaceman–Rachford's explicit half step multiplies the field, and its round-off, by up to
// 1 + W, and the scheme damps its fastest modes only by (W - 1) / (W + 1) a step, so fp32
// round-off piles up as steps 2^-24 W instead of dying out. Measured from a random start
// (64^2, 2,000 steps): heat keeps its total to 2e-6 at W = 100 and blows up at W = 1,500;
// advection's overshoot (values 100 times the start at W = 6) carries its mass with 1e-3
// error at W = 6 and 14% at W = 60. So heat stops at 100 and advection at 10.
constexpr double kMaxHeatPeacemanRachfordWeight = 100;
constexpr double kMaxAdvectionPeacemanRachfordWeight = 10;

// Shallow water's volume is a sum of heights that the sweeps change through coefficients W
// times the surface's steps; their fp32 rounding no longer cancels once W is large, and the
// volume drifts in proportion to the steps. Measured on the flat dam-break, damping 0
// (relative change of the volume): 64^2, 5,000 steps: 4e-7 at W = 99, 9.6e-6 at 989, 1.1e-5 at
// 2,884, 4.3e-5 at 9,947; 128^2, 10,000 steps: 6e-8 at 99, 7e-7 at 298. The 1e-5 in
// 10,000 steps holds with a wide margin at 100, so shallow water stops there.
constexpr double kMaxShallowWaterWeight = 100;

class AdiModel : public Simulation {
  public:
    AdiModel(std::string model, std::vector<ParamSpec> specs, std::vector<std::string> scenarios,
             const std::string& solver);

    std::string model() const override { return model_; }
    std::string solver() const override { return solver_name_; }
    std::vector<std::string> scenarios() const override { return scenarios_; }
    std::string scenario() const override { return scenario_; }
    double time() const override { return time_; }
    std::int64_t steps_taken() const override { return steps_; }
    std::span<const ParamSpec> params() const override { return specs_; }
    using Simulation::set_params;
    void set_params(std::span<const std::pair<std::string, double>> values,
                    const std::string& scenario, int nx, int ny) override;
    void check_parameters(const std::string& scenario, int nx, int ny) const override;
    double param(const std::string& name) const override;
    double sweep_weight() const override { return implicit_weight(scenario_, nx_, ny_).value; }
    void reset(const std::string& scenario, int nx, int ny) override;
    void step(int count) override;
    int nx() const override { return nx_; }
    int ny() const override { return ny_; }
    Stats stats() override;
    std::int64_t first_bad_step() const override;
    std::string instability() const override;
    void set_field(std::span<const float> values) override;
    void set_fused_tuning(const FusedTuning& tuning) override {
        fused_tuning_ = tuning;
        fused_tuning_changed_ = true;
    }
    void save_state(const std::filesystem::path& path) const override;
    void load_state(const std::filesystem::path& path) override;

  protected:
    // Allocates every buffer for the grid and resolves the programs (nx_, ny_ are set). The
    // buffers are the ones buffer_needs() lists, which reset() and load_state() have checked.
    virtual void allocate() = 0;
    // Every buffer allocate() makes for an nx x ny grid, named as the user knows it ("heat's
    // T field"); the line solves' buffers come from line_solve_needs().
    virtual std::vector<gl::BufferNeed> buffer_needs(int nx, int ny) const = 0;
    // The line solves' buffers for an nx x ny grid, named for `model_`: the generic path's
    // right-hand side, a, b, c and its tridiagonal solver's scratch; on the fused path the
    // split y sweep's coarse system (none where the y sweep is one fused dispatch).
    std::vector<gl::BufferNeed> line_solve_needs(int nx, int ny) const;
    // Refuses (gl::CapacityError naming the size, the buffer and the limit) a grid whose buffers
    // the GPU cannot hold, before anything is allocated: the model keeps its grid and state.
    void check_capacity(int nx, int ny) const;
    // nx * ny floats in bytes (no overflow: the grid is at most 8192 x 8192).
    static std::uint64_t field_bytes(int nx, int ny) {
        return std::uint64_t(nx) * std::uint64_t(ny) * sizeof(float);
    }
    // Fills the state for scenario_ (buffers allocated).
    virtual void initialize() = 0;
    // One time step; steps_ already counts it (1-based index of this step).
    virtual void step_once() = 0;
    // A buffer of the saved state: one field (nx * ny floats), or `bytes` where it is not one.
    // One a model added later is `zero_if_missing`: a file saved before it existed loads with
    // that buffer zeroed (the model says beside it why that continues the run correctly, or
    // fills it in after load_state: state_had_buffer). A buffer whose GPU form differs from the
    // file's (`bytes` of it there) converts on the way: `to_file` from the buffer's bytes,
    // `from_file` back, for the grid as it is when they are called.
    struct StateBuffer {
        using Conversion = std::function<std::vector<char>(const std::vector<char>&)>;
        std::string name;
        gl::Buffer* buffer = nullptr;
        bool zero_if_missing = false;
        std::uint64_t bytes = 0;  // 0: one field
        Conversion to_file = nullptr, from_file = nullptr;
    };
    // Whether the state file the last load_state read had the buffer `name`.
    bool state_had_buffer(const std::string& name) const {
        return std::find(loaded_buffers_.begin(), loaded_buffers_.end(), name) !=
               loaded_buffers_.end();
    }
    // Every buffer of the state, by name, in a fixed order; the displayed field first.
    virtual std::vector<StateBuffer> state_buffers() = 0;
    virtual gl::Buffer& field_buffer() = 0;
    // What stats() adds to each cell of the field for the conserved total (shallow water's
    // compensation c: the volume it conserves is the sum of h + c), or nothing.
    virtual std::vector<float> total_compensation() const { return {}; }
    // The fewest rows on which the fused path's y half step takes the split solve
    // (split_y_sweep). Long columns cannot sit in one work group with their loads coalesced
    // (split_solve.glsl says why); on short ones the fused kernel's single dispatch wins. Heat
    // and advection split from 4096 rows; a model whose rows read more fields, from fewer
    // (docs/performance.md, issue 19's sections, "When the y half step splits").
    virtual int split_min_rows() const { return 4096; }
    // The fewest chunks of 8 cells on an x line from which the fused kernel's reduced system
    // takes the warp hierarchy (fused_shape): 1024 (lines past 4096 cells) for heat and
    // advection, whose x kernels lost with it at 4096 cells; a model whose x kernel won there
    // too, from 512.
    virtual int x_hierarchy_chunks() const { return 1024; }
    // The windowed half steps (heat: heat_scan.glsl's closed-form inverse; advection:
    // window_lines.glsl), the fused path wherever the parameters allow them. step() calls
    // resolve_window() whenever the parameters or the grid changed (window_ cleared first);
    // a model that has windows builds them there with build_window. Default: none.
    virtual void resolve_window() {}
    // Compiles the x and y window programs for halos `halo[0]` (x) and `halo[1]` (y), each
    // sweep's own (a 0: none), with FusedTuning's window shapes (CHUNK, WARPS, GROUP_SIZE,
    // HALO_LOW, HALO_HIGH, the model's specialization and `row` / `column` added) and sets their
    // work groups. Leaves window_ null, for the fused line solve in both directions, where the
    // tuning turns windows off, a halo is 0, or a shape's warm-up would leave nothing to store;
    // throws adilab::Error for a row chunk the x kernels' 16-byte loads cannot take, or a span
    // its work groups cannot hold. `shape`: the model's own, which the tuning's nonzero window_*
    // fields replace. `row_span`: the chunks an x window spans, 0 for window_lines.glsl's
    // kernels (ROW_WINDOW_CHUNKS, by the halo: row_window_chunks), heat's scans 32 (their layout).
    // `column_lanes`: the columns of a y window's work group, 0 by the halo (COLUMN_LANES,
    // column_lanes), 32 where the model's y kernels take them in 32s (heat's scans, shallow
    // water's sums).
    struct WindowShape {
        int row_chunk, row_warps, column_chunk, column_warps, row_span, column_lanes;
    };
    // A window's warm-up in positions before (low) and after (high) the ones it stores
    // (HALO_LOW, HALO_HIGH); 0 where the sweep takes no window.
    struct WindowHalo {
        int low = 0, high = 0;
    };
    void build_window(const std::array<WindowHalo, 2>& halo, const WindowShape& shape,
                      const std::string& row_shader, gl::Defines row,
                      const std::string& column_shader, gl::Defines column);
    // Window bands: where a sweep's lines need halos of their own (advection's vortex: the
    // velocity is the same along a line, and its speed and sign change from line to line), the
    // lines first .. first + count - 1 by a window with their halo (WINDOW_BAND; `first` a
    // multiple of 32 along y keeps a work group's loads on whole 128-byte lines). Every line of a
    // sweep in one band, all dispatched together behind one barrier (half_step).
    struct WindowBand {
        const gl::Program* program = nullptr;
        int first = 0, count = 0;
        WindowHalo halo;
        unsigned groups[2] = {};  // the window's work groups
        bool stream = false;      // a line stream (line_stream.glsl) instead of windows
    };
    // A window band of the lines first .. first + count - 1 of `direction` with `halo` and the
    // shape `own` (the tuning's nonzero window_* fields replace it); its program null where a
    // halo is 0, the tuning turns windows off or the shape's warm-up would leave nothing to
    // store. `defines`: the model's (DIRECTION, KERNEL_WINDOW, ...).
    WindowBand window_band(int direction, const WindowHalo& halo, int first, int count,
                           const WindowShape& own, const std::string& shader,
                           gl::Defines defines) const;
    // A line stream over the lines first .. first + count - 1 of `direction` (line_stream.glsl:
    // a work group walks its lines end to end, the forward recurrence carried exactly between its
    // segments, so no warm-up upstream), `halo` in the frame of the lines' flow (low upstream),
    // the window's chunk and subgroups of the direction from `own` and the tuning (along y 32
    // columns a group, or the tuning's lanes; along x a row a group); its program null where the
    // tuning turns windows off or the warm-up downstream would leave nothing to store.
    // `defines`: the model's, with LINE_STREAM. `sweep_lines`: the lines of every stream of the
    // sweep, all resident together (their work groups' size along y).
    WindowBand stream_band(int direction, const WindowHalo& halo, int first, int count,
                           const WindowShape& own, const std::string& shader, gl::Defines defines,
                           int sweep_lines) const;
    // The bands of each sweep (empty: the sweep takes window_ or the line solve).
    std::vector<WindowBand> bands_[2];
    // "window-H<halo>", the halos "<low>/<high>" where they differ, "<x>,<y>" where the sweeps'
    // differ; with window bands "window-bands-H" and each sweep's bands' "<low>/<high>" (a line
    // stream's "stream<low>/<high>"), with a line stream for each sweep "scan-streams-H<x>,<y>";
    // "scan" for "window" where the windows solve by scans (window_scan_).
    std::string kernel() const override;
    // A guarded window: one whose halo holds only while a quantity of the state stays under a
    // limit that the state itself may pass (shallow water: the depth, which the waves pile up).
    // The GPU measures the quantity every step, and half_step dispatches the window and the
    // line solve both; the model's kernels write sweep_arguments_, the window's work groups
    // while the limit holds and the line solve's once it does not (the other's zero): no
    // read-back, no host decision a step. Up to 1024^2 cells (guards_by_storage) both are
    // dispatched whole, and their kernels read their entry as storage and end where it is zero
    // (SWEEP_SKIPPED, which the model's kernels define where guards_by_storage()): the kernels
    // that choose then need no GL_COMMAND_BARRIER_BIT behind them (sweep_choice_barrier); on
    // larger grids both are dispatched from their entry's counts. guard_window() (after
    // build_window) fills the buffer's second half, every dispatch's full work groups, which
    // the model's kernels copy from; the model allocates the buffer (kSweepArgumentWords) and
    // binds it for them. Layout, uints: kSweepEntries entries of three counts (0 the x window,
    // 1 the x line solve, 2 the y window, 3 .. 5 the y line solve: the fused kernel in 3, or
    // the split solve's three stages), the same entries full, then the number of steps that
    // took the line solve (kLineSolveSteps).
    static constexpr int kSweepEntries = 6;
    static constexpr int kLineSolveSteps = 2 * 3 * kSweepEntries;
    static constexpr int kSweepArgumentWords = kLineSolveSteps + 1;
    void guard_window();
    bool window_guarded_ = false;
    bool guard_by_storage_ = false;
    // Whether the grid is one whose guarded sweeps read their choice as storage.
    bool guards_by_storage() const;
    // Sweep entry `entry` of a guarded window, whole (guard_by_storage_) or from its counts.
    void dispatch_guarded(int entry, unsigned x, unsigned y) const;
    // The barrier behind a kernel that writes sweep_arguments_ for the next sweeps.
    gl::Barrier sweep_choice_barrier() const {
        return guard_by_storage_ ? gl::Barrier::storage
                                 : gl::Barrier::storage | gl::Barrier::command;
    }
    // Whether the y half step's line solve takes the split solve (split_), or the fused kernel's
    // one dispatch; `guarded`: dispatched behind a guarded window.
    bool splits_y_line_solve(bool guarded) const;
    gl::Buffer sweep_arguments_;
    const gl::Program* window_[2] = {};
    unsigned window_groups_[2][2] = {};  // (along, across) work groups per direction
    int window_warps_[2] = {};           // subgroups of 32 invocations in a work group
    int window_chunk_[2] = {};           // positions an invocation (CHUNK)
    std::array<WindowHalo, 2> window_halo_ = {};
    // Whether the model's windows and bands solve by scans (window_scan.glsl, rows of one set a
    // line) rather than as general lines (window_lines.glsl): the model's resolve_window sets it.
    bool window_scan_ = false;
    std::uint64_t window_version_ = 0;  // the version_ window_ was resolved for

    // Compile-time choices of the model's kernels for its current parameters and scenario
    // (#defines added to every program of resolve_programs): a term the parameters leave out of
    // every row, such as the explicit half across the line where the scheme has none, is left
    // out of the compiled kernel too. Behind a uniform branch its loads and registers stayed:
    // docs/performance.md (2026-11-26, night) has what that cost. step() rebuilds the programs
    // when the choice changes (each choice compiled once, then cached). Empty by default.
    virtual gl::Defines specialization() const { return {}; }
    // Whether the generic path finishes the half step of `direction` with a KERNEL_FINISH
    // kernel (turning the Solver's solution into the new state), or the solution is the state.
    virtual bool has_finish(int) const { return true; }
    virtual void after_set_field() {}
    virtual double time_step() const { return param("dt"); }

    // The implicit weight W of the model's sweeps for the current parameters on an nx x ny grid
    // of `scenario` (check_parameters), the largest the scheme supports, and for the message how
    // W is computed and what lowers it: {.., "c dt / dh^2", "lower dt or c, or raise dh"}.
    struct ImplicitWeight {
        double value = 0;
        double limit = kMaxImplicitWeight;
        std::string formula;
        std::string remedy;
        std::string past_it;  // what fails past the limit, where it is not the default reason
    };
    virtual ImplicitWeight implicit_weight(const std::string& scenario, int nx, int ny) const = 0;

    // The stability check's bounds on the field (adi_common.glsl, check_value): a value outside
    // is growth that no correct run can reach. Derived by each model from its inputs: the hull of
    // every value its field was given (range_low_ .. range_high_), its parameters and sources.
    struct FieldBounds {
        double low = -std::numeric_limits<double>::infinity();
        double high = std::numeric_limits<double>::infinity();
        std::string why;  // for the message: "the maximum principle's range plus 0.1%"
    };
    virtual FieldBounds field_bounds() const { return {}; }
    // The hull of the values the field was given: set from the start, --init, a loaded state;
    // widened by brush strokes (and by a model for what it pins, e.g. heaters).
    double range_low_ = 0, range_high_ = 0;
    // Sets the hull to the finite values of `values` (NaN left for the check to find).
    void set_range_from(std::span<const float> values);
    // Widens the hull by a bump of `strength` added anywhere.
    void widen_range(double strength);

    bool fused() const { return solver_ == nullptr; }
    std::size_t cells() const { return std::size_t(nx_) * std::size_t(ny_); }
    unsigned cell_groups() const { return unsigned((cells() + 255) / 256); }
    // Sets nx, ny, step_index on `program` (after use()).
    void set_grid_uniforms(const gl::Program& program) const;
    void set_step_uniform(const gl::Program& program) const;
    // Whether `program` (after use()) needs its uniforms set: true when another model set them
    // last, or when this model's parameters or grid changed since. Keeps a step's host work at
    // a few GL calls (the fused heat step is ~20 us on the GPU).
    bool uniforms_stale(const gl::Program& program) const;
    // The model's own uniforms (parameters, sources) on `program` (after use()).
    virtual void set_uniforms(const gl::Program& program) const = 0;
    // Uses `program`, sets the grid and model uniforms if they are stale, and the step index;
    // returns whether they were stale.
    bool use_program(const gl::Program& program) const;
    // use_program with the fused program of `direction` (0 = x, 1 = y).
    bool use_fused(int direction) const { return use_program(*fused_[direction]); }
    void parameters_changed();
    // Sets values_ for `name` after its range check (no combination check); throws adilab::Error.
    void assign_param(const std::string& name, double value);
    void bind_flag() const { flag_.bind_storage(7); }
    // Sets bound_low / bound_high on `program` (after use()): every use, since a model with a
    // source widens them as it runs (two uniforms, no read-back).
    void set_bound_uniforms(const gl::Program& program) const;
    // Adds the brush's bump to `first` (and `second`); `non_negative`: a negative bump removes
    // only what is there (a concentration never goes below zero).
    void dispatch_brush(const Brush& brush, gl::Buffer& first, gl::Buffer* second,
                        bool non_negative = false);
    void clear_flag();

    std::string model_;
    std::vector<ParamSpec> specs_;
    std::vector<double> values_;
    std::vector<std::string> scenarios_;
    std::string solver_name_;
    std::unique_ptr<tridiag::Solver> solver_;
    std::string scenario_;
    std::string terrain_ = "flat";
    int nx_ = 0, ny_ = 0;
    std::int64_t steps_ = 0;
    double time_ = 0;
    gl::Buffer flag_;             // int first_bad_step (0x7fffffff while stable), int bad_kinds
    gl::QueueBound queue_bound_;  // step(): fences that bound the work queued ahead
    // Resolves the model's programs from one shader file for both directions, with the
    // model's specialization(): on the fused path the fused half step (`tile` as for
    // fused_shape) and the split y sweep where it splits; on the generic path the right-hand
    // side (KERNEL_ROWS) and finishing (KERNEL_FINISH, where has_finish) kernels. Called by
    // allocate(), and by step() when the specialization changed.
    void resolve_programs(const std::string& shader, int tile);
    // A model's own programs beyond the half steps', resolved with specialization_ at the end
    // of every resolve_programs. Default: none.
    virtual void resolve_model_programs() {}
    // Per direction (0 = x, 1 = y): the fused half-step programs and their work-group counts,
    // and the generic path's kernels (null where the path or the model has none).
    const gl::Program* fused_[2] = {};
    unsigned fused_groups_[2] = {};
    FusedTuning fused_tuning_;
    bool fused_tuning_changed_ = false;  // the next reset() rebuilds the programs
    // The fused path's split y half step (split_y_sweep): reduce, coarse and substitute
    // programs (null where the y half step is one fused dispatch), their shape, and the coarse
    // system (binding 13).
    const gl::Program* split_[3] = {};
    tridiag::SplitShape split_shape_;
    gl::Buffer coarse_;
    const gl::Program* rows_[2] = {};
    const gl::Program* finish_[2] = {};
    std::uint64_t version_ = 0;  // unique over all models; changes with parameters and grid
    // What resolve_programs was given and built, and the version_ step() last compared the
    // specialization at.
    std::string program_shader_;
    int program_tile_ = 0;
    gl::Defines specialization_;
    std::uint64_t specialization_version_ = 0;

    // One ADI half step along `direction` (0 = x, 1 = y) from `in` into `out`, the same for
    // every model and either path; a model supplies only its bindings (bind_sweep), its
    // uniforms (set_uniforms) and, on the generic path, where the solution goes
    // (sweep_solution).
    //  - fused: the window kernel where resolve_window built one (in at 0, and along x at 4 as
    //    vec4s; out at 1); else one dispatch of fused_[direction], rows built and solved in
    //    registers; or, for the y half step where split_y_sweep says so, the three dispatches of
    //    split_.
    //  - generic: rows_[direction] writes every cell's a, b, c and right-hand side (general
    //    coefficients, since a model's rows may differ from line to line: heaters, upwind
    //    velocities, depths), the tridiagonal Solver solves the lines, and finish_[direction],
    //    where there is one, turns the solution into the half step's result and checks it.
    void half_step(int direction, const gl::Buffer& in, gl::Buffer& out);
    // The fields a half step's kernels read and write (the fused, rows and finishing kernels
    // bind the same), besides the coefficients (3 .. 6) and the flag (7): by default `in` at
    // binding 0 and `out` at 1.
    virtual void bind_sweep(int direction, const gl::Buffer& in, gl::Buffer& out);
    // Where the generic path's Solver writes the lines' solution: `out`, unless the model's
    // finishing kernel reads it from elsewhere.
    virtual gl::Buffer& sweep_solution(int direction, gl::Buffer& out);
    // The y half step by the split solve's three dispatches (split_), for the groups of 32
    // columns first_line_group .. first_line_group + line_groups - 1 (line_groups 0: every
    // column); `guarded`: every column, the work groups from sweep_arguments_.
    void split_half_step(const gl::Buffer& in, gl::Buffer& out, unsigned first_line_group = 0,
                         unsigned line_groups = 0, bool guarded = false);
    // The line solve of a half step (fused_ or split_, splits_y_line_solve), dispatched directly
    // or, with `guarded`, from sweep_arguments_.
    void line_solve_half_step(int direction, const gl::Buffer& in, gl::Buffer& out, bool guarded);
    // The half step by bands_[direction].
    void banded_half_step(int direction, const gl::Buffer& in, gl::Buffer& out);
    // The window's shape: the model's `own`, with the tuning's nonzero window_* fields.
    WindowShape window_shape(const WindowShape& own) const;
    // The chunks an x window of `halo` spans in `shape`: its row_span, or where that is 0 the
    // fewest of 32, 64 and 128 (whole subgroups, as many as a work group holds) whose warm-up is
    // at most a quarter of them.
    int row_window_chunks(const WindowHalo& halo, const WindowShape& shape) const;
    // The columns of a y window of `halo` in `shape`: its column_lanes, or where that is 0 16
    // where the warm-up is over a quarter of a window of 32 columns' chunks (column_warps; 16
    // columns stack twice as many), else 32.
    int column_lanes(const WindowHalo& halo, const WindowShape& shape) const;
    // The chunks a y window stacks down its columns: its work group's invocations over them.
    int column_window_chunks(const WindowHalo& halo, const WindowShape& shape) const;
    // Whether a window of `halo` along `direction` leaves chunks to store in `shape`.
    bool window_fits(int direction, const WindowHalo& halo, const WindowShape& shape) const;
    // The window kernel of `shader` with `defines`, the shape's and the specialization's.
    const gl::Program& window_program(int direction, const WindowHalo& halo,
                                      const WindowShape& shape, const std::string& shader,
                                      gl::Defines defines) const;
    // The window's work groups for `lines` lines of `direction`.
    void window_groups(int direction, const WindowHalo& halo, const WindowShape& shape, int lines,
                       unsigned groups[2]) const;

  private:
    void generic_half_step(int direction, const gl::Buffer& in, gl::Buffer& out);
    // allocate(), and the generic path's systems with it.
    void allocate_grid();
    std::vector<std::string> loaded_buffers_;  // the last loaded state file's (state_had_buffer)
    // The generic path's systems, per cell in the field's layout (allocated only when a
    // tridiagonal Solver runs): the rows kernel writes them, the Solver reads them.
    gl::Buffer sweep_a_, sweep_b_, sweep_c_, sweep_rhs_;
};

// Checks a model name against the list of scenarios; throws adilab::Error listing them.
void check_scenario(const std::string& model, const std::vector<std::string>& known,
                    const std::string& scenario);

// Bottom heights for a terrain preset (flat, slope, island, basin, png, png:FILE), relative to a
// still water level `level`: nx * ny values. Throws adilab::Error for an unknown preset or an
// unreadable PNG.
std::vector<float> make_terrain(const std::string& name, int nx, int ny, float level);
std::vector<std::string> terrain_presets();

std::unique_ptr<Simulation> make_heat(const std::string& solver);
std::unique_ptr<Simulation> make_advection(const std::string& solver);
std::unique_ptr<Simulation> make_shallow_water(const std::string& solver);

}  // namespace adilab::sim::detail
