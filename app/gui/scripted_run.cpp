// A scripted run of the GUI: see scripted_run.hpp.
#define GLFW_INCLUDE_NONE
#include "app/gui/scripted_run.hpp"

#include <GLFW/glfw3.h>

#include <cstdio>
#include <iostream>
#include <limits>
#include <string>
#include <utility>

#include "app/files/png.hpp"
#include "app/gui/screenshot.hpp"
#include "app/gui/viewer.hpp"
#include "app/gui/window.hpp"

namespace adilab::gui {

std::vector<cli::OptionSpec> scripted_run_options() {
    return {
        {"frames", "N", "run the GUI for N frames, then exit 0 (scripted runs and tests)"},
        {"record", "DIR", "with --frames: record an FPS report (CSV + JSON) of the run into DIR"},
        {"screenshot", "PATH", "with --frames: save the window after the last frame as PNG"},
        {"first-screenshot", "PATH", "with --frames: also save the first frame as PNG"},
        {"window", "WxH", "with --frames: the window size (default 1280x800)"},
        {"save-settings", "",
         "with --frames: save the settings on exit as an interactive run does"},
        {"screenshot-area", "WHAT", "window (default) or viewport: what --screenshot captures"},
        {"screenshot-size", "WxH",
         "with --screenshot: the view (field, colour bar and labels, no "
         "overlay) drawn offscreen at this size instead"},
        {"record-video", "DIR",
         "with --frames: record every frame of the run as a video into DIR "
         "(see --video-size, --video-fps, --video-format)"},
        {"inject", "EVENTS",
         "test hook, with --frames: synthetic input, ';'-separated: "
         "drag@F:x0,y0:x1,y1 (viewport fractions, y down), resize@F:WxH "
         "(0x0 minimises) or load@F:PATH (Load state)"},
    };
}

std::optional<ScriptedRun> ScriptedRun::from_args(const cli::Args& args) {
    ScriptedRun run;
    run.frames_ = args.get_int("frames", 0, 1, 100000000);
    const bool scripted = run.frames_ > 0;
    run.screenshot_ = args.get("screenshot");
    run.record_ = args.get("record");
    const std::string area = args.get("screenshot-area", "window");
    if (!run.screenshot_.empty() && !scripted)
        throw cli::UsageError("--screenshot needs --frames N (the frame to capture)");
    if (!run.record_.empty() && !scripted)
        throw cli::UsageError("--record needs --frames N (use the Record button interactively)");
    if (area != "window" && area != "viewport")
        throw cli::UsageError("--screenshot-area must be window or viewport, not '" + area + "'");
    run.viewport_area_ = area == "viewport";
    if (!run.screenshot_.empty()) files::check_png_path(run.screenshot_);
    if (args.has("screenshot-size")) {
        const auto [w, h] =
            cli::parse_dimensions("screenshot-size", args.get("screenshot-size"), 16, 8192);
        run.shot_width_ = static_cast<int>(w);
        run.shot_height_ = static_cast<int>(h);
        if (run.screenshot_.empty())
            throw cli::UsageError("--screenshot-size needs --screenshot PATH (and --frames N)");
    }
    run.record_video_ = args.get("record-video");
    if (!run.record_video_.empty() && !scripted)
        throw cli::UsageError("--record-video needs --frames N (use F10 interactively)");
    run.first_screenshot_ = args.get("first-screenshot");
    if (!run.first_screenshot_.empty() && !scripted)
        throw cli::UsageError("--first-screenshot needs --frames N");
    if (!run.first_screenshot_.empty()) files::check_png_path(run.first_screenshot_);
    if (args.has("window")) {
        const std::string text = args.get("window");
        if (text.find_first_of("xX") == std::string::npos)
            throw cli::UsageError("--window expects WxH between 200x150 and 8192x8192, got '" +
                                  text + "'");
        const auto [w, h] = cli::parse_dimensions("window", text, 150, 8192);
        if (w < 200) throw cli::UsageError("--window: '" + text + "' is narrower than 200 pixels");
        run.window_width_ = static_cast<int>(w);
        run.window_height_ = static_cast<int>(h);
        if (!scripted) throw cli::UsageError("--window needs --frames N");
    }
    run.events_ = parse_events(args.get("inject"));
    if (!run.events_.empty() && !scripted) throw cli::UsageError("--inject needs --frames N");
    run.save_settings_ = args.has("save-settings");
    if (!scripted) return std::nullopt;
    return run;
}

std::vector<ScriptedRun::InjectedEvent> ScriptedRun::parse_events(const std::string& text) {
    std::vector<InjectedEvent> events;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(';', start);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(start, end - start);
        start = end + 1;
        if (item.empty()) continue;
        // kind@FRAME:ARGUMENTS, every number read by the strict parsers of the command line
        // (app/cli/args.hpp): no wrap, no truncation, the text quoted when it is not a number.
        const std::string usage = "--inject: cannot read '" + item +
                                  "' (expected drag@F:x0,y0:x1,y1, resize@F:WxH or load@F:PATH)";
        const std::size_t at = item.find('@'), colon = item.find(':');
        if (at == std::string::npos || colon == std::string::npos || colon < at)
            throw cli::UsageError(usage);
        const std::string kind = item.substr(0, at), arguments = item.substr(colon + 1);
        InjectedEvent e;
        e.frame = cli::parse_int_in("inject", item.substr(at + 1, colon - at - 1), 0,
                                    std::numeric_limits<long long>::max());
        auto split = [](const std::string& text, char separator) {
            const std::size_t k = text.find(separator);
            return k == std::string::npos ? std::pair<std::string, std::string>{text, ""}
                                          : std::pair{text.substr(0, k), text.substr(k + 1)};
        };
        if (kind == "drag") {
            const auto [from, to] = split(arguments, ':');
            const auto [x0, y0] = split(from, ',');
            const auto [x1, y1] = split(to, ',');
            if (y0.empty() || y1.empty()) throw cli::UsageError(usage);
            const std::string values[] = {x0, y0, x1, y1};
            for (int k = 0; k < 4; ++k)
                e.a[k] = static_cast<float>(cli::parse_double("inject", values[k]));
            e.kind = InjectedEvent::Kind::drag;
        } else if (kind == "resize") {
            const auto [w, h] = split(arguments, 'x');
            if (h.empty()) throw cli::UsageError(usage);
            e.kind = InjectedEvent::Kind::resize;
            e.a[0] = static_cast<float>(cli::parse_int_in("inject", w, 0, 16384));
            e.a[1] = static_cast<float>(cli::parse_int_in("inject", h, 0, 16384));
        } else if (kind == "load" && !arguments.empty()) {
            e.kind = InjectedEvent::Kind::load;
            e.path = arguments;
        } else {
            throw cli::UsageError(usage);
        }
        events.push_back(e);
    }
    return events;
}

