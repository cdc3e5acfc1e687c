#pragma once
// Saving what the window shows: the F12 screenshot (gui.cpp) and a scripted run's --screenshot
// and --first-screenshot (scripted_run.cpp) read the same pixels the same way.
#include <filesystem>

#include "app/render/renderer.hpp"

namespace adilab::gui {

// Saves `area` (GL convention, y up) of the bound framebuffer as PNG. Call after ImGui has drawn
// into the back buffer and before it is presented, so that the picture has the interface in it.
void write_screenshot(const std::filesystem::path& path, render::Rect area);

}  // namespace adilab::gui
