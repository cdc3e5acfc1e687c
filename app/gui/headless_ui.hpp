#pragma once
// The GUI's frame without a window, for `adilab --bench sim --render WxH --ui` (app/bench/
// ui_hook.hpp): a Viewer (the simulation, its renderer and the Simulation tab), the benchmark
// tabs and the interface of interface.hpp, drawn through ImGui's OpenGL3 backend (it needs only
// a GL context) into an offscreen WxH framebuffer, frame after frame as gui.cpp does, with the
// display size and frame time set by hand. No GLFW.
#include "app/bench/ui_hook.hpp"

namespace adilab::gui {

// Runs on the current GL context (the bench's headless one). Throws adilab::Error when ImGui's
// OpenGL3 backend cannot start, cli::UsageError for an unknown model, scenario or solver.
bench::UiRunResult run_headless_ui(const bench::UiRunRequest& request);

}  // namespace adilab::gui
