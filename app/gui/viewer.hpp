#pragma once
// The live simulation viewer: owns the simulation, the renderer and what the user set, draws
// the "Simulation" tab, the overlay and the help window, and turns mouse and keys into brush
// strokes, camera moves and playback. gui.cpp owns the window and the frame loop.
#include <array>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/gui/presets.hpp"
#include "app/gui/recorder.hpp"
#include "app/gui/settings.hpp"
#include "app/gui/window.hpp"
#include "app/render/renderer.hpp"
#include "sim/simulation.hpp"
#include "solvers/gl/frame_timer.hpp"

namespace adilab::gui {

// What the command line asks of the viewer (scripted runs); empty fields keep the settings.
struct ViewerStart {
    std::string preset, model, scenario, solver, terrain;
    int grid = 0;
    int steps_per_frame = 0;
    // --set name=value, as typed: a number or a scheme's name, checked against the parameter
    // once the model exists (Simulation::set_param_text).
    std::vector<std::pair<std::string, std::string>> params;
    std::string colormap;
};

// The grid sizes the viewer accepts on this device: the simulations' 4 .. 8192, capped where
// one nx * ny float buffer would exceed the device's largest storage block. The command line,
// the panel and the error text all use these.
struct GridLimits {
    int min = 4, max = 8192;
};
GridLimits grid_limits();
// Most steps a frame may ask for, as on the command line (--steps-per-frame).
constexpr int kMaxStepsPerFrame = 1000;
// Simulation time a frame may take before the viewer takes fewer steps per frame (wall clock):
// above ~100 ms the window stops feeling interactive.
constexpr double kFrameBudget_ms = 100;

class Viewer {
public:
    // Throws adilab::Error / cli::UsageError for an unknown model, scenario, solver or parameter.
    Viewer(const ViewerStart& start, Settings& settings, const std::string& renderer_name,
           const std::string& gl_version);
    ~Viewer();

    // One frame's simulation: the steps when playing (or one requested step), timed on the GPU.
    void advance(std::int64_t frame);
    // Draws the viewport (GL convention rectangle) and times it on the GPU.
    void render(render::Rect viewport, std::int64_t frame);
    // GPU time of ImGui's drawing (around Window::end_frame), shown in the overlay.
    void begin_ui_timing(std::int64_t frame) { ui_timer_.begin(frame); }
    void end_ui_timing() { ui_timer_.end(); }
    // ImGui: the Simulation tab's contents, the overlay over `viewport`, the help window, the
    // colour bar's labels. `scale` maps framebuffer pixels to ImGui units.
    void draw_simulation_tab();
    // Whether the Simulation tab was shown this frame. While another tab is open the simulation
    // does not step (the benchmark tabs get the GPU to themselves); the viewport still draws.
    void set_tab_shown(bool shown) { tab_shown_ = shown; }
    // `capture`: this frame's viewport is being saved: the colour bar's labels only.
    void draw_overlay(render::Rect viewport, float framebuffer_height, float scale,
                      bool capture = false);
    void draw_help_window();
    // Mouse (ImGui's IO) and the key presses since the last frame (skipped when a widget has
    // the keyboard).
    void handle_input(render::Rect viewport, float framebuffer_height, float scale,
                      std::span<const KeyPress> keys = {});
    // A brush stroke from a to b (viewport fractions, y down as on screen), for the test hook.
    void inject_drag(render::Rect viewport, float ax, float ay, float bx, float by);
    // Loads a state file (the panel's "Load state", and the test hook): the simulation and the
    // panel follow the file's model, scenario, grid, solver and terrain. Errors go to the status
    // line.
    void load_state(const std::filesystem::path& path);
    // Frame bookkeeping after the frame was presented: FPS, recording.
    void end_frame(double frame_ms, std::int64_t frame);

