// The Simulation tab, the overlay, the help window and the viewport's mouse and keys.
#include "app/gui/viewer.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "app/cli/args.hpp"
#include "app/gui/phases.hpp"
#include "app/gui/ticks.hpp"
#include "app/render/sim_view.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::array<int, 5> kGridSizes = {256, 512, 1024, 2048, 4096};
constexpr double kReadbackInterval_s = 0.25;  // colour-bar labels and stability: 4 per second
constexpr double kStatsInterval_s = 2.0;      // full statistics on grids over 1024^2
constexpr std::size_t kPlotFrames = 240;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Text input into a std::string (ImGui 1.86 has no std::string overload without misc/cpp).
bool input_path(const char* label, std::string& value) {
    char buffer[1024];
    std::snprintf(buffer, sizeof buffer, "%s", value.c_str());
    if (ImGui::InputText(label, buffer, sizeof buffer)) {
        value = buffer;
        return true;
    }
    return false;
}

bool combo(const char* label, const std::vector<std::string>& items, std::string& value) {
    bool changed = false;
    if (ImGui::BeginCombo(label, value.c_str())) {
        for (const std::string& item : items) {
            const bool selected = item == value;
            if (ImGui::Selectable(item.c_str(), selected)) {
                changed = item != value;
                value = item;
            }
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    return changed;
}

void help_marker(const std::string& text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

// The operating system's reason why `path` cannot be opened for reading or writing ("Permission
// denied", "No such file or directory"), or empty when it can. Called after a failed save or
// load, whose own message names the file but not the cause.
std::string os_reason(const std::filesystem::path& path, bool write) {
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    const int fd = write ? ::open(path.c_str(), O_WRONLY | O_CREAT, 0644) : ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    if (write && !existed) std::filesystem::remove(path, ec);
    return {};
}

std::string with_reason(const std::string& message, const std::filesystem::path& path, bool write) {
    const std::string reason = os_reason(path, write);
    return reason.empty() ? message : message + ": " + reason;
}

std::string absolute_text(const std::filesystem::path& path) {
    std::error_code ec;
    const auto full = std::filesystem::absolute(path, ec);
    return (ec ? path : full).string();
}

// The model, solver and grid a state file holds: its text lines before the first buffer
// (sim/model.cpp writes them), so that the viewer can make the matching simulation first.
struct StateHeader {
    std::string model, solver;
};
StateHeader read_state_header(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(with_reason("cannot read state file '" + absolute_text(path) + "'", path, false));
    StateHeader header;
    std::string line;
    std::getline(in, line);
    if (line != "ADILAB-STATE 1")
        throw Error("'" + absolute_text(path) + "' is not an adilab state file");
    while (std::getline(in, line) && !line.starts_with("buffer ")) {
        std::istringstream fields(line);
        std::string key;
        fields >> key;
        if (key == "model") fields >> header.model;
        if (key == "solver") fields >> header.solver;
    }
    if (header.model.empty()) throw Error("state file '" + absolute_text(path) + "' names no model");
    return header;
}

// ImGui's built-in font is ASCII: an en dash ("Peaceman–Rachford") is shown as a hyphen. Copied
// character by character: GCC 12 warns -Wrestrict (a false positive) on std::string::replace
// here once it is inlined.
std::string ascii_dashes(const std::string& text) {
    constexpr std::string_view kEnDash = "\xE2\x80\x93";
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (std::string_view(text).substr(i, kEnDash.size()) == kEnDash) {
            out += '-';
            i += kEnDash.size() - 1;
        } else {
            out += text[i];
        }
    }
    return out;
}

// "T (K)", "h (m)"; a unit that only repeats the name is left out ("C", not "C (C)").
std::string field_label(const sim::ModelInfo& info) {
    if (info.field_unit.empty() || info.field_unit == info.field_name) return info.field_name;
    return info.field_name + " (" + info.field_unit + ")";
}

std::string format_value(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::string format_rate(double per_s) {
    char buf[64];
    if (per_s >= 1e9) std::snprintf(buf, sizeof buf, "%.2f G", per_s / 1e9);
    else if (per_s >= 1e6) std::snprintf(buf, sizeof buf, "%.2f M", per_s / 1e6);
    else if (per_s >= 1e3) std::snprintf(buf, sizeof buf, "%.2f k", per_s / 1e3);
    else std::snprintf(buf, sizeof buf, "%.1f ", per_s);
    return buf;
}

}  // namespace

// ---- Grid limits -------------------------------------------------------------------------------

GridLimits grid_limits() {
    // One nx * ny float buffer per field must fit one storage block (the models bind whole
    // fields); a square grid n x n of 4-byte floats.
    GridLimits limits;
    const std::int64_t block = gl::Context::current().info().max_storage_block_bytes;
    if (block > 0) {
        const auto n = static_cast<int>(std::sqrt(static_cast<double>(block) / 4.0));
        limits.max = std::clamp(n, limits.min, limits.max);
    }
    return limits;
}

// ---- Viewer ------------------------------------------------------------------------------------

Viewer::Viewer(const ViewerStart& start, Settings& settings, const std::string& renderer_name,
               const std::string& gl_version)
    : settings_(settings), renderer_name_(renderer_name), gl_version_(gl_version) {
    gpu_timers_ = gl::Context::current().timer_queries_work();
    presets_ = load_presets();

    // Settings first, then a preset, then explicit options: the most specific wins.
    std::string model = settings_.get("model", "heat");
    std::string solver = settings_.get("solver", "fused");
    scenario_ = settings_.get("scenario", "");
    grid_ = settings_.get_int("grid", 512, 4, 8192);
    steps_per_frame_ = settings_.get_int("steps_per_frame", 1, 1, 1000);
    view_.colormap = static_cast<render::Colormap>(
        settings_.get_int("colormap", 0, 0, static_cast<int>(render::kColormapNames.size()) - 1));
    view_.reversed = settings_.get_bool("colormap_reversed", false);
    view_.log_scale = settings_.get_bool("log_scale", false);
    view_.show_velocity = settings_.get_bool("show_velocity", true);
    view_.three_d = settings_.get_bool("three_d", true);
    brush_radius_ = settings_.get_float("brush_radius", 8, 1, 256);
    brush_strength_ = settings_.get_float("brush_strength", 1, 0.001f, 1000);
    reports_folder_ = settings_.get("reports_folder", reports_folder_);
    screenshots_folder_ = settings_.get("screenshots_folder", screenshots_folder_);
    state_path_ = settings_.get("state_path", state_path_);
    npy_path_ = settings_.get("npy_path", npy_path_);
    record_seconds_ = settings_.get_float("record_seconds", 0, 0, 3600);
    screenshot_viewport_only_ = settings_.get_bool("screenshot_viewport_only", false);
    show_overlay_ = settings_.get_bool("show_overlay", true);
    show_help_ = settings_.get_bool("show_help", false);
    vsync_ = settings_.get_bool("vsync", true);
    vsync_changed_ = true;
    panel_width_ = settings_.get_float("panel_width", 400, 250, 900);
    ui_scale_ = settings_.get_float("ui_scale", 1, 0.75f, 2.5f);

    std::vector<std::pair<std::string, double>> params;
    if (!start.preset.empty()) {
        auto it = std::find_if(presets_.begin(), presets_.end(),
                               [&](const Preset& p) { return p.name == start.preset; });
        if (it == presets_.end()) {
            std::string names;
            for (const Preset& p : presets_) names += (names.empty() ? "" : ", ") + p.name;
            throw cli::UsageError("unknown preset '" + start.preset + "' (available: " +
                                  (names.empty() ? "none found under assets/presets" : names) +
                                  ")");
        }
        if (!it->problem.empty()) throw files::InputError(it->problem);
        preset_index_ = static_cast<int>(it - presets_.begin());
        model = it->model;
        // A preset that names only the model takes the model's first scenario (below), not the
        // scenario the settings remember from another model.
        scenario_ = it->scenario;
        if (!it->solver.empty()) solver = it->solver;
        if (it->grid > 0) grid_ = it->grid;
        if (it->steps_per_frame > 0) steps_per_frame_ = it->steps_per_frame;
        if (!it->colormap.empty()) view_.colormap = render::colormap_from_name(it->colormap);
        params = it->params;
    }
    if (!start.model.empty()) model = start.model;
    if (!start.scenario.empty()) {
        scenario_ = start.scenario;
        if (start.model.empty() && start.preset.empty()) {
            // --scenario alone: the model that has this scenario (each name belongs to one,
            // except `free`, which stays with the current model).
            for (const sim::ModelInfo& info : sim::models()) {
                auto probe = sim::make_simulation(info.name, solver);
                auto names = probe->scenarios();
                if (std::find(names.begin(), names.end(), start.scenario) != names.end()) {
                    if (start.scenario != "free" || info.name == model) {
                        model = info.name;
                        break;
                    }
                    if (model.empty()) model = info.name;
                }
            }
        }
    }
    if (!start.solver.empty()) solver = start.solver;
    const GridLimits limits = grid_limits();
    if (start.grid > limits.max)
        throw cli::UsageError("--grid " + std::to_string(start.grid) + ": this GPU's storage blocks hold at most " +
                              std::to_string(limits.max) + " x " + std::to_string(limits.max));
    if (start.grid > 0) grid_ = start.grid;
    grid_ = std::clamp(grid_, limits.min, limits.max);
    if (start.steps_per_frame > 0) steps_per_frame_ = start.steps_per_frame;
    if (!start.colormap.empty()) view_.colormap = render::colormap_from_name(start.colormap);

    try {
        make(model, solver);
    } catch (const Error& e) {
        // A model or solver the command line (or its preset) names is a usage error, exit 2 as
        // in headless mode; a stale one from the settings falls back to the default.
        if (!start.model.empty() || !start.solver.empty() || !start.preset.empty())
            throw cli::UsageError(e.what());
        make("heat", "fused");
    }
    auto names = sim_->scenarios();
    const bool scenario_named = !start.scenario.empty() || !scenario_.empty();
    if (std::find(names.begin(), names.end(), scenario_) == names.end()) {
        if (!start.scenario.empty() || (!start.preset.empty() && scenario_named)) {
            std::string list;
            for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
            throw cli::UsageError("model '" + sim_->model() + "' has no scenario '" + scenario_ +
                                  "' (available: " + list + ")");
        }
        scenario_ = names.front();
    }
    try {
        sim_->set_params(params);  // the preset's
        sim_->set_params_text(start.params);
        sim_->check_parameters(scenario_, grid_, grid_);  // fine alone, not with this grid
    } catch (const Error& e) {
        throw cli::UsageError(std::string("--set: ") + e.what());  // unknown name, out of range
    }
    if (!start.terrain.empty()) {
        auto terrains = sim_->terrains();
        if (std::find(terrains.begin(), terrains.end(), start.terrain) == terrains.end()) {
            std::string list;
            for (const auto& n : terrains) list += (list.empty() ? "" : ", ") + n;
            throw cli::UsageError("--terrain: model '" + sim_->model() + "' has no terrain '" +
                                  start.terrain + "' (available: " +
                                  (list.empty() ? "none" : list) + ")");
        }
        sim_->set_terrain(start.terrain);
    }
    reset();
}

Viewer::~Viewer() {
    if (recorder_.active()) {
        try {
            stop_recording();
        } catch (const std::exception&) {
        }
    }
}

const sim::ModelInfo& Viewer::model_info() const {
    for (const sim::ModelInfo& info : sim::models())
        if (info.name == sim_->model()) return info;
    return sim::models().front();
}

void Viewer::make(const std::string& model, const std::string& solver) {
    auto next = sim::make_simulation(model, solver);
    // Keep the parameters the user set when only the solver changes.
    if (sim_ && sim_->model() == model) {
        std::vector<std::pair<std::string, double>> values;
        for (const sim::ParamSpec& p : sim_->params()) values.emplace_back(p.name, sim_->param(p.name));
        next->set_params(values);
    }
    sim_ = std::move(next);
}

void Viewer::reset() {
    const std::int64_t cells = static_cast<std::int64_t>(grid_) * grid_;
    const gl::DeviceInfo& device = gl::Context::current().info();
    // About a dozen nx * ny float buffers per model (fields, coefficients, scratch).
    const std::int64_t need_mib = cells * 4 * 12 >> 20;
    if (device.available_memory_mib > 0 && need_mib > device.available_memory_mib)
        report_error("grid " + std::to_string(grid_) + " may need ~" + std::to_string(need_mib) +
                     " MiB; the GPU reports " + std::to_string(device.available_memory_mib) +
                     " MiB free");
    sim_->reset(scenario_, grid_, grid_);
    gl::finish();
    unstable_ = false;
    unstable_message_.clear();
    // The colour bar's range and statistics of the new field now, not a quarter second later
    // (after a reset the old range would label the new field, or [0, 0] on the first frame).
    range_ = renderer_.measure(sim_->field(), std::size_t(sim_->nx()) * sim_->ny());
    stats_ = sim_->stats();
    since_readback_s_ = 0;
    since_stats_s_ = 0;
    step_cap_ = std::min(step_cap_, 8);
    capped_frame_ms_ = 0;
    settle_frames_ = 2;
    frames_since_cap_change_ = 0;
    set_reference();
    fit_height();
}

void Viewer::reset_view_and_field() {
    try {
        reset();
        fit_camera();
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::fit_camera() {
    camera_fit_pending_ = last_viewport_.empty();  // again once a viewport gives the aspect
    // The whole domain in view: its bounding sphere (the longer side spans 2 world units, the
    // relief about 0.4) inside the narrower of the two fields of view, seen from the default
    // angle. The aspect is the viewport's (the last one drawn).
    const render::FieldSource src = source();
    const glm::vec2 half = render::Renderer::half_extent(src);
    const float aspect = last_viewport_.empty()
                             ? 1.5f
                             : float(last_viewport_.width) / float(last_viewport_.height);
    view_.camera = render::OrbitCamera{};
    view_.camera.fit(half, 0.25f, aspect);
}

void Viewer::set_reference() {
    // Diverging maps show departures from a reference the model states: the water's still
    // level ("level", the surface at rest), the uniform start value of heat or concentration
    // ("initial_temperature", "initial_concentration"); else the field's mean at reset.
    for (const sim::ParamSpec& p : sim_->params())
        if (p.name == "level" || p.name.starts_with("initial_")) {
            view_.reference = static_cast<float>(sim_->param(p.name));
            return;
        }
    const double cells = double(sim_->nx()) * sim_->ny();
    view_.reference = cells > 0 ? static_cast<float>(stats_.sum / cells) : 0.0f;
}

void Viewer::notify(std::string text) {
    message_ = std::move(text);
    message_is_error_ = false;
}

void Viewer::report_error(std::string text) {
    message_ = std::move(text);
    message_is_error_ = true;
}

void Viewer::draw_status_line() {
    if (message_.empty()) {
        ImGui::TextDisabled("%s", "Ready. H: help, Tab: hide the interface.");
        return;
    }
    if (message_is_error_) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.55f, 0.35f, 1));
        ImGui::TextWrapped("%s", message_.c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("dismiss")) message_.clear();
    } else {
        ImGui::TextWrapped("%s", message_.c_str());
    }
}

void Viewer::load_state(const std::filesystem::path& path) {
    state_path_ = path.string();
    // A state of another model, grid, scenario or terrain: the simulation is made to match the
    // file first (on a copy, so that a failed load leaves the running one as it was), then the
    // panel follows it: model, scenario, grid, solver and terrain all read from the result.
    try {
        const StateHeader header = read_state_header(state_path_);
        const auto solvers = sim::solver_names();
        std::string solver = sim_->solver();
        if (std::find(solvers.begin(), solvers.end(), header.solver) != solvers.end() &&
            sim::solver_supports(header.model, header.solver))
            solver = header.solver;
        else if (!sim::solver_supports(header.model, solver))
            solver = solvers.front();
        auto next = sim::make_simulation(header.model, solver);
        next->load_state(state_path_);
        sim_ = std::move(next);
        scenario_ = sim_->scenario();
        grid_ = sim_->nx();
        preset_index_ = -1;
        unstable_ = false;
        unstable_message_.clear();
        range_ = renderer_.measure(sim_->field(), std::size_t(sim_->nx()) * sim_->ny());
        stats_ = sim_->stats();
        since_readback_s_ = since_stats_s_ = 0;
        settle_frames_ = 2;
        set_reference();
        fit_height();
        fit_camera();
        char detail[160];
        std::snprintf(detail, sizeof detail, ": %s, %s, %d x %d, step %lld, t = %.4g s",
                      sim_->model().c_str(), scenario_.c_str(), sim_->nx(), sim_->ny(),
                      static_cast<long long>(stats_.steps), stats_.time);
        notify("loaded " + absolute_text(state_path_) + detail);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::fit_height() { render::fit_height(renderer_, *sim_, view_); }

render::FieldSource Viewer::source() const { return render::source_of(*sim_); }

void Viewer::advance(std::int64_t frame) {
    steps_this_frame_ = 0;
    if (unstable_) playing_ = false;
    int steps = 0;
    if (tab_shown_ && playing_) {
        steps = std::min(steps_per_frame_, step_cap_);
    } else if (tab_shown_ && step_requests_ > 0) {
        steps = std::min(step_requests_, step_cap_);
        step_requests_ -= steps;
    }
    const auto start = Clock::now();
    if (steps > 0) {
        const bool profile = gpu_timers_ && profile_phases_ && show_overlay_;
        if (profile) phase_profiler_.begin();
        sim_timer_.begin(frame);
        sim_->step(steps);
        sim_timer_.end();
        if (profile) phase_profiler_.end();
        steps_this_frame_ = steps;
    }
    sim_cpu_ms_ = ms_since(start);
}

void Viewer::render(render::Rect viewport, std::int64_t frame) {
    if (camera_fit_pending_ && !viewport.empty()) {
        last_viewport_ = viewport;
        fit_camera();
    }
    const auto start = Clock::now();
    render_timer_.begin(frame);
    renderer_.draw(source(), view_, viewport);
    render_timer_.end();
    render_cpu_ms_ = ms_since(start);
}

void Viewer::poll_timers() {
    // Frame numbers of the timers are recording frame numbers while recording.
    for (const auto& s : sim_timer_.collect()) {
        sim_gpu_ms_ = s.ms;
        if (gpu_timers_) recorder_.set_sim_ms(s.frame - record_offset_, s.ms);
        if (timing_log_ != nullptr) timing_log_->sim_ms.push_back(s.ms);
    }
    for (const auto& s : render_timer_.collect()) {
        render_gpu_ms_ = s.ms;
        if (gpu_timers_) recorder_.set_render_ms(s.frame - record_offset_, s.ms);
        if (timing_log_ != nullptr) timing_log_->render_ms.push_back(s.ms);
    }
    for (const auto& s : ui_timer_.collect()) {
        ui_gpu_ms_ = s.ms;  // not recorded: UI only
        if (timing_log_ != nullptr) timing_log_->ui_ms.push_back(s.ms);
    }
    // A frame with a wrapped or negative time is dropped whole; the last good one stays.
    if (auto phases = phase_profiler_.collect(); !phases.empty() && phases_valid(phases))
        phases_ = std::move(phases);
}

void Viewer::check_stability() {
    // The stability flag and the GPU's min/max are a few bytes; the full statistics (sum) read
    // the whole field back, so on large grids they are refreshed only every few seconds.
    const std::int64_t bad_step = sim_->first_bad_step();
    range_ = renderer_.read_range();
    // The value under the cursor: one float, read with the range (4 times a second), never per
    // frame.
    if (probe_cell_ && probe_cell_->x < sim_->nx() && probe_cell_->y < sim_->ny())
        probe_value_ = sim_->field().read<float>(
            1, std::size_t(probe_cell_->y) * std::size_t(sim_->nx()) + std::size_t(probe_cell_->x))[0];
    const bool large = std::int64_t(sim_->nx()) * sim_->ny() > (1 << 20);
    if (!large || since_stats_s_ >= kStatsInterval_s || bad_step >= 0) {
        stats_ = sim_->stats();
        since_stats_s_ = 0;
    }
    if (!unstable_ && (bad_step >= 0 || range_.nonfinite > 0)) {
        unstable_ = true;
        playing_ = false;
        unstable_message_ = "instability: " +
                            (bad_step >= 0 ? sim_->instability()
                                           : std::string("the field has NaN/Inf")) +
                            ". Paused; change the parameters and reset (R).";
    }
}

void Viewer::adapt_step_cap(double frame_ms) {
    // The simulation's share of a frame cannot be read without waiting for the GPU, but the
    // wall-clock frame (which includes it: presenting waits for the frame's work) bounds it.
    // Over budget: the cap falls in proportion at once. Well under budget for a few frames
    // (the GPU may still be working on earlier frames): it doubles, up to the setting. A
    // typed 1000 steps on a 4096^2 grid so plays at about 10 frames a second, never frozen.
    // The first frames after a reset compile shaders, and one slow frame can be the system's
    // doing: only two slow frames in a row count. Starting from at most 8 steps and at most
    // doubling, no frame gets far past the budget on the way.
    ++frames_since_cap_change_;
    if (settle_frames_ > 0) {
        --settle_frames_;
        return;
    }
    if (steps_this_frame_ <= 0) return;
    // The simulation's share: the frame less the drawing and the UI where the GPU timed them
    // (a slow 3-D view alone must not throttle a cheap simulation).
    const double sim_ms =
        gpu_timers_ && render_gpu_ms_
            ? std::max(0.0, frame_ms - *render_gpu_ms_ - ui_gpu_ms_.value_or(0.0))
            : frame_ms;
    slow_frames_ = sim_ms > kFrameBudget_ms ? slow_frames_ + 1 : 0;
    if (slow_frames_ >= 2 && steps_this_frame_ > 1) {
        step_cap_ = std::max(1, static_cast<int>(steps_this_frame_ * kFrameBudget_ms / sim_ms));
        frames_since_cap_change_ = 0;
        slow_frames_ = 0;
        capped_frame_ms_ = sim_ms;
    } else if (sim_ms < 0.5 * kFrameBudget_ms && steps_this_frame_ >= step_cap_ &&
               step_cap_ < kMaxStepsPerFrame && frames_since_cap_change_ >= 2) {
        step_cap_ = std::min(kMaxStepsPerFrame, 2 * step_cap_);
        frames_since_cap_change_ = 0;
    }
    if (sim_ms > kFrameBudget_ms && step_cap_ < steps_per_frame_) capped_frame_ms_ = sim_ms;
}

void Viewer::end_frame(double frame_ms, std::int64_t frame) {
    adapt_step_cap(frame_ms);
    frame_times_ms_.push_back(static_cast<float>(frame_ms));
    while (frame_times_ms_.size() > kPlotFrames) frame_times_ms_.pop_front();
    window_s_ += frame_ms / 1000.0;
    ++window_frames_;
    window_steps_ += steps_this_frame_;
    if (window_s_ >= 0.5) {
        fps_ = window_frames_ / window_s_;
        frame_ms_ = 1000.0 * window_s_ / window_frames_;
        steps_per_s_ = window_steps_ / window_s_;
        window_s_ = 0;
        window_frames_ = 0;
        window_steps_ = 0;
    }
    if (recorder_.active()) {
        FrameSample sample;
        sample.frame = recorder_.next_frame();
        // Timer results are tagged with the GUI's frame numbers; rows count from 1.
        if (sample.frame == 1) record_offset_ = frame - 1;
        sample.t_s = recorder_.elapsed_s() + frame_ms / 1000.0;
        sample.frame_ms = frame_ms;
        sample.sim_ms = sim_cpu_ms_;  // replaced by the GPU time when it arrives
        sample.render_ms = render_cpu_ms_;
        sample.steps = steps_this_frame_;
        recorder_.add(sample);
        if (recorder_.time_is_up()) stop_recording();
    }
    poll_timers();
    since_readback_s_ += frame_ms / 1000.0;
    since_stats_s_ += frame_ms / 1000.0;
    if (since_readback_s_ >= kReadbackInterval_s) {
        since_readback_s_ = 0;
        check_stability();
    }
}

void Viewer::start_recording(const std::filesystem::path& folder, double seconds) {
    RecordingInfo info;
    info.renderer = renderer_name_;
    info.gl_version = gl_version_;
    info.model = sim_->model();
    info.scenario = scenario_;
    info.solver = sim_->solver();
    info.grid = grid_;
    info.steps_per_frame = steps_per_frame_;
    info.timing = gpu_timers_ ? "sim_ms and render_ms: GPU timer queries"
                              : "sim_ms and render_ms: CPU time issuing the work (this driver's "
                                "GPU timer reads 0)";
    recorder_.start(folder, info, seconds);
    // The timers' frame tags restart with the recording's frame numbers.
    notify("recording to " + recorder_.csv_path().string());
}

std::filesystem::path Viewer::stop_recording() {
    if (!recorder_.active()) return {};
    // The last frames' GPU times: one wait at the end of the recording, not per frame.
    for (const auto& s : sim_timer_.collect_all())
        if (gpu_timers_) recorder_.set_sim_ms(s.frame - record_offset_, s.ms);
    for (const auto& s : render_timer_.collect_all())
        if (gpu_timers_) recorder_.set_render_ms(s.frame - record_offset_, s.ms);
    auto path = recorder_.stop();
    notify("recorded " + path.string() + " and " + recorder_.json_path().filename().string());
    return path;
}

std::filesystem::path Viewer::next_screenshot_path() {
    std::filesystem::path folder = screenshots_folder_;
    std::filesystem::create_directories(folder);
    return folder / (timestamped_name("adilab") + ".png");
}

void Viewer::save_settings() {
    settings_.set("model", sim_->model());
    settings_.set("solver", sim_->solver());
    settings_.set("scenario", scenario_);
    settings_.set("grid", grid_);
    settings_.set("steps_per_frame", steps_per_frame_);
    settings_.set("colormap", static_cast<int>(view_.colormap));
    settings_.set("colormap_reversed", view_.reversed);
    settings_.set("log_scale", view_.log_scale);
    settings_.set("show_velocity", view_.show_velocity);
    settings_.set("three_d", view_.three_d);
    settings_.set("brush_radius", brush_radius_);
    settings_.set("brush_strength", brush_strength_);
    settings_.set("reports_folder", reports_folder_);
    settings_.set("screenshots_folder", screenshots_folder_);
    settings_.set("state_path", state_path_);
    settings_.set("npy_path", npy_path_);
    settings_.set("record_seconds", record_seconds_);
    settings_.set("screenshot_viewport_only", screenshot_viewport_only_);
    settings_.set("show_overlay", show_overlay_);
    settings_.set("show_help", show_help_);
    settings_.set("vsync", vsync_);
    settings_.set("panel_width", panel_width_);
    settings_.set("ui_scale", ui_scale_);
}

void Viewer::apply_preset(const Preset& p) {
    try {
        if (!p.problem.empty()) throw Error(p.problem);
        make(p.model, p.solver.empty() ? sim_->solver() : p.solver);
        scenario_ = p.scenario;  // none named: the model's first, below
        auto names = sim_->scenarios();
        if (std::find(names.begin(), names.end(), scenario_) == names.end())
            scenario_ = names.front();
        if (p.grid > 0) grid_ = p.grid;
        if (p.steps_per_frame > 0) steps_per_frame_ = p.steps_per_frame;
        if (!p.colormap.empty()) view_.colormap = render::colormap_from_name(p.colormap);
        sim_->set_params(p.params);
        reset();
        fit_camera();
        notify("preset " + p.name);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

// ---- Input -------------------------------------------------------------------------------------

void Viewer::brush_at(render::Rect viewport, glm::vec2 gl_pixel) {
    auto cell = render::Renderer::pixel_to_cell(source(), view_, viewport, gl_pixel);
    if (!cell) return;
    sim::Brush brush;
    brush.center_x = cell->x;
    brush.center_y = cell->y;
    brush.radius = brush_radius_;
    brush.strength = brush_subtract_ ? -brush_strength_ : brush_strength_;
    sim_->apply_brush(brush);
}

void Viewer::inject_drag(render::Rect viewport, float ax, float ay, float bx, float by) {
    // Ten dabs along the segment, as a mouse drag over a few frames would give.
    for (int k = 0; k <= 10; ++k) {
        const float t = k / 10.0f;
        const float fx = ax + t * (bx - ax), fy = ay + t * (by - ay);
        brush_at(viewport, glm::vec2(viewport.x + fx * viewport.width,
                                     viewport.y + (1.0f - fy) * viewport.height));
    }
}

void Viewer::handle_input(render::Rect viewport, float framebuffer_height, float scale,
                          std::span<const KeyPress> keys) {
    ImGuiIO& io = ImGui::GetIO();
    // Every press since the last frame counts, however short (window.cpp queues them): ten
    // quick taps of S are ten steps even at 2 FPS. Toggles and one-shot actions ignore key
    // repeat (a held Space must not flicker between play and pause, a held R or F12 must not
    // reset or shoot over and over); a held S keeps stepping.
    if (!io.WantCaptureKeyboard && !io.WantTextInput) {
        for (const KeyPress& k : keys) {
            if (k.key == GLFW_KEY_S) {
                playing_ = false;
                ++step_requests_;
            }
            if (k.repeat) continue;
            switch (k.key) {
            case GLFW_KEY_SPACE: playing_ = !playing_; break;
            case GLFW_KEY_R: reset_view_and_field(); break;
            case GLFW_KEY_C: fit_camera(); break;
            case GLFW_KEY_H: show_help_ = !show_help_; break;
            case GLFW_KEY_TAB: hide_ui_ = !hide_ui_; break;
            case GLFW_KEY_F11: fullscreen_requested_ = true; break;
            case GLFW_KEY_F12: screenshot_requested_ = true; break;
            case GLFW_KEY_F9:
                try {
                    if (recorder_.active()) stop_recording();
                    else start_recording(reports_folder_, record_seconds_);
                } catch (const std::exception& e) {
                    report_error(e.what());
                }
                break;
            default: break;
            }
        }
    }
    if (viewport.empty()) return;
    // ImGui positions are in its units (logical pixels), y down; the viewport is in
    // framebuffer pixels, y up.
    const glm::vec2 mouse(io.MousePos.x * scale, framebuffer_height - io.MousePos.y * scale);
    const bool inside = mouse.x >= viewport.x && mouse.x < viewport.x + viewport.width &&
                        mouse.y >= viewport.y && mouse.y < viewport.y + viewport.height;
    if (io.WantCaptureMouse || !inside) {
        dragging_camera_ = false;
        probe_cell_.reset();
        return;
    }
    const render::FieldSource src = source();
    const bool three_d = render::Renderer::draws_3d(src, view_);
    if (auto cell = render::Renderer::pixel_to_cell(src, view_, viewport, mouse)) {
        probe_cell_ = glm::ivec2(std::clamp(int(cell->x), 0, src.nx - 1), std::clamp(int(cell->y), 0, src.ny - 1));
    } else {
        probe_cell_.reset();
    }
    if (io.MouseWheel != 0) {
        if (three_d) {
            view_.camera.zoom(std::pow(0.9f, io.MouseWheel));
        } else {
            // Zoom about the cursor: the point under it stays put.
            auto before = render::Renderer::layout_2d(src, view_, viewport);
            const glm::vec2 f = (mouse - before.domain_min) / (before.domain_max - before.domain_min);
            view_.zoom = std::clamp(view_.zoom * std::pow(1.15f, io.MouseWheel), 0.2f, 64.0f);
            auto after = render::Renderer::layout_2d(src, view_, viewport);
            const glm::vec2 size = after.domain_max - after.domain_min;
            view_.pan += (mouse - (after.domain_min + f * size)) / size;
        }
    }
    // Left: paint (2-D) or orbit (3-D; with Shift it paints). Right or middle: pan (2-D) /
    // orbit (3-D).
    const bool paint = ImGui::IsMouseDown(ImGuiMouseButton_Left) && (!three_d || io.KeyShift);
    const bool orbit = three_d && (ImGui::IsMouseDown(ImGuiMouseButton_Right) ||
                                   (ImGui::IsMouseDown(ImGuiMouseButton_Left) && !io.KeyShift));
    if (paint) brush_at(viewport, mouse);
    const glm::vec2 delta(io.MouseDelta.x * scale, io.MouseDelta.y * scale);
    if (orbit) {
        view_.camera.rotate(-delta.x * 0.01f, delta.y * 0.01f);
    } else if (!three_d && (ImGui::IsMouseDown(ImGuiMouseButton_Right) ||
                            ImGui::IsMouseDown(ImGuiMouseButton_Middle))) {
        auto layout = render::Renderer::layout_2d(src, view_, viewport);
        view_.pan += glm::vec2(delta.x, -delta.y) / (layout.domain_max - layout.domain_min);
    }
}

// ---- Panels ------------------------------------------------------------------------------------

void Viewer::draw_simulation_tab() {
    const sim::ModelInfo& info = model_info();
    const std::string summary = ascii_dashes(info.summary);
    // Labels keep 11 font heights to the right of every widget ("initial_temperature (K)").
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 11);
    ImGui::TextWrapped("%s", summary.c_str());

    if (!presets_.empty()) {
        std::vector<std::string> names;
        for (const Preset& p : presets_) names.push_back(p.name);
        std::string current = preset_index_ >= 0 ? presets_[static_cast<std::size_t>(preset_index_)].name : "(none)";
        if (combo("Preset", names, current)) {
            preset_index_ = static_cast<int>(std::find(names.begin(), names.end(), current) - names.begin());
            apply_preset(presets_[static_cast<std::size_t>(preset_index_)]);
        }
        help_marker("Scenario presets from assets/presets/*.preset");
    }
    std::vector<std::string> models;
    for (const sim::ModelInfo& m : sim::models()) models.push_back(m.name);
    std::string model = sim_->model();
    if (combo("Model", models, model)) {
        try {
            make(model, sim_->solver());
            scenario_ = sim_->scenarios().front();
            reset();
            fit_camera();
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    }
    std::string scenario = scenario_;
    if (combo("Scenario", sim_->scenarios(), scenario)) {
        scenario_ = scenario;
        try {
            reset();
            fit_camera();
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    }
    if (!sim_->terrains().empty()) {
        std::string terrain = sim_->terrain_name();
        if (combo("Terrain", sim_->terrains(), terrain)) {
            try {
                sim_->set_terrain(terrain);
                reset();
            } catch (const std::exception& e) {
                report_error(e.what());
            }
        }
    }
    std::string solver = sim_->solver();
    std::vector<std::string> solvers;
    for (const std::string& name : sim::solver_names())
        if (sim::solver_supports(sim_->model(), name)) solvers.push_back(name);
    if (combo("Solver", solvers, solver)) {
        try {
            make(sim_->model(), solver);
            reset();
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    }
    help_marker("fused: explicit half step fused into a shared-memory line solve; the others use "
                "the tridiagonal solver registry (cyclic reduction variants, ...)");
    // Grid: a combo of the sizes this device can hold (a slider over a table index let a typed
    // number read past the table). A size from the command line or a loaded state that is not a
    // power of two is listed too.
    const GridLimits limits = grid_limits();
    std::vector<int> sizes;
    for (int n = 16; n <= limits.max; n *= 2) sizes.push_back(n);
    if (std::find(sizes.begin(), sizes.end(), grid_) == sizes.end()) {
        sizes.push_back(grid_);
        std::sort(sizes.begin(), sizes.end());
    }
    char grid_label[32];
    std::snprintf(grid_label, sizeof grid_label, "%d x %d", grid_, grid_);
    if (ImGui::BeginCombo("Grid", grid_label)) {
        for (int n : sizes) {
            char item[32];
            std::snprintf(item, sizeof item, "%d x %d", n, n);
            if (ImGui::Selectable(item, n == grid_) && n != grid_) {
                grid_ = n;
                try {
                    reset();
                } catch (const std::exception& e) {
                    report_error(e.what());
                }
            }
        }
        ImGui::EndCombo();
    }
    // Typed values are clamped to the command line's 1 .. 1000.
    ImGui::SliderInt("Steps / frame", &steps_per_frame_, 1, kMaxStepsPerFrame, "%d",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    steps_per_frame_ = std::clamp(steps_per_frame_, 1, kMaxStepsPerFrame);
    if (playing_ && step_cap_ < steps_per_frame_ && capped_frame_ms_ > kFrameBudget_ms)
        ImGui::TextColored(ImVec4(1, 0.75f, 0.3f, 1),
                           "taking %d of %d steps a frame: frames took up to %.0f ms of the "
                           "%.0f ms a frame may take",
                           step_cap_, steps_per_frame_, capped_frame_ms_, kFrameBudget_ms);

    if (ImGui::Button(playing_ ? "Pause (Space)" : "Play (Space)")) playing_ = !playing_;
    ImGui::SameLine();
    if (ImGui::Button("Step (S)")) {
        playing_ = false;
        ++step_requests_;
    }
    ImGui::SameLine();
    if (ImGui::Button("Reset (R)")) reset_view_and_field();
    ImGui::Text("t = %.4g s, step %lld", stats_.time, static_cast<long long>(stats_.steps));
    ImGui::Text("%s range [%.4g, %.4g] %s, sum %.6g", info.field_name.c_str(), stats_.min,
                stats_.max, info.field_unit.c_str(), stats_.sum);

    if (ImGui::CollapsingHeader("Parameters", ImGuiTreeNodeFlags_DefaultOpen)) {
        // Room for the longest label ("initial_temperature (K)"), up to 60 % of the panel.
        float longest = 0;
        for (const sim::ParamSpec& p : sim_->params())
            longest = std::max(longest, ImGui::CalcTextSize((p.name + " (" + p.unit + ")").c_str()).x);
        ImGui::PushItemWidth(-std::min(longest + ImGui::GetStyle().ItemInnerSpacing.x * 2,
                                       0.6f * ImGui::GetContentRegionAvail().x));
        // The scenario's own parameters; those of other scenarios behind "all parameters".
        bool hidden = false;
        for (const sim::ParamSpec& p : sim_->params()) {
            const bool relevant = p.scenarios.empty() ||
                                  std::find(p.scenarios.begin(), p.scenarios.end(), scenario_) != p.scenarios.end();
            hidden = hidden || !relevant;
            if (!relevant && !show_all_params_) continue;
            double value = sim_->param(p.name);
            if (!p.choices.empty()) {  // a scheme: a combo of its names
                int index = static_cast<int>(value);
                std::vector<const char*> names;
                for (const std::string& c : p.choices) names.push_back(c.c_str());
                if (ImGui::Combo(p.name.c_str(), &index, names.data(), static_cast<int>(names.size()))) {
                    try {
                        sim_->set_param(p.name, index);
                    } catch (const std::exception& e) {
                        report_error(e.what());
                    }
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.help.c_str());
                continue;
            }
            const std::string label =
                p.name + (p.unit == "1" || p.unit.empty() ? std::string() : " (" + p.unit + ")");
            // Drags rather than sliders: the valid ranges span many decades (1e-9 .. 1e9), so
            // the speed follows the value (0.5 % of it per pixel); Ctrl+click types a number.
            // Dragging stays inside the range; a typed value outside it is not clamped but
            // refused by the model, whose message (the range, the reason) goes to the status line.
            const double speed = std::max(std::abs(value), 1e-6 * std::min(p.max - p.min, 1e6)) * 0.005;
            if (ImGui::DragScalar(label.c_str(), ImGuiDataType_Double, &value,
                                  static_cast<float>(speed), &p.min, &p.max, "%.5g")) {
                try {
                    sim_->set_param(p.name, value);
                } catch (const std::exception& e) {
                    report_error(e.what());
                }
            }
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s\nrange %.4g .. %.4g %s, default %.4g (Ctrl+click to type)",
                                  p.help.c_str(), p.min, p.max, p.unit.c_str(), p.default_value);
        }
        if (hidden || show_all_params_) ImGui::Checkbox("all parameters", &show_all_params_);
        ImGui::PopItemWidth();
    }
    if (ImGui::CollapsingHeader("Brush", ImGuiTreeNodeFlags_DefaultOpen)) {
        const bool water = sim_->model() == "shallow-water";
        ImGui::TextWrapped("%s", water ? "Shift+drag on the water: drop (raise) or push (lower) it."
                                       : "Drag in the viewport to paint.");
        ImGui::SliderFloat("Radius (cells)", &brush_radius_, 1, 128, "%.1f",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        const std::string strength = "Strength (" + info.field_unit + ")";
        ImGui::SliderFloat(strength.c_str(), &brush_strength_, 0.001f, 100, "%.3g",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        ImGui::Checkbox(water ? "Push down instead of drop" : "Remove instead of add",
                        &brush_subtract_);
    }
    if (ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) {
        int map = static_cast<int>(view_.colormap);
        ImGui::Combo("Colormap", &map, render::kColormapNames.data(),
                     static_cast<int>(render::kColormapNames.size()));
        view_.colormap = static_cast<render::Colormap>(map);
        if (view_.colormap == render::Colormap::diverging)
            help_marker("Centred on " + std::string(sim_->model() == "shallow-water"
                                                         ? "the still water level"
                                                         : "the initial value") +
                        " (" + format_value(view_.reference) + ")");
        ImGui::SameLine();
        ImGui::Checkbox("reversed", &view_.reversed);
        if (view_.colormap != render::Colormap::diverging) {
            ImGui::SameLine();
            ImGui::Checkbox("log", &view_.log_scale);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("colours by log10 of the value: the top of the range and up to "
                                  "4 decades below it");
        }
        ImGui::Checkbox("Auto range", &view_.auto_range);
        if (!view_.auto_range) {
            ImGui::DragFloatRange2("Range", &view_.range_min, &view_.range_max,
                                   0.01f * std::max(1e-3f, std::abs(view_.range_max - view_.range_min)));
        } else if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("min/max reduced on the GPU every frame");
        }
        ImGui::SameLine();
        if (ImGui::Button("Fix current")) {
            view_.auto_range = false;
            view_.range_min = range_.min;
            view_.range_max = range_.max;
        }
        if (sim_->velocity()) ImGui::Checkbox("Velocity arrows", &view_.show_velocity);
        if (sim_->model() == "shallow-water") {
            ImGui::Checkbox("3-D water", &view_.three_d);
            if (view_.three_d) {
                ImGui::Checkbox("Tint water by height", &view_.tint_water);
                ImGui::SliderFloat("Height scale", &view_.height_scale, 1e-3f, 1e3f, "%.3g",
                                   ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
                if (ImGui::Button("Fit camera (C)")) fit_camera();
                ImGui::TextDisabled("Drag: orbit, wheel: zoom, Shift+drag: brush");
            }
        }
        if (!render::Renderer::draws_3d(source(), view_)) {
            ImGui::SliderFloat("Zoom", &view_.zoom, 0.2f, 64, "%.2f",
                               ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
            ImGui::SameLine();
            if (ImGui::Button("Fit")) {
                view_.zoom = 1;
                view_.pan = {0, 0};
            }
            ImGui::TextDisabled("Wheel: zoom, right-drag: pan");
        }
        if (ImGui::Checkbox("VSync", &vsync_)) vsync_changed_ = true;
        ImGui::SameLine();
        ImGui::Checkbox("Overlay", &show_overlay_);
        ImGui::SameLine();
        if (ImGui::Button("Help (H)")) show_help_ = !show_help_;
        ImGui::SliderFloat("Panel width", &panel_width_, 250, 900, "%.0f", ImGuiSliderFlags_AlwaysClamp);
        ImGui::SliderFloat("UI scale", &ui_scale_, 0.75f, 2.5f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    }
    if (ImGui::CollapsingHeader("Files", ImGuiTreeNodeFlags_DefaultOpen)) {
        input_path("State file", state_path_);
        if (ImGui::Button("Save state")) {
            try {
                sim_->save_state(state_path_);
                notify("saved " + absolute_text(state_path_));
            } catch (const std::exception& e) {
                report_error(with_reason(e.what(), state_path_, true));
            }
        }
        ImGui::SameLine();
        if (ImGui::Button("Load state")) load_state(state_path_);
        input_path("Field .npy", npy_path_);
        if (ImGui::Button("Export field (.npy)")) {
            try {
                sim::write_npy(npy_path_, sim_->nx(), sim_->ny(), sim_->read_field());
                notify("exported " + absolute_text(npy_path_));
            } catch (const std::exception& e) {
                report_error(with_reason(e.what(), npy_path_, true));
            }
        }
        input_path("Screenshots", screenshots_folder_);
        if (ImGui::Button("Screenshot (F12)")) screenshot_requested_ = true;
        ImGui::SameLine();
        ImGui::Checkbox("viewport only", &screenshot_viewport_only_);
        input_path("Reports", reports_folder_);
        ImGui::SliderFloat("Record for (s)", &record_seconds_, 0, 120,
                           record_seconds_ == 0 ? "until stopped" : "%.0f s", ImGuiSliderFlags_AlwaysClamp);
        if (ImGui::Button(recorder_.active() ? "Stop recording (F9)" : "Record FPS (F9)")) {
            try {
                if (recorder_.active()) stop_recording();
                else start_recording(reports_folder_, record_seconds_);
            } catch (const std::exception& e) {
                report_error(e.what());
            }
        }
        if (recorder_.active())
            ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "REC %.1f s -> %s", recorder_.elapsed_s(),
                               recorder_.csv_path().string().c_str());
    }
    ImGui::PopItemWidth();
}

void Viewer::draw_colour_bar_labels(render::Rect viewport, float framebuffer_height, float scale) {
    const render::FieldSource src = source();
    const bool bar = view_.colour_bar && (!render::Renderer::draws_3d(src, view_) || view_.tint_water);
    if (!bar) return;
    const auto layout = render::Renderer::layout_2d(src, view_, viewport);
    if (layout.bar.empty()) return;
    // The range the shaders use (auto or fixed, centred for diverging maps), labelled at round
    // values where they fall on the bar.
    const render::Range shown = render::shown_range(range_, view_);
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    const float x = (layout.bar.x + layout.bar.width + 4) / scale;
    const float font = ImGui::GetFontSize();
    const ImU32 text_colour = IM_COL32(230, 230, 230, 255);
    const int count = std::clamp(static_cast<int>(layout.bar.height / scale / (2.5f * font)), 2, 7);
    const std::vector<Tick> ticks = render::uses_log_scale(view_) ? log_ticks(shown.min, shown.max)
                                                                  : nice_ticks(shown.min, shown.max, count);
    for (const Tick& tick : ticks) {
        const double position = render::colour_position(tick.value, shown, view_);
        const double t = view_.reversed ? 1.0 - position : position;
        const float y = (framebuffer_height - layout.bar.y - float(t) * layout.bar.height) / scale;
        draw->AddLine(ImVec2(x - 4 / scale - 3, y), ImVec2(x - 1, y), text_colour);
        draw->AddText(ImVec2(x + 1, y - font * 0.5f), text_colour, tick.text.c_str());
    }
    const std::string unit = field_label(model_info());
    draw->AddText(ImVec2(layout.bar.x / scale, (framebuffer_height - layout.bar.y - layout.bar.height) / scale -
                                                   2.2f * font),
                  text_colour, unit.c_str());
}

void Viewer::draw_overlay(render::Rect viewport, float framebuffer_height, float scale, bool capture) {
    last_viewport_ = viewport;
    if (viewport.empty()) return;
    const ImVec2 origin(viewport.x / scale, (framebuffer_height - viewport.y - viewport.height) / scale);
    draw_colour_bar_labels(viewport, framebuffer_height, scale);
    if (capture || hide_ui_) return;  // a viewport capture: the picture and its colour bar only
    if (!show_overlay_ && !unstable_) return;
    // A small viewport keeps most of itself for the picture: the overlay drops the phases and
    // the frame-time plot.
    const bool compact = viewport.width / scale < 700 || viewport.height / scale < 420;
    ImGui::SetNextWindowPos(ImVec2(origin.x + 10, origin.y + 10));
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("Overlay", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove);
    if (unstable_) ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), "%s", unstable_message_.c_str());
    if (show_overlay_) {
        const double cells = static_cast<double>(sim_->nx()) * sim_->ny();
        ImGui::Text("%s  %s  %s  %d x %d", sim_->model().c_str(), scenario_.c_str(),
                    sim_->solver().c_str(), sim_->nx(), sim_->ny());
        ImGui::Text("%.1f FPS   %.3f ms/frame   %s", fps_, frame_ms_,
                    !tab_shown_ ? "(paused while another tab is open)"
                                : playing_ ? "" : "(paused)");
        if (!compact)
            ImGui::Text("%ssteps/s   %scell updates/s", format_rate(steps_per_s_).c_str(),
                        format_rate(steps_per_s_ * cells).c_str());
        if (compact) {
            // Two lines: the rest would cover the picture and the colour bar.
        } else if (gpu_timers_) {
            ImGui::Text("GPU ms: simulation %.3f (%d step%s), draw %.3f, UI %.3f",
                        sim_gpu_ms_.value_or(0), steps_this_frame_, steps_this_frame_ == 1 ? "" : "s",
                        render_gpu_ms_.value_or(0), ui_gpu_ms_.value_or(0));
            if (!compact) ImGui::Checkbox("GPU time per phase", &profile_phases_);
            if (profile_phases_ && !compact) {
                ImGui::SameLine();
                ImGui::Checkbox("details", &phase_details_);
                draw_phases();
            }
        } else {
            ImGui::Text("CPU issue: simulation %.3f ms, render %.3f ms (no GPU timer here)",
                        sim_cpu_ms_, render_cpu_ms_);
        }
        std::vector<float> plot(frame_times_ms_.begin(), frame_times_ms_.end());
        if (compact) plot.clear();
        float top = 0;
        for (float v : plot) top = std::max(top, v);
        char label[48];
        std::snprintf(label, sizeof label, "frame ms (max %.2f)", top);
        if (!plot.empty()) ImGui::PlotLines("##frames", plot.data(), static_cast<int>(plot.size()), 0, label, 0.0f,
                         top * 1.1f + 1e-3f, ImVec2(260 * ImGui::GetIO().FontGlobalScale, 50 * ImGui::GetIO().FontGlobalScale));
        const gl::DeviceInfo& device = gl::Context::current().info();
        if (device.total_memory_mib > 0 && device.available_memory_mib * 10 < device.total_memory_mib)
            ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "GPU memory low: %lld of %lld MiB free",
                               static_cast<long long>(device.available_memory_mib),
                               static_cast<long long>(device.total_memory_mib));
        if (recorder_.active())
            ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "REC %.1f s", recorder_.elapsed_s());
    }
    if (probe_cell_ && probe_value_) {
        const double dh = double(source().dh);
        ImGui::Text("probe (%d, %d) at x = %.4g m, y = %.4g m: %s = %.5g %s", probe_cell_->x, probe_cell_->y,
                    (probe_cell_->x + 0.5) * dh, (probe_cell_->y + 0.5) * dh,
                    model_info().field_name.c_str(), *probe_value_,
                    model_info().field_unit == model_info().field_name ? "" : model_info().field_unit.c_str());
    }
    if (playing_ && step_cap_ < steps_per_frame_ && capped_frame_ms_ > kFrameBudget_ms)
        ImGui::TextColored(ImVec4(1, 0.75f, 0.3f, 1), "%d of %d steps a frame (frames over %.0f ms)",
                           step_cap_, steps_per_frame_, kFrameBudget_ms);
    ImGui::End();
}

void Viewer::draw_phases() {
    // Named phases: what a reader of an ADI paper looks for. The shader-level list (program and
    // #defines, clipped to the window) is behind "details".
    const std::vector<PhaseTime> phases = phase_details_ ? shader_phases(phases_) : named_phases(phases_);
    if (phases.empty()) {
        ImGui::TextDisabled("  (no simulation steps timed yet)");
        return;
    }
    for (const PhaseTime& phase : phases)
        ImGui::Text("  %-*s %9.3f ms  (%d dispatch%s)", phase_details_ ? 40 : 12,
                    phase.name.c_str(), phase.ms, phase.dispatches, phase.dispatches == 1 ? "" : "es");
    ImGui::Text("  %-*s %9.3f ms", phase_details_ ? 40 : 12, "draw", render_gpu_ms_.value_or(0));
    ImGui::Text("  %-*s %9.3f ms", phase_details_ ? 40 : 12, "UI", ui_gpu_ms_.value_or(0));
}

void Viewer::draw_help_window() {
    if (!show_help_ || hide_ui_) return;
    // Sized to its text: a fixed width cut lines off ("wheel zooms about the cur").
    ImGui::Begin("Help", &show_help_, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings);
    ImGui::TextUnformatted(
        "Space   play / pause\n"
        "S       one step (pauses); every press counts\n"
        "R       reset the scenario (and fit the 3-D camera)\n"
        "C       fit the 3-D camera to the domain\n"
        "Tab     hide / show the panel and overlay\n"
        "F9      start / stop an FPS recording\n"
        "F11     fullscreen\n"
        "F12     screenshot (whole window or viewport, see Files)\n"
        "H       this help\n\n"
        "2-D: drag paints with the brush, the wheel zooms about the cursor,\n"
        "     right-drag pans. The value under the cursor is shown in the overlay.\n"
        "3-D water: drag orbits, the wheel zooms, Shift+drag drops or pushes water.\n\n"
        "Settings and the layout are saved on exit in\n"
        "$XDG_CONFIG_HOME/adilab (default ~/.config/adilab).");
    ImGui::End();
}

}  // namespace adilab::gui
