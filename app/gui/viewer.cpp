// The viewer's state and actions: construction from the settings and the command line, the
// choices the panel offers, and a frame's stepping, drawing and bookkeeping. See viewer.hpp.
#include "app/gui/viewer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/cli/args.hpp"
#include "app/gui/phases.hpp"
#include "app/gui/view_capture.hpp"
#include "app/render/sim_view.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kReadbackInterval_s = 0.25;  // colour-bar labels and stability: 4 per second
constexpr double kStatsInterval_s = 2.0;      // full statistics on grids over 1024^2
constexpr std::size_t kPlotFrames = 240;
// The cross-section's plot follows a drag or a running field at up to 10 reads a second: a
// gather of at most 4096 floats and their read-back, which waits for the GPU's queue.
constexpr double kLineReadInterval_s = 0.1;
constexpr int kMaxLineSamples = 4096;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string comma_list(const std::vector<std::string>& names) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return list;
}

// --scenario without --model: the model that has this scenario (each name belongs to one,
// except `free`, which stays with `current` when that model has it).
std::string model_with_scenario(const std::string& scenario, const std::string& current,
                                const std::string& solver) {
    std::string model = current;
    for (const sim::ModelInfo& info : sim::models()) {
        auto probe = sim::make_simulation(info.name, solver);
        auto names = probe->scenarios();
        if (std::find(names.begin(), names.end(), scenario) != names.end()) {
            if (scenario != "free" || info.name == model) {
                model = info.name;
                break;
            }
            if (model.empty()) model = info.name;
        }
    }
    return model;
}

}  // namespace

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

// ---- Construction: the settings, then a preset, then the command line ------------------------

Viewer::Viewer(const ViewerStart& start, Settings& settings, const std::string& renderer_name,
               const std::string& gl_version)
    : settings_(settings), renderer_name_(renderer_name), gl_version_(gl_version) {
    gpu_timers_ = gl::Context::current().timer_queries_work();
    presets_ = load_presets(user_presets_folder());

    // Settings first, then a preset, then explicit options: the most specific wins.
    read_settings();
    std::string model = settings_.get("model", "heat");
    std::string solver = settings_.get("solver", "fused");
    std::vector<std::pair<std::string, double>> preset_params;
    if (!start.preset.empty()) preset_params = apply_start_preset(start.preset, model, solver);
    if (!start.model.empty()) model = start.model;
    if (!start.scenario.empty()) {
        scenario_ = start.scenario;
        if (start.model.empty() && start.preset.empty())
            model = model_with_scenario(start.scenario, model, solver);
    }
    if (!start.solver.empty()) solver = start.solver;
    apply_start_sizes(start);
    if (!start.colormap.empty()) view_.colormap = render::colormap_from_name(start.colormap);
    if (start.video_width > 0) video_settings_.width = start.video_width;
    if (start.video_height > 0) video_settings_.height = start.video_height;
    if (start.video_fps > 0) video_settings_.fps = start.video_fps;
    if (!start.video_format.empty())
        video_settings_.format =
            start.video_format == "png" ? VideoSettings::Format::png : VideoSettings::Format::mp4;
    video_settings_ = clamped(video_settings_);

    make_start_simulation(start, model, solver);
    apply_start_scenario(start);
    // The last run's parameters and terrain, where they belong to this model and no preset or
    // --terrain says otherwise; --set still overrides single parameters.
    const bool same_model = start.preset.empty() && sim_->model() == settings_.get("model", "");
    if (same_model) apply_saved_parameters();
    apply_start_parameters(start, preset_params);
    if (!start.terrain.empty())
        apply_start_terrain(start.terrain);
    else if (same_model)
        apply_saved_terrain();
    playing_ = !start.paused;
    reset();
    apply_saved_view();
    if (start.run_until >= 0) run_until(start.run_until);
    // Whatever the settings held that no longer fits: defaults were used; the status line says
    // which, once.
    if (const std::vector<std::string> problems = settings_.take_problems(); !problems.empty()) {
        std::string text = "viewer.ini: ignored ";
        for (std::size_t k = 0; k < problems.size(); ++k) text += (k ? "; " : "") + problems[k];
        notify(text + " (defaults used)");
    }
}

Viewer::~Viewer() {
    if (recorder_.active()) {
        try {
            stop_recording();
        } catch (const std::exception&) {
        }
    }
    if (video_.active()) {
        try {
            stop_video();
        } catch (const std::exception&) {
        }
    }
}

