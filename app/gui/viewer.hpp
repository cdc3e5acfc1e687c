#pragma once
// The live simulation viewer's state and the actions on it: it owns the simulation, the renderer
// and what the user set, steps and draws a frame, and carries out what the Simulation tab's
// widgets and the keys ask for (another model, a reset, a state file, a recording...). It draws
// no widget; its views each have a unit of their own and go through the actions below: the
// Simulation tab and status line (viewer_panel.hpp), the overlay and help window
// (viewer_overlay.hpp), and the keys and mouse (viewer_input.hpp). What the views edit directly
// is plain settings (RenderSettings, BrushSettings, FileSettings, InterfaceSettings). gui.cpp
// owns the window and the frame loop.
//
// The class is defined by concern: construction, the settings and the panel's choices
// (viewer.cpp), a frame and its bookkeeping, playing and "run until" (viewer_frame.cpp), presets
// (viewer_presets.cpp), the state file, the .npy export and FPS recordings (viewer_files.cpp),
// videos and screenshots at a chosen size (viewer_video.cpp), and the cross-section
// (viewer_cross_section.cpp).
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/phases.hpp"
#include "app/gui/presets.hpp"
#include "app/gui/recorder.hpp"
#include "app/gui/settings.hpp"
#include "app/gui/step_budget.hpp"
#include "app/gui/video.hpp"
#include "app/render/line_sampler.hpp"
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
    bool paused = false;    // --paused: the first frame shows the start without stepping
    double run_until = -1;  // --run-until T: play until the simulated time reaches T (< 0: no)
    // --video-size, --video-fps, --video-format: the video settings for this run (0 / empty:
    // the saved ones).
    int video_width = 0, video_height = 0, video_fps = 0;
    std::string video_format;
};

// The grid sizes the viewer accepts on this device: the simulations' 4 .. 8192, capped where
// one nx * ny float buffer would exceed the device's largest storage block. The command line,
// the panel and the error text all use these.
struct GridLimits {
    int min = 4, max = 8192;
};
GridLimits grid_limits();

// The brush that the mouse paints with (the panel's Brush section; saved in the settings but
// `subtract`).
struct BrushSettings {
    float radius = 8;       // cells
    float strength = 1;     // the field's unit at the centre of a dab
    bool subtract = false;  // remove (push the water down) instead of add (drop)
};

// Where the Files section reads and writes (saved in the settings).
struct FileSettings {
    std::string state_path = "adilab-state.bin", npy_path = "adilab-field.npy";
    std::string screenshots_folder = "adilab-screenshots", reports_folder = "adilab-reports";
    std::string videos_folder = "adilab-videos";
    std::string line_csv_path = "adilab-line.csv";  // the cross-section's "Save CSV"
    bool screenshot_viewport_only = false;          // F12 saves the viewport, not the window
    int shot_width = 1920, shot_height = 1080;      // "Screenshot at W x H": the view at this size
    float record_seconds = 0;                       // an FPS recording's length; 0: until stopped
};

// How the interface shows itself: the panel's View section, the overlay's checkboxes, Tab and H.
struct InterfaceSettings {
    bool show_overlay = true, show_help = false;
    bool vsync = true;
    float panel_width = 400, ui_scale = 1;
    // Not saved: they hold for this run only.
    bool hide_ui = false;             // Tab: no panel or overlay (clean captures)
    bool show_all_params = false;     // the parameters of the other scenarios too
    bool profile_phases = true;       // the overlay's GPU time per phase
    bool phase_details = false;       // shader-level phases instead of the named ones
    double run_until_field = 10;      // the panel's "Run until t =" value
    char preset_name_field[65] = "";  // the "Save as preset" name being typed
};

