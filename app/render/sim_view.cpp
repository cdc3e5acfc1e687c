#include "app/render/sim_view.hpp"

#include <algorithm>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/timer.hpp"

namespace adilab::render {

FieldSource source_of(const sim::Simulation& sim) {
    FieldSource s;
    s.field = &sim.field();
    s.nx = sim.nx();
    s.ny = sim.ny();
    s.dh = static_cast<float>(sim.param("dh"));
    s.bottom = sim.terrain();
    s.height_field = sim.model() == "shallow-water";
    if (auto v = sim.velocity()) {
        s.velocity.kind = v->kind == sim::Velocity::Kind::uniform ? Velocity::Kind::uniform
                                                                  : Velocity::Kind::rotation;
        s.velocity.u = v->u;
        s.velocity.v = v->v;
        s.velocity.omega = v->omega;
    }
    return s;
}

void fit_height(Renderer& renderer, const sim::Simulation& sim, RenderSettings& settings) {
    if (sim.model() != "shallow-water") return;
    const std::size_t count = static_cast<std::size_t>(sim.nx()) * sim.ny();
    const Range h = renderer.measure(sim.field(), count);
    float lo = h.valid ? h.min : 0.0f, hi = h.valid ? h.max : 1.0f;
    if (const gl::Buffer* b = sim.terrain()) {
        const Range r = renderer.measure(*b, count);
        if (r.valid) lo = std::min(lo, r.min), hi = std::max(hi, r.max);
    }
    settings.base_level = h.valid ? 0.5f * (h.min + h.max) : 0.0f;
    settings.height_scale = 0.4f / std::max(hi - lo, 1e-3f);
}

OffscreenView::OffscreenView(const sim::Simulation& sim, int width, int height)
    : target_(width, height) {
    settings_.show_velocity = true;
    fit_height(renderer_, sim, settings_);
}

void OffscreenView::draw(const sim::Simulation& sim) {
    target_.bind();
    renderer_.draw(source_of(sim), settings_, Rect{0, 0, target_.width(), target_.height()},
                   &target_.colour());
}

RenderedRun measure_rendered(sim::Simulation& sim, int width, int height, int frames,
                             int steps_per_frame) {
    OffscreenView view(sim, width, height);
    RenderedRun run;
    run.width = width;
    run.height = height;
    run.frames = frames;
    run.steps_per_frame = steps_per_frame;
    run.three_d = view.three_d(sim);
    auto frames_with_steps = [&] {
        for (int f = 0; f < frames; ++f) {
            sim.step(steps_per_frame);
            view.draw(sim);
        }
    };
    auto frames_drawing_only = [&] {
        for (int f = 0; f < frames; ++f) view.draw(sim);
    };
    const gl::TimingOptions options{1, 3};
    run.ms_per_frame = gl::median(gl::time_runs(frames_with_steps, options)) / frames;
    run.fps = run.ms_per_frame > 0 ? 1000.0 / run.ms_per_frame : 0;
    run.draw_ms_per_frame = gl::median(gl::time_runs(frames_drawing_only, options)) / frames;
    gl::Framebuffer::bind_default(width, height);
    return run;
}

}  // namespace adilab::render
