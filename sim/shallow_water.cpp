// Model "shallow-water": Kass & Miller (1990), "Rapid, stable fluid dynamics for computer
// graphics", as GPU Gems 2 runs it. Kernels: shaders/sim/shallow_water.comp (its header derives
// the volume balance and the wet/dry treatment). State: the surface height h = h^{n-1}, the last
// change v = h^{n-1} - h^{n-2} (the round-off-safe form of Kass & Miller's two previous heights,
// see the shader), the bottom b and c, the rounding error of every write of h (compensated sums,
// see the shader). A step: this step's disturbance, if any, displaces h (v
// unchanged); the x sweep (h, v -> dx); the y sweep (dx -> wet = h + dv into the second height
// buffer, v = dv in place), which becomes h^n: the two height buffers swap every step. Then the
// sums that the next step needs (the mean velocity it takes out of v, the scheme's neutral mode,
// see the shader; the deepest cell): the y window forms them as it stores, unless a cell came
// out below its bottom, where settling runs (dry cells' deficits taken back from their
// neighbours, h and v alike, in place) and sums the settled state. On the fused path both sweeps
// run in decay windows while the water is shallow enough for their halo, which the GPU checks
// every step (resolve_window), and a bottom the same everywhere is compiled in as a uniform
// (FLAT_BOTTOM).
// Scenarios:
//   diagonal-push — a calm sheet at `level`, raised along the domain's diagonal by push_strength
//                   each step for push_steps steps: a diagonal wave either side (Fig. 19);
//   drops         — a drop every drop_interval steps at a pseudo-random place: ring waves;
//   dam-break     — the left third raised by dam_height at rest;
//   free          — flat bottom, the field from --init (else `level`).
// Every disturbance adds its own volume once (the sum of its bump, less what a dent would dig
// out of dry ground); after it the volume sum(h) is constant up to fp32 round-off.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

#include "sim/compensation.hpp"
#include "sim/model.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim::detail {
namespace {

// A reproducible position for drop number `n` (splitmix64).
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// A displacement of the surface (shaders/sim/shallow_water.comp, KERNEL_DISPLACE).
struct Bump {
    int shape = 0;  // 0 none, 1 band along the diagonal, 2 round
    float strength = 0, width = 1;
    glm::vec2 center{0};
};

class ShallowWater final : public AdiModel {
  public:
    explicit ShallowWater(const std::string& solver)
        : AdiModel(
              "shallow-water",
              {{"g", "m/s^2", "gravity", 9.81, 1e-6, 1e6},
               {"dt", "s",
                "time step (implicit): stable while the weight g dt^2 depth / dh^2 is at most 100 "
                "(depth: the level plus the dam's or a drop's height; dt 2.6 s at the defaults); a "
                "larger one is refused: past it fp32 no longer conserves the volume",
                0.05, 1e-9, 1e6},
               {"dh", "m", "cell size", 1.0, 1e-9, 1e9},
               {"damping", "1",
                "tau: (1 - tau)(h^{n-1} - h^{n-2}) in the right-hand side; 0 keeps the waves, > 0 "
                "lets the surface come to rest",
                0.0, 0.0, 1.0},
               {"level", "m", "still water level (surface height at rest)", 1.0, 0.0, 1e6},
               {"push_strength",
                "m/step",
                "diagonal push: how much the surface along the diagonal is raised each step (a "
                "displacement; adds its volume once)",
                0.004,
                -1e3,
                1e3,
                {},
                {"diagonal-push"}},
               {"push_width",
                "cells",
                "half width of the diagonal push",
                4.0,
                0.1,
                1e5,
                {},
                {"diagonal-push"}},
               {"push_steps",
                "steps",
                "how long the diagonal push lasts",
                50.0,
                0.0,
                2e9,
                {},
                {"diagonal-push"}},
               {"drop_interval", "steps", "steps between drops", 200.0, 1.0, 2e9, {}, {"drops"}},
               {"drop_height",
                "m",
                "height of a drop's bump (negative: a dent; never digs below the bottom)",
                -0.05,
                -1e3,
                1e3,
                {},
                {"drops"}},
               {"drop_radius", "cells", "radius of a drop", 3.0, 0.1, 1e5, {}, {"drops"}},
               {"dam_height",
                "m",
                "dam-break: how much higher the left third starts",
                0.5,
                -1e6,
                1e6,
                {},
                {"dam-break"}}},
              {"diagonal-push", "drops", "dam-break", "free"}, solver) {}