// What the overlay shows of the last frames.
struct FrameFigures {
    double fps = 0, frame_ms = 0, steps_per_s = 0;  // over the last half second
    double sim_seconds_per_s = 0;  // simulated seconds per wall-clock second, the same window
    double sim_seconds = 0;        // simulated seconds this frame's steps advanced
    int steps = 0;                 // this frame's
    double sim_cpu_ms = 0, render_cpu_ms = 0;  // issuing this frame's work
    double ui_cpu_ms = 0;                      // ImGui's drawing, issued (or run)
    // The newest GPU times the timers delivered (a few frames old).
    std::optional<double> sim_gpu_ms, render_gpu_ms, ui_gpu_ms;
    // The newest frame whose parts have all arrived: the step's dispatches by program (the
    // explicit part and the x and y sweeps, as the model's kernels are split), the drawing, the
    // UI and the rest, so that the overlay's lines add up to that frame.
    FrameBreakdown breakdown;
    std::deque<float> history_ms;  // the last frames' wall-clock times, for the plot
};

// A cross-section: the line the user dragged across the field (Ctrl+drag) and the field along
// it, read from the GPU when the line or the field changed, at most ten times a second.
struct CrossSection {
    glm::vec2 from{0.0f}, to{0.0f};  // cell coordinates (fractional: pixel_to_cell's), as dragged
    std::vector<glm::ivec2> cells;   // the cells sampled, from `from` to `to`
    std::vector<float> values;       // the field in them at the last read; empty before it
    double length_m = 0;             // from the first sample to the last
    // The distance of sample k from the first, in metres.
    double distance_m(std::size_t k) const {
        return cells.size() < 2 ? 0.0 : length_m * double(k) / double(cells.size() - 1);
    }
};
// The cells a line from `from` to `to` (cell coordinates) crosses: one sample per cell of its
// longer side (at most 4096), each in the cell its point falls in, clamped to the nx x ny grid.
std::vector<glm::ivec2> cells_along(glm::vec2 from, glm::vec2 to, int nx, int ny);

class ViewCapture;

class Viewer {
  public:
    // Throws adilab::Error / cli::UsageError for an unknown model, scenario, solver or parameter.
    Viewer(const ViewerStart& start, Settings& settings, const std::string& renderer_name,
           const std::string& gl_version);
    ~Viewer();

    // ---- One frame, in this order (gui.cpp's run_frames, headless_ui.cpp) --------------------

    // The simulation's steps when playing (or the steps asked for), timed on the GPU.
    void advance(std::int64_t frame);
    // While the interface is drawn (interface.cpp): whether the Simulation tab is shown (while
    // another tab is open the simulation does not step, so that the benchmark tabs get the GPU
    // to themselves; the viewport still draws), and the viewport the frame draws into (GL
    // convention), whose aspect the 3-D camera fits.
    void set_tab_shown(bool shown) { tab_shown_ = shown; }
    void set_viewport(render::Rect viewport) { last_viewport_ = viewport; }
    // Draws the viewport and times it on the GPU.
    void render(render::Rect viewport, std::int64_t frame);
    // GPU time of ImGui's drawing (around Window::end_frame), shown in the overlay.
    void begin_ui_timing(std::int64_t frame);
    void end_ui_timing();
    // Frame bookkeeping after the frame was presented: FPS, the step cap, recording, and the
    // range and stability read back a few times a second.
    void end_frame(double frame_ms, std::int64_t frame);
    // Checks the stability flags now (read-back): the end of a scripted run.
    void check_stability();
    // Every GPU time the frame timers deliver, appended to `log` (null: none); for the headless
    // UI benchmark, which reports medians.
    struct TimingLog {
        std::vector<double> sim_ms, render_ms, ui_ms;
    };
    void set_timing_log(TimingLog* log) { timing_log_ = log; }

    // ---- What the views read ------------------------------------------------------------------

