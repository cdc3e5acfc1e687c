// The Simulation tab and the status line: see viewer_panel.hpp. The tab reads the viewer afresh
// after every action, since choosing a model or loading a state replaces the simulation.
#include "app/gui/viewer_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "app/gui/viewer.hpp"

namespace adilab::gui {

namespace {

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

std::string format_value(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

// Preset, model, scenario, terrain and solver.
void draw_scene_choices(Viewer& viewer) {
    if (!viewer.presets().empty()) {
        std::vector<std::string> names;
        for (const Preset& p : viewer.presets())
            names.push_back(p.user ? p.name + " (yours)" : p.name);
        const int index = viewer.preset_index();
        std::string current = index >= 0 ? names[static_cast<std::size_t>(index)] : "(none)";
        if (combo("Preset", names, current))
            viewer.choose_preset(
                static_cast<int>(std::find(names.begin(), names.end(), current) - names.begin()));
        help_marker(
            "Scenario presets from assets/presets/*.preset and yours (Save as preset, "
            "Ctrl+S), in " +
            user_presets_folder().string());
    }
    std::vector<std::string> models;
    for (const sim::ModelInfo& m : sim::models()) models.push_back(m.name);
    std::string model = viewer.simulation().model();
    if (combo("Model", models, model)) viewer.choose_model(model);
    std::string scenario = viewer.scenario();
    if (combo("Scenario", viewer.simulation().scenarios(), scenario))
        viewer.choose_scenario(scenario);
    if (!viewer.simulation().terrains().empty()) {
        std::string terrain = viewer.simulation().terrain_name();
        if (combo("Terrain", viewer.simulation().terrains(), terrain))
            viewer.choose_terrain(terrain);
    }
    std::string solver = viewer.simulation().solver();
    std::vector<std::string> solvers;
    for (const std::string& name : sim::solver_names())
        if (sim::solver_supports(viewer.simulation().model(), name)) solvers.push_back(name);
    if (combo("Solver", solvers, solver)) viewer.choose_solver(solver);
    help_marker(
        "fused: explicit half step fused into a shared-memory line solve; the others use "
        "the tridiagonal solver registry (cyclic reduction variants, ...)");
}

// Grid: a combo of the sizes this device can hold (a slider over a table index let a typed
// number read past the table). A size from the command line or a loaded state that is not a
// power of two is listed too.
void draw_grid_choice(Viewer& viewer) {
    const int grid = viewer.grid();
    const GridLimits limits = grid_limits();
    std::vector<int> sizes;
    for (int n = 16; n <= limits.max; n *= 2) sizes.push_back(n);
    if (std::find(sizes.begin(), sizes.end(), grid) == sizes.end()) {
        sizes.push_back(grid);
        std::sort(sizes.begin(), sizes.end());
    }
    char grid_label[32];
    std::snprintf(grid_label, sizeof grid_label, "%d x %d", grid, grid);
    if (ImGui::BeginCombo("Grid", grid_label)) {
        for (int n : sizes) {
            char item[32];
            std::snprintf(item, sizeof item, "%d x %d", n, n);
            if (ImGui::Selectable(item, n == viewer.grid()) && n != viewer.grid())
                viewer.choose_grid(n);
        }
        ImGui::EndCombo();
    }
}

// "Run until t = ...": a time to stop at, and the run towards it while it lasts.
void draw_run_until(Viewer& viewer) {
    double& target = viewer.interface_settings().run_until_field;
    if (const auto& running = viewer.run_until_target()) {
        ImGui::TextColored(ImVec4(0.6f, 0.9f, 1, 1), "running until t = %.6g s", *running);
        ImGui::SameLine();
        if (ImGui::SmallButton("cancel")) viewer.cancel_run_until();
        return;
    }
    if (ImGui::Button("Run until t =")) viewer.run_until(target);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    ImGui::InputDouble("s##run-until", &target, 0, 0, "%.6g");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("plays, then pauses on the step that reaches this simulated time");
}

// Steps per frame (and the cap on them), play / step / reset, the time and the field's range.
void draw_playback(Viewer& viewer, const sim::ModelInfo& info) {
    // Typed values are clamped to the command line's 1 .. 1000.
    int steps = viewer.steps_per_frame();
    if (ImGui::SliderInt("Steps / frame", &steps, 1, kMaxStepsPerFrame, "%d",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        viewer.set_steps_per_frame(steps);
    const StepBudget& budget = viewer.step_budget();
    if (viewer.playing() && budget.limits(viewer.steps_per_frame()))
        ImGui::TextColored(ImVec4(1, 0.75f, 0.3f, 1),
                           "taking %d of %d steps a frame: frames took up to %.0f ms of the "
                           "%.0f ms a frame may take",
                           budget.cap(), viewer.steps_per_frame(), budget.capped_frame_ms(),
                           kFrameBudget_ms);

    if (ImGui::Button(viewer.playing() ? "Pause (Space)" : "Play (Space)")) viewer.toggle_playing();
    ImGui::SameLine();
    if (ImGui::Button("Step (S)")) viewer.step_once();
    ImGui::SameLine();
    if (ImGui::Button("Reset (R)")) viewer.reset_view_and_field();
    // The time and step are the simulation's own (kept on the host): live, no read-back.
    const sim::Simulation& sim = viewer.simulation();
    ImGui::Text("t = %.4g s, step %lld, %.3g simulated s per s", sim.time(),
                static_cast<long long>(sim.steps_taken()), viewer.figures().sim_seconds_per_s);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "speed: simulated seconds per second of the wall clock, over the last "
            "half second");
    draw_run_until(viewer);
    const sim::Stats& stats = viewer.stats();
    ImGui::Text("%s range [%.4g, %.4g] %s, sum %.6g", info.field_name.c_str(), stats.min, stats.max,
                info.field_unit.c_str(), stats.sum);
}

// One parameter: a combo of a scheme's names, or a drag over its range.
void draw_parameter(Viewer& viewer, const sim::ParamSpec& p) {
    double value = viewer.simulation().param(p.name);
    if (!p.choices.empty()) {
        int index = static_cast<int>(value);
        std::vector<const char*> names;
        for (const std::string& c : p.choices) names.push_back(c.c_str());
        if (ImGui::Combo(p.name.c_str(), &index, names.data(), static_cast<int>(names.size())))
            viewer.set_param(p.name, index);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.help.c_str());
        return;
    }
    const std::string label =
        p.name + (p.unit == "1" || p.unit.empty() ? std::string() : " (" + p.unit + ")");
    // Drags rather than sliders: the valid ranges span many decades (1e-9 .. 1e9), so the speed
    // follows the value (0.5 % of it per pixel); Ctrl+click types a number. Dragging stays
    // inside the range; a typed value outside it is not clamped but refused by the model, whose
    // message (the range, the reason) goes to the status line.
    const double speed = std::max(std::abs(value), 1e-6 * std::min(p.max - p.min, 1e6)) * 0.005;
    if (ImGui::DragScalar(label.c_str(), ImGuiDataType_Double, &value, static_cast<float>(speed),
                          &p.min, &p.max, "%.5g"))
        viewer.set_param(p.name, value);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\nrange %.4g .. %.4g %s, default %.4g (Ctrl+click to type)",
                          p.help.c_str(), p.min, p.max, p.unit.c_str(), p.default_value);
}

// The "Save as preset" name field (Ctrl+S or the button): a modal popup, Enter saves.
void draw_save_preset_popup(Viewer& viewer) {
    char* name = viewer.interface_settings().preset_name_field;
    if (viewer.take_preset_name_request()) ImGui::OpenPopup("Save as preset");
    if (!ImGui::BeginPopupModal("Save as preset", nullptr, ImGuiWindowFlags_AlwaysAutoResize))
        return;
    ImGui::TextUnformatted(
        "The current model, scenario, grid, view and parameters,\nsaved in your "
        "presets folder and listed under Preset.");
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool entered =
        ImGui::InputText("Name", name, sizeof viewer.interface_settings().preset_name_field,
                         ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
    const std::string problem = preset_name_problem(name);
    if (!problem.empty() && name[0] != '\0')
        ImGui::TextColored(ImVec4(1, 0.55f, 0.35f, 1), "%s", problem.c_str());
    ImGui::BeginDisabled(!problem.empty());
    const bool save = ImGui::Button("Save (Enter)") || (entered && problem.empty());
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Cancel (Esc)") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
        ImGui::CloseCurrentPopup();
    if (save) {
        viewer.save_as_preset(name);
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

void draw_parameters(Viewer& viewer) {
    draw_save_preset_popup(viewer);
    if (!ImGui::CollapsingHeader("Parameters", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (ImGui::Button("Reset parameters")) viewer.reset_parameters();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("every parameter of the model to its default");
    ImGui::SameLine();
    if (ImGui::Button("Save as preset (Ctrl+S)")) viewer.request_preset_name();
    // Setting a parameter keeps the simulation; only the panel's actions above replace it.
    const sim::Simulation& sim = viewer.simulation();
    bool& show_all = viewer.interface_settings().show_all_params;
    // Room for the longest label ("initial_temperature (K)"), up to 60 % of the panel.
    float longest = 0;
    for (const sim::ParamSpec& p : sim.params())
        longest = std::max(longest, ImGui::CalcTextSize((p.name + " (" + p.unit + ")").c_str()).x);
    ImGui::PushItemWidth(-std::min(longest + ImGui::GetStyle().ItemInnerSpacing.x * 2,
                                   0.6f * ImGui::GetContentRegionAvail().x));
    // The scenario's own parameters; those of other scenarios behind "all parameters".
    bool hidden = false;
    for (const sim::ParamSpec& p : sim.params()) {
        const auto& scenarios = p.scenarios;
        const bool relevant = scenarios.empty() || std::find(scenarios.begin(), scenarios.end(),
                                                             viewer.scenario()) != scenarios.end();
        hidden = hidden || !relevant;
        if (!relevant && !show_all) continue;
        draw_parameter(viewer, p);
    }
    if (hidden || show_all) ImGui::Checkbox("all parameters", &show_all);
    ImGui::PopItemWidth();
}

void draw_brush_settings(Viewer& viewer, const sim::ModelInfo& info) {
    if (!ImGui::CollapsingHeader("Brush", ImGuiTreeNodeFlags_DefaultOpen)) return;
    BrushSettings& brush = viewer.brush();
    const bool water = viewer.simulation().model() == "shallow-water";
    ImGui::TextWrapped("%s", water ? "Shift+drag on the water: drop (raise) or push (lower) it."
                                   : "Drag in the viewport to paint.");
    ImGui::SliderFloat("Radius (cells)", &brush.radius, 1, 128, "%.1f",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    const std::string strength = "Strength (" + info.field_unit + ")";
    ImGui::SliderFloat(strength.c_str(), &brush.strength, 0.001f, 100, "%.3g",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    ImGui::Checkbox(water ? "Push down instead of drop" : "Remove instead of add", &brush.subtract);
}

// The colour map and its range.
void draw_colour_settings(Viewer& viewer) {
    render::RenderSettings& view = viewer.view();
    int map = static_cast<int>(view.colormap);
    ImGui::Combo("Colormap", &map, render::kColormapNames.data(),
                 static_cast<int>(render::kColormapNames.size()));
    view.colormap = static_cast<render::Colormap>(map);
    if (view.colormap == render::Colormap::diverging)
        help_marker("Centred on " +
                    std::string(viewer.simulation().model() == "shallow-water"
                                    ? "the still water level"
                                    : "the initial value") +
                    " (" + format_value(view.reference) + ")");
    ImGui::SameLine();
    ImGui::Checkbox("reversed", &view.reversed);
    if (view.colormap != render::Colormap::diverging) {
        ImGui::SameLine();
        ImGui::Checkbox("log", &view.log_scale);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "colours by log10 of the value: the top of the range and up to "
                "4 decades below it");
    }
    ImGui::Checkbox("Auto range", &view.auto_range);
    if (!view.auto_range) {
        ImGui::DragFloatRange2("Range", &view.range_min, &view.range_max,
                               0.01f * std::max(1e-3f, std::abs(view.range_max - view.range_min)));
    } else if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("min/max reduced on the GPU every frame");
    }
    ImGui::SameLine();
    if (ImGui::Button("Fix current")) {
        view.auto_range = false;
        view.range_min = viewer.range().min;
        view.range_max = viewer.range().max;
    }
}

// Velocity arrows, the 3-D water and its camera, or the 2-D zoom.
void draw_geometry_settings(Viewer& viewer) {
    render::RenderSettings& view = viewer.view();
    if (viewer.simulation().velocity()) ImGui::Checkbox("Velocity arrows", &view.show_velocity);
    if (viewer.simulation().model() == "shallow-water") {
        ImGui::Checkbox("3-D water", &view.three_d);
        if (view.three_d) {
            ImGui::Checkbox("Tint water by height", &view.tint_water);
            ImGui::SliderFloat("Height scale", &view.height_scale, 1e-3f, 1e3f, "%.3g",
                               ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
            if (ImGui::Button("Fit camera (C)")) viewer.fit_camera();
            ImGui::TextDisabled("Drag: orbit, wheel: zoom, Shift+drag: brush");
        }
    }
    if (!render::Renderer::draws_3d(viewer.source(), view)) {
        ImGui::SliderFloat("Zoom", &view.zoom, 0.2f, 64, "%.2f",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        ImGui::SameLine();
        if (ImGui::Button("Fit")) {
            view.zoom = 1;
            view.pan = {0, 0};
        }
        ImGui::TextDisabled("Wheel: zoom, right-drag: pan");
    }
}

void draw_interface_settings(Viewer& viewer) {
    InterfaceSettings& ui = viewer.interface_settings();
    ImGui::Checkbox("VSync", &ui.vsync);
    ImGui::SameLine();
    ImGui::Checkbox("Overlay", &ui.show_overlay);
    ImGui::SameLine();
    if (ImGui::Button("Help (H)")) ui.show_help = !ui.show_help;
    ImGui::SliderFloat("Panel width", &ui.panel_width, 250, 900, "%.0f",
                       ImGuiSliderFlags_AlwaysClamp);
    ImGui::SliderFloat("UI scale", &ui.ui_scale, 0.75f, 2.5f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
}

void draw_view_settings(Viewer& viewer) {
    if (!ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) return;
    draw_colour_settings(viewer);
    draw_geometry_settings(viewer);
    draw_interface_settings(viewer);
}

// Videos: where, the size and rate, MP4 or PNG frames, and the F10 button.
void draw_video_settings(Viewer& viewer) {
    FileSettings& files = viewer.files();
    VideoSettings& video = viewer.video_settings();
    const bool recording = viewer.video_recording();
    input_path("Videos", files.videos_folder);
    ImGui::BeginDisabled(recording);  // a recording keeps the size and rate it started with
    int size[2] = {video.width, video.height};
    if (ImGui::InputInt2("Size (px)##video", size)) {
        video.width = size[0];
        video.height = size[1];
        video = clamped(video);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("16 .. 8192, even (H.264 needs even sides)");
    ImGui::SliderInt("Frames / s", &video.fps, 1, kMaxVideoFps, "%d", ImGuiSliderFlags_AlwaysClamp);
    int format = video.format == VideoSettings::Format::mp4 ? 0 : 1;
    const char* formats[] = {"MP4 (ffmpeg)", "PNG frames"};
    if (ImGui::Combo("Format", &format, formats, 2))
        video.format = format == 0 ? VideoSettings::Format::mp4 : VideoSettings::Format::png;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "MP4: frames piped to ffmpeg when it is on PATH, else PNG frames.\n"
            "A frame is taken at most this many times a second; a slower window\n"
            "gives one frame per drawn frame (the video then plays faster).");
    ImGui::EndDisabled();
    if (ImGui::Button(recording ? "Stop video (F10)" : "Record video (F10)")) viewer.toggle_video();
    if (recording)
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "REC video %lld frames -> %s",
                           static_cast<long long>(viewer.video().frames_added()),
                           viewer.video().path().string().c_str());
}

void draw_files(Viewer& viewer) {
    if (!ImGui::CollapsingHeader("Files", ImGuiTreeNodeFlags_DefaultOpen)) return;
    FileSettings& files = viewer.files();
    input_path("State file", files.state_path);
    if (ImGui::Button("Save state")) viewer.save_state();
    ImGui::SameLine();
    if (ImGui::Button("Load state")) viewer.load_state(files.state_path);
    input_path("Field .npy", files.npy_path);
    if (ImGui::Button("Export field (.npy)")) viewer.export_field();
    input_path("Screenshots", files.screenshots_folder);
    if (ImGui::Button("Screenshot (F12)")) viewer.request_screenshot();
    ImGui::SameLine();
    ImGui::Checkbox("viewport only", &files.screenshot_viewport_only);
    // The view alone (field, colour bar, labels) at a size of its own, drawn offscreen.
    char sized[48];
    std::snprintf(sized, sizeof sized, "Screenshot at %d x %d", files.shot_width,
                  files.shot_height);
    if (ImGui::Button(sized)) viewer.request_sized_screenshot();
    int shot[2] = {files.shot_width, files.shot_height};
    if (ImGui::InputInt2("Size (px)##shot", shot)) {
        files.shot_width = std::clamp(shot[0], 16, 8192);
        files.shot_height = std::clamp(shot[1], 16, 8192);
    }
    draw_video_settings(viewer);
    input_path("Reports", files.reports_folder);
    ImGui::SliderFloat("Record for (s)", &files.record_seconds, 0, 120,
                       files.record_seconds == 0 ? "until stopped" : "%.0f s",
                       ImGuiSliderFlags_AlwaysClamp);
    const Recorder& recorder = viewer.recorder();
    if (ImGui::Button(recorder.active() ? "Stop recording (F9)" : "Record FPS (F9)"))
        viewer.toggle_recording();
    if (recorder.active())
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "REC %.1f s -> %s", recorder.elapsed_s(),
                           recorder.csv_path().string().c_str());
}

}  // namespace

void draw_simulation_tab(Viewer& viewer) {
    // The model as the frame began: its summary, field name and unit label the whole tab.
    const sim::ModelInfo& info = viewer.model_info();
    const std::string summary = ascii_dashes(info.summary);
    // Labels keep 11 font heights to the right of every widget ("initial_temperature (K)").
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 11);
    ImGui::TextWrapped("%s", summary.c_str());
    draw_scene_choices(viewer);
    draw_grid_choice(viewer);
    draw_playback(viewer, info);
    draw_parameters(viewer);
    draw_brush_settings(viewer, info);
    draw_view_settings(viewer);
    draw_files(viewer);
    ImGui::PopItemWidth();
}

void draw_status_line(Viewer& viewer) {
    const std::string& message = viewer.message();
    if (message.empty()) {
        ImGui::TextDisabled("%s", "Ready. H: help, Tab: hide the interface.");
        return;
    }
    if (viewer.message_is_error()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.55f, 0.35f, 1));
        ImGui::TextWrapped("%s", message.c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("dismiss")) viewer.dismiss_message();
    } else {
        ImGui::TextWrapped("%s", message.c_str());
    }
}

}  // namespace adilab::gui