    const gl::Buffer& field() const override { return height_; }
    // The push and the drops add water; a dam break and a free surface only move it.
    bool has_sources(const std::string& scenario) const override {
        return scenario == "diagonal-push" || scenario == "drops";
    }
    const gl::Buffer* terrain() const override { return &bottom_; }
    std::vector<std::string> terrains() const override { return terrain_presets(); }
    void set_terrain(const std::string& name) override {
        const auto known = terrain_presets();
        // An unknown name throws listing the presets; a height map is read whole now, so that a
        // missing or broken file is named before any buffer is allocated.
        if (std::find(known.begin(), known.end(), name) == known.end())
            make_terrain(name, 4, 4, 1.0f);
        terrain_ = name;
    }
    std::string terrain_name() const override { return terrain_; }
    // Displaces the surface without giving it a velocity (v unchanged): adds the painted volume
    // once (a dent takes no more than the water above the bottom).
    void apply_brush(const Brush& brush) override {
        if (!(brush.radius > 0) || !std::isfinite(brush.strength)) return;
        displace({2, brush.strength, brush.radius, glm::vec2(brush.center_x, brush.center_y)});
        gl::memory_barrier(gl::Barrier::buffer_update);
    }

  protected:
    std::vector<float> total_compensation() const override {
        return decode_compensation(compensation_.read<std::uint32_t>(compensation_words(nx_, ny_)),
                                   nx_, ny_);
    }
    // Each y row reads h, b and the x sweep's result, and the fused kernel's groups of 8
    // columns take 32 bytes of each row: at 2048 rows the split solve's 32 columns a group ran
    // a step 7% faster on the H100 and the H200; advection and heat lost there.
    int split_min_rows() const override { return 2048; }
    // The warp hierarchy from x lines of 512 chunks (past 2048 cells): at 4096^2 a step ran 5-6%
    // faster with it on the H100 and the H200 (x kernel 0.251 -> 0.208 ms on the H100), where
    // heat's and advection's x kernels ran 15% slower.
    int x_hierarchy_chunks() const override { return 512; }
    // x: the generic path's solve writes dx straight into the intermediate, which is all the x
    // half step makes; nothing to finish.
    bool has_finish(int direction) const override { return direction != 0; }
    gl::Buffer& field_buffer() override { return height_; }
    // A sweep's row (Kass & Miller's eq. 14 with d the depth at each edge): 1 + g dt^2
    // (d_left + d_right) / (2 dh^2) on the diagonal. The depth is at most the still level, the
    // dam's extra height and a drop's bump above a bottom at 0 (every terrain preset lies between
    // 0 and 1.5 level); what the push or the brush piles up later is the stability check's to
    // bound.
    ImplicitWeight implicit_weight(const std::string& scenario, int, int) const override {
        const double depth = implicit_depth(scenario);
        const double dh = param("dh"), dt = param("dt");
        return {param("g") * dt * dt * depth / (dh * dh), kMaxShallowWaterWeight,
                "g dt^2 depth / dh^2", "lower dt, g or the level, or raise dh",
                "the fp32 rounding of the sweeps no longer keeps the volume: it drifts by more "
                "than 1e-5 of itself in 10,000 steps"};
    }
    double implicit_depth(const std::string& scenario) const {
        double depth = param("level");
        if (scenario == "dam-break") depth += std::max(0.0, param("dam_height"));
        if (scenario == "drops") depth += std::max(0.0, param("drop_height"));
        return depth;
    }
    // c came after the first state files; zero is what a run starting from those heights has.
    // The file keeps it as a float a cell, the GPU in 16 bits (sim/compensation.hpp): a file's c
    // written from those loads back to the same bits, so that a saved run resumes exactly.
    // The mean velocity the next step takes out came later still: the step before the save
    // summed it in its own order (the y window's groups, or settling's), which a file without
    // it has measured again (load_state).
    std::vector<StateBuffer> state_buffers() override {
        return {{"h", &height_},
                {"v", &velocity_},
                {"b", &bottom_},
                {"c", &compensation_, true, 0, compensation_to_file(), compensation_from_file()},
                {"mean", &mean_, true, sizeof(float)}};
    }
    StateBuffer::Conversion compensation_to_file() const {
        return [this](const std::vector<char>& words) {
            return compensation_file_bytes(words, nx_, ny_);
        };
    }
    StateBuffer::Conversion compensation_from_file() const {
        return [this](const std::vector<char>& floats) {
            return compensation_buffer_bytes(floats, nx_, ny_);
        };
    }
    void after_set_field() override {
        velocity_.zero();
        compensation_.zero();
        measure_water();
        measure_state(true);  // the mean is 0 (v is), and the sweeps for the new depths
    }

