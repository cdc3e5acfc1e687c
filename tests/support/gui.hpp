#pragma once
// GUI runs under Xvfb for the end-to-end tests. Tests start with ADILAB_NEED_XVFB(), which
// skips when xvfb-run is missing, unless ADILAB_REQUIRE_GUI=1 (CI sets it) makes that a failure.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/process.hpp"

namespace adilab::test {

bool have_xvfb();
bool gui_required();
// The adilab executable as a GUI run starts it, quoted for sh. Under the sanitizer job
// (.ci/sanitize) ADILAB_TEST_GUI_PRELOAD names libraries to preload into that process only (not
// into Xvfb or the shell): the job keeps the GL stack from being unloaded at exit, so that
// LeakSanitizer can still see what its static data points to (see .ci/sanitize).
std::string gui_program();
// Runs `adilab <arguments>` on a fresh Xvfb display with the given screen, after `environment`
// (e.g. "XDG_CONFIG_HOME=/tmp/x "). Runs are serialised through a lock file: concurrent
// `xvfb-run -a` calls (ctest -j) race for the same display number and fail at random. The lock
// is not inherited by Xvfb (flock -o), so an Xvfb left behind by a killed run cannot hold it.
ProcessResult run_adilab_gui(const std::string& arguments,
                             const std::string& screen = "1600x1000x24",
                             const std::string& environment = "");

}  // namespace adilab::test

#define ADILAB_NEED_XVFB()                                                             \
    do {                                                                               \
        if (!::adilab::test::have_xvfb()) {                                            \
            if (::adilab::test::gui_required()) FAIL() << "xvfb-run is not installed"; \
            GTEST_SKIP() << "xvfb-run is not installed (apt-get install xvfb)";        \
        }                                                                              \
    } while (0)
