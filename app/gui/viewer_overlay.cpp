// The colour bar's labels, the overlay and the help window: see viewer_overlay.hpp.
#include "app/gui/viewer_overlay.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/phases.hpp"
#include "app/gui/ticks.hpp"
#include "app/gui/viewer.hpp"
#include "app/render/sim_view.hpp"
#include "solvers/gl/context.hpp"

namespace adilab::gui {

namespace {

// "T (K)", "h (m)"; a unit that only repeats the name is left out ("C", not "C (C)").
std::string field_label(const sim::ModelInfo& info) {
    if (info.field_unit.empty() || info.field_unit == info.field_name) return info.field_name;
    return info.field_name + " (" + info.field_unit + ")";
}

std::string format_rate(double per_s) {
    char buf[64];
    if (per_s >= 1e9)
        std::snprintf(buf, sizeof buf, "%.2f G", per_s / 1e9);
    else if (per_s >= 1e6)
        std::snprintf(buf, sizeof buf, "%.2f M", per_s / 1e6);
    else if (per_s >= 1e3)
        std::snprintf(buf, sizeof buf, "%.2f k", per_s / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.1f ", per_s);
    return buf;
}

}  // namespace

void draw_colour_bar_labels(ImDrawList& draw, const Viewer& viewer, render::Rect viewport,
                            float framebuffer_height, float scale) {
    const render::FieldSource src = viewer.source();
    const render::RenderSettings& view = viewer.view();
    const bool bar = view.colour_bar && (!render::Renderer::draws_3d(src, view) || view.tint_water);
    if (!bar) return;
    const auto layout = render::Renderer::layout_2d(src, view, viewport);
    if (layout.bar.empty()) return;
    // The range the shaders use (auto or fixed, centred for diverging maps), labelled at round
    // values where they fall on the bar.
    const render::Range shown = render::shown_range(viewer.range(), view);
    const float x = (layout.bar.x + layout.bar.width + 4) / scale;
    const float font = ImGui::GetFontSize();
    const ImU32 text_colour = IM_COL32(230, 230, 230, 255);
    const int count = std::clamp(static_cast<int>(layout.bar.height / scale / (2.5f * font)), 2, 7);
    const std::vector<Tick> ticks = render::uses_log_scale(view)
                                        ? log_ticks(shown.min, shown.max)
                                        : nice_ticks(shown.min, shown.max, count);
    for (const Tick& tick : ticks) {
        const double position = render::colour_position(tick.value, shown, view);
        const double t = view.reversed ? 1.0 - position : position;
        const float y = (framebuffer_height - layout.bar.y - float(t) * layout.bar.height) / scale;
        draw.AddLine(ImVec2(x - 4 / scale - 3, y), ImVec2(x - 1, y), text_colour);
        draw.AddText(ImVec2(x + 1, y - font * 0.5f), text_colour, tick.text.c_str());
    }
    // The unit above the bar, kept inside the picture where the bar starts near its top (a
    // short capture: the bar's margin is a twelfth of the height).
    const std::string unit = field_label(viewer.model_info());
    const float unit_y =
        std::max((framebuffer_height - layout.bar.y - layout.bar.height) / scale - 2.2f * font,
                 (framebuffer_height - viewport.y - viewport.height) / scale + 1);
    draw.AddText(ImVec2(layout.bar.x / scale, unit_y), text_colour, unit.c_str());
}

namespace {

// One frame's parts, in lines that add up to it: the step's phases named for a reader of an ADI
// paper (the shader-level list, program and #defines, behind "details"), the drawing, the UI and
// the rest of the frame (the CPU's own work, waits for the GPU or vsync).
void draw_phases(const Viewer& viewer) {
    const FrameBreakdown& b = viewer.figures().breakdown;
    if (b.frame == 0) {
        ImGui::TextDisabled("  (no frame timed yet)");
        return;
    }
    const bool details = viewer.interface_settings().phase_details;
    const std::vector<PhaseTime> phases =
        details ? shader_phases(b.phases) : named_phases(b.phases);
    const int width = details ? 40 : 12;
    for (const PhaseTime& phase : phases)
        ImGui::Text("  %-*s %9.3f ms  (%d dispatch%s)", width, phase.name.c_str(), phase.ms,
                    phase.dispatches, phase.dispatches == 1 ? "" : "es");
    if (phases.empty()) ImGui::Text("  %-*s %9.3f ms", width, "(no steps)", 0.0);
    ImGui::Text("  %-*s %9.3f ms", width, "draw", b.draw_ms);
    ImGui::Text("  %-*s %9.3f ms", width, "UI", b.ui_ms);
    if (b.other_ms() >= 0)
        ImGui::Text("  %-*s %9.3f ms  (CPU, waits, vsync)", width, "other", b.other_ms());
    else
        ImGui::Text("  %-*s %9.3f ms  (the GPU ran past the frame)", width, "overlap",
                    -b.other_ms());
    ImGui::Text("  %-*s %9.3f ms  (frame %lld)", width, "frame", b.frame_ms,
                static_cast<long long>(b.frame));
}

// The GPU's times of the frame (the CPU's time where the driver's timers do not time compute
// work) and, when asked, the frame's parts.
void draw_frame_times(Viewer& viewer) {
    const FrameFigures& figures = viewer.figures();
    if (viewer.gpu_timers())
        ImGui::Text("GPU ms: simulation %.3f (%d step%s), draw %.3f, UI %.3f",
                    figures.sim_gpu_ms.value_or(0), figures.steps, figures.steps == 1 ? "" : "s",
                    figures.render_gpu_ms.value_or(0), figures.ui_gpu_ms.value_or(0));
    else
        ImGui::Text("CPU ms: simulation %.3f, draw %.3f, UI %.3f (no GPU timer for compute here)",
                    figures.sim_cpu_ms, figures.render_cpu_ms, figures.ui_cpu_ms);
    InterfaceSettings& ui = viewer.interface_settings();
    const FrameBreakdown& b = figures.breakdown;
    ImGui::Checkbox(b.frame == 0 || (b.gpu_phases && b.gpu_draw) ? "GPU time per phase"
                                                                 : "time per phase (CPU clock)",
                    &ui.profile_phases);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "One frame's parts, which add up to it. Where the driver's timer queries "
            "do not time compute work (Mesa's llvmpipe), the CPU's clock around each "
            "part: such drivers run a dispatch inside the call.");
    if (ui.profile_phases) {
        ImGui::SameLine();
        ImGui::Checkbox("details", &ui.phase_details);
        draw_phases(viewer);
    }
}

void draw_frame_plot(const Viewer& viewer) {
    const std::deque<float>& history = viewer.figures().history_ms;
    if (history.empty()) return;
    const std::vector<float> plot(history.begin(), history.end());
    float top = 0;
    for (float v : plot) top = std::max(top, v);
    char label[48];
    std::snprintf(label, sizeof label, "frame ms (max %.2f)", top);
    const float size = ImGui::GetIO().FontGlobalScale;
    ImGui::PlotLines("##frames", plot.data(), static_cast<int>(plot.size()), 0, label, 0.0f,
                     top * 1.1f + 1e-3f, ImVec2(260 * size, 50 * size));
}

// The scene, the rates, the times and the plot (`compact`: the first two lines only, so that a
// small viewport keeps the picture and the colour bar), and what needs the user's eye.
void draw_figures(Viewer& viewer, bool compact) {
    const sim::Simulation& sim = viewer.simulation();
    const FrameFigures& figures = viewer.figures();
    const double cells = static_cast<double>(sim.nx()) * sim.ny();
    ImGui::Text("%s  %s  %s  %d x %d", sim.model().c_str(), viewer.scenario().c_str(),
                sim.solver().c_str(), sim.nx(), sim.ny());
    ImGui::Text("%.1f FPS   %.3f ms/frame   t = %.4g s (%.3g s/s)   %s", figures.fps,
                figures.frame_ms, sim.time(), figures.sim_seconds_per_s,
                !viewer.tab_shown() ? "(paused while another tab is open)"
                : viewer.playing()  ? ""
                                    : "(paused)");
    if (!compact) {
        ImGui::Text("%ssteps/s   %scell updates/s", format_rate(figures.steps_per_s).c_str(),
                    format_rate(figures.steps_per_s * cells).c_str());
        draw_frame_times(viewer);
        draw_frame_plot(viewer);
    }
    const gl::DeviceInfo& device = gl::Context::current().info();
    if (device.total_memory_mib > 0 && device.available_memory_mib * 10 < device.total_memory_mib)
        ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "GPU memory low: %lld of %lld MiB free",
                           static_cast<long long>(device.available_memory_mib),
                           static_cast<long long>(device.total_memory_mib));
    if (viewer.recording())
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "REC %.1f s", viewer.recorder().elapsed_s());
    if (viewer.video_recording())
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "REC video: %lld frames",
                           static_cast<long long>(viewer.video().frames_added()));
}

