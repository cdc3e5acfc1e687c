// Model "heat": dT/dt = c (T_xx + T_yy), Peaceman–Rachford ADI with insulated walls (seed 001
// simulation 1, eq. 3). Kernels: shaders/sim/heat_{rowscan,colscan,step}.comp (heat_scan.glsl
// has the maths), heat.comp.
//   fused:   where the inverse of the constant matrix decays fast enough (lambda <= ~7, see
//            heat_window_halo): its closed form, truncated below fp32 round-off, no line solve:
//            x by a scan across subgroup lanes, y with chunk ends joined in shared memory.
//            Either all of step(n) in one dispatch with grid barriers (heat_step.comp, where its
//            work groups can all be resident: ADILAB_HEAT_STEP, see step_groups_per_sm), or two
//            dispatches a step (heat_rowscan.comp, heat_colscan.comp). A direction whose scan
//            shape cannot hold the halo, and every lambda above ~7: the fused line solve of
//            heat.comp. ADILAB_HEAT_WINDOW=0 forces the latter.
//   generic: rows kernel (rhs of the increment), Solver::solve with ConstantCoefficients into
//            the output, finish kernel (T + dT, heaters, stability flag), per half step.
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <limits>
#include <span>
#include <string>

#include "sim/model.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim::detail {

double heat_window_rho(double lambda) {
    // The smaller root of lambda r^2 - (1 + 2 lambda) r + lambda = 0, in the form without
    // cancellation for small lambda (the two roots multiply to 1).
    return 2 * lambda / (1 + 2 * lambda + std::sqrt(1 + 4 * lambda));
}

double heat_window_tail(double lambda, int halo) {
    const double rho = heat_window_rho(lambda);
    return 2 * std::pow(rho, halo + 1) / (1 + rho);
}

int heat_window_halo(double lambda) {
    for (int halo : {8, 16, 24, 32, 48})
        if (heat_window_tail(lambda, halo) <= std::ldexp(1.0, -26)) return halo;
    return 0;
}

int heat_step_groups(int per_sm) {
    const gl::DeviceInfo& info = gl::Context::current().info();
    for (const char* name : {"llvmpipe", "softpipe", "SwiftShader", "lavapipe"})
        if (info.renderer.find(name) != std::string::npos) return 1;
    // The SM count, once per process (one device): a one-word read-back, never per step.
    static int sm_count = -1;
    if (sm_count < 0) {
        sm_count = 0;
        try {
            const gl::Program& probe = gl::compute_program("sim/sm_count.comp");
            gl::Buffer values(2 * sizeof(std::uint32_t));
            values.fill(std::int32_t(0));
            probe.use();
            values.bind_storage(0);
            gl::dispatch(1);
            gl::memory_barrier(gl::Barrier::buffer_update);
            sm_count = int(values.read<std::uint32_t>(2)[0]);
        } catch (const Error&) {
            sm_count = 0;  // no GL_NV_shader_thread_group: residency cannot be vouched for
        }
    }
    return sm_count * per_sm;
}

namespace {

class Heat final : public AdiModel {
public:
    explicit Heat(const std::string& solver)
        : AdiModel("heat",
                   {{"c", "m^2/s", "thermal diffusivity", 1.0, 1e-9, 1e9},
                    {"dt", "s", "time step (PR ADI is unconditionally stable)", 1.0, 1e-9, 1e9},
                    {"dh", "m", "cell size", 1.0, 1e-9, 1e9},
                    {"initial_temperature", "K", "uniform start value (scenarios without --init)", 0.0, -1e9, 1e9},
                    {"heater_temperature", "K", "temperature the heaters hold (two-heaters)", 1.0, -1e9, 1e9},
                    {"heater_radius", "1", "heater radius, fraction of the domain's smaller side", 0.04, 0.0, 0.5},
                    {"heater_offset", "1", "heater distance from the centre, fraction of the width", 0.2, 0.0, 0.5}},
                   {"two-heaters", "free"}, solver) {}

    const gl::Buffer& field() const override { return field_; }
    std::string kernel() const override {
        if (!window_[0] && !window_[1]) return solver();
        return "window-H" + std::to_string(window_halo_) +
               (step_program_ ? "-step" + std::to_string(step_groups_) : "");
    }
    void apply_brush(const Brush& brush) override { dispatch_brush(brush, field_, nullptr); }

protected:
    gl::Buffer& field_buffer() override { return field_; }
    std::vector<std::pair<std::string, gl::Buffer*>> state_buffers() override {
        return {{"T", &field_}};
    }

