// Scenario presets: see presets.hpp.
#include "app/gui/presets.hpp"

#include <algorithm>
#include <fstream>

#include "app/gui/settings.hpp"
#include "sim/assets.hpp"
#include "solvers/common/numbers.hpp"

namespace adilab::gui {

std::vector<Preset> load_presets() {
    std::vector<Preset> presets;
    const std::filesystem::path assets = sim::assets_folder();
    const std::filesystem::path folder = assets / "presets";
    std::error_code ec;
    if (assets.empty() || !std::filesystem::is_directory(folder, ec)) return presets;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
        if (entry.path().extension() == ".preset") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        Preset p;
        p.name = file.stem().string();
        // A preset is a few lines of text: a larger file is a mistake (a binary dropped into
        // the folder), refused before it is read.
        constexpr std::uintmax_t kMaxPresetBytes = 64 * 1024;
        if (const auto bytes = std::filesystem::file_size(file, ec); ec || bytes > kMaxPresetBytes) {
            p.model = "?";
            p.problem = "preset '" + file.string() + "': " +
                        (ec ? ec.message() : std::to_string(bytes) + " bytes, more than a preset's 64 KiB");
            presets.push_back(std::move(p));
            continue;
        }
        Settings s = Settings::load(file);
        p.model = s.get("model", "");
        p.scenario = s.get("scenario", "");
        p.solver = s.get("solver", "");
        p.colormap = s.get("colormap", "");
        p.grid = s.get_int("grid", 0, 4, 8192);
        p.steps_per_frame = s.get_int("steps_per_frame", 0, 1, 1000);
        // Parameters: every line `set.NAME = value`.
        std::ifstream in(file);
        std::string line;
        while (std::getline(in, line)) {
            if (!line.starts_with("set.")) continue;
            const auto eq = line.find('=');
            if (eq == std::string::npos) continue;
            std::string name = line.substr(4, eq - 4);
            name.erase(name.find_last_not_of(" \t") + 1);
            std::string text = line.substr(eq + 1);
            text.erase(0, text.find_first_not_of(" \t"));
            text.erase(text.find_last_not_of(" \t\r") + 1);
            if (const auto value = numbers::to_real(text))
                p.params.emplace_back(name, *value);
            else if (p.problem.empty())
                p.problem = "preset '" + file.string() + "': set." + name + " = '" + text +
                            "' is not a finite number";
        }
        if (!p.model.empty()) presets.push_back(std::move(p));
    }
    return presets;
}

}  // namespace adilab::gui