    const sim::Simulation& simulation() const { return *sim_; }
    const sim::ModelInfo& model_info() const;
    render::FieldSource source() const;
    const std::string& scenario() const { return scenario_; }
    int grid() const { return grid_; }
    int steps_per_frame() const { return steps_per_frame_; }
    bool playing() const { return playing_; }
    bool tab_shown() const { return tab_shown_; }
    const StepBudget& step_budget() const { return step_budget_; }
    const sim::Stats& stats() const { return stats_; }
    // The field's range as last read back (the colour bar's labels, "Fix current").
    const render::Range& range() const { return range_; }
    const FrameFigures& figures() const { return figures_; }
    bool gpu_timers() const { return gpu_timers_; }
    // The cell under the cursor and its value at the last read-back.
    const std::optional<glm::ivec2>& probe_cell() const { return probe_cell_; }
    const std::optional<float>& probe_value() const { return probe_value_; }
    // "probe (i, j) at x = .. m, y = .. m: T = .. K", as the overlay shows it; empty without one.
    std::string probe_text() const;
    // The cross-section (Ctrl+drag in the viewport), if any.
    const std::optional<CrossSection>& cross_section() const { return cross_section_; }
    bool cross_section_dragging() const { return line_dragging_; }
    const std::vector<Preset>& presets() const { return presets_; }
    int preset_index() const { return preset_index_; }  // -1: none chosen
    const Recorder& recorder() const { return recorder_; }
    bool recording() const { return recorder_.active(); }
    bool unstable() const { return unstable_; }
    const std::string& unstable_message() const { return unstable_message_; }
    // The status line under the panel: a notice replaces any earlier error; an error stays
    // until a later success or "dismiss".
    const std::string& message() const { return message_; }
    bool message_is_error() const { return message_is_error_; }

    // ---- What the views edit: plain settings, read where they are used ----------------------

    render::RenderSettings& view() { return view_; }
    const render::RenderSettings& view() const { return view_; }
    BrushSettings& brush() { return brush_; }
    FileSettings& files() { return files_; }
    InterfaceSettings& interface_settings() { return interface_; }
    const InterfaceSettings& interface_settings() const { return interface_; }
    bool ui_hidden() const { return interface_.hide_ui; }
    float ui_scale() const { return interface_.ui_scale; }
    float panel_width() const { return interface_.panel_width; }
    bool vsync() const { return interface_.vsync; }
    // Whether vsync changed since gui.cpp last applied it (true at the first frame).
    bool vsync_changed();

    // ---- Actions: the panel's widgets and the keys. Errors go to the status line. -------------