    void allocate() override {
        field_ = gl::Buffer(cells() * sizeof(float));
        half_ = gl::Buffer(cells() * sizeof(float));
        half_.poison();  // a half step that missed a cell shows up as NaN in the tests
        resolve_programs("sim/heat.comp", 1);
        if (!fused()) rhs_ = gl::Buffer(cells() * sizeof(float));
        if (barrier_.empty()) barrier_ = gl::Buffer(3 * sizeof(std::int32_t));
    }

    void initialize() override {
        field_.fill(float(param("initial_temperature")));
        const std::int32_t words[3] = {0, 0, std::numeric_limits<std::int32_t>::max()};
        barrier_.write(std::span<const std::int32_t>(words));
        arrivals_ = 0;
        barrier_used_ = false;
    }

public:
    // Every step of `count` in dispatches of the persistent step where it is in use, else step
    // by step (two dispatches each, or the generic path).
    void step(int count) override {
        if (fused() && window_version_ != version_) resolve_window();
        if (!fused() || !step_program_ || count <= 0) {
            AdiModel::step(count);
            return;
        }
        barrier_used_ = true;
        step_persistent(count);
    }
    std::int64_t first_bad_step() const override {
        check_step_barrier();
        return AdiModel::first_bad_step();
    }
    Stats stats() override {
        check_step_barrier();
        return AdiModel::stats();
    }

protected:

    void step_once() override {
        if (fused() && window_version_ != version_) resolve_window();
        half_step(0, field_, half_);
        half_step(1, half_, field_);
    }

private:
    void set_uniforms(const gl::Program& p) const override {
        const double dh = param("dh");
        const float lambda = float(param("c") * 0.5 * param("dt") / (dh * dh));
        p.set("lambda", lambda);
        const bool heaters = scenario_ == "two-heaters";
        const float side = float(std::min(nx_, ny_));
        const float offset = float(param("heater_offset")) * float(nx_);
        p.set("heater_left", glm::vec2(0.5f * nx_ - offset, 0.5f * ny_));
        p.set("heater_right", glm::vec2(0.5f * nx_ + offset, 0.5f * ny_));
        p.set("heater_radius", heaters ? float(param("heater_radius")) * side : 0.0f);
        p.set("heater_temperature", float(param("heater_temperature")));
        const double rho = heat_window_rho(double(lambda));
        p.set("rho", float(rho));
        p.set("gain", float((1 - rho) / (1 + rho)));
    }

    double kernel_lambda() const {
        const double dh = param("dh");
        return double(float(param("c") * 0.5 * param("dt") / (dh * dh)));  // as the kernels see it
    }

    // Picks the windowed kernels for the current parameters and grid (a new lambda can need
    // another HALO, i.e. another program: compiled once, then cached), or none.
    void resolve_window() {
        window_version_ = version_;
        window_[0] = window_[1] = nullptr;
        step_program_ = nullptr;
        const char* env = std::getenv("ADILAB_HEAT_WINDOW");
        if (env && std::string(env) == "0") return;
        int halo = heat_window_halo(kernel_lambda());
        if (halo == 0) return;
        // Timing experiment: ADILAB_HEAT_HALO = a halo between the smallest that meets the
        // bound and the bucket's (never below the bound).
        if (const char* forced = std::getenv("ADILAB_HEAT_HALO")) {
            const int wanted = std::atoi(forced);
            if (wanted < halo && heat_window_tail(kernel_lambda(), wanted) <= std::ldexp(1.0, -26))
                halo = wanted;
        }
        window_halo_ = halo;
        const gl::DeviceInfo& info = gl::Context::current().info();
        const char* sub = std::getenv("ADILAB_FUSED_SUBGROUPS");
        const bool subgroups =
            info.subgroups && info.subgroup_size == 32 && !(sub && std::string(sub) == "0");
        // Shapes measured on the H200 (2026-11-21, 1024^2 and 4096^2, see README): x as a scan
        // across subgroup lanes, y with chunk ends joined through shared memory. A direction
        // whose shape cannot hold the halo (only overridden shapes) takes the fused line solve.
        for (int d = 0; d < 2; ++d) {
            int warps = 0, chunk = 0;
            scan_shape(d, warps, chunk);
            const int halo_units = (halo + chunk - 1) / chunk;  // halo lanes / subgroups
            if (d == 0 && 2 * halo_units < 32) {
                gl::Defines scan = {{"CHUNK", std::to_string(chunk)}, {"HALO", std::to_string(halo)},
                                    {"WARPS", std::to_string(warps)},
                                    {"GROUP_SIZE", std::to_string(32 * warps)}};
                if (subgroups) scan.push_back({"SUBGROUPS", "1"});
                window_[0] = &gl::compute_program("sim/heat_rowscan.comp", scan);
                const long long segment = (32 - 2 * halo_units) * chunk;
                const long long subgroups_needed = (nx_ + segment - 1) / segment * ny_;
                window_groups_[0][0] = unsigned((subgroups_needed + warps - 1) / warps);
                window_groups_[0][1] = 1;
            }
            if (d == 1 && 2 * halo_units < warps) {
                window_[1] = &gl::compute_program(
                    "sim/heat_colscan.comp",
                    {{"CHUNK", std::to_string(chunk)}, {"HALO", std::to_string(halo)},
                     {"WARPS", std::to_string(warps)}, {"GROUP_SIZE", std::to_string(32 * warps)}});
                const int segment = (warps - 2 * halo_units) * chunk;
                window_groups_[1][0] = unsigned((nx_ + 31) / 32);
                window_groups_[1][1] = unsigned((ny_ + segment - 1) / segment);
            }
        }
        // The persistent step: its own fixed shape (16 subgroups a group for both half steps,
        // x chunks of 4, y chunks of 8: the two-dispatch defaults' chunks; 16 x 8 rows hold
        // every halo up to 48).
        const int per_sm = step_groups_per_sm();
        step_groups_ = per_sm > 0 ? heat_step_groups(per_sm) : 0;
        if (step_groups_ <= 0) return;
        gl::Defines defines = {{"HALO", std::to_string(halo)}, {"WARPS", std::to_string(kStepWarps)},
                               {"GROUP_SIZE", std::to_string(32 * kStepWarps)},
                               {"X_CHUNK", "4"}, {"Y_CHUNK", "8"}};
        if (subgroups) defines.push_back({"SUBGROUPS", "1"});
        step_program_ = &gl::compute_program("sim/heat_step.comp", defines);
    }

