// GUI smoke runs: the real window under Xvfb (xvfb-run), on Mesa llvmpipe.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "tests/support/gui.hpp"

namespace adilab::test {
namespace {

// Runs adilab under a fresh Xvfb display with the given arguments.
// Its own empty config folder: the user's saved settings never leak into the test.
ProcessResult run_gui(const std::string& arguments) {
    const std::string config = temp_folder("gui-smoke-config");
    return run_adilab_gui(arguments, "1600x1000x24",
                          "XDG_CONFIG_HOME='" + config + "' HOME='" + config + "' ");
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
