// The GUI: a viewport on the left and a side panel of tabs on the right. The frame loop lives
// here; the simulation viewer (Simulation tab, overlay, input) is viewer.cpp, the drawing is
// app/render (shared with the headless `--bench sim --render`).
#define GLFW_INCLUDE_NONE
#include "app/gui/gui.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "app/bench/image.hpp"
#include "app/gui/bench_tabs.hpp"
#include "app/gui/interface.hpp"
#include "app/gui/settings.hpp"
#include "app/gui/viewer.hpp"
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
        {"frames", "N", "run the GUI for N frames, then exit 0 (scripted runs and tests)"},
        {"record", "DIR", "with --frames: record an FPS report (CSV + JSON) of the run into DIR"},
        {"screenshot", "PATH", "with --frames: save the window after the last frame as PNG"},
        {"first-screenshot", "PATH", "with --frames: also save the first frame as PNG"},
        {"window", "WxH", "with --frames: the window size (default 1280x800)"},
        {"save-settings", "", "with --frames: save the settings on exit as an interactive run does"},
        {"screenshot-area", "WHAT", "window (default) or viewport: what --screenshot captures"},
        {"inject", "EVENTS", "test hook, with --frames: synthetic input, ';'-separated: "
                             "drag@F:x0,y0:x1,y1 (viewport fractions, y down), resize@F:WxH "
                             "(0x0 minimises) or load@F:PATH (Load state)"},
    };
    for (cli::OptionSpec& o : bench_tab_options()) all.push_back(std::move(o));
    return all;
}

namespace {

struct InjectedEvent {
    long long frame = 0;
    enum class Kind { drag, resize, load } kind = Kind::drag;
    float a[4] = {0, 0, 0, 0};  // drag: x0, y0, x1, y1; resize: w, h
    std::string path;           // load
};

std::vector<InjectedEvent> parse_events(const std::string& text) {
    std::vector<InjectedEvent> events;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(';', start);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(start, end - start);
        start = end + 1;
        if (item.empty()) continue;
        InjectedEvent e;
        int n = 0;
        if (std::sscanf(item.c_str(), "drag@%lld:%f,%f:%f,%f%n", &e.frame, &e.a[0], &e.a[1],
                        &e.a[2], &e.a[3], &n) == 5 && n == static_cast<int>(item.size())) {
            e.kind = InjectedEvent::Kind::drag;
        } else if (int w = 0, h = 0;
                   std::sscanf(item.c_str(), "resize@%lld:%dx%d%n", &e.frame, &w, &h, &n) == 3 &&
                   n == static_cast<int>(item.size()) && w >= 0 && h >= 0) {
            // Integers: "%f" would read "0x0" as a hexadecimal float.
            e.kind = InjectedEvent::Kind::resize;
            e.a[0] = static_cast<float>(w);
            e.a[1] = static_cast<float>(h);
        } else if (std::sscanf(item.c_str(), "load@%lld:%n", &e.frame, &n) == 1 && n > 0 &&
                   n < static_cast<int>(item.size())) {
            e.kind = InjectedEvent::Kind::load;
            e.path = item.substr(static_cast<std::size_t>(n));
        } else {
            throw cli::UsageError("--inject: cannot read '" + item +
                                  "' (expected drag@F:x0,y0:x1,y1, resize@F:WxH or load@F:PATH)");
        }
        events.push_back(e);
    }
    return events;
}

ViewerStart viewer_start(const cli::Args& args) {
    ViewerStart start;
    start.model = args.get("model");
    start.scenario = args.get("scenario");
    start.preset = args.get("preset");
    start.solver = args.get("solver");
    start.terrain = args.get("terrain");
    start.colormap = args.get("colormap");
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
        const bool word = !text.empty() && text != "nan" && text != "inf" && text != "infinity" &&
                          text.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string::npos;
        if (!word) cli::parse_double("set " + item.substr(0, eq), text);  // throws naming the text
        start.params.emplace_back(item.substr(0, eq), text);
    }
    if (!start.colormap.empty()) {
        bool known = false;
        for (const char* name : render::kColormapNames) known = known || start.colormap == name;
        if (!known)
            throw cli::UsageError("--colormap: unknown '" + start.colormap +
                                  "' (viridis, inferno, diverging, grayscale, turbo)");
    }
    return start;
}

void write_screenshot(const std::filesystem::path& path, render::Rect area) {
    auto pixels = gl::read_pixels_rgba(area.x, area.y, area.width, area.height);
    bench::write_png(path, area.width, area.height, pixels);
}

}  // namespace