    // The depth bound: no cell can hold more than all the water there is, so the surface stays
    // within the bottom's range widened by the total volume (in depth-cells: the sum of the
    // depths), which only the disturbances change; each adds at most its bump's volume, bounded
    // on the host from its shape (a Gaussian sums to at most (sqrt(pi) w + 1) per lattice axis).
    // The unclamped surface may sit below its bottom (a deficit the settling pays back), never
    // by more than the whole volume either.
    FieldBounds field_bounds() const override {
        FieldBounds bounds;
        bounds.low = bottom_low_ - volume_bound_;
        bounds.high = bottom_high_ + volume_bound_;
        bounds.why = "the bottom's range widened by all the water there is";
        return bounds;
    }

  public:
    void load_state(const std::filesystem::path& path) override {
        AdiModel::load_state(path);
        measure_water();  // first: the bottom's kernels
        // The sweeps for the loaded depths, and the mean velocity where the file has none.
        measure_state(!state_had_buffer("mean"));
    }

  protected:
    std::vector<gl::BufferNeed> buffer_needs(int nx, int ny) const override {
        const std::uint64_t field = field_bytes(nx, ny);
        const std::uint64_t groups =
            std::uint64_t(settle_groups_x(nx)) * settle_groups_y(ny, settle_rows(tuned_chunk()));
        std::vector<gl::BufferNeed> needs = {
            {"shallow-water's h field", field},
            {"shallow-water's y-sweep height", field},
            {"shallow-water's v field (last change of h)", field},
            {"shallow-water's height compensation c",
             compensation_words(nx, ny) * sizeof(std::uint32_t)},
            {"shallow-water's x-sweep result", field},
            {"shallow-water's bottom b", field},
            {"shallow-water's partial sums", groups * 4 * sizeof(float)},
            {"shallow-water's mean velocity", sizeof(float)},
            {"shallow-water's sweep choice", kSweepArgumentWords * sizeof(unsigned)},
            {"shallow-water's settling tiles and step sums",
             settle_words(groups, sum_sets(window_parts_bound(nx, ny))) * sizeof(std::int32_t)},
            {"shallow-water's settling progress", (2 + groups) * sizeof(std::uint32_t)},
            // 16 bytes per 32 invocations of the y window (window_parts_bound); resolve_window
            // allocates it for the shape that runs.
            {"shallow-water's y-window sums", window_parts_bound(nx, ny) * 4 * sizeof(float)},
            {"shallow-water's settling count", sizeof(std::uint32_t)},
        };
        for (gl::BufferNeed& need : line_solve_needs(nx, ny)) needs.push_back(std::move(need));
        return needs;
    }

