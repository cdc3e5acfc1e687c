// Model "shallow-water": Kass & Miller (1990), seed 001 simulation 3. Kernels:
// shaders/sim/shallow_water.comp. State: the surface height h = h^{n-1}, the last change
// v = h^{n-1} - h^{n-2} (the round-off-safe form of Kass & Miller's two previous heights, see the
// shader) and the bottom b. A step: the x sweep (h, v -> dx), the y sweep (dx -> h^n into the
// second height buffer, v^n in place), then the two height buffers swap roles (no copy).
// Scenarios:
//   diagonal-push — a calm sheet at `level`, pushed along the domain's diagonal for push_steps
//                   steps (Fig. 19);
//   drops         — a drop every drop_interval steps at a pseudo-random place: ring waves;
//   dam-break     — the left third raised by dam_height at rest;
//   free          — flat bottom, the field from --init (else `level`).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/model.hpp"
#include "solvers/gl/commands.hpp"
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

class ShallowWater final : public AdiModel {
public:
    explicit ShallowWater(const std::string& solver)
        : AdiModel("shallow-water",
                   {{"g", "m/s^2", "gravity", 9.81, 1e-6, 1e6},
                    {"dt", "s", "time step (implicit: stable for any dt)", 0.05, 1e-9, 1e6},
                    {"dh", "m", "cell size", 1.0, 1e-9, 1e9},
                    {"damping", "1", "tau: (1 - tau)(h^{n-1} - h^{n-2}) in the right-hand side", 0.0, 0.0, 1.0},
                    {"level", "m", "still water level (surface height at rest)", 1.0, 0.0, 1e6},
                    {"push_strength", "m/step", "diagonal push per step", 0.0002, -1e3, 1e3},
                    {"push_width", "cells", "half width of the diagonal push", 4.0, 0.1, 1e5},
                    {"push_steps", "steps", "how long the diagonal push lasts", 50.0, 0.0, 2e9},
                    {"drop_interval", "steps", "steps between drops", 200.0, 1.0, 2e9},
                    {"drop_height", "m", "height of a drop's impulse", -0.05, -1e3, 1e3},
                    {"drop_radius", "cells", "radius of a drop", 3.0, 0.1, 1e5},
                    {"dam_height", "m", "dam-break: how much higher the left third starts", 0.5, -1e6, 1e6}},
                   {"diagonal-push", "drops", "dam-break", "free"}, solver) {}

    const gl::Buffer& field() const override { return height_; }
    const gl::Buffer* terrain() const override { return &bottom_; }
    std::vector<std::string> terrains() const override { return terrain_presets(); }
    void set_terrain(const std::string& name) override {
        if (!name.starts_with("png:")) {
            const auto known = terrain_presets();
            if (std::find(known.begin(), known.end(), name) == known.end())
                make_terrain(name, 4, 4, 1.0f);  // throws listing the presets
        }
        terrain_ = name;
    }
    std::string terrain_name() const override { return terrain_; }
    // Displaces the surface without giving it a velocity (v unchanged).
    void apply_brush(const Brush& brush) override { dispatch_brush(brush, height_, nullptr); }

protected:
    gl::Buffer& field_buffer() override { return height_; }
    std::vector<std::pair<std::string, gl::Buffer*>> state_buffers() override {
        return {{"h", &height_}, {"v", &velocity_}, {"b", &bottom_}};
    }
    void after_set_field() override { velocity_.zero(); }

    void allocate() override {
        height_ = gl::Buffer(cells() * sizeof(float));
        next_ = gl::Buffer(cells() * sizeof(float));
        velocity_ = gl::Buffer(cells() * sizeof(float));
        intermediate_ = gl::Buffer(cells() * sizeof(float));
        bottom_ = gl::Buffer(cells() * sizeof(float));
        resolve_programs("sim/shallow_water.comp", 2);
        if (!fused()) {
            rhs_ = gl::Buffer(cells() * sizeof(float));
            a_ = gl::Buffer(cells() * sizeof(float));
            b_ = gl::Buffer(cells() * sizeof(float));
            c_ = gl::Buffer(cells() * sizeof(float));
        }
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
    }

