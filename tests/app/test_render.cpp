// The viewer's renderer on a headless context (llvmpipe in CI): it draws a field straight from a
// storage buffer into an offscreen framebuffer, in 2-D and 3-D, and never draws NaN as a colour.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <thread>

#include "app/files/png.hpp"
#include "app/render/renderer.hpp"
#include "app/render/sim_view.hpp"
#include "sim/simulation.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/frame_timer.hpp"
#include "solvers/gl/objects.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::test {
namespace {

std::vector<float> bump_field(int nx, int ny) {
    std::vector<float> v(static_cast<std::size_t>(nx) * ny);
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const float x = (i + 0.5f) / nx - 0.3f, y = (j + 0.5f) / ny - 0.6f;
            v[static_cast<std::size_t>(j) * nx + i] = 1.0f + 0.2f * std::exp(-40 * (x * x + y * y));
        }
    return v;
}

std::set<unsigned> colours_of(const std::vector<std::uint8_t>& rgba) {
    std::set<unsigned> colours;
    for (std::size_t i = 0; i + 3 < rgba.size(); i += 4)
        colours.insert(rgba[i] << 16 | rgba[i + 1] << 8 | rgba[i + 2]);
    return colours;
}

TEST(Renderer, RangeReductionMatchesTheHostAndCountsNonFinite) {
    ADILAB_NEED_GL();
    std::vector<float> v = bump_field(37, 23);  // awkward sizes: not multiples of a group
    v[5] = std::numeric_limits<float>::quiet_NaN();
    v[400] = -std::numeric_limits<float>::infinity();
    v[11] = -3.25f;
    gl::Buffer field = gl::Buffer::from(v);
    render::Renderer renderer;
    render::Range r = renderer.measure(field, v.size());
    float lo = 1e30f, hi = -1e30f;
    for (float x : v)
        if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
    ASSERT_TRUE(r.valid);
    EXPECT_EQ(r.min, lo);  // min/max are exact: no arithmetic, only comparisons
    EXPECT_EQ(r.max, hi);
    EXPECT_EQ(r.nonfinite, 2u);
}

TEST(Renderer, Draws2DAnd3DFromTheBufferAndNeverNaN) {
    ADILAB_NEED_GL();
    const int nx = 48, ny = 32, w = 200, h = 140;
    std::vector<float> v = bump_field(nx, ny);
    gl::Buffer field = gl::Buffer::from(v);
    std::vector<float> b(v.size(), 0.8f);
    gl::Buffer bottom = gl::Buffer::from(b);
    gl::Framebuffer target(w, h);
    render::Renderer renderer;
    render::FieldSource source{&field, nx, ny, 1.0f, &bottom, {}, true};
    render::RenderSettings settings;

    target.bind();
    settings.three_d = false;
    renderer.draw(source, settings, {0, 0, w, h});
    auto flat = target.read_rgba();
    EXPECT_GT(colours_of(flat).size(), 20u) << "2-D field drawn as too few colours";
    // Aspect preserved: 48:32 in a 110x140 field area (200 - 90 for the bar) fills the width,
    // so the top and bottom rows are background.
    auto pixel = [&](const std::vector<std::uint8_t>& img, int x, int y) {
        const std::size_t k = 4 * (static_cast<std::size_t>(y) * w + x);
        return img[k] << 16 | img[k + 1] << 8 | img[k + 2];
    };
    EXPECT_EQ(pixel(flat, 50, 2), pixel(flat, 10, 1));

    settings.three_d = true;
    settings.base_level = 1.0f;  // the calm surface at z = 0, the 0.2 m bump 0.2 world units up
    renderer.draw(source, settings, {0, 0, w, h});
    auto solid = target.read_rgba();
    EXPECT_GT(colours_of(solid).size(), 20u) << "3-D water drawn as too few colours";
    EXPECT_NE(flat, solid);
    if (const char* dump = std::getenv("ADILAB_TEST_DUMP")) {  // for looking at the pictures
        files::write_png(std::string(dump) + "/render-2d.png", w, h, flat);
        files::write_png(std::string(dump) + "/render-3d.png", w, h, solid);
    }

    // A field of NaN: the range has no finite value and nothing is drawn as a colormap colour.
    std::vector<float> bad(v.size(), std::numeric_limits<float>::quiet_NaN());
    field.write(bad);
    settings.three_d = false;
    settings.colour_bar = false;
    renderer.draw(source, settings, {0, 0, w, h});
    render::Range r = renderer.read_range();
    EXPECT_FALSE(r.valid);
    EXPECT_EQ(r.nonfinite, static_cast<unsigned>(nx * ny));
    for (unsigned c : colours_of(target.read_rgba())) {
        const unsigned red = c >> 16, green = (c >> 8) & 255, blue = c & 255;
        EXPECT_TRUE((red == green && green == blue) || (red < 40 && green < 40 && blue < 40))
            << "NaN cells must be grey checker or background, got " << std::hex << c;
    }
}