    void allocate() override {
        height_ = gl::Buffer(cells() * sizeof(float));
        wet_ = gl::Buffer(cells() * sizeof(float));
        velocity_ = gl::Buffer(cells() * sizeof(float));
        compensation_ = gl::Buffer(compensation_words(nx_, ny_) * sizeof(std::uint32_t));
        intermediate_ = gl::Buffer(cells() * sizeof(float));
        bottom_ = gl::Buffer(cells() * sizeof(float));
        settle_chunk_ = tuned_chunk();
        partials_ = gl::Buffer(std::size_t(settle_groups_x(nx_)) * settle_groups_y(ny_) * 4 *
                               sizeof(float));
        mean_ = gl::Buffer(sizeof(float));
        sweep_arguments_ = gl::Buffer(kSweepArgumentWords * sizeof(unsigned));
        sweep_arguments_.zero();
        sum_sets_ = sum_sets(0);
        deficit_steps_ = gl::Buffer(
            settle_words(std::uint64_t(settle_groups_x(nx_)) * settle_groups_y(ny_), sum_sets_) *
            sizeof(std::int32_t));
        deficit_steps_.zero();
        groups_done_ = gl::Buffer(sizeof(std::uint32_t));
        groups_done_.zero();
        // No item claimed, the first mark 1, no tile's changes found (shallow_water.comp).
        std::vector<unsigned> progress(2 +
                                       std::size_t(settle_groups_x(nx_)) * settle_groups_y(ny_));
        progress[1] = 1;
        settle_progress_ = gl::Buffer(progress.size() * sizeof(unsigned));
        settle_progress_.write(progress);
        window_parts_count_ = 0;
        resolve_programs("sim/shallow_water.comp", 2);
    }

    // The bottom's specialization (FLAT_BOTTOM) for the displacing, settling and measuring kernels,
    // as resolve_programs gives it to the sweeps.
    void resolve_model_programs() override {
        const auto program = [this](gl::Defines defines) {
            defines.insert(defines.end(), specialization_.begin(), specialization_.end());
            return &gl::compute_program("sim/shallow_water.comp", defines);
        };
        displace_ = program({{"DIRECTION", "0"}, {"KERNEL_DISPLACE", "1"}});
        gl::Defines sums = {{"DIRECTION", "0"}};
        if (subgroup_sums()) sums.push_back({"SUBGROUP_SUM", "1"});
        const auto with = [&sums](gl::Defines more) {
            more.insert(more.begin(), sums.begin(), sums.end());
            return more;
        };
        settle_ = program(with({{"KERNEL_SETTLE", "1"}}));
        measure_ = program(with({{"KERNEL_SETTLE", "1"}, {"MEASURE_ONLY", "1"}}));
    }

    // A bottom the same everywhere (the flat terrain, `free`) is a uniform: FLAT_BOTTOM. And
    // settling's tile rows (SETTLE_ROWS), which every kernel that marks or reads tiles needs.
    gl::Defines specialization() const override {
        gl::Defines defines = {{"SETTLE_ROWS", std::to_string(settle_rows(settle_chunk_))},
                               {"TILE_CHUNKS", std::to_string(tile_chunks(settle_chunk_))}};
        if (flat_bottom_) defines.push_back({"FLAT_BOTTOM", "1"});
        if (guards_by_storage()) defines.push_back({"SWEEP_GUARD_BY_STORAGE", "1"});
        return defines;
    }

    void initialize() override {
        const float level = float(param("level"));
        const std::vector<float> bottom =
            make_terrain(scenario_ == "free" ? "flat" : terrain_, nx_, ny_, level);
        std::vector<float> height(cells());
        for (int j = 0; j < ny_; ++j)
            for (int i = 0; i < nx_; ++i) {
                const std::size_t id = std::size_t(j) * nx_ + i;
                float h = level;
                if (scenario_ == "dam-break" && i < nx_ / 3) h += float(param("dam_height"));
                height[id] = std::max(h, bottom[id]);
            }
        bottom_.write(bottom);
        height_.write(height);
        velocity_.zero();
        compensation_.zero();
        mean_.zero();
        water_from(height, bottom);
    }

