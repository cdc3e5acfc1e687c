#include "tests/support/gui.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace adilab::test {

bool have_xvfb() {
    return run_command("command -v xvfb-run").exit_code == 0;
}

bool gui_required() {
    const char* v = std::getenv("ADILAB_REQUIRE_GUI");
    return v != nullptr && std::string(v) == "1";
}

namespace {
constexpr const char* kExitMarker = "__adilab_exit=";

// xvfb-run replaces the program's exit code with its own when it fails to clean up after a
// program that exits very quickly, so the program's code is printed by this wrapper instead.
std::filesystem::path exit_code_wrapper() {
    const auto path = std::filesystem::temp_directory_path() / "adilab-test-exit-wrapper.sh";
    if (!std::filesystem::exists(path)) {
        const auto temporary = path.string() + "." + std::to_string(::getpid());
        std::ofstream(temporary) << "#!/bin/sh\n\"$@\"\necho \"" << kExitMarker << "$?\"\n";
        std::filesystem::permissions(temporary, std::filesystem::perms::owner_all |
                                                    std::filesystem::perms::group_read |
                                                    std::filesystem::perms::others_read);
        std::filesystem::rename(temporary, path);
    }
    return path;
}
}  // namespace

std::string gui_program() {
    const char* preload = std::getenv("ADILAB_TEST_GUI_PRELOAD");
    const std::string program = std::string("'") + ADILAB_EXE + "'";
    if (preload == nullptr || *preload == '\0') return program;
    // Leak checking off in the GUI process: at exit LeakSanitizer's tracer stops every thread,
    // and with llvmpipe's and the video encoder's threads it crashed (signal 11) in the sanitized
    // CI run, failing tests at random. ASan and UBSan still check every GUI run; the headless
    // runs of the same code keep leak checking.
    const char* options = std::getenv("ASAN_OPTIONS");
    return "env LD_PRELOAD='" + std::string(preload) + "' ASAN_OPTIONS='" +
           std::string(options ? options : "") + ":detect_leaks=0' " + program;
}

ProcessResult run_adilab_gui(const std::string& arguments, const std::string& screen,
                             const std::string& environment) {
    const auto lock = std::filesystem::temp_directory_path() / "adilab-xvfb.lock";
    ProcessResult result = run_command(
        environment + "flock -o -w 600 '" + lock.string() + "' xvfb-run -a -s '-screen 0 " +
        screen + "' '" + exit_code_wrapper().string() + "' " + gui_program() + " " + arguments);
    const std::size_t marker = result.output.rfind(kExitMarker);
    if (marker != std::string::npos) {
        result.exit_code =
            std::atoi(result.output.c_str() + marker + std::string(kExitMarker).size());
        const std::size_t end = result.output.find('\n', marker);
        result.output.erase(marker,
                            end == std::string::npos ? std::string::npos : end - marker + 1);
    }
    return result;
}

}  // namespace adilab::test
