// GUI smoke runs: the real window under Xvfb (xvfb-run), on Mesa llvmpipe.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "tests/support/process.hpp"

namespace adilab::test {
namespace {

bool have_xvfb() { return run_command("command -v xvfb-run").exit_code == 0; }
bool gui_required() {
    const char* v = std::getenv("ADILAB_REQUIRE_GUI");
    return v != nullptr && std::string(v) == "1";
}

#define ADILAB_NEED_XVFB()                                                    \
    do {                                                                      \
        if (!have_xvfb()) {                                                   \
            if (gui_required()) FAIL() << "xvfb-run is not installed";        \
            GTEST_SKIP() << "xvfb-run is not installed (apt-get install xvfb)"; \
        }                                                                     \
    } while (0)

// Runs adilab under a fresh Xvfb display with the given arguments.
// Its own empty config folder: the user's saved settings never leak into the test.
ProcessResult run_gui(const std::string& arguments) {
    const std::string config = temp_folder("gui-smoke-config");
    return run_command("XDG_CONFIG_HOME='" + config + "' HOME='" + config + "' " +
                       std::string("xvfb-run -a -s '-screen 0 1600x1000x24' '") + ADILAB_EXE + "' " +
                       arguments);
}

TEST(GuiSmoke, ScreenshotIsTheWindowAndNotFlat) {
    ADILAB_NEED_XVFB();
    std::string dir = temp_folder("gui-smoke");
    std::string png = dir + "/window.png";
    auto r = run_gui("--grid 64 --frames 30 --screenshot " + png);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 4);
    ASSERT_NE(pixels, nullptr) << "not a readable PNG";
    EXPECT_EQ(w, 1280);
    EXPECT_EQ(h, 800);
    std::set<unsigned> colours;
    for (int i = 0; i < w * h; i += 37) {
        const unsigned char* p = pixels + 4 * i;
        colours.insert(p[0] << 16 | p[1] << 8 | p[2]);
    }
    stbi_image_free(pixels);
    EXPECT_GT(colours.size(), 3u) << "the window is one flat colour";
}

TEST(GuiSmoke, UnwritableScreenshotFailsBeforeOpeningTheWindow) {
    auto r = run_adilab("--frames 2 --screenshot /nonexistent-folder/x.png");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("/nonexistent-folder"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace adilab::test