// The value under the cursor, as last read back.
void draw_probe(const Viewer& viewer) {
    const std::string text = viewer.probe_text();
    if (!text.empty()) ImGui::TextUnformatted(text.c_str());
}

// The cross-section's line over the field, from its start (a ring) to its end (a dot).
void draw_cross_section_line(const Viewer& viewer, render::Rect viewport, float framebuffer_height,
                             float scale) {
    const auto& line = viewer.cross_section();
    if (!line) return;
    const render::FieldSource src = viewer.source();
    const auto a = render::Renderer::cell_to_pixel(src, viewer.view(), viewport, line->from);
    const auto b = render::Renderer::cell_to_pixel(src, viewer.view(), viewport, line->to);
    if (!a || !b) return;
    auto screen = [&](glm::vec2 p) {
        return ImVec2(p.x / scale, (framebuffer_height - p.y) / scale);
    };
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    draw->PushClipRect(screen(glm::vec2(viewport.x, viewport.y + viewport.height)),
                       screen(glm::vec2(viewport.x + viewport.width, viewport.y)), true);
    const ImU32 shadow = IM_COL32(0, 0, 0, 160), colour = IM_COL32(255, 255, 255, 230);
    draw->AddLine(screen(*a), screen(*b), shadow, 4.0f);
    draw->AddLine(screen(*a), screen(*b), colour, 2.0f);
    draw->AddCircle(screen(*a), 5.0f, colour, 0, 2.0f);
    draw->AddCircleFilled(screen(*b), 4.0f, colour);
    draw->PopClipRect();
}

