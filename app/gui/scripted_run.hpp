#pragma once
// A scripted run of the GUI: --frames N and the options that only mean something with it (the
// window's size, injected input, screenshots, an FPS recording, saving the settings). Tests and
// scripts drive the real window with them; the frame loop in gui.cpp asks the run what to inject,
// what to capture and when to stop, at the few points where it reaches in. An interactive run
// has none, so its loop reads without the test machinery (Dear ImGui's example_null keeps its
// windowless run apart in the same spirit).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/render/renderer.hpp"

namespace adilab::gui {

class Viewer;
class Window;

// The scripted-run options, for gui::options() (and so --help).
std::vector<cli::OptionSpec> scripted_run_options();

class ScriptedRun {
  public:
    // Reads and checks every scripted-run option before any window opens. Empty when --frames is
    // not given; then the other options (but --save-settings) are a cli::UsageError naming it.
    static std::optional<ScriptedRun> from_args(const cli::Args& args);

    // --window WxH, else 1280 x 800: a scripted window never takes the size the user left.
    int window_width() const { return window_width_; }
    int window_height() const { return window_height_; }
    // --save-settings: write the settings on exit as an interactive run does (else never, so
    // that a script cannot change what the user sees next time).
    bool saves_settings() const { return save_settings_; }

    // Before the first frame: the --record recording and the --record-video video start.
    void start(Viewer& viewer) const;
    // This frame's injected resizes, right after the window's events were polled.
    void resize_window(Window& window, long long frame);
    // A scripted minimise is in force: the frame treats the framebuffer as 0 x 0.
    bool minimised() const { return forced_minimised_; }
    // This frame's injected drags (onto a drawn viewport) and state loads, after the user's input.
    void inject_input(Viewer& viewer, long long frame, render::Rect viewport) const;
    // Whether this frame saves the viewport alone (--screenshot-area viewport): the overlay and
    // help window are left out of such a frame.
    bool captures_viewport(long long frame) const;
    // --frames N reached and, for a --bench-tab run, its run has ended and been drawn.
    bool is_last_frame(long long frame, bool bench_run_finished) const;
    // --first-screenshot at frame 1 and --screenshot at the last frame, after ImGui has drawn
    // into the back buffer and before it is presented; with --screenshot-size, the view drawn
    // offscreen at that size instead.
    void save_screenshots(Viewer& viewer, long long frame, bool last, render::Rect viewport,
                          int framebuffer_width, int framebuffer_height, bool minimised) const;
    // After the last frame (or the window closed): the stability check, the status line, the
    // overlay's time per phase and the recording printed for the script to read. Returns the exit
    // code: 1 when the simulation went unstable, else 0.
    int finish(Viewer& viewer) const;

  private:
    // One --inject event.
    struct InjectedEvent {
        long long frame = 0;
        enum class Kind { drag, resize, load } kind = Kind::drag;
        float a[4] = {0, 0, 0, 0};  // drag: x0, y0, x1, y1; resize: w, h
        std::string path;           // load
    };
    static std::vector<InjectedEvent> parse_events(const std::string& text);

    long long frames_ = 0;
    std::filesystem::path screenshot_, first_screenshot_, record_, record_video_;
    int shot_width_ = 0, shot_height_ = 0;  // --screenshot-size; 0: the window or viewport
    bool viewport_area_ = false;            // --screenshot-area viewport (else the whole window)
    int window_width_ = 1280, window_height_ = 800;
    bool save_settings_ = false;
    std::vector<InjectedEvent> events_;
    bool forced_minimised_ = false;
};

}  // namespace adilab::gui