    void step_once() override {
        half_step(0);
        half_step(1);
        std::swap(height_, next_);
    }

private:
    void set_uniforms(const gl::Program& p) const override {
        const double dh = param("dh"), dt = param("dt");
        p.set("coupling", float(param("g") * dt * dt / (2 * dh * dh)));
        p.set("damping", float(param("damping")));
    }

    // The forcing of this step (x sweep only): changes from step to step.
    void set_forcing(const gl::Program& p, bool always) {
        int kind = 0;
        float strength = 0, width = 1;
        glm::vec2 centre(0);
        if (scenario_ == "diagonal-push" && steps_ <= std::int64_t(param("push_steps"))) {
            kind = 1;
            strength = float(param("push_strength"));
            width = float(param("push_width"));
        } else if (scenario_ == "drops") {
            const std::int64_t interval = std::int64_t(param("drop_interval"));
            if ((steps_ - 1) % interval == 0) {
                const std::uint64_t r = mix(std::uint64_t((steps_ - 1) / interval));
                kind = 2;
                strength = float(param("drop_height"));
                width = float(param("drop_radius"));
                centre = glm::vec2(float(0.1 + 0.8 * double(r & 0xffffffu) / 16777216.0) * nx_,
                                   float(0.1 + 0.8 * double((r >> 24) & 0xffffffu) / 16777216.0) * ny_);
            }
        }
        if (!always && kind == 0 && last_forcing_kind_ == 0) return;  // still none
        last_forcing_kind_ = kind;
        p.set("forcing_kind", kind);
        p.set("forcing_strength", strength);
        p.set("forcing_width", width);
        p.set("forcing_center", centre);
    }
    int last_forcing_kind_ = -1;

    void bind_state(int direction, gl::Buffer& out) {
        height_.bind_storage(0);
        out.bind_storage(1);
        velocity_.bind_storage(2);
        bottom_.bind_storage(8);
        if (direction == 1) intermediate_.bind_storage(9);
    }

    void half_step(int direction) {
        // x: -> dx; y: -> h^n (and v^n in place).
        gl::Buffer& out = direction == 0 ? intermediate_ : next_;
        if (fused()) {
            const bool stale = use_fused(direction);
            if (direction == 0) set_forcing(*fused_[direction], stale);
            bind_state(direction, out);
            bind_flag();
            gl::dispatch(fused_groups_[direction]);
            gl::memory_barrier(gl::Barrier::storage);
            return;
        }
        const gl::Program& rows = *rows_[direction];
        rows.use();
        set_grid_uniforms(rows);
        set_uniforms(rows);
        set_forcing(rows, true);
        bind_state(direction, out);
        rhs_.bind_storage(3);
        a_.bind_storage(4);
        b_.bind_storage(5);
        c_.bind_storage(6);
        gl::dispatch(cell_groups());
        gl::memory_barrier(gl::Barrier::storage);
        // x: dx straight into the intermediate; y: dv into v, which the finish kernel turns
        // into h^n and v^n.
        solver_ref().solve({nx_, ny_}, direction == 0 ? tridiag::Direction::x : tridiag::Direction::y,
                           tridiag::GeneralCoefficients{&a_, &b_, &c_}, rhs_,
                           direction == 0 ? intermediate_ : velocity_);
        gl::memory_barrier(gl::Barrier::storage);
        if (direction == 1) {  // the dry clamp and the stability flag
            const gl::Program& finish = *finish_[direction];
            finish.use();
            set_grid_uniforms(finish);
            bind_state(direction, out);
            bind_flag();
            gl::dispatch(cell_groups());
            gl::memory_barrier(gl::Barrier::storage);
        }
    }

    gl::Buffer height_, next_, velocity_, intermediate_, bottom_, rhs_, a_, b_, c_;
};

}  // namespace

std::unique_ptr<Simulation> make_shallow_water(const std::string& solver) {
    return std::make_unique<ShallowWater>(solver);
}

}  // namespace adilab::sim::detail
