#pragma once
// Scenario presets: a model, a scenario and the settings that show it well, picked from the
// Simulation tab or with --preset NAME. They come from assets/presets/*.preset (shipped) and from
// the user's own folder, $XDG_CONFIG_HOME/adilab/presets (the panel's "Save as preset").
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace adilab::gui {

// One preset file: `key = value` lines (model, scenario, grid, solver, terrain, steps_per_frame,
// colormap, and `set.NAME = value` for parameters).
struct Preset {
    std::string name, model, scenario, solver, terrain, colormap;
    int grid = 0, steps_per_frame = 0;
    std::vector<std::pair<std::string, double>> params;
    bool user = false;  // from the user's folder, not the assets
    // What is wrong with the file (too large, a value that is not a number), naming the file and
    // the field; empty when it is fine. Choosing such a preset is refused with this message.
    std::string problem;
};

// The presets of the assets folder (sim::assets_folder) and of `user_folder` (none when empty or
// missing), each sorted by name, the assets' first. A user preset named as an asset one is
// listed with the problem that says so (save_preset refuses such names).
std::vector<Preset> load_presets(const std::filesystem::path& user_folder = {});

// The user's presets folder: config_folder()/presets, or empty where nothing is persisted.
std::filesystem::path user_presets_folder();

// Why `name` cannot name a preset file (empty, over 64 characters, or a character other than
// letters, digits, '-', '_' and '.', or a leading '.'), or empty when it can.
std::string preset_name_problem(const std::string& name);

// The preset as `key = value` text, parameters with every digit of their double value.
std::string format_preset(const Preset& preset);

// Writes `preset` as `<folder>/<preset.name>.preset` (the folder made if missing) through the
// files module's temporary-then-rename; returns the path. Throws adilab::Error for a bad name or
// a file that cannot be written.
std::filesystem::path save_preset(const std::filesystem::path& folder, const Preset& preset);

}  // namespace adilab::gui