    // The bottom's range and the total depth, from the state (reset, --init, a loaded state:
    // a read-back once, never per step).
    void measure_water() {
        gl::memory_barrier(gl::Barrier::buffer_update);
        water_from(height_.read<float>(cells()), bottom_.read<float>(cells()));
    }
    void water_from(const std::vector<float>& height, const std::vector<float>& bottom) {
        double low = std::numeric_limits<double>::infinity(), high = -low, volume = 0, depth = 0;
        for (std::size_t id = 0; id < bottom.size(); ++id) {
            low = std::min(low, double(bottom[id]));
            high = std::max(high, double(bottom[id]));
            if (std::isfinite(height[id])) {
                volume += std::max(double(height[id]) - bottom[id], 0.0);
                depth = std::max(depth, double(height[id]) - bottom[id]);
            }
        }
        depth_seen_ = depth;
        bottom_low_ = low;
        bottom_high_ = high;
        flat_bottom_ = low == high;
        // The kernels for this bottom now: a state loaded or set before the next step is
        // measured with them.
        if (specialization() != specialization_) resolve_programs("sim/shallow_water.comp", 2);
        volume_bound_ = 1.0001 * volume + 1e-3;  // fp32 sums of the depths: well inside 0.01%
    }
    double bottom_low_ = 0, bottom_high_ = 0, volume_bound_ = 0;
    double depth_seen_ = 0;     // the deepest cell at the last reset, --init or loaded state
    bool flat_bottom_ = false;  // the bottom is bottom_low_ everywhere
    float window_depth_ = 0;    // the deepest water the windows' halo holds for (resolve_window)

    // The windowed sweeps (window_lines.glsl). A face carries g dt^2 / (2 dh^2) times its
    // conductance, at most twice the deeper cell's depth d: at most T = g dt^2 d / dh^2 each way,
    // and a row's diagonal exceeds 1 by at most 2 T (general_window_tail). The halo is the one
    // for twice the deepest water the scenario starts with (waves pile it up); the GPU checks
    // every step that no cell is deeper than that halo holds for (window_depth_), and past it
    // the sweeps take the exact line solve (guard_window), until the water is shallow again.
    void resolve_window() override {
        const double dh = param("dh"), dt = param("dt");
        const double per_depth = param("g") * dt * dt / (dh * dh);
        const double start = std::max(implicit_depth(scenario_), depth_seen_);
        const auto halo_for = [per_depth](double depth) {
            return general_window_halo(2 * per_depth * depth, per_depth * depth);
        };
        window_parts_count_ = 0;
        int halo = halo_for(2 * start);
        if (halo == 0) halo = halo_for(start);
        const gl::Defines row = {{"DIRECTION", "0"}, {"KERNEL_WINDOW", "1"}};
        gl::Defines column = {{"DIRECTION", "1"}, {"KERNEL_WINDOW", "1"}};
        // Its parts are 32 invocations' (the window's subgroup layout): by subgroup operations
        // where subgroups are that wide.
        if (subgroup_sums() && gl::Context::current().info().subgroup_size == 32)
            column.push_back({"SUBGROUP_SUM", "1"});
        build_window({WindowHalo{halo, halo}, WindowHalo{halo, halo}},
                     WindowShape{8, 4, kColumnChunk, 32, 0, 32}, "sim/shallow_water.comp", row,
                     "sim/shallow_water.comp", column);
        // Settling takes the sums of the tiles it leaves from the y window's parts, which fit
        // its tiles only for the chunk of the last reset (a window_column_chunk tuned since then
        // takes effect at the next one): until then, no window.
        if (window_[1] != nullptr && window_chunk_[1] != settle_chunk_)
            window_[0] = window_[1] = nullptr;
        window_depth_ = 0;
        if (window_[0] != nullptr) {
            // The deepest water the halo holds for, by bisection (the bound grows with depth).
            const auto holds = [&](double depth) {
                return general_window_tail(2 * per_depth * depth, per_depth * depth, halo) <=
                       std::ldexp(1.0, -27);
            };
            double low = start, high = 2 * start + 1;
            while (holds(high) && high < 1e30) high *= 2;
            for (int i = 0; i < 60; ++i) {
                const double middle = 0.5 * (low + high);
                if (holds(middle))
                    low = middle;
                else
                    high = middle;
            }
            window_depth_ = float(low);
            if (double(window_depth_) > low) window_depth_ = std::nextafter(window_depth_, 0.0f);
            // The y window's parts, one per 32 invocations (shaders/sim/shallow_water.comp,
            // WINDOW_SUMS), which settling sums over the tiles it leaves.
            window_parts_count_ =
                int(window_groups_[1][0] * window_groups_[1][1] * unsigned(window_warps_[1]));
            window_parts_ = gl::Buffer(std::size_t(window_parts_count_) * 4 * sizeof(float));
            sum_sets_ = sum_sets(std::uint64_t(window_parts_count_));
            const std::uint64_t words =
                settle_words(std::uint64_t(settle_groups_x(nx_)) * settle_groups_y(ny_), sum_sets_);
            if (words * sizeof(std::int32_t) > deficit_steps_.size()) {
                deficit_steps_ = gl::Buffer(words * sizeof(std::int32_t));
                deficit_steps_.zero();
            }
        }
        guard_window();
        measure_state(false);  // the first step's choice, from the state as it is
    }

