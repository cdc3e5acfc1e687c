#pragma once
// The bridge between a simulation and the renderer, shared by the GUI and the headless
// `adilab --bench sim --render WxH`: what to draw from a Simulation, a fitting 3-D height scale,
// and the offscreen frame loop that measures FPS with visualisation (the paper's measure).
#include "app/render/renderer.hpp"
#include "sim/simulation.hpp"

namespace adilab::render {

// The field, bottom and velocity of `sim` (borrowed: valid until its next step or reset).
FieldSource source_of(const sim::Simulation& sim);
// 3-D: the surface's middle at z = 0 and the whole relief (terrain and water) about 0.4 world
// units tall, the domain's longer side being 2. Reads back two min/max pairs: call after a reset.
void fit_height(Renderer& renderer, const sim::Simulation& sim, RenderSettings& settings);

// An offscreen width x height framebuffer and the renderer's default view of `sim` (3-D for
// shallow water, velocity arrows for advection), for headless frames: `--bench sim --render`.
class OffscreenView {
  public:
    // Fits the 3-D height scale to the simulation's current state (two small read-backs).
    OffscreenView(const sim::Simulation& sim, int width, int height);
    // One frame: binds the framebuffer and draws the simulation's current field. No read-back.
    void draw(const sim::Simulation& sim);
    bool three_d(const sim::Simulation& sim) const {
        return Renderer::draws_3d(source_of(sim), settings_);
    }
    const gl::Framebuffer& target() const { return target_; }

  private:
    Renderer renderer_;
    RenderSettings settings_;
    gl::Framebuffer target_;
};

struct RenderedRun {
    int width = 0, height = 0, frames = 0, steps_per_frame = 0;
    double ms_per_frame = 0;       // steps + drawing, GPU time per frame (median of runs)
    double fps = 0;                // 1000 / ms_per_frame
    double draw_ms_per_frame = 0;  // drawing alone (no steps), GPU time per frame
    bool three_d = false;
};
// Draws `frames` frames into an offscreen width x height framebuffer, each one `steps_per_frame`
// steps then a full draw (3-D for shallow water), timed as throughput with one GPU query per run
// (3 runs after a warm-up, median). The simulation advances.
RenderedRun measure_rendered(sim::Simulation& sim, int width, int height, int frames,
                             int steps_per_frame);

}  // namespace adilab::render