int run(const cli::Args& args) {
    // Everything the command line says is checked before the window opens.
    const long long frames = args.get_int("frames", 0, 1, 100000000);
    const std::filesystem::path screenshot = args.get("screenshot");
    const std::filesystem::path record = args.get("record");
    const std::string area = args.get("screenshot-area", "window");
    if (!screenshot.empty() && frames == 0)
        throw cli::UsageError("--screenshot needs --frames N (the frame to capture)");
    if (!record.empty() && frames == 0)
        throw cli::UsageError("--record needs --frames N (use the Record button interactively)");
    if (area != "window" && area != "viewport")
        throw cli::UsageError("--screenshot-area must be window or viewport, not '" + area + "'");
    if (!screenshot.empty()) bench::check_png_path(screenshot);
    const std::filesystem::path first_screenshot = args.get("first-screenshot");
    if (!first_screenshot.empty() && frames == 0)
        throw cli::UsageError("--first-screenshot needs --frames N");
    if (!first_screenshot.empty()) bench::check_png_path(first_screenshot);
    int script_width = 1280, script_height = 800;
    if (args.has("window")) {
        const std::string text = args.get("window");
        if (text.find_first_of("xX") == std::string::npos)
            throw cli::UsageError("--window expects WxH between 200x150 and 8192x8192, got '" +
                                  text + "'");
        const auto [w, h] = cli::parse_dimensions("window", text, 150, 8192);
        if (w < 200)
            throw cli::UsageError("--window: '" + text + "' is narrower than 200 pixels");
        script_width = static_cast<int>(w);
        script_height = static_cast<int>(h);
        if (frames == 0) throw cli::UsageError("--window needs --frames N");
    }
    std::vector<InjectedEvent> events = parse_events(args.get("inject"));
    if (!events.empty() && frames == 0) throw cli::UsageError("--inject needs --frames N");
    const ViewerStart start = viewer_start(args);
    const bool scripted = frames > 0;
    BenchTabs bench_tabs(args);  // checks --bench-tab/--bench-args/--bench-export first
    const bool save_settings = !scripted || args.has("save-settings");

    // Settings and ImGui's layout file live together; scripted runs read them but never write
    // them, so a script cannot change what the user sees next time.
    const std::filesystem::path config = config_folder();
    Settings settings = config.empty() ? Settings{} : Settings::load(config / "viewer.ini");
    const int width = scripted ? script_width : settings.get_int("window_width", 1280, 200, 16384);
    const int height = scripted ? script_height : settings.get_int("window_height", 800, 150, 16384);

    Window window(width, height, "adilab");
    static std::string imgui_ini;  // ImGui keeps the pointer
    if (!config.empty() && !scripted) {
        std::filesystem::create_directories(config);
        imgui_ini = (config / "imgui.ini").string();
        ImGui::GetIO().IniFilename = imgui_ini.c_str();
        ImGui::LoadIniSettingsFromDisk(imgui_ini.c_str());
    }
    const gl::DeviceInfo& device = gl::Context::current().info();
    Viewer viewer(start, settings, device.renderer, device.version);
    if (!record.empty()) viewer.start_recording(record, 0);

    using Clock = std::chrono::steady_clock;
    auto frame_start = Clock::now();
    bool forced_minimised = false;
    int exit_code = 0;
    for (long long frame = 1; !window.should_close(); ++frame) {
        window.begin_frame();
        if (viewer.vsync_changed()) window.set_vsync(viewer.vsync() && !scripted);
        int fb_width = window.framebuffer_width(), fb_height = window.framebuffer_height();
        for (const InjectedEvent& e : events) {
            if (e.frame != frame || e.kind != InjectedEvent::Kind::resize) continue;
            if (e.a[0] <= 0 || e.a[1] <= 0) {
                // A real minimise needs a window manager (Xvfb has none): iconify, and treat
                // the framebuffer as 0 x 0 until the next resize event, as GLFW reports it.
                glfwIconifyWindow(window.handle());
                forced_minimised = true;
            } else {
                glfwRestoreWindow(window.handle());
                glfwSetWindowSize(window.handle(), static_cast<int>(e.a[0]), static_cast<int>(e.a[1]));
                forced_minimised = false;
            }
        }
        if (forced_minimised) fb_width = fb_height = 0;
        const bool minimised = fb_width == 0 || fb_height == 0;
        const float scale = ImGui::GetIO().DisplayFramebufferScale.x > 0
                                ? ImGui::GetIO().DisplayFramebufferScale.x
                                : 1.0f;
        const FrameLayout layout = frame_layout(viewer, minimised ? 0 : fb_width,
                                                minimised ? 0 : fb_height, scale,
                                                window.content_scale());
        const render::Rect viewport = layout.viewport;

        if (viewer.take_fullscreen_request()) window.toggle_fullscreen();
        ImGui::GetIO().FontGlobalScale = window.content_scale() * viewer.ui_scale();
        viewer.handle_input(minimised ? render::Rect{} : viewport, static_cast<float>(fb_height), scale,
                            window.key_presses());
        for (const InjectedEvent& e : events)
            if (e.frame == frame && e.kind == InjectedEvent::Kind::drag && !viewport.empty())
                viewer.inject_drag(viewport, e.a[0], e.a[1], e.a[2], e.a[3]);
        for (const InjectedEvent& e : events)
            if (e.frame == frame && e.kind == InjectedEvent::Kind::load) viewer.load_state(e.path);
        // Minimised: no steps either (nothing to see), and no busy loop.
        if (!minimised) viewer.advance(frame);

        // Viewport captures are read after ImGui has drawn, so that the colour bar's labels are
        // in them; the overlay and help window are left out of those frames.
        const bool shot = !minimised && viewer.take_screenshot_request();
        const bool last_frame = scripted && frame >= frames;
        const bool viewport_capture =
            !minimised && ((shot && viewer.screenshot_viewport_only()) ||
                           (area == "viewport" && ((last_frame && !screenshot.empty()) ||
                                                   (frame == 1 && !first_screenshot.empty()))));
        if (!minimised) {
            draw_interface(viewer, bench_tabs, layout, fb_height, scale, viewport_capture);

            gl::Framebuffer::bind_default(fb_width, fb_height);
            gl::clear(0.08f, 0.09f, 0.11f, 1.0f);
            viewer.render(viewport, frame);
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(scripted ? 1 : 30));
        }
        // A scripted benchmark-tab run also waits for its run to end and be drawn.
        const bool last = scripted && frame >= frames && bench_tabs.scripted_run_finished();
        viewer.begin_ui_timing(frame);
        window.end_frame();
        viewer.end_ui_timing();
        if (shot) {
            try {
                const auto path = viewer.next_screenshot_path();
                write_screenshot(path, viewer.screenshot_viewport_only()
                                           ? viewport
                                           : render::Rect{0, 0, fb_width, fb_height});
                viewer.notify("screenshot " + std::filesystem::absolute(path).string());
            } catch (const std::exception& e) {
                viewer.report_error(e.what());
            }
        }
        if (last && !screenshot.empty() && area == "viewport" && !minimised)
            write_screenshot(screenshot, viewport);
        if (frame == 1 && !first_screenshot.empty() && area == "viewport" && !minimised)
            write_screenshot(first_screenshot, viewport);
        if (frame == 1 && !first_screenshot.empty() && area == "window" && !minimised)
            write_screenshot(first_screenshot, {0, 0, fb_width, fb_height});
        if (last) {
            if (!screenshot.empty() && area == "window" && !minimised)
                write_screenshot(screenshot, {0, 0, fb_width, fb_height});
            if (!screenshot.empty() && minimised)
                std::cout << "screenshot skipped: the window is minimised at the last frame\n";
            else if (!screenshot.empty())
                std::cout << "screenshot written to " << screenshot.string() << " ("
                          << (area == "window" ? fb_width : viewport.width) << "x" << fb_height
                          << ")\n";
        }
        if (!minimised) window.present();
        const auto now = Clock::now();
        viewer.end_frame(std::chrono::duration<double, std::milli>(now - frame_start).count(), frame);
        frame_start = now;
        if (last) {
            viewer.check_stability();
            // The status line's last message, for scripts and tests (what a user would read).
            if (!viewer.message().empty()) std::cout << "status: " << viewer.message() << "\n";
            if (viewer.recording()) {
                const auto csv = viewer.stop_recording();
                std::cout << "recording written to " << csv.string() << " and "
                          << std::filesystem::path(csv).replace_extension(".json").string() << "\n";
            }
            if (viewer.unstable()) {
                std::cerr << "adilab: error: " << viewer.unstable_message() << "\n";
                exit_code = 1;
            }
            break;
        }
    }
    if (save_settings && !config.empty()) {
        viewer.save_settings();
        settings.set("window_width", window.framebuffer_width() > 0 ? window.framebuffer_width() : width);
        settings.set("window_height", window.framebuffer_height() > 0 ? window.framebuffer_height() : height);
        if (!settings.save(config / "viewer.ini"))
            std::cerr << "adilab: warning: could not save settings in " << config.string() << "\n";
    }
    bench_tabs.stop();  // cancel and join the benchmark workers before the window goes
    return exit_code != 0 ? exit_code : bench_tabs.exit_code();
}

}  // namespace adilab::gui
