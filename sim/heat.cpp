// Model "heat": dT/dt = c (T_xx + T_yy), Peaceman–Rachford ADI with insulated walls (seed 001
// simulation 1, eq. 3). Kernels: shaders/sim/heat.comp.
//   fused:   x half step (field -> half) and y half step (half -> field): 2 dispatches a step.
//   generic: rows kernel (rhs of the increment), Solver::solve with ConstantCoefficients into
//            the output, finish kernel (T + dT, heaters, stability flag), per half step.
#include <cmath>

#include "sim/model.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim::detail {
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
    void apply_brush(const Brush& brush) override { dispatch_brush(brush, field_, nullptr); }

protected:
    gl::Buffer& field_buffer() override { return field_; }
    std::vector<std::pair<std::string, gl::Buffer*>> state_buffers() override {
        return {{"T", &field_}};
    }

    void allocate() override {
        field_ = gl::Buffer(cells() * sizeof(float));
        half_ = gl::Buffer(cells() * sizeof(float));
        resolve_programs("sim/heat.comp", 1);
        if (!fused()) rhs_ = gl::Buffer(cells() * sizeof(float));
    }

    void initialize() override { field_.fill(float(param("initial_temperature"))); }

    void step_once() override {
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
    }

    void half_step(int direction, const gl::Buffer& in, gl::Buffer& out) {
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
};

}  // namespace

std::unique_ptr<Simulation> make_heat(const std::string& solver) {
    return std::make_unique<Heat>(solver);
}

}  // namespace adilab::sim::detail
