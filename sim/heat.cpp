// Model "heat": dT/dt = c (T_xx + T_yy), Peaceman–Rachford ADI with insulated walls (seed 001
// simulation 1, eq. 3). Kernels: shaders/sim/heat_{rowscan,colscan,window}.comp, heat.comp.
//   fused:   x half step (field -> half) and y half step (half -> field): 2 dispatches a step.
//            Where the inverse of the constant matrix decays fast enough (lambda <= ~7, see
//            heat_window_halo): its closed form, truncated below fp32 round-off, no line solve
//            (heat_window.comp's header has the maths): x by a scan across subgroup lanes
//            (heat_rowscan.comp), y with chunk ends joined in shared memory (heat_colscan.comp);
//            heat_window.comp's shared tiles where a scan is switched off. Else the fused line
//            solve of heat.comp. ADILAB_HEAT_WINDOW=0 forces the latter.
//   generic: rows kernel (rhs of the increment), Solver::solve with ConstantCoefficients into
//            the output, finish kernel (T + dT, heaters, stability flag), per half step.
#include <cmath>
#include <cstdlib>
#include <cstdio>
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

namespace {
// Floats of shared memory of heat_window.comp's two tiles (its T_FLOATS + D_FLOATS).
int window_floats(int direction, const HeatWindowShape& s) {
    const int t_along = s.span + 2 * s.halo + 2, d_along = s.span + 2 * s.halo;
    if (direction == 1) return (s.lines + 2) * t_along + s.lines * d_along;
    return (s.lines + 2) * (t_along | 1) + s.lines * (d_along | 1);
}
}  // namespace