TEST(Renderer, PixelToCellInvertsTheLayout) {
    render::FieldSource source;
    source.nx = 100;
    source.ny = 50;
    render::RenderSettings settings;
    settings.colour_bar = false;
    settings.zoom = 2;
    settings.pan = {0.1f, -0.2f};
    const render::Rect viewport{10, 20, 400, 300};
    auto layout = render::Renderer::layout_2d(source, settings, viewport);
    const glm::vec2 middle = 0.5f * (layout.domain_min + layout.domain_max);
    auto cell = render::Renderer::pixel_to_cell(source, settings, viewport, middle);
    ASSERT_TRUE(cell.has_value());
    EXPECT_NEAR(cell->x, 50.0f, 1e-3f);
    EXPECT_NEAR(cell->y, 25.0f, 1e-3f);
    // Square cells: the domain's pixel size keeps the grid's 2:1 aspect.
    const glm::vec2 size = layout.domain_max - layout.domain_min;
    EXPECT_NEAR(size.x / size.y, 2.0f, 1e-4f);
    EXPECT_FALSE(
        render::Renderer::pixel_to_cell(source, settings, viewport, {-1000, -1000}).has_value());
}

// The cross-section's line is drawn where its cells are: cell_to_pixel and pixel_to_cell are
// inverses, in 2-D and in 3-D on the base plane.
TEST(Renderer, CellToPixelIsPixelToCellsInverse) {
    render::FieldSource source;
    source.nx = 100;
    source.ny = 50;
    render::RenderSettings settings;
    settings.zoom = 1.5f;
    settings.pan = {0.1f, -0.2f};
    const render::Rect viewport{10, 20, 400, 300};
    for (bool three_d : {false, true}) {
        source.height_field = three_d;
        settings.three_d = three_d;
        for (glm::vec2 cell :
             {glm::vec2(10.5f, 5.5f), glm::vec2(50, 25), glm::vec2(80.25f, 40.75f)}) {
            const auto pixel = render::Renderer::cell_to_pixel(source, settings, viewport, cell);
            ASSERT_TRUE(pixel.has_value());
            const auto back = render::Renderer::pixel_to_cell(source, settings, viewport, *pixel);
            ASSERT_TRUE(back.has_value()) << (three_d ? "3-D" : "2-D");
            EXPECT_NEAR(back->x, cell.x, 1e-2f) << (three_d ? "3-D" : "2-D");
            EXPECT_NEAR(back->y, cell.y, 1e-2f) << (three_d ? "3-D" : "2-D");
        }
    }
}

TEST(Renderer, OffscreenFramesWithASimulationAdvanceAndMeasure) {
    ADILAB_NEED_GL();
    for (const char* model : {"heat", "shallow-water"}) {
        auto sim = sim::make_simulation(model);
        sim->reset(sim->scenarios().front(), 48, 40);
        const auto before = sim->stats().steps;
        render::RenderedRun run = render::measure_rendered(*sim, 160, 100, 2, 1);
        // 1 warm-up + 3 timed runs of 2 frames, one step each.
        EXPECT_EQ(sim->stats().steps - before, 8) << model;
        EXPECT_GT(run.ms_per_frame, 0) << model;
        EXPECT_GT(run.draw_ms_per_frame, 0) << model;
        EXPECT_EQ(run.three_d, std::string(model) == "shallow-water");
    }
}

