#pragma once
// GUI runs under Xvfb for the end-to-end tests. Tests start with ADILAB_NEED_XVFB(), which
// skips when xvfb-run is missing, unless ADILAB_REQUIRE_GUI=1 (CI sets it) makes that a failure.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/process.hpp"

namespace adilab::test {

bool have_xvfb();
bool gui_required();
// Runs `adilab <arguments>` on a fresh Xvfb display with the given screen, after `environment`
// (e.g. "XDG_CONFIG_HOME=/tmp/x "). Runs are serialised through a lock file: concurrent
// `xvfb-run -a` calls (ctest -j) race for the same display number and fail at random. The lock
// is not inherited by Xvfb (flock -o), so an Xvfb left behind by a killed run cannot hold it.
ProcessResult run_adilab_gui(const std::string& arguments,
                             const std::string& screen = "1600x1000x24",
                             const std::string& environment = "");

}  // namespace adilab::test

#define ADILAB_NEED_XVFB()                                                          \
    do {                                                                            \
        if (!::adilab::test::have_xvfb()) {                                         \
            if (::adilab::test::gui_required()) FAIL() << "xvfb-run is not installed"; \
            GTEST_SKIP() << "xvfb-run is not installed (apt-get install xvfb)";     \
        }                                                                           \
    } while (0)
