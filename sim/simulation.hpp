#pragma once
// The simulation interface (Kim & Lee 2005, §2). A model holds its state in GPU buffers from
// reset() on; step() is a fixed sequence of dispatches with no host read-back. The viewer samples
// the same buffers; stats() is the only read-back and is for diagnostics, reports and tests.
//
// Grid: cell-centred. Cell (i, j) has its centre at ((i + 0.5) dh, (j + 0.5) dh); the domain is
// nx dh by ny dh with walls at its edges. Every field is nx * ny float32, element (i, j) at
// j * nx + i (row j = y index), which is also the .npy layout (shape (ny, nx)).
//
// Models (make_simulation): "heat" (T), "advection" (C), "shallow-water" (h, surface height).
// Solvers: "fused" (default: the explicit half step fused into a shared-memory line solve, one
// dispatch per half step) or any GPU tridiagonal variant of solvers/tridiagonal (the generic
// path: an explicit right-hand-side kernel, then Solver::solve).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "solvers/common/tuning.hpp"
#include "solvers/gl/objects.hpp"

namespace adilab::sim {

struct ParamSpec {
    std::string name;
    std::string unit;
    std::string help;
    double default_value = 0, min = 0, max = 0;
    // An enumerated parameter (a scheme): the value is an index into these names, min = 0 and
    // max = choices.size() - 1. Empty for a number.
    std::vector<std::string> choices = {};
    // The scenarios the parameter matters to (the viewer shows only those; the rest behind
    // "all parameters"); empty: every scenario. "= {}" keeps the models' brace lists without it
    // free of -Wmissing-field-initializers.
    std::vector<std::string> scenarios = {};
};
// The value of `spec` written as `text`: a choice's name (or its index), else a number.
// Throws adilab::Error naming the parameter and quoting the text when it is neither, or when
// it is outside the parameter's range.
double parse_param_value(const ParamSpec& spec, const std::string& text);

// The largest implicit weight W of a sweep's diagonal 1 + W (check_parameters) for the implicit
// Euler sweeps and shallow water; Peaceman–Rachford stops lower (sim/model.hpp says why). An
// fp32 solve conserves the field only up to a backward error of about 2^-24 (1 + W) of what a
// step moves: at W = 1e4 below 1e-3 a step in the worst case. Measured (64^2, 2,000 steps from a
// random start), the worst drift is advection pushed into a wall, 3e-6 a step; heat and shallow
// water stay below 1e-7. At W = 1e9 heat gains 8% in 200 steps and shallow water meets NaN.
constexpr double kMaxImplicitWeight = 1e4;

struct Stats {
    double time = 0;  // simulated seconds
    std::int64_t steps = 0;
    float min = 0, max = 0;
    // Total heat / mass / volume (sum over cells), for conservation checks; shallow water's is
    // the sum of h + c, its heights with their compensation (shaders/sim/shallow_water.comp,
    // "Compensated heights"): the sum of h alone differs from it by up to half an ulp a cell,
    // which on 8192^2 moved the total by 2e-8 of itself while h + c kept it.
    double sum = 0;
    bool stable = true;  // false once a NaN, an Inf or a value outside the bounds appeared
    // The first step (1-based: the field after that many steps) whose field held a NaN, an Inf
    // or a value outside the model's bounds, as flagged on the GPU; -1 while stable.
    std::int64_t first_bad_step = -1;
    // What went wrong, for messages ("T became NaN or infinite", "T left [0, 1.1] K, ..."),
    // empty while stable.
    std::string instability;
};

// How the advected quantity moves, for the viewer's overlay (arrows / streamlines).
// Velocity at a point (x, y) in metres: uniform -> (u, v); rotation -> omega * (-(y - cy), x - cx).
struct Velocity {
    enum class Kind { uniform, rotation };
    Kind kind = Kind::uniform;
    float u = 0, v = 0;                // m/s (uniform)
    float omega = 0;                   // rad/s (rotation)
    float center_x = 0, center_y = 0;  // m (rotation)
};

// A brush stroke from the viewer. Heat: adds strength (K) at the centre, a Gaussian of the
// radius; advection: adds pollutant the same way; shallow water: raises (strength > 0, a drop)
// or pushes down (strength < 0) the surface, volume added = what the brush paints. One GPU
// dispatch; no read-back.
struct Brush {
    float center_x = 0, center_y = 0;  // in cells (0.5 = centre of the first cell)
    float radius = 4;                  // in cells
    float strength = 1;                // field units at the centre
};

// The fused line solve's explicit knobs (sim/model.cpp: fused_shape; `--tune fused.FIELD=V`).
// 0 leaves a choice to the rule beside it in fused_shape (from the line length and the device's
// shared memory and subgroups); docs/performance.md has the measurements behind the rules.
struct FusedTuning {
    int chunk = 0;  // cells per invocation: 4, 8, 16 or 32 (0: by line length)
    int lines = 0;  // lines per work group (0: as many as fit, at most 8)
    // reduced system: 0 by line length, 1 subgroup solve, 2 shared-memory PCR, 3 warp hierarchy
    int solve = 0;
    int tile = 0;  // x rows through shared memory: 0 where it pays, 1 wherever it fits, 2 never
    int subgroups = 1;  // 1: subgroup operations where the device has them, 0: shared memory
    int store4 = 1;     // 1: the x half step's untiled rows leave in 16-byte stores, 0: 4-byte
    // Heat with heaters: 0 by grid size (window + exact solve of the heaters' lines on large
    // grids, the exact solve everywhere on small ones), 1 the window + heater lines wherever a
    // window exists, 2 the exact solve everywhere.
    int heater_lines = 0;
    // The y half step by the split solve (three dispatches, 32 columns a work group, a coarse
    // system in memory): 0 by line length, 1 always, 2 never (the one-dispatch fused kernel);
    // its unknowns per invocation and chunks per work group.
    int split = 0;
    int split_chunk = 8;
    int split_warps = 4;
    // The windowed half steps (heat: heat_scan.glsl; advection, shallow water: window_lines.glsl):
    // 1 wherever the implicit weight allows them, 0 never (the exact line solve); positions a lane
    // and subgroups a work group along x, rows an invocation and subgroups a work group along y (0:
    // the model's own shape, AdiModel::WindowShape).
    int window = 1;
    int window_row_chunk = 0;
    int window_row_warps = 0;
    int window_column_chunk = 0;
    int window_column_warps = 0;
    // Advection and shallow water: the chunks an x window spans, 32, 64 or 128 (0: by the halo,
    // AdiModel::row_window_chunks).
    int window_row_span = 0;
    // Advection: the columns of a y window's work group, 16 or 32 (0: by the halo,
    // AdiModel::column_lanes).
    int window_column_lanes = 0;
    // Advection's vortex, where its lines need window bands: 2 both sweeps by line streams
    // (line_stream.glsl), 1 the y sweep only, 0 neither (the bands' windows).
    int line_streams = 2;
    // Advection's vortex: a sweep takes line streams only where it has at least this many lines
    // (0: on any grid; sim/advection.cpp, Advection::streams, says why 2048).
    int line_stream_lines = 2048;
    // Shallow water: settling's work groups at most, which claim its tiles (32 cells by 4 or 8 of
    // the y window's chunks, 32 x 40 by default) until none is left; one on a CPU renderer
    // (sim/shallow_water.cpp, settle_dispatch_groups, says why).
    int settle_groups = 1024;
    // Shallow water: on grids of at most this many cells its guarded sweeps are dispatched whole
    // and read the guard's choice as storage, so that settling needs no command barrier (0: never;
    // sim/model.cpp, AdiModel::guards_by_storage, says why 1024^2).
    int guard_storage_cells = 1024 * 1024;
};
std::vector<TuningField> tuning_fields(FusedTuning& tuning);

class Simulation {
  public:
    virtual ~Simulation() = default;
    virtual std::string model() const = 0;
    virtual std::string solver() const = 0;
    // The fused kernel's knobs; they take effect at the next reset(). Models without the fused
    // kernel ignore them.
    virtual void set_fused_tuning(const FusedTuning&) {}
    // The kernels the last step ran (diagnostics, tests): solver() unless a model picks among
    // several for one solver (heat's `fused`: "window-H<halo>" or "fused").
    virtual std::string kernel() const { return solver(); }
    virtual std::vector<std::string> scenarios() const = 0;
    virtual std::string scenario() const = 0;  // the one of the last reset
    virtual std::span<const ParamSpec> params() const = 0;
    // Sets parameters together: each is checked against its range, then their combination
    // against what fp32 can solve (check_parameters) on the current grid and scenario, or on an
    // nx x ny grid of `scenario` where the reset that follows starts a run of them (--set, a
    // preset or saved settings before the run's first reset: the vortex's weight depends on its
    // grid), so that the order of `--set dt=1e5 --set dh=10` does not matter. Throws
    // adilab::Error naming the parameter and its valid range, or the combination and why; on any
    // error none of them changes. Takes effect at the next step (no reset needed);
    // geometry-only source parameters apply at the next reset.
    void set_params(std::span<const std::pair<std::string, double>> values);
    virtual void set_params(std::span<const std::pair<std::string, double>> values,
                            const std::string& scenario, int nx, int ny) = 0;
    void set_param(const std::string& name, double value);
    // set_params from the user's text (--set name=text, presets): a choice by name or a number,
    // parsed strictly (parse_param_value). Throws adilab::Error naming the parameter.
    void set_params_text(std::span<const std::pair<std::string, std::string>> texts);
    void set_params_text(std::span<const std::pair<std::string, std::string>> texts,
                         const std::string& scenario, int nx, int ny);
    void set_param_text(const std::string& name, const std::string& text);
    // Throws adilab::Error when the parameters, together, ask more than an fp32 line solve can
    // give on an nx x ny grid of `scenario`: a sweep's matrix has the diagonal 1 + W with W the
    // implicit weight (heat 2 c dt / dh^2, advection dt (|velocity| / dh + 2 D / dh^2), shallow
    // water g dt^2 depth / dh^2; half of it for Peaceman–Rachford), and past kMaxImplicitWeight
    // the fp32 diagonal keeps too little of its 1 for the solve to conserve the field (lower
    // limits for Peaceman–Rachford, whose explicit half step amplifies round-off by W). reset()
    // checks it, set_params on the current grid.
    virtual void check_parameters(const std::string& scenario, int nx, int ny) const = 0;
    // The implicit weight W of the current parameters, grid and scenario (a sweep's diagonal is
    // 1 + W; check_parameters): fp32 round-off of a step scales with 1 + W, so tolerances on the
    // total (tests, --bench soak) do too.
    virtual double sweep_weight() const = 0;
    // Whether `scenario` adds or takes away its quantity as it runs (heat's heaters, advection's
    // sources, shallow water's push and drops). A scenario without sources keeps its total
    // (Stats::sum) up to fp32 round-off.
    virtual bool has_sources(const std::string& scenario) const = 0;
    virtual double param(const std::string& name) const = 0;