TEST(Renderer, DispatchProfilerChargesEachDispatchToItsProgram) {
    ADILAB_NEED_GL();
    std::vector<float> v = bump_field(33, 17);
    gl::Buffer field = gl::Buffer::from(v);
    render::Renderer renderer;
    renderer.measure(field, v.size());  // compiles first
    gl::DispatchProfiler profiler;
    profiler.begin();
    renderer.measure(field, v.size());  // the min/max reduction: pass 1, then pass 2
    renderer.measure(field, v.size());
    profiler.end();
    renderer.measure(field, v.size());  // not profiled
    gl::finish();
    const auto phases = profiler.collect();
    ASSERT_EQ(phases.size(), 2u);
    EXPECT_NE(phases[0].label.find("render/minmax.comp"), std::string::npos) << phases[0].label;
    EXPECT_NE(phases[0].label.find("PASS1"), std::string::npos) << phases[0].label;
    EXPECT_EQ(phases[1].label.find("PASS1"), std::string::npos) << phases[1].label;
    EXPECT_EQ(phases[0].dispatches, 2);
    EXPECT_EQ(phases[1].dispatches, 2);
    EXPECT_GE(phases[0].ms, 0.0);
    EXPECT_EQ(gl::DispatchProfiler::active(), nullptr);
    EXPECT_TRUE(profiler.collect().empty()) << "a frame is reported once";

    // A simulation step needs no change to be profiled: its dispatches carry its programs.
    auto sim = sim::make_simulation("heat");
    sim->reset("two-heaters", 40, 24);
    sim->step(1);
    profiler.begin();
    sim->step(2);
    profiler.end();
    gl::finish();
    const auto steps = profiler.collect();
    ASSERT_FALSE(steps.empty());
    for (const auto& phase : steps) EXPECT_NE(phase.label.find("sim/"), std::string::npos);
}

// The overlay's first phase read 0.000 ms under Xvfb: llvmpipe stamps its queries when its
// rasteriser runs the binned scene, not when a compute dispatch runs, so every mark of the step
// took the time of the next flush. The probe now trusts the marks only where they time compute
// work, and the profiler falls back to the CPU's clock, which on such a driver (it runs each
// dispatch inside the call) is the dispatch's work. With either source, a step of two equal
// half steps reads two phases of comparable, non-zero time that add up to the step.
TEST(Renderer, DispatchProfilerPhasesAreEachDispatchesWorkAndAddUp) {
    ADILAB_NEED_GL();
    using Source = gl::DispatchProfiler::Source;
    auto sim = sim::make_simulation("heat");
    sim->reset("free", 256, 256);  // x and y sweeps of the same size: the same work
    sim->step(2);                  // compiles first
    std::vector<Source> sources = {Source::cpu_clock};
    if (gl::Context::current().timestamps_time_compute()) sources.push_back(Source::gpu_timestamps);
    for (Source source : sources) {
        SCOPED_TRACE(source == Source::cpu_clock ? "CPU clock" : "GPU timestamps");
        gl::DispatchProfiler profiler(2, 96, source);
        EXPECT_EQ(profiler.source(), source);
        gl::finish();
        const auto start = std::chrono::steady_clock::now();
        profiler.begin(7);
        sim->step(3);
        profiler.end();
        gl::finish();
        const double wall_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        const auto phases = profiler.collect();
        ASSERT_EQ(phases.size(), 2u);
        EXPECT_EQ(profiler.last_frame(), 7);
        double sum = 0;
        for (const auto& p : phases) {
            EXPECT_EQ(p.dispatches, 3) << p.label;
            sum += p.ms;
        }
        // Each sweep reads the other's time within a factor of 4 (the same work; a loaded
        // 2-core machine can stretch one), never 0.
        EXPECT_GT(phases[0].ms, 0.25 * phases[1].ms) << phases[0].ms << " vs " << phases[1].ms;
        EXPECT_GT(phases[1].ms, 0.25 * phases[0].ms) << phases[0].ms << " vs " << phases[1].ms;
        // The phases lie within the step's wall time, and on a driver that runs the work inside
        // the calls (llvmpipe, where the step takes milliseconds) they are most of it.
        EXPECT_LE(sum, wall_ms * 1.05 + 0.05);
        if (wall_ms > 20) {
            EXPECT_GT(sum, 0.5 * wall_ms) << "wall " << wall_ms << " ms";
        }
    }
}

