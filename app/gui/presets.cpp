// Scenario presets: see presets.hpp.
#include "app/gui/presets.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>

#include "app/gui/settings.hpp"
#include "sim/assets.hpp"
#include "solvers/common/files.hpp"
#include "solvers/common/numbers.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {

std::vector<Preset> read_folder(const std::filesystem::path& folder, bool user) {
    std::vector<Preset> presets;
    std::error_code ec;
    if (folder.empty() || !std::filesystem::is_directory(folder, ec)) return presets;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
        if (entry.path().extension() == ".preset") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        Preset p;
        p.name = file.stem().string();
        p.user = user;
        // A preset is a few lines of text: a larger file is a mistake (a binary dropped into
        // the folder), refused before it is read.
        constexpr std::uintmax_t kMaxPresetBytes = 64 * 1024;
        if (const auto bytes = std::filesystem::file_size(file, ec);
            ec || bytes > kMaxPresetBytes) {
            p.model = "?";
            p.problem =
                "preset '" + file.string() + "': " +
                (ec ? ec.message() : std::to_string(bytes) + " bytes, more than a preset's 64 KiB");
            presets.push_back(std::move(p));
            continue;
        }
        Settings s = Settings::load(file);
        p.model = s.get("model", "");
        p.scenario = s.get("scenario", "");
        p.solver = s.get("solver", "");
        p.terrain = s.get("terrain", "");
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

}  // namespace

std::vector<Preset> load_presets(const std::filesystem::path& user_folder) {
    const std::filesystem::path assets = sim::assets_folder();
    std::vector<Preset> presets = read_folder(assets.empty() ? assets : assets / "presets", false);
    std::set<std::string> shipped;
    for (const Preset& p : presets) shipped.insert(p.name);
    for (Preset& p : read_folder(user_folder, true)) {
        if (shipped.count(p.name) && p.problem.empty())
            p.problem = "your preset '" + p.name + "' has the name of a shipped one; rename " +
                        (user_folder / (p.name + ".preset")).string();
        presets.push_back(std::move(p));
    }
    return presets;
}

std::filesystem::path user_presets_folder() {
    const std::filesystem::path config = config_folder();
    return config.empty() ? config : config / "presets";
}

std::string preset_name_problem(const std::string& name) {
    if (name.empty()) return "a preset needs a name";
    if (name.size() > 64) return "a preset's name has at most 64 characters";
    if (name.front() == '.') return "a preset's name cannot start with '.'";
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        if (!ok)
            return "a preset's name holds letters, digits, '-', '_' and '.' only, not '" +
                   std::string(1, c) + "'";
    }
    return {};
}

std::string format_preset(const Preset& p) {
    std::string text =
        "# Saved from the adilab viewer (Save as preset). key = value; set.NAME sets a "
        "parameter.\n";
    auto line = [&](const char* key, const std::string& value) {
        if (!value.empty()) text += std::string(key) + " = " + value + "\n";
    };
    line("model", p.model);
    line("scenario", p.scenario);
    line("solver", p.solver);
    line("terrain", p.terrain);
    if (p.grid > 0) line("grid", std::to_string(p.grid));
    if (p.steps_per_frame > 0) line("steps_per_frame", std::to_string(p.steps_per_frame));
    line("colormap", p.colormap);
    for (const auto& [name, value] : p.params) {
        char number[40];
        std::snprintf(number, sizeof number, "%.17g", value);  // the double back bit for bit
        text += "set." + name + " = " + number + "\n";
    }
    return text;
}

std::filesystem::path save_preset(const std::filesystem::path& folder, const Preset& preset) {
    if (const std::string problem = preset_name_problem(preset.name); !problem.empty())
        throw Error(problem);
    if (folder.empty())
        throw Error("no folder for presets: neither XDG_CONFIG_HOME nor HOME is set");
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec)
        throw Error("cannot create the presets folder '" + folder.string() + "': " + ec.message());
    const std::filesystem::path path = folder / (preset.name + ".preset");
    files::write_file_atomically(path, format_preset(preset));
    return path;
}

}  // namespace adilab::gui
