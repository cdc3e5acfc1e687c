#pragma once
// The viewer's persisted settings: a flat `key = value` text file in
// $XDG_CONFIG_HOME/adilab/viewer.ini (else ~/.config/adilab/viewer.ini), next to Dear ImGui's
// own layout file imgui.ini. Unknown keys are kept and written back; a malformed or out-of-range
// value falls back to the default and is listed by take_problems(), for the viewer to say so. No
// GLFW or ImGui here.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace adilab::gui {

// The folder, or empty when neither XDG_CONFIG_HOME nor HOME is set (nothing is persisted).
std::filesystem::path config_folder();

class Settings {
  public:
    // Reads `path` if it exists; a missing file is an empty set of settings.
    static Settings load(const std::filesystem::path& path);
    // Writes atomically; returns false (and leaves the old file) when it cannot.
    bool save(const std::filesystem::path& path) const;

    std::string get(const std::string& key, const std::string& fallback) const;
    int get_int(const std::string& key, int fallback, int min, int max) const;
    float get_float(const std::string& key, float fallback, float min, float max) const;
    bool get_bool(const std::string& key, bool fallback) const;
    void set(const std::string& key, const std::string& value) { values_[key] = value; }
    // A literal would otherwise pick the bool overload.
    void set(const std::string& key, const char* value) { values_[key] = value; }
    void set(const std::string& key, int value) { values_[key] = std::to_string(value); }
    void set(const std::string& key, float value);
    void set(const std::string& key, bool value) { values_[key] = value ? "1" : "0"; }
    void set(const std::string& key, double value);  // every digit: the double back bit for bit
    bool has(const std::string& key) const { return values_.count(key) != 0; }
    std::vector<std::string> keys_with_prefix(const std::string& prefix) const;
    void erase_prefix(const std::string& prefix);
    // Values the getters could not use since the last call ("grid = 99999 (not within 4 ..
    // 8192)"); a caller may add its own (a model that no longer exists).
    std::vector<std::string> take_problems();
    void add_problem(std::string problem) const { problems_.push_back(std::move(problem)); }

  private:
    void refuse(const std::string& key, const std::string& why) const;
    std::map<std::string, std::string> values_;
    mutable std::vector<std::string> problems_;
};

}  // namespace adilab::gui
