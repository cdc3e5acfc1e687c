#pragma once
// The GUI's interface for one frame, shared by the window (gui.cpp) and the headless
// `adilab --bench sim --render WxH --ui` (headless_ui.cpp), so that the UI the benchmark times is
// the one users see: the side panel with its tabs (Simulation, Benchmarks), the
// overlay over the viewport and the help window. ImGui calls only, between ImGui::NewFrame and
// ImGui::Render; no GLFW.
#include "app/render/renderer.hpp"

namespace adilab::gui {

class Viewer;
class BenchTabs;

struct FrameLayout {
    render::Rect viewport;  // GL convention; empty while minimised
    int panel_px = 0;       // the side panel's width in framebuffer pixels
};

// The viewport left of the side panel. `scale`: framebuffer pixels per ImGui unit;
// `content_scale`: the monitor's HiDPI factor. The panel takes at most 45 % of the width, so
// that a small window keeps most of itself for the picture; none while the UI is hidden (Tab).
FrameLayout frame_layout(const Viewer& viewer, int framebuffer_width, int framebuffer_height,
                         float scale, float content_scale);

// The panel, its tabs, the status line at its foot (always in view), the overlay and the help
// window for this frame. `capture`: the viewport is saved this frame (no overlay over it).
void draw_interface(Viewer& viewer, BenchTabs& bench_tabs, const FrameLayout& layout,
                    int framebuffer_height, float scale, bool capture = false);

}  // namespace adilab::gui
