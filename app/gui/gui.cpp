// The GUI: a viewport on the left and a side panel of tabs on the right. The interactive frame
// loop lives here; a scripted run (--frames and its options) is scripted_run.cpp, which the loop
// asks at the few points where a test reaches in. The simulation viewer's state and actions are
// viewer*.cpp (viewer.hpp lists them), its views viewer_panel.cpp (the Simulation tab),
// viewer_overlay.cpp and viewer_input.cpp (keys and mouse); the drawing is app/render (shared
// with the headless `--bench sim --render`).
#include "app/gui/gui.hpp"

#include <imgui.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "app/files/paths.hpp"
#include "app/gui/bench_tabs.hpp"
#include "app/gui/interface.hpp"
#include "app/gui/screenshot.hpp"
#include "app/gui/scripted_run.hpp"
#include "app/gui/settings.hpp"
#include "app/gui/viewer.hpp"
#include "app/gui/viewer_input.hpp"
#include "app/gui/window.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/objects.hpp"

namespace adilab::gui {

std::vector<cli::OptionSpec> options() {
    std::vector<cli::OptionSpec> all = {
        {"model", "M", "simulation model: heat, advection, shallow-water"},
        {"scenario", "S", "scenario (picks the model that has it when --model is not given)"},
        {"preset", "NAME", "a scenario preset from assets/presets/NAME.preset"},
        {"grid", "N", "grid N x N, 4..8192 (less where the GPU's storage blocks are smaller)"},
        {"solver", "NAME", "solver variant (fused, or a tridiagonal solver)"},
        {"terrain", "NAME", "shallow water: flat, slope, island, basin or png"},
        {"steps-per-frame", "K", "simulation steps per frame, 1..1000"},
        {"set", "NAME=VALUE", "set a simulation parameter (repeatable)", true},
        {"colormap", "NAME", "viridis, inferno, diverging, grayscale or turbo"},
        {"paused", "",
         "start paused: the first frames show the start (or a loaded state) "
         "without stepping; Space plays"},
        {"run-until", "T",
         "play until the simulated time reaches T seconds, then pause (the "
         "panel's \"Run until t =\")"},
        {"video-size", "WxH", "videos (F10, --record-video): the frame size, 16..8192, even",
         cli::Default{"1280x720"}},
        {"video-fps", "N", "videos: frames per second, 1..240", cli::Default{"30"}},
        {"video-format", "F",
         "videos: mp4 (through ffmpeg when it is on PATH, else PNG frames) "
         "or png (a PNG frame sequence)",
         cli::Default{"mp4"}},
    };
    for (cli::OptionSpec& o : scripted_run_options()) all.push_back(std::move(o));
    for (cli::OptionSpec& o : bench_tab_options()) all.push_back(std::move(o));
    return all;
}

namespace {

ViewerStart viewer_start(const cli::Args& args) {
    ViewerStart start;
    start.model = args.get("model");
    start.scenario = args.get("scenario");
    start.preset = args.get("preset");
    start.solver = args.get("solver");
    start.terrain = args.get("terrain");
    start.colormap = args.get("colormap");
    start.paused = args.has("paused");
    if (args.has("run-until")) {
        start.run_until = cli::parse_double("run-until", args.get("run-until"));
        if (!(start.run_until > 0))
            throw cli::UsageError("--run-until expects a time in seconds above 0, got '" +
                                  args.get("run-until") + "'");
    }
    // The simulations' limits; the device's storage-block limit is checked once a context exists.
    start.grid = static_cast<int>(args.get_int("grid", 0, GridLimits{}.min, GridLimits{}.max));
    start.steps_per_frame = static_cast<int>(args.get_int("steps-per-frame", 0, 1, 1000));
    for (const std::string& item : args.all("set")) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw cli::UsageError("--set expects NAME=VALUE, got '" + item + "'");
        // Checked before any window opens: a number (strictly), or a word that may name a
        // scheme; the parameter itself checks it once the model exists.
        const std::string text = item.substr(eq + 1);
        const bool word =
            !text.empty() && text != "nan" && text != "inf" && text != "infinity" &&
            text.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string::npos;
        if (!word) cli::parse_double("set " + item.substr(0, eq), text);  // throws naming the text
        start.params.emplace_back(item.substr(0, eq), text);
    }
    if (args.has("video-size")) {
        const auto [w, h] = cli::parse_dimensions("video-size", args.get("video-size"),
                                                  kMinVideoSide, kMaxVideoSide);
        start.video_width = static_cast<int>(w);
        start.video_height = static_cast<int>(h);
    }
    start.video_fps = static_cast<int>(args.get_int("video-fps", 0, 1, kMaxVideoFps));
    start.video_format = args.get("video-format");
    if (!start.video_format.empty() && start.video_format != "mp4" && start.video_format != "png")
        throw cli::UsageError("--video-format must be mp4 or png, not '" + start.video_format +
                              "'");
    if (!start.colormap.empty()) {
        bool known = false;
        for (const char* name : render::kColormapNames) known = known || start.colormap == name;
        if (!known)
            throw cli::UsageError("--colormap: unknown '" + start.colormap +
                                  "' (viridis, inferno, diverging, grayscale, turbo)");
    }
    return start;
}

// F12 or the panel's button: the window or the viewport into the screenshots folder; the status
// line says where, or why not.
void save_requested_screenshot(Viewer& viewer, render::Rect area) {
    try {
        const auto path = viewer.next_screenshot_path();
        write_screenshot(path, area);
        viewer.notify("screenshot " + files::absolute_text(path));
    } catch (const std::exception& e) {
        viewer.report_error(e.what());
    }
}

// The frames, from the first until the window is closed or a scripted run's last frame; returns
// the exit code (a scripted run's, else 0). `script` is null in an interactive run.
int run_frames(Window& window, Viewer& viewer, BenchTabs& bench_tabs, ScriptedRun* script) {
    using Clock = std::chrono::steady_clock;
    auto frame_start = Clock::now();
    for (long long frame = 1; !window.should_close(); ++frame) {
        window.begin_frame();
        if (viewer.vsync_changed()) window.set_vsync(viewer.vsync() && !script);
        int fb_width = window.framebuffer_width(), fb_height = window.framebuffer_height();
        if (script) {
            script->resize_window(window, frame);
            if (script->minimised()) fb_width = fb_height = 0;
        }
        const bool minimised = fb_width == 0 || fb_height == 0;
        const float scale = ImGui::GetIO().DisplayFramebufferScale.x > 0
                                ? ImGui::GetIO().DisplayFramebufferScale.x
                                : 1.0f;
        const FrameLayout layout =
            frame_layout(viewer, minimised ? 0 : fb_width, minimised ? 0 : fb_height, scale,
                         window.content_scale());
        const render::Rect viewport = layout.viewport;

        if (viewer.take_fullscreen_request()) window.toggle_fullscreen();
        ImGui::GetIO().FontGlobalScale = window.content_scale() * viewer.ui_scale();
        handle_input(viewer, minimised ? render::Rect{} : viewport, static_cast<float>(fb_height),
                     scale, window.key_presses(), window.mouse_presses());
        if (script) script->inject_input(viewer, frame, viewport);
        // Minimised: no steps either (nothing to see), and no busy loop.
        if (!minimised) viewer.advance(frame);

        // Viewport captures are read after ImGui has drawn, so that the colour bar's labels are
        // in them; the overlay and help window are left out of those frames.
        const bool shot = !minimised && viewer.take_screenshot_request();
        const bool viewport_capture = !minimised && ((shot && viewer.screenshot_viewport_only()) ||
                                                     (script && script->captures_viewport(frame)));
        if (!minimised) {
            draw_interface(viewer, bench_tabs, layout, fb_height, scale, viewport_capture);

            gl::Framebuffer::bind_default(fb_width, fb_height);
            gl::clear(0.08f, 0.09f, 0.11f, 1.0f);
            viewer.render(viewport, frame);
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(script ? 1 : 30));
        }
        // A scripted benchmark-tab run also waits for its run to end and be drawn.
        const bool last =
            script && script->is_last_frame(frame, bench_tabs.scripted_run_finished());
        viewer.begin_ui_timing(frame);
        window.end_frame();
        viewer.end_ui_timing();
        // A video frame or a screenshot at a chosen size: the view drawn offscreen, now that
        // ImGui's frame (the labels' font) is done with.
        if (!minimised) viewer.capture_view();
        if (shot)
            save_requested_screenshot(viewer, viewer.screenshot_viewport_only()
                                                  ? viewport
                                                  : render::Rect{0, 0, fb_width, fb_height});
        if (script)
            script->save_screenshots(viewer, frame, last, viewport, fb_width, fb_height, minimised);
        if (!minimised) window.present();
        const auto now = Clock::now();
        viewer.end_frame(std::chrono::duration<double, std::milli>(now - frame_start).count(),
                         frame);
        frame_start = now;
        if (last) return script->finish(viewer);
    }
    // A scripted run whose window was closed before its last frame (tests that close it with
    // real events) ends as one that ran out: the status line and figures printed.
    return script ? script->finish(viewer) : 0;
}

}  // namespace

