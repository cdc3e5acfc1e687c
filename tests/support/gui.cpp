#include "tests/support/gui.hpp"

#include <cstdlib>
#include <filesystem>

namespace adilab::test {

bool have_xvfb() { return run_command("command -v xvfb-run").exit_code == 0; }

bool gui_required() {
    const char* v = std::getenv("ADILAB_REQUIRE_GUI");
    return v != nullptr && std::string(v) == "1";
}

ProcessResult run_adilab_gui(const std::string& arguments, const std::string& screen,
                             const std::string& environment) {
    const auto lock = std::filesystem::temp_directory_path() / "adilab-xvfb.lock";
    return run_command(environment + "flock '" + lock.string() + "' xvfb-run -a -s '-screen 0 " +
                       screen + "' '" + ADILAB_EXE + "' " + arguments);
}

}  // namespace adilab::test