void ScriptedRun::start(Viewer& viewer) const {
    if (!record_.empty()) viewer.start_recording(record_, 0);
    if (!record_video_.empty()) viewer.start_video(record_video_, true);
}

void ScriptedRun::resize_window(Window& window, long long frame) {
    for (const InjectedEvent& e : events_) {
        if (e.frame != frame || e.kind != InjectedEvent::Kind::resize) continue;
        if (e.a[0] <= 0 || e.a[1] <= 0) {
            // A real minimise needs a window manager (Xvfb has none): iconify, and treat the
            // framebuffer as 0 x 0 until the next resize event, as GLFW reports it.
            glfwIconifyWindow(window.handle());
            forced_minimised_ = true;
        } else {
            glfwRestoreWindow(window.handle());
            glfwSetWindowSize(window.handle(), static_cast<int>(e.a[0]), static_cast<int>(e.a[1]));
            forced_minimised_ = false;
        }
    }
}

void ScriptedRun::inject_input(Viewer& viewer, long long frame, render::Rect viewport) const {
    for (const InjectedEvent& e : events_)
        if (e.frame == frame && e.kind == InjectedEvent::Kind::drag && !viewport.empty())
            viewer.inject_drag(viewport, e.a[0], e.a[1], e.a[2], e.a[3]);
    for (const InjectedEvent& e : events_)
        if (e.frame == frame && e.kind == InjectedEvent::Kind::load) viewer.load_state(e.path);
}

bool ScriptedRun::captures_viewport(long long frame) const {
    // From --frames on, every frame until the last (a --bench-tab run may take longer).
    return viewport_area_ && ((frame >= frames_ && !screenshot_.empty()) ||
                              (frame == 1 && !first_screenshot_.empty()));
}

bool ScriptedRun::is_last_frame(long long frame, bool bench_run_finished) const {
    return frame >= frames_ && bench_run_finished;
}

void ScriptedRun::save_screenshots(Viewer& viewer, long long frame, bool last,
                                   render::Rect viewport, int framebuffer_width,
                                   int framebuffer_height, bool minimised) const {
    if (minimised) {
        if (last && !screenshot_.empty())
            std::cout << "screenshot skipped: the window is minimised at the last frame\n";
        return;
    }
    const render::Rect window{0, 0, framebuffer_width, framebuffer_height};
    const render::Rect area = viewport_area_ ? viewport : window;
    if (frame == 1 && !first_screenshot_.empty()) write_screenshot(first_screenshot_, area);
    if (!last || screenshot_.empty()) return;
    if (shot_width_ > 0) {
        viewer.save_view_screenshot(screenshot_, shot_width_, shot_height_);
        std::cout << "screenshot written to " << screenshot_.string() << " (" << shot_width_ << "x"
                  << shot_height_ << ", the view)\n";
        return;
    }
    write_screenshot(screenshot_, area);
    std::cout << "screenshot written to " << screenshot_.string() << " ("
              << (viewport_area_ ? viewport.width : framebuffer_width) << "x" << framebuffer_height
              << ")\n";
}

int ScriptedRun::finish(Viewer& viewer) const {
    viewer.check_stability();
    // The status line's last message, for scripts and tests (what a user would read).
    if (!viewer.message().empty()) std::cout << "status: " << viewer.message() << "\n";
    // The value under the cursor as the overlay shows it, when the mouse is over the field.
    if (const std::string probe = viewer.probe_text(); !probe.empty()) std::cout << probe << "\n";
    // The overlay's time per phase, as its lines show it (when the overlay timed any frame).
    if (viewer.figures().breakdown.frame > 0)
        std::cout << "phases: " << describe(viewer.figures().breakdown) << "\n";
    if (viewer.video_recording()) {
        const VideoWriter::Result video = viewer.stop_video();
        if (video.error.empty())
            std::cout << "video written to " << video.path.string() << " (" << video.frames << " "
                      << (video.mp4 ? "frames" : "PNG frames") << ", "
                      << viewer.video().settings().width << "x" << viewer.video().settings().height
                      << " at " << viewer.video().settings().fps << " fps)"
                      << (video.note.empty() ? "" : ": " + video.note) << "\n";
        else
            std::cout << "video failed: " << video.error << "\n";
    }
    if (viewer.recording()) {
        const auto csv = viewer.stop_recording();
        std::cout << "recording written to " << csv.string() << " and "
                  << std::filesystem::path(csv).replace_extension(".json").string() << "\n";
    }
    if (viewer.unstable()) {
        std::cerr << "adilab: error: " << viewer.unstable_message() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace adilab::gui
