// The viewer's state and actions: construction from the settings and the command line, what is
// saved in the settings, and the choices the panel offers. See viewer.hpp; a frame's stepping and
// drawing are in viewer_frame.cpp, presets in viewer_presets.cpp, files in viewer_files.cpp,
// videos in viewer_video.cpp and the cross-section in viewer_cross_section.cpp.
#include "app/gui/viewer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/cli/args.hpp"
#include "app/gui/view_capture.hpp"
#include "app/render/sim_view.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {

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
        sim_->set_params(preset_params, scenario_, grid_, grid_);
        sim_->set_params_text(start.params, scenario_, grid_, grid_);
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
        sim_->set_params(values, scenario_, grid_, grid_);
    } catch (const std::exception& e) {
        std::vector<std::pair<std::string, double>> defaults;
        for (const sim::ParamSpec& p : sim_->params())
            defaults.emplace_back(p.name, p.default_value);
        sim_->set_params(defaults, scenario_, grid_, grid_);
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
    return sim::model_info(sim_->model());
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
        next->set_params(values, scenario_, grid_, grid_);  // the run that reset() starts
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

}  // namespace adilab::gui