    // "window-H<halo>", and the steps that took the line solve instead, if any.
    std::string kernel() const override {
        const std::string windowed = AdiModel::kernel();
        if (!window_guarded_) return windowed;
        gl::memory_barrier(gl::Barrier::buffer_update);
        const unsigned line_solves =
            sweep_arguments_.read<unsigned>(1, std::size_t(kLineSolveSteps))[0];
        if (line_solves == 0) return windowed;
        std::ostringstream out;
        out << windowed << " (the line solve on " << line_solves << " steps, deeper than "
            << window_depth_ << " m)";
        return out.str();
    }

    void step_once() override {
        if (const Bump bump = disturbance(); bump.shape != 0) displace(bump);
        half_step(0, height_, intermediate_);  // -> dx
        half_step(1, height_, wet_);           // -> wet = h + dv (and dv into v): h^n
        settle();
        std::swap(height_, wet_);
    }

  private:
    void set_uniforms(const gl::Program& p) const override {
        p.set("flat_bottom", float(bottom_low_));
        const double dh = param("dh"), dt = param("dt");
        p.set("coupling", float(param("g") * dt * dt / (2 * dh * dh)));
        p.set("damping", float(param("damping")));
        // Unguarded, the sweeps mark no tile as too deep for windows that do not run.
        p.set("window_depth", window_guarded_ ? window_depth_ : std::numeric_limits<float>::max());
        set_sum_uniforms(p);
    }

    // The y window's step sums (shaders/sim/step_sums.glsl): the sets its parts spread over,
    // one for each of the 64 invocations that read them, more where a set would take over 2047
    // parts (each adds up to 2^20 to a word); and the units of v's sum. |v| is at most the
    // field's range (h^n and h^{n-1} both lie in it), so the sum over every cell is at most
    // cells x range, which the units keep below 2^99 (the limbs hold 2^100).
    static unsigned sum_sets(std::uint64_t parts) {
        return unsigned(std::max<std::uint64_t>(64, (parts + 2046) / 2047));
    }
    int sum_exponent() const {
        const FieldBounds bounds = field_bounds();
        const double most = double(cells()) * std::max(bounds.high - bounds.low, 1e-30);
        return std::clamp(int(std::floor(99.0 - std::log2(most))), -120, 120);
    }
    void set_sum_uniforms(const gl::Program& p) const {
        p.set("sum_sets", int(sum_sets_));
        p.set("sum_exponent", sum_exponent());
    }

    // Group sums by subgroup operations where the device has them.
    bool subgroup_sums() const {
        return gl::Context::current().info().subgroup_arithmetic && fused_tuning_.subgroups != 0;
    }

    // This step's disturbance (steps_ is the 1-based index of the step): the push on steps
    // 1 .. push_steps, a drop on steps 1, 1 + drop_interval, ...
    Bump disturbance() const {
        if (scenario_ == "diagonal-push" && steps_ <= std::int64_t(param("push_steps")))
            return {1, float(param("push_strength")), float(param("push_width")), glm::vec2(0)};
        if (scenario_ == "drops") {
            const std::int64_t interval = std::int64_t(param("drop_interval"));
            if ((steps_ - 1) % interval == 0) {
                const std::uint64_t r = mix(std::uint64_t((steps_ - 1) / interval));
                return {
                    2, float(param("drop_height")), float(param("drop_radius")),
                    glm::vec2(float(0.1 + 0.8 * double(r & 0xffffffu) / 16777216.0) * nx_,
                              float(0.1 + 0.8 * double((r >> 24) & 0xffffffu) / 16777216.0) * ny_)};
            }
        }
        return {};
    }

