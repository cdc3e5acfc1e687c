#include "sim/assets.hpp"

#include <cstdlib>
#include <vector>

#include "solvers/gl/error.hpp"

namespace adilab::sim {

namespace {
std::vector<std::filesystem::path> candidates() {
    std::vector<std::filesystem::path> out;
    if (const char* env = std::getenv("ADILAB_ASSETS"); env != nullptr && *env) out.emplace_back(env);
    std::error_code error;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        for (auto dir = exe.parent_path(); !dir.empty() && out.size() < 6; dir = dir.parent_path()) {
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
