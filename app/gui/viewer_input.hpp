#pragma once
// The viewport's keys and mouse: key presses become the viewer's actions (play, step, reset,
// record, screenshot...), the mouse paints with the brush, probes the cell under the cursor and
// moves the 2-D view or the 3-D camera. Reads ImGui's IO (mouse, and whether a widget has the
// keyboard or the mouse); the keys come from the window's queue, so that every press counts.
#include <span>

#include "app/gui/window.hpp"
#include "app/render/renderer.hpp"

namespace adilab::gui {

class Viewer;

// `viewport` in framebuffer pixels (GL convention; empty while minimised: keys only), `scale`
// maps them to ImGui units. `keys`: the presses since the last frame, skipped while a widget has
// the keyboard; `clicks`: the mouse presses since the last frame, where they happened.
void handle_input(Viewer& viewer, render::Rect viewport, float framebuffer_height, float scale,
                  std::span<const KeyPress> keys = {}, std::span<const MousePress> clicks = {});

}  // namespace adilab::gui
