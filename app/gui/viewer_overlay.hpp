#pragma once
// What is drawn over the viewport: the colour bar's labels, the overlay window (the scene, FPS,
// GPU times per phase, the frame-time plot, the probed value, warnings) and the help window.
// ImGui calls only, between ImGui::NewFrame and ImGui::Render; reads the viewer (viewer.hpp) and
// edits only its interface settings (the overlay's checkboxes, closing the help).
#include "app/render/renderer.hpp"

struct ImDrawList;

namespace adilab::gui {

class Viewer;

// The colour bar's tick labels and unit beside the bar the renderer draws in `viewport`, into
// `draw` (the window's background list, or a capture's own: view_capture.hpp).
void draw_colour_bar_labels(ImDrawList& draw, const Viewer& viewer, render::Rect viewport,
                            float framebuffer_height, float scale);

// Over `viewport` (framebuffer pixels, GL convention; `scale` maps them to ImGui units).
// `capture`: this frame's viewport is being saved: the colour bar's labels only.
void draw_overlay(Viewer& viewer, render::Rect viewport, float framebuffer_height, float scale,
                  bool capture = false);
// The keys and mouse gestures, while the help is on (H) and the interface shown.
void draw_help_window(Viewer& viewer);

}  // namespace adilab::gui