    // Work groups per SM of the persistent step (heat_step.comp); 0: two dispatches a step.
    // ADILAB_HEAT_STEP = "0" or the count (1 .. 4; more may not be resident at once: the step
    // then reports the failed barrier). The default: see kStepGroupsPerSm.
    static int step_groups_per_sm() {
        const char* env = std::getenv("ADILAB_HEAT_STEP");
        if (!env) return kStepGroupsPerSm;
        const int n = std::atoi(env);
        return n >= 0 && n <= 4 ? n : kStepGroupsPerSm;
    }

    // Whole steps in one dispatch of the persistent step: (2 n - 1) grid barriers instead of
    // 2 n dispatches; bounded so that one dispatch stays short (4096^2: ~64 x 0.2 ms).
    static constexpr int kMaxStepsPerDispatch = 64;
    static constexpr int kStepWarps = 16;
    // Off by default: measured slower than two dispatches a step. H200, 2026-11-21, one call,
    // `adilab --bench sim --scenario two-heaters --grid 1024,4096 --steps 500`, steps/s
    // (1024^2 / 4096^2): two dispatches 36,264-36,306 / 5,573-5,574; persistent, 1 group of 512
    // a SM (132) 23,773 / 3,510; 2 a SM 30,992-31,017 / 4,202; 3 and 4 a SM: not all resident,
    // the barrier reported it (error, exit 1) instead of hanging. Same field as two dispatches,
    // bit for bit (1024 x 1000, 150 steps, 1 and 2 a SM). The grid barrier is not what costs:
    // the loop over tiles with 16-32 resident subgroups a SM (vs the separate kernels' full
    // occupancy) and the L1-bypassing coherent loads are.
    static constexpr int kStepGroupsPerSm = 0;

    void step_persistent(int count) {
        const gl::Program& program = *step_program_;
        program.use();
        if (uniforms_stale(program)) {
            set_grid_uniforms(program);
            set_uniforms(program);
            // Test hook: one group more than launched never arrives, so every wait gives up.
            const char* inject = std::getenv("ADILAB_HEAT_STEP_INJECT_FAILURE");
            const bool fail = inject && std::string(inject) == "1";
            program.set("expected_groups", unsigned(step_groups_ + (fail ? 1 : 0)));
            // A real wait is a phase (microseconds to a millisecond); one read of the counter is
            // an L2 round trip (~0.5-1 us): ~1 s before giving up. Injected: give up quickly.
            program.set("spin_limit", fail ? 1000u : 1u << 20);
        }
        field_.bind_storage(0);
        half_.bind_storage(1);
        barrier_.bind_storage(6);
        bind_flag();
        while (count > 0) {
            const int n = std::min(count, kMaxStepsPerDispatch);
            program.set("step_index",
                        int(std::min<std::int64_t>(steps_ + 1, std::numeric_limits<int>::max() - n)));
            program.set("steps", n);
            program.set("arrivals_base", arrivals_);
            gl::dispatch(unsigned(step_groups_));
            gl::memory_barrier(gl::Barrier::storage);
            arrivals_ += unsigned(step_groups_) * unsigned(2 * n - 1);
            for (int i = 0; i < n; ++i) {
                ++steps_;
                time_ += time_step();
            }
            count -= n;
        }
    }