TEST(Renderer, DispatchProfilerSeesOnlyItsOwnThreadsDispatches) {
    // The viewer profiles its frame while a benchmark tab's worker dispatches on its own
    // context: those dispatches were charged to the frame (benchmark kernels listed as
    // simulation phases) and wrote the viewer's queries from the wrong context (times that
    // wrapped to ~1.8e13 ms). The active profiler is per thread.
    ADILAB_NEED_GL();
    gl::DispatchProfiler profiler;
    profiler.begin();
    ASSERT_EQ(gl::DispatchProfiler::active(), &profiler);
    const gl::DispatchProfiler* seen_by_worker = &profiler;
    std::thread([&] { seen_by_worker = gl::DispatchProfiler::active(); }).join();
    EXPECT_EQ(seen_by_worker, nullptr);
    profiler.end();
}

TEST(Renderer, DivergingMapCentresOnTheReference) {
    // Calm water at 1 m with one 0.2 m crest: centred on the rest level, the calm cells get
    // the map's neutral middle (Moreland's 0.865 grey), not the cool end the auto range's
    // middle (1.1 m) would give them.
    ADILAB_NEED_GL();
    const int nx = 48, ny = 32, w = 200, h = 140;
    std::vector<float> v = bump_field(nx, ny);
    gl::Buffer field = gl::Buffer::from(v);
    gl::Framebuffer target(w, h);
    render::Renderer renderer;
    render::FieldSource source{&field, nx, ny, 1.0f, nullptr, {}, false};
    render::RenderSettings settings;
    settings.colormap = render::Colormap::diverging;
    settings.colour_bar = false;
    settings.reference = 1.0f;
    target.bind();
    renderer.draw(source, settings, {0, 0, w, h});
    const auto image = target.read_rgba();
    // A calm corner cell of the domain (it fills the width: x 0..200, y 4..136 by its aspect).
    const std::size_t k = 4 * (static_cast<std::size_t>(130) * w + 190);
    EXPECT_NEAR(image[k], 221, 3);  // 0.865 * 255
    EXPECT_NEAR(image[k + 1], 221, 3);
    EXPECT_NEAR(image[k + 2], 221, 3);

    // The labels' range is the shaders' range: symmetric about the reference.
    render::Range measured{1.0f, 1.2f, 0, true};
    const render::Range shown = render::shown_range(measured, settings);
    EXPECT_FLOAT_EQ(shown.min, 0.8f);
    EXPECT_FLOAT_EQ(shown.max, 1.2f);
    settings.colormap = render::Colormap::viridis;
    EXPECT_FLOAT_EQ(render::shown_range(measured, settings).min, 1.0f);
    // A flat field (right after a reset) spans value +- 0.5, as range.glsl draws it: never [0, 0].
    const render::Range flat = render::shown_range({0.0f, 0.0f, 0, true}, settings);
    EXPECT_FLOAT_EQ(flat.min, -0.5f);
    EXPECT_FLOAT_EQ(flat.max, 0.5f);
    // Log scale: the top and 4 decades below it when the field reaches 0; 0.01 mid-bar.
    settings.log_scale = true;
    const render::Range decades = render::shown_range({0.0f, 1.0f, 0, true}, settings);
    EXPECT_FLOAT_EQ(decades.min, 1e-4f);
    EXPECT_FLOAT_EQ(decades.max, 1.0f);
    EXPECT_NEAR(render::colour_position(0.01, decades, settings), 0.5, 1e-6);
    EXPECT_NEAR(render::colour_position(0.0, decades, settings), 0.0, 1e-12) << "0 at the bottom";
}

TEST(Renderer, CameraFitKeepsTheDomainInViewAndPitchIsLimited) {
    render::OrbitCamera camera;
    for (float aspect : {0.5f, 1.0f, 2.0f}) {
        camera.fit(glm::vec2(1.0f, 1.0f), 0.25f, aspect);
        const glm::mat4 clip = camera.projection(aspect) * camera.view();
        for (float x : {-1.0f, 1.0f})
            for (float y : {-1.0f, 1.0f})
                for (float z : {-0.25f, 0.25f}) {
                    const glm::vec4 p = clip * glm::vec4(x, y, z, 1.0f);
                    EXPECT_LE(std::abs(p.x / p.w), 1.0f) << "aspect " << aspect;
                    EXPECT_LE(std::abs(p.y / p.w), 1.0f) << "aspect " << aspect;
                }
    }
    camera.rotate(0, -10);
    EXPECT_GE(camera.pitch, 0.15f) << "no edge-on view";
    camera.rotate(0, 10);
    EXPECT_LE(camera.pitch, 1.5f);
}

}  // namespace
}  // namespace adilab::test