int run(const cli::Args& args) {
    // Everything the command line says is checked before the window opens.
    std::optional<ScriptedRun> script = ScriptedRun::from_args(args);
    const ViewerStart start = viewer_start(args);
    BenchTabs bench_tabs(args);  // checks --bench-tab/--bench-args/--bench-export first
    const bool save_settings = !script || script->saves_settings();

    // Settings and ImGui's layout file live together; scripted runs read them but write them
    // only when asked (--save-settings), so a script cannot change what the user sees next time.
    const std::filesystem::path config = config_folder();
    Settings settings = config.empty() ? Settings{} : Settings::load(config / "viewer.ini");
    const int width =
        script ? script->window_width() : settings.get_int("window_width", 1280, 200, 16384);
    const int height =
        script ? script->window_height() : settings.get_int("window_height", 800, 150, 16384);

    Window window(width, height, "adilab");
    static std::string imgui_ini;  // ImGui keeps the pointer
    if (!config.empty() && !script) {
        std::filesystem::create_directories(config);
        imgui_ini = (config / "imgui.ini").string();
        ImGui::GetIO().IniFilename = imgui_ini.c_str();
        ImGui::LoadIniSettingsFromDisk(imgui_ini.c_str());
    }
    const gl::DeviceInfo& device = gl::Context::current().info();
    Viewer viewer(start, settings, device.renderer, device.version);
    if (script) script->start(viewer);

    const int exit_code = run_frames(window, viewer, bench_tabs, script ? &*script : nullptr);

    if (save_settings && !config.empty()) {
        viewer.save_settings();
        settings.set("window_width",
                     window.framebuffer_width() > 0 ? window.framebuffer_width() : width);
        settings.set("window_height",
                     window.framebuffer_height() > 0 ? window.framebuffer_height() : height);
        if (!settings.save(config / "viewer.ini"))
            std::cerr << "adilab: warning: could not save settings in " << config.string() << "\n";
    }
    bench_tabs.stop();  // cancel and join the benchmark workers before the window goes
    return exit_code != 0 ? exit_code : bench_tabs.exit_code();
}

}  // namespace adilab::gui