HeatWindowShape heat_window_shape(int direction, int halo) {
    HeatWindowShape shape;
    shape.halo = halo;
    // H200, first sweep (2026-11-21, before the loads were batched): 32 lines x 64 positions,
    // chunks of 8 were no better than 32 x 128 x 8 at 1024^2; the scan kernels beat every shape.
    shape.lines = 32;
    shape.span = 64;
    shape.chunk = 8;
    if (const char* env = std::getenv(direction == 0 ? "ADILAB_HEAT_SHAPE_X" : "ADILAB_HEAT_SHAPE_Y")) {
        int lines = 0, span = 0, chunk = 0;
        if (std::sscanf(env, "%d,%d,%d", &lines, &span, &chunk) == 3 && lines >= 1 &&
            chunk >= 1 && span >= chunk && span % chunk == 0 && lines * (span / chunk) <= 1024) {
            shape.lines = lines;
            shape.span = span;
            shape.chunk = chunk;
        }
    }
    const int limit = gl::Context::current().info().max_shared_memory_bytes;
    while (4 * window_floats(direction, shape) > limit && shape.span > shape.chunk) shape.span /= 2;
    if (4 * window_floats(direction, shape) > limit) shape.lines = 0;
    return shape;
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
        return window_[0] ? "window-H" + std::to_string(window_halo_) : solver();
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
    }

    void initialize() override { field_.fill(float(param("initial_temperature"))); }

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
        for (int d = 0; d < 2; ++d) {
            // The default kernels: x as a scan across subgroup lanes (heat_rowscan.comp), y with
            // chunk ends joined through shared memory (heat_colscan.comp); measured on the H200
            // (2026-11-21, 1024^2 and 4096^2) against heat_window.comp's tiles in every shape
            // tried (see README). heat_window.comp where a scan is switched off (ADILAB_HEAT_ROWSCAN
            // / _COLSCAN = 0) or its halo does not fit the scan's subgroups / group.
            int warps = 0, chunk = 0;
            if (scan_shape(d, warps, chunk)) {
                const int halo_units = (halo + chunk - 1) / chunk;  // halo lanes / subgroups
                if (d == 0 && 2 * halo_units < 32) {
                    gl::Defines scan = {{"CHUNK", std::to_string(chunk)}, {"HALO", std::to_string(halo)},
                                        {"WARPS", std::to_string(warps)},
                                        {"GROUP_SIZE", std::to_string(32 * warps)}};
                    const gl::DeviceInfo& info = gl::Context::current().info();
                    const char* sub = std::getenv("ADILAB_FUSED_SUBGROUPS");
                    if (info.subgroups && info.subgroup_size == 32 && !(sub && std::string(sub) == "0"))
                        scan.push_back({"SUBGROUPS", "1"});
                    window_[0] = &gl::compute_program("sim/heat_rowscan.comp", scan);
                    const long long segment = (32 - 2 * halo_units) * chunk;
                    const long long subgroups = (nx_ + segment - 1) / segment * ny_;
                    window_groups_[0][0] = unsigned((subgroups + warps - 1) / warps);
                    window_groups_[0][1] = 1;
                    continue;
                }
                if (d == 1 && 2 * halo_units < warps) {
                    window_[1] = &gl::compute_program(
                        "sim/heat_colscan.comp",
                        {{"CHUNK", std::to_string(chunk)}, {"HALO", std::to_string(halo)},
                         {"WARPS", std::to_string(warps)}, {"GROUP_SIZE", std::to_string(32 * warps)}});
                    const int segment = (warps - 2 * halo_units) * chunk;
                    window_groups_[1][0] = unsigned((nx_ + 31) / 32);
                    window_groups_[1][1] = unsigned((ny_ + segment - 1) / segment);
                    continue;
                }
            }
            const HeatWindowShape s = heat_window_shape(d, halo);
            if (s.lines == 0) {
                window_[0] = window_[1] = nullptr;
                return;
            }
            gl::Defines defines = {{"DIRECTION", std::to_string(d)}, {"LINES", std::to_string(s.lines)},
                                   {"SPAN", std::to_string(s.span)}, {"CHUNK", std::to_string(s.chunk)},
                                   {"HALO", std::to_string(s.halo)},
                                   {"GROUP_SIZE", std::to_string(s.lines * (s.span / s.chunk))}};
            // Variant: the right-hand side straight from the field (no T tile).
            const char* direct = std::getenv("ADILAB_HEAT_DIRECT");
            if (direct && std::string(direct) == "1") defines.push_back({"DIRECT_RHS", "1"});
            window_[d] = &gl::compute_program("sim/heat_window.comp", defines);
            const int length = d == 0 ? nx_ : ny_, count = d == 0 ? ny_ : nx_;
            window_groups_[d][0] = unsigned((length + s.span - 1) / s.span);
            window_groups_[d][1] = unsigned((count + s.lines - 1) / s.lines);
        }
    }

    // The scan kernel's shape for direction d: subgroups a work group and positions an
    // invocation. Defaults: the fastest of the H200 sweep (x: 8 subgroups of chunks of 4, y: 16
    // subgroups of chunks of 8, at 1024^2 and at 4096^2); ADILAB_HEAT_ROWSCAN (x) and
    // ADILAB_HEAT_COLSCAN (y) = "warps,chunk" override, "0" switches the scan off.
    static bool scan_shape(int d, int& warps, int& chunk) {
        warps = d == 0 ? 8 : 16;
        chunk = d == 0 ? 4 : 8;
        const char* env = std::getenv(d == 0 ? "ADILAB_HEAT_ROWSCAN" : "ADILAB_HEAT_COLSCAN");
        if (!env) return true;
        if (std::string(env) == "0") return false;
        int w = 0, c = 0;
        if (std::sscanf(env, "%d,%d", &w, &c) == 2 && w >= 1 && w <= 32 && c >= 1 && c <= 32) {
            warps = w;
            chunk = c;
        }
        return true;
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
    std::uint64_t window_version_ = 0;
    int window_halo_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_heat(const std::string& solver) {
    return std::make_unique<Heat>(solver);
}

}  // namespace adilab::sim::detail