    // Throws naming the cause where a persistent step's grid barrier gave up (its work groups
    // were not all resident): the field is wrong from that step on.
    void check_step_barrier() const {
        if (!barrier_used_) return;
        gl::memory_barrier(gl::Barrier::buffer_update);
        const std::vector<std::int32_t> words = barrier_.read<std::int32_t>(3);
        if (words[1] == 0) return;
        throw Error("heat: the persistent step's grid barrier timed out at step " +
                    std::to_string(words[2]) + " (its " + std::to_string(step_groups_) +
                    " work groups were not all resident at once); ADILAB_HEAT_STEP=0 runs two "
                    "dispatches a step instead");
    }

    // The scan kernel's shape for direction d: subgroups a work group and positions an
    // invocation. Defaults: the fastest of the H200 sweep (x: 8 subgroups of chunks of 4, y: 16
    // subgroups of chunks of 8, at 1024^2 and at 4096^2); ADILAB_HEAT_ROWSCAN (x) and
    // ADILAB_HEAT_COLSCAN (y) = "warps,chunk" override.
    static void scan_shape(int d, int& warps, int& chunk) {
        warps = d == 0 ? 8 : 16;
        chunk = d == 0 ? 4 : 8;
        const char* env = std::getenv(d == 0 ? "ADILAB_HEAT_ROWSCAN" : "ADILAB_HEAT_COLSCAN");
        if (!env) return;
        int w = 0, c = 0;
        if (std::sscanf(env, "%d,%d", &w, &c) == 2 && w >= 1 && w <= 32 && c >= 1 && c <= 32) {
            warps = w;
            chunk = c;
        }
    }

    void half_step(int direction, const gl::Buffer& in, gl::Buffer& out) {
        if (fused() && window_[direction]) {
            const gl::Program& program = *window_[direction];
            program.use();
            if (uniforms_stale(program)) {
                set_grid_uniforms(program);
                set_uniforms(program);
            }
            set_step_uniform(program);
            in.bind_storage(0);
            out.bind_storage(1);
            bind_flag();
            gl::dispatch(window_groups_[direction][0], window_groups_[direction][1]);
            gl::memory_barrier(gl::Barrier::storage);
            return;
        }
        if (fused()) {
            use_fused(direction);
            in.bind_storage(0);
            out.bind_storage(1);
            bind_flag();
            gl::dispatch(fused_groups_[direction]);
            gl::memory_barrier(gl::Barrier::storage);
            return;
        }
        const gl::Program& rows = *rows_[direction];
        rows.use();
        set_grid_uniforms(rows);
        set_uniforms(rows);
        in.bind_storage(0);
        rhs_.bind_storage(3);
        gl::dispatch(cell_groups());
        gl::memory_barrier(gl::Barrier::storage);
        const double dh = param("dh");
        const float lambda = float(param("c") * 0.5 * param("dt") / (dh * dh));
        tridiag::ConstantCoefficients k{-lambda, 1 + 2 * lambda, -lambda, 1 + lambda, 1 + lambda};
        solver_ref().solve({nx_, ny_}, direction == 0 ? tridiag::Direction::x : tridiag::Direction::y,
                           k, rhs_, out);
        gl::memory_barrier(gl::Barrier::storage);
        const gl::Program& finish = *finish_[direction];
        finish.use();
        set_grid_uniforms(finish);
        set_uniforms(finish);
        in.bind_storage(0);
        out.bind_storage(1);
        bind_flag();
        gl::dispatch(cell_groups());
        gl::memory_barrier(gl::Barrier::storage);
    }

    gl::Buffer field_, half_, rhs_;
    // The windowed kernels per direction (null: the fused line solve) and their groups (along,
    // across), for the parameters and grid of window_version_.
    const gl::Program* window_[2] = {};
    unsigned window_groups_[2][2] = {};
    // The persistent step (null: two dispatches a step), its work groups, the grid barrier's
    // words (arrivals, failed, failed step) and the arrivals counted so far (the counter runs
    // on across dispatches; initialize() zeroes both).
    const gl::Program* step_program_ = nullptr;
    int step_groups_ = 0;
    gl::Buffer barrier_;
    std::uint32_t arrivals_ = 0;
    bool barrier_used_ = false;
    std::uint64_t window_version_ = 0;
    int window_halo_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_heat(const std::string& solver) {
    return std::make_unique<Heat>(solver);
}

}  // namespace adilab::sim::detail