    // Terrain presets (shallow water: "flat", "slope", "island", "basin", "png"); empty for
    // models without a bottom. The choice applies at the next reset; set_terrain throws Error for
    // an unknown name and files::InputError for a height map ("png:FILE") it cannot read.
    virtual std::vector<std::string> terrains() const { return {}; }
    virtual void set_terrain(const std::string& name);
    virtual std::string terrain_name() const { return {}; }

    // The simulated time (seconds) and the steps taken since the last reset, or those of a
    // loaded state: kept on the host, so the viewer can follow them every frame without the
    // read-back stats() makes.
    virtual double time() const = 0;
    virtual std::int64_t steps_taken() const = 0;

    // Throws adilab::Error for an unknown scenario or a grid outside 4 .. 8192.
    virtual void reset(const std::string& scenario, int nx, int ny) = 0;
    virtual void step(int count) = 0;
    virtual int nx() const = 0;
    virtual int ny() const = 0;
    // The drawn field (T, C or h): nx * ny float32, element (i, j) at j * nx + i. May be a
    // different buffer after step() (ping-pong): ask again each frame.
    virtual const gl::Buffer& field() const = 0;
    // Bottom height b (shallow water), nx * ny float32, or nullptr.
    virtual const gl::Buffer* terrain() const { return nullptr; }
    // The advecting velocity (advection), or nothing.
    virtual std::optional<Velocity> velocity() const { return std::nullopt; }
    virtual void apply_brush(const Brush& brush) = 0;
    // Replaces the field (nx * ny values); shallow water also sets the previous height to it
    // (a still start). Throws adilab::Error on a size mismatch.
    virtual void set_field(std::span<const float> values) = 0;
    std::vector<float> read_field() const { return field().read<float>(std::size_t(nx()) * ny()); }
    // Reads the whole field back (min/max/sum): for reports, tests and a panel refreshed now
    // and then, not for every frame.
    virtual Stats stats() = 0;
    // The first step whose result held a NaN, an Inf or a value outside the model's bounds (the
    // GPU's stability flag: a small read), or -1 while the run is stable.
    virtual std::int64_t first_bad_step() const = 0;
    // What the stability check found: "" while stable, else the quantity and what was wrong
    // with it ("h became NaN or infinite", "T left its bounds [0, 1.1] K (...)").
    virtual std::string instability() const = 0;