// The field along the line: a plot pinned to the viewport's bottom left, its buttons first.
void draw_cross_section_plot(Viewer& viewer, render::Rect viewport, float framebuffer_height,
                             float scale) {
    const auto& line = viewer.cross_section();
    if (!line) return;
    const float font = ImGui::GetFontSize();
    // Left of the colour bar and its labels, which stay readable.
    const render::Rect area =
        render::Renderer::layout_2d(viewer.source(), viewer.view(), viewport).field_area;
    const float width = std::max(std::min(area.width / scale - 20, 34 * font), 12 * font);
    const float height = 12 * font;
    ImGui::SetNextWindowPos(
        ImVec2(viewport.x / scale + 10, (framebuffer_height - viewport.y) / scale - height - 10));
    ImGui::SetNextWindowSize(ImVec2(width, height));
    ImGui::SetNextWindowBgAlpha(0.75f);
    ImGui::Begin("Cross-section", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                     ImGuiWindowFlags_NoMove);
    if (ImGui::Button("Save CSV")) viewer.save_cross_section();
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("distance_m,i,j,value for every plotted cell, to %s",
                          viewer.files().line_csv_path.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Clear")) viewer.clear_cross_section();
    if (!viewer.cross_section()) {  // cleared just now
        ImGui::End();
        return;
    }
    const sim::ModelInfo& info = viewer.model_info();
    const glm::ivec2 first = line->cells.front(), last = line->cells.back();
    ImGui::SameLine();
    ImGui::Text("(%d,%d)-(%d,%d) %.4g m", first.x, first.y, last.x, last.y, line->length_m);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%zu cells, one per cell along the longer side", line->cells.size());
    const std::vector<float>& values = line->values;
    if (values.empty()) {
        ImGui::TextDisabled("reading...");
        ImGui::End();
        return;
    }
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    const float pad = std::max(1e-6f * std::abs(*high), 0.05f * (*high - *low));
    char label[96];
    std::snprintf(label, sizeof label, "%s: %.4g .. %.4g %s", info.field_name.c_str(), *low, *high,
                  info.field_unit == info.field_name ? "" : info.field_unit.c_str());
    // PlotLines takes its size as given (no -1 for "the rest", unlike most widgets).
    const ImVec2 plot(ImGui::GetContentRegionAvail().x,
                      ImGui::GetContentRegionAvail().y - font * 1.4f);
    ImGui::PlotLines("##cross-section", values.data(), static_cast<int>(values.size()), 0, label,
                     *low - pad, *high + pad, plot);
    if (ImGui::IsItemHovered()) {
        // The cell under the mouse along the plot: its distance, cell and value.
        const float t = (ImGui::GetIO().MousePos.x - ImGui::GetItemRectMin().x) /
                        std::max(1.0f, ImGui::GetItemRectSize().x);
        const std::size_t k = std::min(
            values.size() - 1, static_cast<std::size_t>(std::max(0.0f, t) * float(values.size())));
        ImGui::SetTooltip("%.4g m, cell (%d, %d): %s = %.6g %s", line->distance_m(k),
                          line->cells[k].x, line->cells[k].y, info.field_name.c_str(), values[k],
                          info.field_unit.c_str());
    }
    ImGui::TextDisabled("0 m");
    ImGui::SameLine(ImGui::GetContentRegionAvail().x - 6 * font);
    ImGui::TextDisabled("%.4g m", line->length_m);
    ImGui::End();
}

}  // namespace

