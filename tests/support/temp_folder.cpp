#include "tests/support/temp_folder.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

namespace adilab::test {

namespace {
// Removes the folders temp_folder() made when the test binary exits.
struct MadeFolders {
    std::vector<std::filesystem::path> paths;
    ~MadeFolders() {
        std::error_code ignored;
        for (const auto& path : paths) std::filesystem::remove_all(path, ignored);
    }
};
}  // namespace

std::string temp_folder(const std::string& name) {
    static MadeFolders made;
    auto path = std::filesystem::temp_directory_path() /
                ("adilab-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    made.paths.push_back(path);
    return path.string();
}

}  // namespace adilab::test