    // Adds the bump to h (v unchanged): the same displacement of h^{n-1} and h^{n-2}.
    void displace(const Bump& bump) {
        // The most volume the bump can add (a band: the diagonal's nx + ny cells, each with the
        // cross-section's sum).
        const double across = std::sqrt(std::acos(-1.0)) * bump.width + 1;
        volume_bound_ += std::abs(double(bump.strength)) *
                         (bump.shape == 1 ? double(nx_ + ny_) * 2 * across : across * across);
        const gl::Program& p = *displace_;
        p.use();
        p.set("nx", nx_);
        p.set("ny", ny_);
        p.set("shape", bump.shape);
        p.set("strength", bump.strength);
        p.set("width", bump.width);
        p.set("center", bump.center);
        p.set("window_depth", window_depth_);
        p.set("flat_bottom", float(bottom_low_));
        height_.bind_storage(0);
        compensation_.bind_storage(12);
        bottom_.bind_storage(8);
        sweep_arguments_.bind_storage(14);
        gl::dispatch(cell_groups());
        gl::memory_barrier(sweep_choice_barrier());
    }

    // Settling's work groups: an item each (shallow_water.comp, KERNEL_SETTLE: a tile's changes
    // found and the tile lag = tiles across + 2 before it settled), FusedTuning::settle_groups at
    // most, each group claiming items until none is left. Why that many: after a step on which no
    // cell came out below its bottom one group reads the y window's sums and the others end at
    // once, which costs little for a thousand (0.3 us at 1024^2 on an H200); where cells settle,
    // the items run side by side, and a group's wait for the tiles around its own is about one
    // item's first half. One group on a CPU renderer: llvmpipe ends a shader's loops after
    // 65,535 rounds in all (gallivm's loop limiter), so a group waiting there for another one
    // that the system has not run yet may stop waiting too soon; one group claims every item in
    // order and never waits.
    unsigned settle_dispatch_groups() const {
        if (gl::Context::current().info().software) return 1;
        const unsigned items =
            settle_groups_x(nx_) * settle_groups_y(ny_) + settle_groups_x(nx_) + 2;
        return std::min(items, unsigned(std::max(fused_tuning_.settle_groups, 1)));
    }

    // Settling, in place in the y sweep's output wet_ (h^n), its changes found in the dead h^{n-1}
    // (height_), and the sums of the settled state: the mean velocity and the next step's sweeps.
    void settle() {
        const gl::Program& p = *settle_;
        use_program(p);
        p.set("sums_window", int(window_guarded_));
        set_sum_uniforms(p);
        // The y window's layout (window_lines.glsl): warm-up chunks at its start and end.
        const auto chunks = [this](int halo) { return (halo + settle_chunk_ - 1) / settle_chunk_; };
        const int first = chunks(window_halo_[1].low);
        p.set("window_warps", window_warps_[1]);
        p.set("window_first_chunk", first);
        p.set("window_stored_chunks",
              std::max(window_warps_[1] - first - chunks(window_halo_[1].high), 1));
        height_.bind_storage(0);
        wet_.bind_storage(1);
        velocity_.bind_storage(2);
        bottom_.bind_storage(8);
        compensation_.bind_storage(12);
        deficit_steps_.bind_storage(15);
        window_parts_.bind_storage(18);
        settle_progress_.bind_storage(19);
        bind_sums();
        bind_flag();
        gl::dispatch(settle_dispatch_groups());
        gl::memory_barrier(sweep_choice_barrier());
    }

    // The y window's rows an invocation, the model's (WindowShape) unless tuned.
    static constexpr int kColumnChunk = 10;
    int tuned_chunk() const {
        return fused_tuning_.window_column_chunk != 0 ? fused_tuning_.window_column_chunk
                                                      : kColumnChunk;
    }
    // Settling's tiles are 32 x 8 settle_rows cells, a whole number of the y window's chunks
    // (settle_chunk_, the tuning's at the last reset), so that a tile holds whole parts of the
    // window's sums (shaders/sim/shallow_water.comp, SETTLE_ROWS and TILE_CHUNKS): 4 chunks of
    // an even chunk, 8 of an odd one. Why not more: a tile near a dry cell is settled whole, and
    // with tiles of 8 chunks of 10 rows the png terrain's step at 4096^2 took 6% longer (H100).
    static int settle_rows(int chunk) { return chunk % 2 == 0 ? chunk / 2 : chunk; }
    static int tile_chunks(int chunk) { return chunk % 2 == 0 ? 4 : 8; }
    int settle_chunk_ = kColumnChunk;

