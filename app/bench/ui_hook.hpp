#pragma once
// `adilab --bench sim --render WxH --ui`: the GUI's real interface (the side panel and its tabs,
// the overlay, through Dear ImGui's OpenGL3 backend) drawn into the offscreen frame with the
// viewport, so that drawing plus UI can be timed on a machine with no display. The interface
// lives in app/gui, which depends on app/bench; the executable registers the GUI's headless
// frame loop here at start-up (main.cpp) and the benchmark calls it.
#include <string>

namespace adilab::bench {

struct UiRunRequest {
    std::string model, scenario, solver;
    std::string terrain;  // shallow water's bottom (empty: the viewer's default)
    int grid = 0;
    int width = 0, height = 0;  // the offscreen window
    int frames = 0;             // timed frames, one step each
    std::string screenshot;     // PNG of the last frame (viewport and interface), or empty
};

struct UiRunResult {
    int frames = 0;
    // GPU milliseconds per frame, medians over the frames (the GUI's own timer queries, read a
    // few frames late as its overlay does): the simulation's step, the viewport's drawing, and
    // ImGui's drawing of the interface.
    double sim_ms = 0, draw_ms = 0, ui_ms = 0;
    // Wall-clock milliseconds per frame over the timed frames (CPU and GPU, pipelined; no
    // presentation, no vsync), and its FPS.
    double frame_ms = 0, fps = 0;
    int viewport_width = 0;  // the viewport beside the panel
};

using UiRunner = UiRunResult (*)(const UiRunRequest&);
void set_ui_runner(UiRunner runner);
UiRunner ui_runner();  // null when the executable registered none

}  // namespace adilab::bench
