// The simulation viewer's pictures under Xvfb + llvmpipe: scripted runs (--frames) that
// screenshot the window or the viewport after the models ran, a drag painted, the window was
// resized or the interface hidden; the view at a chosen size; and the headless `--bench sim
// --render` / `--ui` runs that draw the same view and interface offscreen. Small grids and a
// small window keep each run to a few seconds on the 2-core CI machine.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "tests/support/viewer.hpp"

namespace adilab::test {
namespace {

// The viewport's background (0.08, 0.09, 0.11) around the domain, as 8-bit RGB.
bool is_background(const unsigned char* p) {
    return p[0] == 20 && p[1] == 23 && p[2] == 28;
}

TEST_F(Viewer, EachModelDrawsAMovingNonFlatPictureOfItsOwn) {
    ADILAB_NEED_XVFB();
    const std::map<std::string, std::string> runs = {
        {"heat", "--model heat --scenario two-heaters --colormap inferno"},
        {"advection",
         "--model advection --scenario vortex --set source_radius=0.05 --set omega=0.05 "
         "--steps-per-frame 4"},
        {"shallow-water", "--model shallow-water --scenario drops"},
    };
    std::map<std::string, Image> last;
    for (const auto& [model, options] : runs) {
        const std::string first = dir + "/" + model + "-first.png";
        ViewerCapture b = capture(options +
                                      " --grid 64 --frames 12 --screenshot-area "
                                      "viewport --first-screenshot " +
                                      first,
                                  model + "-last.png");
        ASSERT_EQ(b.run.exit_code, 0) << model << ": " << b.run.output;
        const Image a = load_png(first);
        ASSERT_TRUE(a.ok() && b.image.ok()) << model << ": screenshots not readable";
        EXPECT_GT(colour_count(b.image), 20u) << model << ": the last frame is (nearly) flat";
        // The fields evolve over 11 steps: a visible change, not round-off (> 0.05 of a level).
        EXPECT_GT(difference(a, b.image), 0.05) << model << ": the picture did not change";
        last[model] = std::move(b.image);
    }
    EXPECT_GT(difference(last["heat"], last["advection"]), 2.0);
    EXPECT_GT(difference(last["heat"], last["shallow-water"]), 2.0);
    EXPECT_GT(difference(last["advection"], last["shallow-water"]), 2.0);
    EXPECT_FALSE(std::filesystem::exists(settings_path(config)))
        << "a scripted run must not write the user's settings";
}

TEST_F(Viewer, MouseDragPaintsTheFieldAndSettingsAreRead) {
    ADILAB_NEED_XVFB();
    // The persisted settings choose the grayscale colormap (id 3): every field pixel is grey.
    save_settings("colormap = 3\nbrush_radius = 4\n");
    // `free` heat starts uniform: flat until the drag at frame 2 paints a stroke across it.
    const ViewerCapture r = capture(
        "--model heat --scenario free --grid 64 --frames 4 --screenshot-area viewport --inject "
        "'drag@2:0.2,0.5:0.6,0.5' --first-screenshot " +
            dir + "/before.png",
        "after.png");
    ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
    const Image before = load_png(dir + "/before.png");
    const Image& after = r.image;
    ASSERT_TRUE(before.ok() && after.ok());
    EXPECT_GT(difference(before, after), 1.0) << "the drag did not change the field";
    EXPECT_GT(colour_count(after), colour_count(before));
    // The field area: left of the colour bar's 90 px (whose labels are anti-aliased text).
    std::size_t coloured = 0;
    for (int y = 0; y < after.height; ++y)
        for (int x = 0; x < after.width - 90; ++x) {
            const unsigned char* p = after.pixel(x, y);
            coloured += !(p[0] == p[1] && p[1] == p[2]) && !is_background(p);
        }
    EXPECT_EQ(coloured, 0u) << "the grayscale setting was not applied";
}

TEST_F(Viewer, MinimiseAndResizeDoNotCrash) {
    ADILAB_NEED_XVFB();
    const ViewerCapture r = capture(
        "--model shallow-water --scenario drops --grid 64 --frames 12 "
        "--inject 'resize@3:0x0;resize@6:320x200;resize@8:520x330'",
        "after.png");
    ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
    ASSERT_TRUE(r.image.ok());
    EXPECT_EQ(r.image.width, 520);  // the last resize took effect
    EXPECT_EQ(r.image.height, 330);
    EXPECT_GT(colour_count(r.image), 20u);
}

// Light grey text pixels (ImGui's labels) in columns [x0, x1) and rows [y0, y1) from the top.
int text_pixels(const Image& image, int x0, int y0, int x1, int y1) {
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            const unsigned char* p = image.pixel(x, y);
            n += p[0] > 150 && p[0] == p[1] && p[1] == p[2];
        }
    return n;
}

TEST_F(Viewer, ViewportCaptureRightAfterResetHasTheColourBarsTicks) {
    ADILAB_NEED_XVFB();
    // Frame 1 is the reset state: two heaters at 1 K in a 0 K plate. The bar's labels (ImGui
    // text, light grey) must be in the viewport capture, beside the bar at the right.
    auto r =
        run("--model heat --scenario two-heaters --grid 64 --frames 2 "
            "--screenshot-area viewport --first-screenshot " +
            dir + "/first.png");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const Image image = load_png(dir + "/first.png");
    ASSERT_TRUE(image.ok());
    // Right of the bar (the labels' 60 px), not the field.
    EXPECT_GT(text_pixels(image, image.width - 62, 0, image.width, image.height), 30)
        << "no tick labels in the viewport capture";
}

TEST_F(Viewer, ScreenshotAtAChosenSizeIsTheViewWithItsColourBar) {
    ADILAB_NEED_XVFB();
    const ViewerCapture r = capture(
        "--model heat --scenario two-heaters --grid 64 --frames 3 --screenshot-size 400x300",
        "view.png");
    ASSERT_EQ(r.run.exit_code, 0) << r.run.output;
    const Image& image = r.image;
    ASSERT_TRUE(image.ok());
    EXPECT_EQ(image.width, 400);
    EXPECT_EQ(image.height, 300);
    EXPECT_GT(text_pixels(image, image.width - 62, 0, image.width, image.height), 30)
        << "the colour bar's tick labels";
    EXPECT_EQ(text_pixels(image, 0, 0, 200, 60), 0) << "no overlay text in the view";
    EXPECT_EQ(run_adilab("--frames 2 --screenshot-size 400x300").exit_code, 2)
        << "--screenshot-size needs --screenshot";
    EXPECT_EQ(run_adilab("--record-video /tmp").exit_code, 2) << "--record-video needs --frames";
    EXPECT_EQ(run_adilab("--frames 2 --video-format avi").exit_code, 2);
}

TEST_F(Viewer, TabHidesTheInterfaceForACleanCapture) {
    ADILAB_NEED_XVFB();
    ADILAB_NEED_KEY_SENDER();
    // Tab, then F12 (a whole-window screenshot): the picture fills the window, no panel. The
    // panel's place (the right 45 %) then shows the field and the colour bar, not ImGui's
    // window colours.
    save_settings("screenshots_folder = " + dir + "/shots\n");
    const KeyRun session =
        run_keys("--window 480x300 --model heat --scenario two-heaters --grid 32",
                 "Tab@300 F12@600 close@800");
    ASSERT_TRUE(session.ended_cleanly());
    const auto shots = files_in(dir + "/shots");
    ASSERT_FALSE(shots.empty()) << "F12 wrote no screenshot: " << session.output;
    const Image image = load_png(shots.back().string());
    ASSERT_TRUE(image.ok());
    EXPECT_EQ(image.width, 480);
    // The colour bar (its 16 px strip 80 px from the right edge) is at the window's right side,
    // where the panel was: the viewport is the whole window.
    std::set<unsigned> strip;
    for (int y = image.height / 4; y < 3 * image.height / 4; ++y) {
        const unsigned char* p = image.pixel(image.width - 72, y);
        strip.insert(p[0] << 16 | p[1] << 8 | p[2]);
    }
    EXPECT_GT(strip.size(), 20u) << "no colour bar where the panel was";
    // Above the bar, where the panel's title bar was: the viewport's background.
    EXPECT_TRUE(is_background(image.pixel(image.width - 20, 5)));
}

TEST_F(Viewer, BenchSimRenderDrawsEveryFrameOffscreen) {
    auto r = run_adilab(
        "--bench sim --scenario two-heaters,drops --grid 32 --steps 3 --repeats 1 "
        "--render 96x64 --report " +
        dir + "/r.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text = read_text(dir + "/r.json");
    // Heat is drawn flat, shallow water in 3-D.
    for (const char* key : {"\"fps_rendered\"", "\"draw_ms_per_frame\"", "\"render_3d\": true",
                            "\"render_3d\": false"})
        EXPECT_NE(text.find(key), std::string::npos) << key << " in " << text;
    EXPECT_EQ(run_adilab("--bench sim --grid 32 --render 96").exit_code, 2);
}

TEST_F(Viewer, BenchSimUiDrawsTheGuisInterfaceOffscreenAndTimesIt) {
    // No window: ImGui's OpenGL3 backend on the headless context, as on the GPU machine.
    auto r = run_adilab(
        "--bench sim --scenario drops --grid 32 --steps 3 --repeats 1 "
        "--render 320x200 --ui --ui-screenshot " +
        dir + "/ui.png --report " + dir + "/r.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text = read_text(dir + "/r.json");
    for (const char* key : {"\"gui_sim_ms\"", "\"gui_draw_ms\"", "\"gui_ui_ms\"",
                            "\"gui_draw_plus_ui_ms\"", "\"gui_fps_wall\"", "\"ui_frames\": 3"})
        EXPECT_NE(text.find(key), std::string::npos) << key << " in " << text;
    const Image image = load_png(dir + "/ui.png");
    ASSERT_TRUE(image.ok());
    ASSERT_EQ(image.width, 320);
    // The side panel (min(400, 0.6 * 320) = 192 px on the right) and the overlay (top left of
    // the viewport) carry ImGui's white text; the 3-D water in the viewport has none in its
    // lower half (no specular highlight reaches pure white over a whole glyph-sized area).
    auto white = [&](int x0, int y0, int x1, int y1) {  // rows from the top
        int n = 0;
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) {
                const unsigned char* p = image.pixel(x, y);
                n += p[0] > 235 && p[1] > 235 && p[2] > 235;
            }
        return n;
    };
    EXPECT_GT(white(320 - 192, 0, 320, 200), 100) << "the side panel's text";
    EXPECT_GT(white(0, 0, 128, 40), 20) << "the overlay's text";
    EXPECT_EQ(run_adilab("--bench sim --grid 32 --ui").exit_code, 2) << "--ui needs --render";
    EXPECT_EQ(run_adilab("--bench sim --grid 32 --render 96x64 --ui-screenshot " + dir + "/x.png")
                  .exit_code,
              2)
        << "--ui-screenshot needs --ui";
}

// --bench sim --terrain with --ui: the GUI's run draws the row's terrain. The island rises out
// of the water in the viewport's lower half, where the flat bottom's run shows water alone; the
// overlay's figures (top left) and the panel (right) are left out of the comparison.
TEST_F(Viewer, BenchSimUiRunsOnTheRowsTerrain) {
    double viewport_sum[2] = {0, 0};
    const char* terrains[2] = {"flat", "island"};
    for (int k = 0; k < 2; ++k) {
        const std::string shot = dir + "/ui_" + terrains[k] + ".png";
        auto r = run_adilab(
            "--bench sim --scenario dam-break --grid 32 --steps 3 --repeats 1 "
            "--render 320x200 --ui --terrain " +
            std::string(terrains[k]) + " --ui-screenshot " + shot);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const Image image = load_png(shot);
        ASSERT_TRUE(image.ok());
        for (int y = 100; y < 200; ++y)
            for (int x = 0; x < 320 - 192; ++x) {
                const unsigned char* p = image.pixel(x, y);
                viewport_sum[k] += p[0] + p[1] + p[2];
            }
    }
    EXPECT_GT(std::abs(viewport_sum[1] - viewport_sum[0]), 0.01 * viewport_sum[0])
        << "the island's run drew the same viewport as the flat bottom's";
}

}  // namespace
}  // namespace adilab::test