    // The y window's parts at most: 16 bytes per 32 invocations is at most field / 8 for a
    // window that stores as many rows of its columns as it has subgroups or more (the model's
    // shape stores at least 220 with 32).
    static std::uint64_t window_parts_bound(int nx, int ny) {
        return field_bytes(nx, ny) / 8 / (4 * sizeof(float));
    }
    // deficit_steps_'s words: the tiles' steps, then the step's sums and their two steps.
    static std::uint64_t settle_words(std::uint64_t tiles, unsigned sets) {
        return tiles + std::uint64_t(sets) * 7 + 2;  // step_sums.glsl's kSumWords a set
    }
    unsigned sum_sets_ = 64;

    // The settling kernel's work groups, its tiles: along x and along y.
    static unsigned settle_groups_x(int nx) { return unsigned((nx + 31) / 32); }
    static unsigned settle_groups_y(int ny, int rows) {
        return unsigned((ny + 8 * rows - 1) / (8 * rows));
    }
    unsigned settle_groups_y(int ny) const {
        return settle_groups_y(ny, settle_rows(settle_chunk_));
    }

    // The next step's sweeps from the stored state's deepest cell and, with `mean`, its mean
    // velocity, summed as settle() sums it (a new field, a state file without one). A step
    // leaves the mean it summed, in the order of the kernel that summed it, which a measure
    // would round differently: a run that resumes or changes its parameters keeps it.
    void measure_state(bool mean) {
        const gl::Program& p = *measure_;
        p.use();
        set_grid_uniforms(p);
        p.set("flat_bottom", float(bottom_low_));
        p.set("measures_mean", int(mean));
        p.set("window_depth", window_depth_);
        height_.bind_storage(0);
        velocity_.bind_storage(2);
        bottom_.bind_storage(8);
        bind_sums();
        gl::dispatch(settle_groups_x(nx_), settle_groups_y(ny_));
        gl::memory_barrier(gl::Barrier::all);
    }

    // What settling and measuring sum into and choose with.
    void bind_sums() const {
        partials_.bind_storage(10);
        mean_.bind_storage(11);
        sweep_arguments_.bind_storage(14);
        groups_done_.bind_storage(16);
    }

    // in is h^{n-1} (height_); out the intermediate dx (x) or wet (y).
    void bind_sweep(int direction, const gl::Buffer& in, gl::Buffer& out) override {
        in.bind_storage(0);
        out.bind_storage(1);
        velocity_.bind_storage(2);
        compensation_.bind_storage(12);
        bottom_.bind_storage(8);
        if (direction == 1) {
            intermediate_.bind_storage(9);
            deficit_steps_.bind_storage(15);
            window_parts_.bind_storage(18);
        }
        mean_.bind_storage(11);
    }
    // y: the solve writes dv into v, which the finishing kernel turns into wet = h + dv.
    gl::Buffer& sweep_solution(int direction, gl::Buffer& out) override {
        return direction == 0 ? out : velocity_;
    }

    gl::Buffer height_, wet_, velocity_, compensation_, intermediate_, bottom_;
    // Per settling tile (measuring: per group) its sums (sum v, wet cells, deepest, below a
    // bottom); S / N_wet.
    gl::Buffer partials_, mean_;
    // Per settling tile, the last step a cell there overdrew; then the y window's step sums.
    gl::Buffer deficit_steps_;
    gl::Buffer groups_done_;  // the summing kernel's work groups finished (its last resets it)
    // Settling's items claimed, its mark, and each tile's mark once its changes are found.
    gl::Buffer settle_progress_;
    gl::Buffer window_parts_;  // the y window's parts of the sums, 32 invocations each
    int window_parts_count_ = 0;
    const gl::Program* displace_ = nullptr;
    const gl::Program* settle_ = nullptr;
    const gl::Program* measure_ = nullptr;
};

}  // namespace

std::unique_ptr<Simulation> make_shallow_water(const std::string& solver) {
    return std::make_unique<ShallowWater>(solver);
}

}  // namespace adilab::sim::detail