void Viewer::read_settings() {
    scenario_ = settings_.get("scenario", "");
    grid_ = settings_.get_int("grid", 512, 4, 8192);
    steps_per_frame_ = settings_.get_int("steps_per_frame", 1, 1, 1000);
    view_.colormap = static_cast<render::Colormap>(
        settings_.get_int("colormap", 0, 0, static_cast<int>(render::kColormapNames.size()) - 1));
    view_.reversed = settings_.get_bool("colormap_reversed", false);
    view_.log_scale = settings_.get_bool("log_scale", false);
    view_.show_velocity = settings_.get_bool("show_velocity", true);
    view_.three_d = settings_.get_bool("three_d", true);
    brush_.radius = settings_.get_float("brush_radius", 8, 1, 256);
    brush_.strength = settings_.get_float("brush_strength", 1, 0.001f, 1000);
    files_.reports_folder = settings_.get("reports_folder", files_.reports_folder);
    files_.screenshots_folder = settings_.get("screenshots_folder", files_.screenshots_folder);
    files_.state_path = settings_.get("state_path", files_.state_path);
    files_.npy_path = settings_.get("npy_path", files_.npy_path);
    files_.record_seconds = settings_.get_float("record_seconds", 0, 0, 3600);
    files_.screenshot_viewport_only = settings_.get_bool("screenshot_viewport_only", false);
    files_.videos_folder = settings_.get("videos_folder", files_.videos_folder);
    files_.line_csv_path = settings_.get("line_csv_path", files_.line_csv_path);
    files_.shot_width = settings_.get_int("shot_width", files_.shot_width, 16, 8192);
    files_.shot_height = settings_.get_int("shot_height", files_.shot_height, 16, 8192);
    video_settings_.width = settings_.get_int("video_width", video_settings_.width, 16, 8192);
    video_settings_.height = settings_.get_int("video_height", video_settings_.height, 16, 8192);
    video_settings_.fps = settings_.get_int("video_fps", video_settings_.fps, 1, 240);
    video_settings_.format = settings_.get("video_format", "mp4") == "png"
                                 ? VideoSettings::Format::png
                                 : VideoSettings::Format::mp4;
    video_settings_ = clamped(video_settings_);
    interface_.show_overlay = settings_.get_bool("show_overlay", true);
    interface_.show_help = settings_.get_bool("show_help", false);
    interface_.vsync = settings_.get_bool("vsync", true);
    interface_.panel_width = settings_.get_float("panel_width", 400, 250, 900);
    interface_.ui_scale = settings_.get_float("ui_scale", 1, 0.75f, 2.5f);
}

void Viewer::save_settings() {
    // The parameters of this model only: another model's would be stale at the next start.
    settings_.erase_prefix("param.");
    for (const sim::ParamSpec& p : sim_->params()) {
        const double value = sim_->param(p.name);
        const auto index = static_cast<std::size_t>(value);
        if (!p.choices.empty() && index < p.choices.size())
            settings_.set("param." + p.name, p.choices[index]);  // a scheme by its name
        else
            settings_.set("param." + p.name, value);
    }
    settings_.set("terrain", sim_->terrain_name());
    const render::OrbitCamera& camera = view_.camera;
    settings_.set("camera_yaw", double(camera.yaw));
    settings_.set("camera_pitch", double(camera.pitch));
    settings_.set("camera_distance", double(camera.distance));
    settings_.set("camera_target_x", double(camera.target.x));
    settings_.set("camera_target_y", double(camera.target.y));
    settings_.set("camera_target_z", double(camera.target.z));
    settings_.set("view_zoom", double(view_.zoom));
    settings_.set("view_pan_x", double(view_.pan.x));
    settings_.set("view_pan_y", double(view_.pan.y));
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
    settings_.set("brush_radius", brush_.radius);
    settings_.set("brush_strength", brush_.strength);
    settings_.set("reports_folder", files_.reports_folder);
    settings_.set("screenshots_folder", files_.screenshots_folder);
    settings_.set("state_path", files_.state_path);
    settings_.set("npy_path", files_.npy_path);
    settings_.set("record_seconds", files_.record_seconds);
    settings_.set("screenshot_viewport_only", files_.screenshot_viewport_only);
    settings_.set("videos_folder", files_.videos_folder);
    settings_.set("line_csv_path", files_.line_csv_path);
    settings_.set("shot_width", files_.shot_width);
    settings_.set("shot_height", files_.shot_height);
    settings_.set("video_width", video_settings_.width);
    settings_.set("video_height", video_settings_.height);
    settings_.set("video_fps", video_settings_.fps);
    settings_.set("video_format", std::string(format_name(video_settings_.format)));
    settings_.set("show_overlay", interface_.show_overlay);
    settings_.set("show_help", interface_.show_help);
    settings_.set("vsync", interface_.vsync);
    settings_.set("panel_width", interface_.panel_width);
    settings_.set("ui_scale", interface_.ui_scale);
}

