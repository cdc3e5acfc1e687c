#include "tests/support/process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace adilab::test {

ProcessResult run_command(const std::string& command_line) {
    ProcessResult result;
    std::string full = command_line + " 2>&1";
    FILE* pipe = ::popen(full.c_str(), "r");
    if (pipe == nullptr) return result;
    std::array<char, 4096> buffer;
    std::size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
    int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

ProcessResult run_adilab(const std::string& arguments) {
#ifdef ADILAB_EXE
    return run_command(std::string("'") + ADILAB_EXE + "' " + arguments);
#else
    return run_command("adilab " + arguments);
#endif
}

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
    // The process id keeps test binaries that run at the same time (two checkouts on one
    // machine, ctest -j) out of each other's files.
    static MadeFolders made;
    auto path = std::filesystem::temp_directory_path() /
                ("adilab-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    made.paths.push_back(path);
    return path.string();
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

}  // namespace adilab::test
