#pragma once
// Scenario presets, assets/presets/*.preset: a model, a scenario and the settings that show it
// well, picked from the Simulation tab or with --preset NAME.
#include <string>
#include <utility>
#include <vector>

namespace adilab::gui {

// One preset file: `key = value` lines (model, scenario, grid, solver, steps_per_frame, colormap,
// and `set.NAME = value` for parameters).
struct Preset {
    std::string name, model, scenario, solver, colormap;
    int grid = 0, steps_per_frame = 0;
    std::vector<std::pair<std::string, double>> params;
    // What is wrong with the file (too large, a value that is not a number), naming the file and
    // the field; empty when it is fine. Choosing such a preset is refused with this message.
    std::string problem;
};

// The presets of the assets folder (sim::assets_folder), sorted by name; none when there is no
// such folder.
std::vector<Preset> load_presets();

}  // namespace adilab::gui