std::vector<std::pair<std::string, double>> Viewer::apply_start_preset(const std::string& name,
                                                                       std::string& model,
                                                                       std::string& solver) {
    auto it = std::find_if(presets_.begin(), presets_.end(),
                           [&](const Preset& p) { return p.name == name; });
    if (it == presets_.end()) {
        std::string names;
        for (const Preset& p : presets_) names += (names.empty() ? "" : ", ") + p.name;
        throw cli::UsageError("unknown preset '" + name + "' (available: " +
                              (names.empty() ? "none found under assets/presets" : names) + ")");
    }
    if (!it->problem.empty()) throw files::InputError(it->problem);
    preset_index_ = static_cast<int>(it - presets_.begin());
    model = it->model;
    // A preset that names only the model takes the model's first scenario (apply_start_scenario),
    // not the scenario the settings remember from another model.
    scenario_ = it->scenario;
    if (!it->solver.empty()) solver = it->solver;
    if (it->grid > 0) grid_ = it->grid;
    if (it->steps_per_frame > 0) steps_per_frame_ = it->steps_per_frame;
    if (!it->colormap.empty()) view_.colormap = render::colormap_from_name(it->colormap);
    return it->params;
}

void Viewer::apply_start_sizes(const ViewerStart& start) {
    const GridLimits limits = grid_limits();
    if (start.grid > limits.max)
        throw cli::UsageError("--grid " + std::to_string(start.grid) +
                              ": this GPU's storage blocks hold at most " +
                              std::to_string(limits.max) + " x " + std::to_string(limits.max));
    if (start.grid > 0) grid_ = start.grid;
    grid_ = std::clamp(grid_, limits.min, limits.max);
    if (start.steps_per_frame > 0) steps_per_frame_ = start.steps_per_frame;
}

void Viewer::make_start_simulation(const ViewerStart& start, const std::string& model,
                                   const std::string& solver) {
    try {
        make(model, solver);
    } catch (const Error& e) {
        // A model or solver the command line (or its preset) names is a usage error, exit 2 as
        // in headless mode; a stale one from the settings falls back to the default.
        if (!start.model.empty() || !start.solver.empty() || !start.preset.empty())
            throw cli::UsageError(e.what());
        settings_.add_problem("model = " + model + ", solver = " + solver + " (" + e.what() + ")");
        make("heat", "fused");
    }
}

void Viewer::apply_start_scenario(const ViewerStart& start) {
    auto names = sim_->scenarios();
    if (std::find(names.begin(), names.end(), scenario_) != names.end()) return;
    const bool scenario_named = !start.scenario.empty() || !scenario_.empty();
    if (!start.scenario.empty() || (!start.preset.empty() && scenario_named))
        throw cli::UsageError("model '" + sim_->model() + "' has no scenario '" + scenario_ +
                              "' (available: " + comma_list(names) + ")");
    if (!scenario_.empty())
        settings_.add_problem("scenario = " + scenario_ + " (model '" + sim_->model() +
                              "' has no such scenario)");
    scenario_ = names.front();  // none named, or a stale one from the settings
}

void Viewer::apply_start_parameters(
    const ViewerStart& start, const std::vector<std::pair<std::string, double>>& preset_params) {
    try {
        sim_->set_params(preset_params);
        sim_->set_params_text(start.params);
        sim_->check_parameters(scenario_, grid_, grid_);  // fine alone, not with this grid
    } catch (const Error& e) {
        throw cli::UsageError(std::string("--set: ") + e.what());  // unknown name, out of range
    }
}

