#include "app/gui/settings.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "solvers/common/files.hpp"
#include "solvers/common/numbers.hpp"

namespace adilab::gui {

std::filesystem::path config_folder() {
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg == '/')
        return std::filesystem::path(xdg) / "adilab";
    if (const char* home = std::getenv("HOME"); home != nullptr && *home)
        return std::filesystem::path(home) / ".config" / "adilab";
    return {};
}

namespace {
std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos) return {};
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}
}  // namespace

Settings Settings::load(const std::filesystem::path& path) {
    Settings settings;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        settings.values_[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
    return settings;
}

bool Settings::save(const std::filesystem::path& path) const {
    std::ostringstream out;
    out << "# adilab viewer settings (written on exit; edit freely)\n";
    for (const auto& [key, value] : values_) out << key << " = " << value << "\n";
    try {
        std::filesystem::create_directories(path.parent_path());
        files::write_file_atomically(path, out.str());
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

std::string Settings::get(const std::string& key, const std::string& fallback) const {
    auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
}

void Settings::refuse(const std::string& key, const std::string& why) const {
    problems_.push_back(key + " = " + get(key, "") + " (" + why + ")");
}

int Settings::get_int(const std::string& key, int fallback, int min, int max) const {
    auto it = values_.find(key);
    if (it == values_.end()) return fallback;
    // The command line's strict parser: the whole text, no wrap, no blanks.
    if (const auto v = numbers::to_integer(it->second); v && *v >= min && *v <= max) return int(*v);
    refuse(key, "not a whole number within " + std::to_string(min) + " .. " + std::to_string(max));
    return fallback;
}

float Settings::get_float(const std::string& key, float fallback, float min, float max) const {
    auto it = values_.find(key);
    if (it == values_.end()) return fallback;
    if (const auto v = numbers::to_real(it->second); v && *v >= min && *v <= max) return float(*v);
    std::ostringstream range;
    range << "not a number within " << min << " .. " << max;
    refuse(key, range.str());
    return fallback;
}

bool Settings::get_bool(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    const std::string v = get(key, "");
    if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
    if (v == "0" || v == "false" || v == "no" || v == "off") return false;
    refuse(key, "not 1 or 0");
    return fallback;
}

void Settings::set(const std::string& key, float value) {
    std::ostringstream s;
    s << value;
    values_[key] = s.str();
}

void Settings::set(const std::string& key, double value) {
    std::ostringstream s;
    s.precision(17);
    s << value;
    values_[key] = s.str();
}

std::vector<std::string> Settings::keys_with_prefix(const std::string& prefix) const {
    std::vector<std::string> keys;
    for (auto it = values_.lower_bound(prefix);
         it != values_.end() && it->first.starts_with(prefix); ++it)
        keys.push_back(it->first);
    return keys;
}

void Settings::erase_prefix(const std::string& prefix) {
    for (const std::string& key : keys_with_prefix(prefix)) values_.erase(key);
}

std::vector<std::string> Settings::take_problems() {
    std::vector<std::string> out;
    out.swap(problems_);
    return out;
}

}  // namespace adilab::gui