    void choose_preset(int index);
    void choose_model(const std::string& model);  // its first scenario
    void choose_scenario(const std::string& scenario);
    void choose_terrain(const std::string& terrain);
    void choose_solver(const std::string& solver);
    void choose_grid(int n);
    void set_steps_per_frame(int steps);  // clamped to 1 .. kMaxStepsPerFrame
    void set_param(const std::string& name, double value);
    // Every parameter of the model back to its default (the panel's "Reset parameters"); they
    // take effect at the next step, the scenario's geometry at the next reset.
    void reset_parameters();
    // The panel's "Save as preset": what is set now (model, scenario, solver, terrain, grid,
    // steps per frame, colormap, every parameter) as user_presets_folder()/NAME.preset, then
    // the preset list read again with it chosen.
    void save_as_preset(const std::string& name);
    // Ctrl+S opens the panel's "Save as preset" name field.
    void request_preset_name() { preset_name_requested_ = true; }
    bool take_preset_name_request() { return std::exchange(preset_name_requested_, false); }
    // "Run until t = ...": play, then pause on the step that reaches simulated time `t` (never
    // past it: the last frame takes only the steps left). Cancelled by a reset or a load.
    void run_until(double t);
    void cancel_run_until() { run_until_.reset(); }
    const std::optional<double>& run_until_target() const { return run_until_; }
    void toggle_playing() { playing_ = !playing_; }
    void step_once();  // pauses; every call is one more step
    // R: the scenario's initial state, the 3-D camera fitted to the domain and the 2-D view's
    // zoom and pan back to the whole domain.
    void reset_view_and_field();
    // C, and a new model or scenario: the 3-D camera fitted and the 2-D view reset.
    void fit_view();
    void fit_camera();  // the 3-D camera only
    // A brush dab at a viewport pixel (GL convention), and the cell the mouse is over.
    void paint_at(render::Rect viewport, glm::vec2 gl_pixel);
    void set_probe_cell(std::optional<glm::ivec2> cell) { probe_cell_ = cell; }
    // The cross-section line: Ctrl+press starts it at `cell`, the drag moves its end until the
    // button is released; clear removes it (and its plot).
    void begin_cross_section(glm::vec2 cell);
    void move_cross_section_end(glm::vec2 cell);
    void end_cross_section_drag() { line_dragging_ = false; }
    void clear_cross_section();
    // The plotted values as CSV (distance_m,i,j,value) at files().line_csv_path.
    void save_cross_section();
    // A brush stroke from a to b (viewport fractions, y down as on screen), for the test hook.
    void inject_drag(render::Rect viewport, float ax, float ay, float bx, float by);
    // Files (viewer_files.cpp): the state file, the field as .npy, FPS recordings.
    void save_state();
    // Loads a state file (the panel's "Load state", and the test hook): the simulation and the
    // panel follow the file's model, scenario, grid, solver and terrain.
    void load_state(const std::filesystem::path& path);
    void export_field();
    void toggle_recording();  // F9 and the Record button
    void start_recording(const std::filesystem::path& folder, double seconds);
    std::filesystem::path stop_recording();
    // Requests from keys or buttons that gui.cpp carries out (it owns the framebuffer).
    void request_screenshot() { screenshot_requested_ = true; }
    bool take_screenshot_request() { return std::exchange(screenshot_requested_, false); }
    bool screenshot_viewport_only() const { return files_.screenshot_viewport_only; }
    std::filesystem::path next_screenshot_path();
    // The view (field, colour bar and labels; no overlay) at files().shot_width x shot_height,
    // drawn offscreen at the next capture_view() (the panel's "Screenshot at W x H").
    void request_sized_screenshot() { sized_screenshot_requested_ = true; }
    // Writes the view at width x height to `path` now (a scripted run's --screenshot-size).
    // Needs ImGui's frame to have begun (the labels' font). Throws adilab::Error.
    void save_view_screenshot(const std::filesystem::path& path, int width, int height);

    // Video (F10, the Files section, --record-video): the view at video_settings()' size, to an
    // MP4 through ffmpeg or to PNG frames (video.hpp).
    VideoSettings& video_settings() { return video_settings_; }
    const VideoWriter& video() const { return video_; }
    bool video_recording() const { return video_.active(); }
    void toggle_video();  // F10 and the button: start with the panel's settings, or stop
    // `every_frame`: each drawn frame is a video frame (scripted runs, so that --frames N gives
    // N frames); else frames are taken at most video_settings().fps times a second of the wall
    // clock (a window slower than that gives one video frame a drawn frame: a time-lapse).
    void start_video(const std::filesystem::path& folder, bool every_frame);
    // Writes the frames still being read back, closes the video; the status line says where.
    VideoWriter::Result stop_video();
    // Once per frame after ImGui has drawn it (gui.cpp): a video frame when one is due (drawn
    // offscreen, read back a frame or two later without a stall), and a sized screenshot when
    // asked. Nothing at all while neither is on.
    void capture_view();
    void request_fullscreen() { fullscreen_requested_ = true; }  // F11
    bool take_fullscreen_request() { return std::exchange(fullscreen_requested_, false); }
    void notify(std::string text);
    void report_error(std::string text);
    void dismiss_message() { message_.clear(); }
    // Writes what the user set into the settings (saved by gui.cpp on exit).
    void save_settings();

