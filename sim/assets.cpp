#include "sim/assets.hpp"

#include <cstdlib>
#include <vector>

#include "solvers/gl/error.hpp"

namespace adilab::sim {

namespace {
std::filesystem::path& assets_override() {
    static std::filesystem::path folder;
    return folder;
}

std::vector<std::filesystem::path> candidates() {
    std::vector<std::filesystem::path> out;
    if (!assets_override().empty()) out.push_back(assets_override());
    std::error_code error;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        for (auto dir = exe.parent_path(); !dir.empty() && out.size() < 6;
             dir = dir.parent_path()) {
            out.push_back(dir / "assets");
            if (dir == dir.parent_path()) break;
        }
    }
#ifdef ADILAB_ASSET_DIR
    out.emplace_back(ADILAB_ASSET_DIR);
#endif
    return out;
}
}  // namespace

void set_assets_override(std::filesystem::path folder) {
    assets_override() = std::move(folder);
}

std::filesystem::path find_asset(const std::string& relative) {
    std::error_code ec;
    for (const auto& dir : candidates())
        if (std::filesystem::exists(dir / relative, ec)) return dir / relative;
    throw Error("cannot find assets/" + relative + " (set ADILAB_ASSETS to the assets folder)");
}

std::filesystem::path assets_folder() {
    std::error_code ec;
    for (const auto& dir : candidates())
        if (std::filesystem::is_directory(dir, ec)) return dir;
    return {};
}

}  // namespace adilab::sim
