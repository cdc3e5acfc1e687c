#pragma once
// The side panel's Simulation tab and the status line at the panel's foot: ImGui widgets over
// the viewer's state, which edit its plain settings and call its actions (viewer.hpp). ImGui
// calls only, between ImGui::NewFrame and ImGui::Render.
namespace adilab::gui {

class Viewer;

// The tab's contents: the scene (preset, model, scenario, terrain, solver, grid), playback, the
// model's parameters, the brush, the view and the files.
void draw_simulation_tab(Viewer& viewer);
// The last notice or error (an error until dismissed), else a hint at the keys.
void draw_status_line(Viewer& viewer);

}  // namespace adilab::gui