    void start_recording(const std::filesystem::path& folder, double seconds);
    std::filesystem::path stop_recording();
    bool recording() const { return recorder_.active(); }
    bool unstable() const { return unstable_; }
    const std::string& unstable_message() const { return unstable_message_; }
    // Requests from keys or buttons that gui.cpp carries out (it owns the framebuffer).
    bool take_screenshot_request() { return std::exchange(screenshot_requested_, false); }
    bool screenshot_viewport_only() const { return screenshot_viewport_only_; }
    std::filesystem::path next_screenshot_path();
    // The status line under the panel: a notice replaces any earlier error; an error stays
    // until a later success or "dismiss".
    void notify(std::string text);
    void report_error(std::string text);
    void draw_status_line();
    const std::string& message() const { return message_; }
    // Tab hides the panel and overlay (clean captures); F11 asks for fullscreen.
    bool ui_hidden() const { return hide_ui_; }
    bool take_fullscreen_request() { return std::exchange(fullscreen_requested_, false); }
    float ui_scale() const { return ui_scale_; }
    bool vsync() const { return vsync_; }
    bool vsync_changed() { return std::exchange(vsync_changed_, false); }
    float panel_width() const { return panel_width_; }
    void save_settings();
    // Checks the stability flags now (read-back): the end of a scripted run.
    void check_stability();
    // Every GPU time the frame timers deliver, appended to `log` (null: none); for the headless
    // UI benchmark, which reports medians.
    struct TimingLog {
        std::vector<double> sim_ms, render_ms, ui_ms;
    };
    void set_timing_log(TimingLog* log) { timing_log_ = log; }

private:
    void make(const std::string& model, const std::string& solver);
    void reset();
    // R: the scenario's initial state and, in 3-D, the camera fitted to the domain.
    void reset_view_and_field();
    void fit_camera();
    // Steps per frame so that a frame's simulation stays within kFrameBudget_ms.
    void adapt_step_cap(double frame_ms);
    void draw_colour_bar_labels(render::Rect viewport, float framebuffer_height, float scale);
    void draw_phases();
    // The value the diverging map centres on: the rest level (water), the initial value.
    void set_reference();
    void apply_preset(const Preset& preset);
    void brush_at(render::Rect viewport, glm::vec2 gl_pixel);
    render::FieldSource source() const;
    void poll_timers();
    void fit_height();
    const sim::ModelInfo& model_info() const;

    Settings& settings_;
    std::string renderer_name_, gl_version_;
    std::unique_ptr<sim::Simulation> sim_;
    render::Renderer renderer_;
    render::RenderSettings view_;
    std::string scenario_;
    int grid_ = 512;
    int steps_per_frame_ = 1;
    bool playing_ = true;
    bool tab_shown_ = true;
    int step_requests_ = 0;  // S presses not yet stepped
    // Adaptive cap on steps per frame (see adapt_step_cap) and why it is below the setting.
    int step_cap_ = 8;
    int frames_since_cap_change_ = 0;
    int settle_frames_ = 2;  // frames after a reset that compile shaders: not measured
    int slow_frames_ = 0;    // frames over budget in a row
    double capped_frame_ms_ = 0;
    render::Rect last_viewport_;
    bool camera_fit_pending_ = true;  // fit the 3-D camera at the next drawn frame
    std::optional<glm::ivec2> probe_cell_;  // the cell under the cursor
    std::optional<float> probe_value_;      // its value at the last read-back
    int steps_this_frame_ = 0;
    double sim_cpu_ms_ = 0, render_cpu_ms_ = 0;
    bool gpu_timers_ = false;
    gl::FrameTimer sim_timer_, render_timer_, ui_timer_;
    // Per-dispatch GPU times of the simulation's step (its phases: the explicit part and the
    // x and y sweeps, as the model's kernels are split), by program label.
    gl::DispatchProfiler phase_profiler_;
    std::vector<gl::DispatchProfiler::Phase> phases_;
    bool profile_phases_ = true;
    bool phase_details_ = false;  // shader-level breakdown instead of the named phases
    std::optional<double> sim_gpu_ms_, render_gpu_ms_, ui_gpu_ms_;
    TimingLog* timing_log_ = nullptr;
    std::vector<Preset> presets_;
    int preset_index_ = -1;

    // Brush.
    float brush_radius_ = 8, brush_strength_ = 1;
    bool brush_subtract_ = false;
    bool dragging_camera_ = false;

    // Stability and the colour bar's range, read back a few times per second.
    bool unstable_ = false;
    std::string unstable_message_;
    double since_readback_s_ = 1e9;
    double since_stats_s_ = 1e9;
    render::Range range_;
    sim::Stats stats_;

    // FPS.
    std::deque<float> frame_times_ms_;
    double fps_ = 0, frame_ms_ = 0, steps_per_s_ = 0;
    double window_s_ = 0;
    int window_frames_ = 0;
    std::int64_t window_steps_ = 0;

    Recorder recorder_;
    std::int64_t record_offset_ = 0;  // GUI frame number before the recording's first row
    std::string reports_folder_ = "adilab-reports", screenshots_folder_ = "adilab-screenshots";
    std::string state_path_ = "adilab-state.bin", npy_path_ = "adilab-field.npy";
    float record_seconds_ = 0;
    bool screenshot_requested_ = false, screenshot_viewport_only_ = false;
    bool show_help_ = false, show_overlay_ = true;
    bool vsync_ = true, vsync_changed_ = false;
    float panel_width_ = 400;
    float ui_scale_ = 1;
    bool hide_ui_ = false, fullscreen_requested_ = false;
    std::string message_;
    bool message_is_error_ = false;
    bool show_all_params_ = false;
};

}  // namespace adilab::gui