void draw_overlay(Viewer& viewer, render::Rect viewport, float framebuffer_height, float scale,
                  bool capture) {
    if (viewport.empty()) return;
    const ImVec2 origin(viewport.x / scale,
                        (framebuffer_height - viewport.y - viewport.height) / scale);
    draw_colour_bar_labels(*ImGui::GetBackgroundDrawList(), viewer, viewport, framebuffer_height,
                           scale);
    const InterfaceSettings& ui = viewer.interface_settings();
    if (capture || ui.hide_ui) return;  // a viewport capture: the picture and its colour bar only
    draw_cross_section_line(viewer, viewport, framebuffer_height, scale);
    draw_cross_section_plot(viewer, viewport, framebuffer_height, scale);
    if (!ui.show_overlay && !viewer.unstable()) return;
    // A small viewport keeps most of itself for the picture: the overlay drops the phases and
    // the frame-time plot.
    const bool compact = viewport.width / scale < 700 || viewport.height / scale < 420;
    ImGui::SetNextWindowPos(ImVec2(origin.x + 10, origin.y + 10));
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("Overlay", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove);
    if (viewer.unstable())
        ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), "%s", viewer.unstable_message().c_str());
    if (ui.show_overlay) draw_figures(viewer, compact);
    draw_probe(viewer);
    const StepBudget& budget = viewer.step_budget();
    if (viewer.playing() && budget.limits(viewer.steps_per_frame()))
        ImGui::TextColored(ImVec4(1, 0.75f, 0.3f, 1),
                           "%d of %d steps a frame (frames over %.0f ms)", budget.cap(),
                           viewer.steps_per_frame(), kFrameBudget_ms);
    ImGui::End();
}

void draw_help_window(Viewer& viewer) {
    InterfaceSettings& ui = viewer.interface_settings();
    if (!ui.show_help || ui.hide_ui) return;
    // Sized to its text: a fixed width cut lines off ("wheel zooms about the cur").
    ImGui::Begin("Help", &ui.show_help,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings);
    ImGui::TextUnformatted(
        "Space   play / pause\n"
        "S       one step (pauses); every press counts\n"
        "Ctrl+S  save the current settings as a preset\n"
        "R       reset the scenario and fit the view\n"
        "C       fit the view: the 3-D camera, the 2-D zoom and pan\n"
        "Tab     hide / show the panel and overlay\n"
        "F9      start / stop an FPS recording\n"
        "F10     start / stop a video (size, rate and format under Files)\n"
        "F11     fullscreen\n"
        "F12     screenshot (whole window or viewport, see Files)\n"
        "H       this help\n\n"
        "2-D: drag paints with the brush, the wheel zooms about the cursor,\n"
        "     right-drag pans. The value under the cursor is shown in the overlay.\n"
        "Ctrl+drag: a cross-section line; the field along it is plotted below\n"
        "     (Save CSV, Clear).\n"
        "3-D water: drag orbits, the wheel zooms, Shift+drag drops or pushes water.\n\n"
        "Settings and the layout are saved on exit in\n"
        "$XDG_CONFIG_HOME/adilab (default ~/.config/adilab).");
    ImGui::End();
}

}  // namespace adilab::gui