void Viewer::apply_saved_parameters() {
    std::vector<std::pair<std::string, double>> values;
    for (const std::string& key : settings_.keys_with_prefix("param.")) {
        const std::string name = key.substr(6), text = settings_.get(key, "");
        const auto spec = std::find_if(sim_->params().begin(), sim_->params().end(),
                                       [&](const sim::ParamSpec& p) { return p.name == name; });
        if (spec == sim_->params().end()) {
            settings_.add_problem(key + " = " + text + " (model '" + sim_->model() +
                                  "' has no such parameter)");
            continue;
        }
        try {
            values.emplace_back(name, sim::parse_param_value(*spec, text));
        } catch (const std::exception& e) {
            settings_.add_problem(key + " = " + text + " (" + e.what() + ")");
        }
    }
    // Each value fine alone may still ask more than fp32 solves on this grid together: then
    // none of them, the defaults (set_params changes nothing when it throws).
    try {
        sim_->set_params(values);
        sim_->check_parameters(scenario_, grid_, grid_);
    } catch (const std::exception& e) {
        std::vector<std::pair<std::string, double>> defaults;
        for (const sim::ParamSpec& p : sim_->params())
            defaults.emplace_back(p.name, p.default_value);
        sim_->set_params(defaults);
        settings_.add_problem(std::string("the saved parameters together (") + e.what() + ")");
    }
}

void Viewer::apply_saved_terrain() {
    const std::string terrain = settings_.get("terrain", "");
    if (terrain.empty() || sim_->terrains().empty()) return;
    try {
        sim_->set_terrain(terrain);
    } catch (const std::exception& e) {
        settings_.add_problem("terrain = " + terrain + " (" + e.what() + ")");
    }
}

void Viewer::apply_saved_view() {
    // The camera as the user left it (read with limits as OrbitCamera keeps them), and the first
    // frame does not fit it again; a camera with any value out of range is not restored.
    const std::vector<std::string> before = settings_.take_problems();
    render::OrbitCamera camera;
    camera.yaw = settings_.get_float("camera_yaw", camera.yaw, -1000.0f, 1000.0f);
    camera.pitch = settings_.get_float("camera_pitch", camera.pitch, 0.15f, 1.5f);
    camera.distance = settings_.get_float("camera_distance", camera.distance, 0.2f, 20.0f);
    camera.target.x = settings_.get_float("camera_target_x", 0.0f, -10.0f, 10.0f);
    camera.target.y = settings_.get_float("camera_target_y", 0.0f, -10.0f, 10.0f);
    camera.target.z = settings_.get_float("camera_target_z", 0.0f, -10.0f, 10.0f);
    const bool camera_ok = settings_.take_problems().empty();
    for (const std::string& p : before) settings_.add_problem(p);
    if (!camera_ok) settings_.add_problem("the saved 3-D camera (out of range; fitted instead)");
    if (camera_ok && settings_.has("camera_distance")) {
        view_.camera = camera;
        camera_fit_pending_ = false;
    }
    view_.zoom = settings_.get_float("view_zoom", 1.0f, 0.2f, 64.0f);
    view_.pan.x = settings_.get_float("view_pan_x", 0.0f, -100.0f, 100.0f);
    view_.pan.y = settings_.get_float("view_pan_y", 0.0f, -100.0f, 100.0f);
}

void Viewer::apply_start_terrain(const std::string& terrain) {
    auto terrains = sim_->terrains();
    if (std::find(terrains.begin(), terrains.end(), terrain) == terrains.end()) {
        const std::string list = comma_list(terrains);
        throw cli::UsageError("--terrain: model '" + sim_->model() + "' has no terrain '" +
                              terrain + "' (available: " + (list.empty() ? "none" : list) + ")");
    }
    sim_->set_terrain(terrain);
}

// ---- The simulation and its choices ------------------------------------------------------------

const sim::ModelInfo& Viewer::model_info() const {
    for (const sim::ModelInfo& info : sim::models())
        if (info.name == sim_->model()) return info;
    return sim::models().front();
}

render::FieldSource Viewer::source() const {
    return render::source_of(*sim_);
}

