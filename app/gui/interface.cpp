#include "app/gui/interface.hpp"

#include <imgui.h>

#include <algorithm>

#include "app/gui/bench_tabs.hpp"
#include "app/gui/viewer.hpp"
#include "app/gui/viewer_overlay.hpp"
#include "app/gui/viewer_panel.hpp"

namespace adilab::gui {

FrameLayout frame_layout(const Viewer& viewer, int framebuffer_width, int framebuffer_height,
                         float scale, float content_scale) {
    FrameLayout layout;
    if (framebuffer_width <= 0 || framebuffer_height <= 0) return layout;  // minimised
    if (!viewer.ui_hidden())
        layout.panel_px = static_cast<int>(
            std::min(viewer.panel_width() * content_scale * viewer.ui_scale() * scale,
                     framebuffer_width * 0.45f));
    layout.viewport =
        render::Rect{0, 0, std::max(framebuffer_width - layout.panel_px, 0), framebuffer_height};
    return layout;
}

void draw_interface(Viewer& viewer, BenchTabs& bench_tabs, const FrameLayout& layout,
                    int framebuffer_height, float scale, bool capture) {
    ImGuiIO& io = ImGui::GetIO();
    if (viewer.ui_hidden()) {
        viewer.set_tab_shown(true);  // the simulation keeps running behind a hidden panel
        viewer.set_viewport(layout.viewport);
        draw_overlay(viewer, layout.viewport, static_cast<float>(framebuffer_height), scale,
                     capture);
        return;
    }
    const float panel = layout.panel_px / scale;
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - panel, 0));
    ImGui::SetNextWindowSize(ImVec2(panel, io.DisplaySize.y));
    ImGui::Begin("adilab", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoScrollbar);
    // The tabs scroll in a child region; the status line below it stays in view (three lines).
    const float footer = 3.4f * ImGui::GetTextLineHeightWithSpacing();
    ImGui::BeginChild("tabs area", ImVec2(0, -footer));
    if (ImGui::BeginTabBar("tabs")) {
        const bool simulation_tab = ImGui::BeginTabItem("Simulation");
        viewer.set_tab_shown(simulation_tab);
        if (simulation_tab) {
            draw_simulation_tab(viewer);
            ImGui::EndTabItem();
        }
        bench_tabs.draw_tab_items();  // Benchmarks: a tab per benchmark (bench_tabs.hpp)
        ImGui::EndTabBar();
    }
    ImGui::EndChild();
    ImGui::Separator();
    ImGui::BeginChild("status line", ImVec2(0, 0));
    draw_status_line(viewer);
    ImGui::EndChild();
    ImGui::End();
    // The viewport this frame draws into, for the 3-D camera's aspect (a fit that the tab above
    // asked for used the previous frame's).
    viewer.set_viewport(layout.viewport);
    draw_overlay(viewer, layout.viewport, static_cast<float>(framebuffer_height), scale, capture);
    draw_help_window(viewer);
}

}  // namespace adilab::gui