    // Every GPU buffer of the state, every parameter, time and step count, so that load_state
    // continues bit-identically. Throws adilab::Error naming the file on failure (or, for load,
    // a state of another model).
    virtual void save_state(const std::filesystem::path& path) const = 0;
    virtual void load_state(const std::filesystem::path& path) = 0;
};

struct ModelInfo {
    std::string name;
    std::string summary;
    std::string field_name;  // "T", "C", "h"
    std::string field_unit;
    // The least a step must move, in fields of nx ny floats, for its effective bandwidth: its
    // state read once and written once, and the intermediate between the two sweeps written and
    // read. Heat and advection: the field and the intermediate, 4 (the velocity and the heaters
    // are computed, not read); shallow water: h, v, c and the bottom read, h, v, c written, and
    // the intermediate, 9.
    int least_fields_per_step = 0;
};
std::span<const ModelInfo> models();
// The model named `name`; throws adilab::Error listing the models for an unknown one.
const ModelInfo& model_info(const std::string& name);
// "fused" first (the default), then every GPU tridiagonal variant.
std::vector<std::string> solver_names();
// Whether `solver` can step `model`: the conjugate-gradient variants (cg, cg-1, cg-2) need
// symmetric positive definite lines, which heat and shallow water have and upwind advection
// has not. cg-1 and cg-2 run a fixed 1 or 2 iterations (the paper's Fig. 11 comparison): they
// run in every symmetric model but only approximate its solve. `why` gets the reason.
bool solver_supports(const std::string& model, const std::string& solver,
                     std::string* why = nullptr);
// Throws adilab::Error naming the unknown model or solver and listing the known ones. Needs a
// current GL context. The simulation starts reset to its first scenario at 256 x 256.
std::unique_ptr<Simulation> make_simulation(const std::string& model,
                                            const std::string& solver = "fused");

// .npy float32 arrays, shape (ny, nx), C order (the field layout).
struct NpyArray {
    int nx = 0, ny = 0;
    std::vector<float> values;
};
// Throws adilab::Error naming the file and the problem (not .npy, not float32/float64, not 2-D,
// Fortran order). float64 files are converted.
NpyArray read_npy(const std::filesystem::path& path);
void write_npy(const std::filesystem::path& path, int nx, int ny, std::span<const float> values);

}  // namespace adilab::sim
