#include "app/gui/headless_ui.hpp"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>

#include "app/cli/args.hpp"
#include "app/files/png.hpp"
#include "app/gui/bench_tabs.hpp"
#include "app/gui/interface.hpp"
#include "app/gui/settings.hpp"
#include "app/gui/viewer.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/objects.hpp"
#include "solvers/gl/timer.hpp"

namespace adilab::gui {

namespace {

// ImGui's context and OpenGL3 backend for the run, torn down in reverse order.
class ImGuiSession {
  public:
    ImGuiSession(int width, int height) {
        // ImGui's current context is process-wide: inside the GUI (its benchmark tabs run
        // benchmarks on worker threads) a second one would take over the window's.
        if (ImGui::GetCurrentContext() != nullptr)
            throw Error(
                "--ui runs only from the command line (adilab --bench sim), not inside the GUI");
        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;  // a benchmark reads and writes no layout
        ImGui::StyleColorsDark();
        if (!ImGui_ImplOpenGL3_Init("#version 430 core")) {
            ImGui::DestroyContext();
            throw Error("--ui: Dear ImGui's OpenGL3 backend could not start on this context");
        }
        io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
        io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    }
    ~ImGuiSession() {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui::DestroyContext();
    }
    ImGuiSession(const ImGuiSession&) = delete;
    ImGuiSession& operator=(const ImGuiSession&) = delete;
};

}  // namespace

bench::UiRunResult run_headless_ui(const bench::UiRunRequest& request) {
    ImGuiSession session(request.width, request.height);
    const gl::DeviceInfo& device = gl::Context::current().info();
    Settings settings;  // defaults, as a first start: the Simulation tab shown, overlay on
    ViewerStart start;
    start.model = request.model;
    start.scenario = request.scenario;
    start.solver = request.solver;
    start.terrain = request.terrain;
    start.grid = request.grid;
    start.steps_per_frame = 1;
    Viewer viewer(start, settings, device.renderer, device.version);
    BenchTabs bench_tabs{cli::Args{}};
    gl::Framebuffer target(request.width, request.height);
    Viewer::TimingLog log;

    using Clock = std::chrono::steady_clock;
    auto last = Clock::now();
    double frame_ms = 1.0;
    std::int64_t frame = 0;
    FrameLayout layout;
    // gui.cpp's frame, less the window: events, presentation and screenshots.
    auto one_frame = [&] {
        ++frame;
        ImGuiIO& io = ImGui::GetIO();
        io.DeltaTime = static_cast<float>(std::max(frame_ms, 1e-3) / 1000.0);
        ImGui_ImplOpenGL3_NewFrame();
        ImGui::NewFrame();
        layout = frame_layout(viewer, request.width, request.height, 1.0f, 1.0f);
        viewer.advance(frame);
        draw_interface(viewer, bench_tabs, layout, request.height, 1.0f);
        target.bind();
        gl::clear(0.08f, 0.09f, 0.11f, 1.0f);
        viewer.render(layout.viewport, frame);
        viewer.begin_ui_timing(frame);
        ImGui::Render();
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        viewer.end_ui_timing();
        const auto now = Clock::now();
        frame_ms = std::chrono::duration<double, std::milli>(now - last).count();
        last = now;
        viewer.end_frame(frame_ms, frame);
    };
    // Untimed: compiles, the font atlas, the first layout passes.
    for (int i = 0; i < 20; ++i) one_frame();
    gl::finish();
    viewer.set_timing_log(&log);
    const auto begin = Clock::now();
    last = begin;
    for (int i = 0; i < request.frames; ++i) one_frame();
    gl::finish();
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
    viewer.set_timing_log(nullptr);
    if (!request.screenshot.empty())
        files::write_png(request.screenshot, request.width, request.height, target.read_rgba());
    gl::Framebuffer::bind_default(request.width, request.height);

    bench::UiRunResult result;
    result.frames = request.frames;
    result.sim_ms = gl::median(log.sim_ms);
    result.draw_ms = gl::median(log.render_ms);
    result.ui_ms = gl::median(log.ui_ms);
    result.frame_ms = wall_ms / std::max(request.frames, 1);
    result.fps = result.frame_ms > 0 ? 1000.0 / result.frame_ms : 0;
    result.viewport_width = layout.viewport.width;
    return result;
}

}  // namespace adilab::gui