  private:
    // Construction (viewer.cpp; a preset: viewer_presets.cpp): the settings, then a preset, then
    // the command line.
    void read_settings();
    std::vector<std::pair<std::string, double>> apply_start_preset(const std::string& name,
                                                                   std::string& model,
                                                                   std::string& solver);
    void apply_start_sizes(const ViewerStart& start);
    void make_start_simulation(const ViewerStart& start, const std::string& model,
                               const std::string& solver);
    void apply_start_scenario(const ViewerStart& start);
    void apply_start_parameters(const ViewerStart& start,
                                const std::vector<std::pair<std::string, double>>& preset_params);
    void apply_start_terrain(const std::string& terrain);
    // What the settings remember of the last run that the command line does not override: the
    // parameters (of the same model), the terrain, the 3-D camera and the 2-D zoom and pan. A
    // value that no longer fits falls back to the default; the status line lists them.
    void apply_saved_parameters();
    void apply_saved_terrain();
    void apply_saved_view();
    void make(const std::string& model, const std::string& solver);
    void reset();
    void apply_preset(const Preset& preset);
    // After the field was replaced (reset, state loaded): its range and statistics now, not a
    // quarter second later, and the stability flag cleared.
    void measure_new_field();
    // The value the diverging map centres on: the rest level (water), the initial value.
    void set_reference();
    void fit_height();
    void poll_timers();
    // The frame-breakdown bookkeeping: each part of a frame as it arrives, by frame number.
    struct PartialFrame {
        std::int64_t frame = 0;
        bool phases_known = false;
        std::vector<gl::DispatchProfiler::Phase> phases;
        std::optional<double> draw_ms, ui_ms, frame_ms;
    };
    PartialFrame& partial_frame(std::int64_t frame);
    void complete_breakdowns();
    bool profiling() const;
    void count_frame_rate(double frame_ms);
    void record_frame(double frame_ms, std::int64_t frame);
    void resample_cross_section();  // the cells, after the line or the grid changed
    void read_cross_section(double frame_ms);
    ViewCapture& capture();
    void hand_video_frames(bool wait);

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
    std::optional<double> run_until_;
    bool preset_name_requested_ = false;
    StepBudget step_budget_;
    render::Rect last_viewport_;
    bool camera_fit_pending_ = true;  // fit the 3-D camera at the next drawn frame
    std::optional<glm::ivec2> probe_cell_;
    std::optional<float> probe_value_;  // read with the range (4 times a second), not per frame
    std::optional<CrossSection> cross_section_;
    bool line_dragging_ = false;
    bool line_changed_ = false, field_changed_ = false;  // since the plot's last read
    double since_line_read_s_ = 1e9;
    render::LineSampler line_sampler_;
    std::vector<Preset> presets_;
    int preset_index_ = -1;
    BrushSettings brush_;
    FileSettings files_;
    InterfaceSettings interface_;
    std::optional<bool> applied_vsync_;  // what gui.cpp last applied

    // Timing: GPU timers where the driver's work (else the CPU time of issuing the work).
    bool gpu_timers_ = false;
    gl::FrameTimer sim_timer_, render_timer_, ui_timer_;
    gl::DispatchProfiler phase_profiler_;      // per-dispatch times of the step
    std::deque<PartialFrame> partial_frames_;  // the last frames' parts, oldest first
    std::chrono::steady_clock::time_point ui_start_;
    FrameFigures figures_;
    double rate_window_s_ = 0;  // the half second being counted for figures_'s rates
    int rate_window_frames_ = 0;
    std::int64_t rate_window_steps_ = 0;
    double rate_window_sim_s_ = 0;
    TimingLog* timing_log_ = nullptr;

    // Stability and the colour bar's range, read back a few times per second.
    bool unstable_ = false;
    std::string unstable_message_;
    double since_readback_s_ = 1e9;
    double since_stats_s_ = 1e9;
    render::Range range_;
    sim::Stats stats_;

    Recorder recorder_;
    std::int64_t record_offset_ = 0;  // GUI frame number before the recording's first row
    bool screenshot_requested_ = false, fullscreen_requested_ = false;
    bool sized_screenshot_requested_ = false;

    VideoSettings video_settings_;
    VideoWriter video_;
    bool video_every_frame_ = false;
    double video_elapsed_s_ = 0, video_next_s_ = 0;  // wall clock since the start, next frame due
    std::unique_ptr<ViewCapture> capture_;           // made at the first capture
    std::string message_;
    bool message_is_error_ = false;
};

}  // namespace adilab::gui