void Viewer::make(const std::string& model, const std::string& solver) {
    auto next = sim::make_simulation(model, solver);
    // Keep the parameters the user set when only the solver changes.
    if (sim_ && sim_->model() == model) {
        std::vector<std::pair<std::string, double>> values;
        for (const sim::ParamSpec& p : sim_->params())
            values.emplace_back(p.name, sim_->param(p.name));
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
    run_until_.reset();
    gl::finish();
    measure_new_field();
    step_budget_.restart();
    set_reference();
    fit_height();
}

void Viewer::measure_new_field() {
    unstable_ = false;
    unstable_message_.clear();
    // After a reset the old range would label the new field, or [0, 0] on the first frame.
    range_ = renderer_.measure(sim_->field(), std::size_t(sim_->nx()) * sim_->ny());
    stats_ = sim_->stats();
    since_readback_s_ = 0;
    since_stats_s_ = 0;
    if (cross_section_) resample_cross_section();  // the grid may have changed
    field_changed_ = true;
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

void Viewer::fit_height() {
    render::fit_height(renderer_, *sim_, view_);
}

void Viewer::reset_view_and_field() {
    try {
        reset();
        fit_view();
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::fit_view() {
    fit_camera();
    view_.zoom = 1;
    view_.pan = glm::vec2(0.0f);
}

void Viewer::fit_camera() {
    camera_fit_pending_ = last_viewport_.empty();  // again once a viewport gives the aspect
    // The whole domain in view: its bounding sphere (the longer side spans 2 world units, the
    // relief about 0.4) inside the narrower of the two fields of view, seen from the default
    // angle. The aspect is the viewport's (the last one drawn).
    const render::FieldSource src = source();
    const glm::vec2 half = render::Renderer::half_extent(src);
    const float aspect =
        last_viewport_.empty() ? 1.5f : float(last_viewport_.width) / float(last_viewport_.height);
    view_.camera = render::OrbitCamera{};
    view_.camera.fit(half, 0.25f, aspect);
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
        if (!p.terrain.empty() && !sim_->terrains().empty()) sim_->set_terrain(p.terrain);
        sim_->set_params(p.params);
        reset();
        fit_view();
        notify("preset " + p.name);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::choose_preset(int index) {
    preset_index_ = index;
    apply_preset(presets_[static_cast<std::size_t>(index)]);
}

void Viewer::choose_model(const std::string& model) {
    try {
        make(model, sim_->solver());
        scenario_ = sim_->scenarios().front();
        reset();
        fit_view();
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::choose_scenario(const std::string& scenario) {
    scenario_ = scenario;
    try {
        reset();
        fit_view();
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::choose_terrain(const std::string& terrain) {
    try {
        sim_->set_terrain(terrain);
        reset();
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::choose_solver(const std::string& solver) {
    try {
        make(sim_->model(), solver);
        reset();
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::choose_grid(int n) {
    grid_ = n;
    try {
        reset();
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::set_steps_per_frame(int steps) {
    steps_per_frame_ = std::clamp(steps, 1, kMaxStepsPerFrame);
}

void Viewer::set_param(const std::string& name, double value) {
    try {
        sim_->set_param(name, value);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::reset_parameters() {
    std::vector<std::pair<std::string, double>> defaults;
    for (const sim::ParamSpec& p : sim_->params()) defaults.emplace_back(p.name, p.default_value);
    try {
        sim_->set_params(defaults);
        set_reference();
        notify(
            "parameters back to their defaults (the scenario's layout changes at the next "
            "reset, R)");
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::save_as_preset(const std::string& name) {
    try {
        for (const Preset& p : presets_)
            if (!p.user && p.name == name)
                throw Error("'" + name + "' is a shipped preset: choose another name");
        Preset preset;
        preset.name = name;
        preset.model = sim_->model();
        preset.scenario = scenario_;
        preset.solver = sim_->solver();
        preset.terrain = sim_->terrain_name();
        preset.grid = grid_;
        preset.steps_per_frame = steps_per_frame_;
        preset.colormap = render::kColormapNames[static_cast<std::size_t>(view_.colormap)];
        for (const sim::ParamSpec& p : sim_->params())
            preset.params.emplace_back(p.name, sim_->param(p.name));
        const std::filesystem::path path = save_preset(user_presets_folder(), preset);
        presets_ = load_presets(user_presets_folder());
        preset_index_ = -1;
        for (std::size_t k = 0; k < presets_.size(); ++k)
            if (presets_[k].user && presets_[k].name == name) preset_index_ = static_cast<int>(k);
        notify("saved preset '" + name + "' to " + path.string());
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::run_until(double t) {
    if (!(t > sim_->time())) {
        char text[96];
        std::snprintf(text, sizeof text,
                      "already at t = %.6g s, past %.6g s: reset (R) to run again", sim_->time(),
                      t);
        report_error(text);
        return;
    }
    run_until_ = t;
    interface_.run_until_field = t;
    playing_ = true;
    char text[64];
    std::snprintf(text, sizeof text, "running until t = %.6g s", t);
    notify(text);
}

void Viewer::step_once() {
    playing_ = false;
    ++step_requests_;
}

void Viewer::paint_at(render::Rect viewport, glm::vec2 gl_pixel) {
    auto cell = render::Renderer::pixel_to_cell(source(), view_, viewport, gl_pixel);
    if (!cell) return;
    sim::Brush brush;
    brush.center_x = cell->x;
    brush.center_y = cell->y;
    brush.radius = brush_.radius;
    brush.strength = brush_.subtract ? -brush_.strength : brush_.strength;
    sim_->apply_brush(brush);
    field_changed_ = true;
}

std::vector<glm::ivec2> cells_along(glm::vec2 from, glm::vec2 to, int nx, int ny) {
    // One sample per cell along the longer side (the line crosses that many columns or rows),
    // each at its point's cell: a plot of the values the cells hold, no interpolation.
    const glm::vec2 d = to - from;
    const int n =
        std::clamp(static_cast<int>(std::ceil(std::max(std::abs(d.x), std::abs(d.y)))) + 1, 2,
                   kMaxLineSamples);
    std::vector<glm::ivec2> cells;
    cells.reserve(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        const glm::vec2 p = from + d * (float(k) / float(n - 1));
        cells.emplace_back(std::clamp(static_cast<int>(std::floor(p.x)), 0, nx - 1),
                           std::clamp(static_cast<int>(std::floor(p.y)), 0, ny - 1));
    }
    return cells;
}

void Viewer::begin_cross_section(glm::vec2 cell) {
    cross_section_ = CrossSection{};
    cross_section_->from = cell;
    cross_section_->to = cell;
    line_dragging_ = true;
    resample_cross_section();
}

void Viewer::move_cross_section_end(glm::vec2 cell) {
    if (!cross_section_ || cell == cross_section_->to) return;
    cross_section_->to = cell;
    resample_cross_section();
}

void Viewer::clear_cross_section() {
    cross_section_.reset();
    line_dragging_ = false;
}

void Viewer::resample_cross_section() {
    CrossSection& line = *cross_section_;
    line.cells = cells_along(line.from, line.to, sim_->nx(), sim_->ny());
    const glm::vec2 span = glm::vec2(line.cells.back() - line.cells.front());
    line.length_m = double(glm::length(span)) * sim_->param("dh");
    line_changed_ = true;
}

void Viewer::read_cross_section(double frame_ms) {
    since_line_read_s_ += frame_ms / 1000.0;
    if (!cross_section_ || !(line_changed_ || field_changed_) ||
        since_line_read_s_ < kLineReadInterval_s)
        return;
    CrossSection& line = *cross_section_;
    std::vector<std::uint32_t> indices;
    indices.reserve(line.cells.size());
    for (const glm::ivec2& c : line.cells)
        indices.push_back(static_cast<std::uint32_t>(c.y) * static_cast<std::uint32_t>(sim_->nx()) +
                          static_cast<std::uint32_t>(c.x));
    line.values = line_sampler_.sample(sim_->field(), indices);
    line_changed_ = field_changed_ = false;
    since_line_read_s_ = 0;
}

std::string Viewer::probe_text() const {
    if (!probe_cell_ || !probe_value_) return {};
    const sim::ModelInfo& info = model_info();
    const double dh = sim_->param("dh");
    char text[256];
    std::snprintf(text, sizeof text, "probe (%d, %d) at x = %.4g m, y = %.4g m: %s = %.7g %s",
                  probe_cell_->x, probe_cell_->y, (probe_cell_->x + 0.5) * dh,
                  (probe_cell_->y + 0.5) * dh, info.field_name.c_str(), *probe_value_,
                  info.field_unit == info.field_name ? "" : info.field_unit.c_str());
    return text;
}

void Viewer::inject_drag(render::Rect viewport, float ax, float ay, float bx, float by) {
    // Ten dabs along the segment, as a mouse drag over a few frames would give.
    for (int k = 0; k <= 10; ++k) {
        const float t = k / 10.0f;
        const float fx = ax + t * (bx - ax), fy = ay + t * (by - ay);
        paint_at(viewport, glm::vec2(viewport.x + fx * viewport.width,
                                     viewport.y + (1.0f - fy) * viewport.height));
    }
}

bool Viewer::vsync_changed() {
    if (applied_vsync_ == interface_.vsync) return false;
    applied_vsync_ = interface_.vsync;
    return true;
}

void Viewer::notify(std::string text) {
    message_ = std::move(text);
    message_is_error_ = false;
}

void Viewer::report_error(std::string text) {
    message_ = std::move(text);
    message_is_error_ = true;
}

// ---- A frame -----------------------------------------------------------------------------------

void Viewer::advance(std::int64_t frame) {
    figures_.steps = 0;
    if (unstable_) playing_ = false;
    int steps = 0;
    if (tab_shown_ && playing_) {
        steps = std::min(steps_per_frame_, step_budget_.cap());
        if (run_until_) {
            // The steps left to the target, so that the run stops on the step that reaches it.
            const double left = (*run_until_ - sim_->time()) / sim_->param("dt");
            steps =
                static_cast<int>(std::min<double>(steps, std::max(0.0, std::ceil(left - 1e-9))));
        }
    } else if (tab_shown_ && step_requests_ > 0) {
        steps = std::min(step_requests_, step_budget_.cap());
        step_requests_ -= steps;
    }
    const auto start = Clock::now();
    const bool profile = profiling();
    if (steps > 0) {
        if (profile) phase_profiler_.begin(frame);
        sim_timer_.begin(frame);
        sim_->step(steps);
        sim_timer_.end();
        if (profile) phase_profiler_.end();
        figures_.steps = steps;
        field_changed_ = true;
    } else if (profile) {
        partial_frame(frame).phases_known = true;  // no steps: no phases to wait for
    }
    figures_.sim_cpu_ms = ms_since(start);
    figures_.sim_seconds = steps * sim_->param("dt");
    if (run_until_ && sim_->time() >= *run_until_ - 1e-6 * sim_->param("dt")) {
        playing_ = false;
        char text[96];
        std::snprintf(text, sizeof text, "reached t = %.6g s at step %lld: paused", sim_->time(),
                      static_cast<long long>(sim_->steps_taken()));
        notify(text);
        run_until_.reset();
    }
}

bool Viewer::profiling() const {
    return interface_.profile_phases && interface_.show_overlay;
}

void Viewer::begin_ui_timing(std::int64_t frame) {
    ui_start_ = Clock::now();
    ui_timer_.begin(frame);
}

void Viewer::end_ui_timing() {
    ui_timer_.end();
    figures_.ui_cpu_ms = ms_since(ui_start_);
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
    figures_.render_cpu_ms = ms_since(start);
}

void Viewer::end_frame(double frame_ms, std::int64_t frame) {
    // The simulation's share: the frame less the drawing and the UI where the GPU timed them
    // (a slow 3-D view alone must not throttle a cheap simulation).
    const double simulation_ms =
        gpu_timers_ && figures_.render_gpu_ms
            ? std::max(0.0, frame_ms - *figures_.render_gpu_ms - figures_.ui_gpu_ms.value_or(0.0))
            : frame_ms;
    step_budget_.adapt(simulation_ms, figures_.steps, steps_per_frame_);
    count_frame_rate(frame_ms);
    if (recorder_.active()) record_frame(frame_ms, frame);
    if (video_.active()) video_elapsed_s_ += frame_ms / 1000.0;
    if (profiling()) {
        PartialFrame& part = partial_frame(frame);
        part.frame_ms = frame_ms;
        if (!gpu_timers_) {
            part.draw_ms = figures_.render_cpu_ms;
            part.ui_ms = figures_.ui_cpu_ms;
        }
    }
    poll_timers();
    since_readback_s_ += frame_ms / 1000.0;
    since_stats_s_ += frame_ms / 1000.0;
    if (since_readback_s_ >= kReadbackInterval_s) {
        since_readback_s_ = 0;
        check_stability();
    }
    read_cross_section(frame_ms);
}

void Viewer::count_frame_rate(double frame_ms) {
    figures_.history_ms.push_back(static_cast<float>(frame_ms));
    while (figures_.history_ms.size() > kPlotFrames) figures_.history_ms.pop_front();
    rate_window_s_ += frame_ms / 1000.0;
    ++rate_window_frames_;
    rate_window_steps_ += figures_.steps;
    rate_window_sim_s_ += figures_.sim_seconds;
    if (rate_window_s_ >= 0.5) {
        figures_.fps = rate_window_frames_ / rate_window_s_;
        figures_.frame_ms = 1000.0 * rate_window_s_ / rate_window_frames_;
        figures_.steps_per_s = rate_window_steps_ / rate_window_s_;
        figures_.sim_seconds_per_s = rate_window_sim_s_ / rate_window_s_;
        rate_window_s_ = 0;
        rate_window_frames_ = 0;
        rate_window_steps_ = 0;
        rate_window_sim_s_ = 0;
    }
}

void Viewer::record_frame(double frame_ms, std::int64_t frame) {
    FrameSample sample;
    sample.frame = recorder_.next_frame();
    // Timer results are tagged with the GUI's frame numbers; rows count from 1.
    if (sample.frame == 1) record_offset_ = frame - 1;
    sample.t_s = recorder_.elapsed_s() + frame_ms / 1000.0;
    sample.frame_ms = frame_ms;
    sample.sim_ms = figures_.sim_cpu_ms;  // replaced by the GPU time when it arrives
    sample.render_ms = figures_.render_cpu_ms;
    sample.steps = figures_.steps;
    recorder_.add(sample);
    if (recorder_.time_is_up()) stop_recording();
}

void Viewer::poll_timers() {
    // Frame numbers of the timers are recording frame numbers while recording.
    for (const auto& s : sim_timer_.collect()) {
        figures_.sim_gpu_ms = s.ms;
        if (gpu_timers_) recorder_.set_sim_ms(s.frame - record_offset_, s.ms);
        if (timing_log_ != nullptr) timing_log_->sim_ms.push_back(s.ms);
    }
    const bool profile = profiling();
    for (const auto& s : render_timer_.collect()) {
        figures_.render_gpu_ms = s.ms;
        if (profile && gpu_timers_) partial_frame(s.frame).draw_ms = s.ms;
        if (gpu_timers_) recorder_.set_render_ms(s.frame - record_offset_, s.ms);
        if (timing_log_ != nullptr) timing_log_->render_ms.push_back(s.ms);
    }
    for (const auto& s : ui_timer_.collect()) {
        figures_.ui_gpu_ms = s.ms;  // not recorded: UI only
        if (profile && gpu_timers_) partial_frame(s.frame).ui_ms = s.ms;
        if (timing_log_ != nullptr) timing_log_->ui_ms.push_back(s.ms);
    }
    // A frame with a wrapped or negative time is dropped whole; the last good one stays.
    if (auto phases = phase_profiler_.collect(); !phases.empty() && phases_valid(phases)) {
        PartialFrame& part = partial_frame(phase_profiler_.last_frame());
        part.phases = std::move(phases);
        part.phases_known = true;
    }
    complete_breakdowns();
}

Viewer::PartialFrame& Viewer::partial_frame(std::int64_t frame) {
    for (PartialFrame& part : partial_frames_)
        if (part.frame == frame) return part;
    // The timers deliver within a few frames (their rings hold 4 to 6); older parts never will.
    constexpr std::size_t kFramesKept = 16;
    while (partial_frames_.size() >= kFramesKept) partial_frames_.pop_front();
    partial_frames_.push_back(PartialFrame{});
    partial_frames_.back().frame = frame;
    return partial_frames_.back();
}

void Viewer::complete_breakdowns() {
    // The newest frame whose every part has arrived becomes the overlay's; it and all older ones
    // leave the list.
    for (auto it = partial_frames_.rbegin(); it != partial_frames_.rend(); ++it) {
        if (!it->phases_known || !it->draw_ms || !it->ui_ms || !it->frame_ms) continue;
        FrameBreakdown& b = figures_.breakdown;
        b.frame = it->frame;
        b.gpu_phases = phase_profiler_.source() == gl::DispatchProfiler::Source::gpu_timestamps;
        b.gpu_draw = gpu_timers_;
        b.phases = std::move(it->phases);
        b.draw_ms = *it->draw_ms;
        b.ui_ms = *it->ui_ms;
        b.frame_ms = *it->frame_ms;
        partial_frames_.erase(partial_frames_.begin(), it.base());
        return;
    }
}

void Viewer::check_stability() {
    // The stability flag and the GPU's min/max are a few bytes; the full statistics (sum) read
    // the whole field back, so on large grids they are refreshed only every few seconds.
    const std::int64_t bad_step = sim_->first_bad_step();
    range_ = renderer_.read_range();
    // The value under the cursor: one float, read with the range (4 times a second), never per
    // frame.
    if (probe_cell_ && probe_cell_->x < sim_->nx() && probe_cell_->y < sim_->ny())
        probe_value_ =
            sim_->field().read<float>(1, std::size_t(probe_cell_->y) * std::size_t(sim_->nx()) +
                                             std::size_t(probe_cell_->x))[0];
    const bool large = std::int64_t(sim_->nx()) * sim_->ny() > (1 << 20);
    if (!large || since_stats_s_ >= kStatsInterval_s || bad_step >= 0) {
        stats_ = sim_->stats();
        since_stats_s_ = 0;
    }
    if (!unstable_ && (bad_step >= 0 || range_.nonfinite > 0)) {
        unstable_ = true;
        playing_ = false;
        unstable_message_ =
            "instability: " +
            (bad_step >= 0 ? sim_->instability() : std::string("the field has NaN/Inf")) +
            ". Paused; change the parameters and reset (R).";
    }
}

}  // namespace adilab::gui
