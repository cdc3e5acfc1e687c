// The simulation viewer end to end under Xvfb + llvmpipe: scripted GUI runs (--frames) that
// screenshot the viewport, record FPS reports, inject a mouse drag and a minimise. Small grids
// and a small window keep each run to a few seconds on the 2-core CI machine.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "app/gui/phases.hpp"
#include "app/gui/ticks.hpp"
#include "sim/simulation.hpp"
#include "tests/support/gui.hpp"

namespace adilab::test {
namespace {

// A scripted viewer run with its own empty config folder (the user's settings never leak in,
// and the run must not write any).
ProcessResult run_viewer(const std::string& config, const std::string& arguments) {
    return run_adilab_gui("--window 480x300 " + arguments, "1024x768x24",
                          "XDG_CONFIG_HOME='" + config + "' HOME='" + config + "' ");
}

struct Image {
    int width = 0, height = 0;
    std::vector<unsigned char> rgba;
    bool ok() const { return !rgba.empty(); }
};

Image load(const std::string& path) {
    Image image;
    int channels = 0;
    unsigned char* p = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
    if (p == nullptr) return image;
    image.rgba.assign(p, p + 4 * image.width * image.height);
    stbi_image_free(p);
    return image;
}

std::size_t colour_count(const Image& image) {
    std::set<unsigned> colours;
    for (std::size_t i = 0; i + 3 < image.rgba.size(); i += 4)
        colours.insert(image.rgba[i] << 16 | image.rgba[i + 1] << 8 | image.rgba[i + 2]);
    return colours.size();
}

// Mean absolute difference per channel, 0..255.
double difference(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height) return 255;
    double sum = 0;
    for (std::size_t i = 0; i < a.rgba.size(); ++i) sum += std::abs(a.rgba[i] - b.rgba[i]);
    return sum / static_cast<double>(a.rgba.size());
}

TEST(Viewer, EachModelDrawsAMovingNonFlatPictureOfItsOwn) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-models");
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
        const std::string final = dir + "/" + model + "-last.png";
        auto r = run_viewer(dir + "/config", options +
                                                 " --grid 64 --frames 12 --screenshot-area viewport"
                                                 " --first-screenshot " +
                                                 first + " --screenshot " + final);
        ASSERT_EQ(r.exit_code, 0) << model << ": " << r.output;
        Image a = load(first), b = load(final);
        ASSERT_TRUE(a.ok() && b.ok()) << model << ": screenshots not readable";
        EXPECT_GT(colour_count(b), 20u) << model << ": the last frame is (nearly) flat";
        // The fields evolve over 11 steps: a visible change, not round-off (> 0.05 of a level).
        EXPECT_GT(difference(a, b), 0.05) << model << ": the picture did not change";
        last[model] = std::move(b);
    }
    EXPECT_GT(difference(last["heat"], last["advection"]), 2.0);
    EXPECT_GT(difference(last["heat"], last["shallow-water"]), 2.0);
    EXPECT_GT(difference(last["advection"], last["shallow-water"]), 2.0);
    EXPECT_FALSE(std::filesystem::exists(dir + "/config/adilab/viewer.ini"))
        << "a scripted run must not write the user's settings";
}

TEST(Viewer, RecordingHasEveryFieldAndOneLinePerFrame) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-record");
    const int frames = 15;
    auto r = run_viewer(dir + "/config",
                        "--model heat --scenario two-heaters --grid 64 "
                        "--steps-per-frame 2 --frames " +
                            std::to_string(frames) + " --record " + dir + "/reports");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::filesystem::path csv, json;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/reports")) {
        if (e.path().extension() == ".csv") csv = e.path();
        if (e.path().extension() == ".json") json = e.path();
    }
    ASSERT_FALSE(csv.empty() || json.empty()) << "no CSV/JSON in the reports folder";
    EXPECT_TRUE(csv.filename().string().starts_with("adilab-fps-2")) << csv << " not timestamped";
    EXPECT_NE(r.output.find(csv.string()), std::string::npos) << "the path is not reported";

    std::istringstream lines(read_text(csv));
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "frame,t_s,frame_ms,sim_ms,render_ms,steps");
    int count = 0;
    double previous_t = 0;
    while (std::getline(lines, line)) {
        ++count;
        double t = 0, frame_ms = 0, sim_ms = 0, render_ms = 0;
        int frame = 0, steps = 0;
        ASSERT_EQ(std::sscanf(line.c_str(), "%d,%lf,%lf,%lf,%lf,%d", &frame, &t, &frame_ms, &sim_ms,
                              &render_ms, &steps),
                  6)
            << line;
        EXPECT_EQ(frame, count);
        EXPECT_GT(t, previous_t) << "time must increase";
        EXPECT_GT(frame_ms, 0);
        EXPECT_GE(sim_ms, 0);
        EXPECT_GE(render_ms, 0);
        EXPECT_EQ(steps, 2);
        previous_t = t;
    }
    EXPECT_EQ(count, frames);

    const std::string text = read_text(json);
    for (const char* key : {"renderer", "gl_version", "model", "scenario", "grid", "solver",
                            "steps_per_frame", "fps_mean", "fps_median", "fps_p5", "fps_p95",
                            "frame_ms_median", "steps_per_s", "duration_s"})
        EXPECT_NE(text.find(std::string("\"") + key + "\":"), std::string::npos) << key;
    auto number = [&](const std::string& key) {
        const auto at = text.find("\"" + key + "\":");
        return at == std::string::npos ? -1.0 : std::atof(text.c_str() + at + key.size() + 3);
    };
    EXPECT_NE(text.find("\"model\": \"heat\""), std::string::npos);
    EXPECT_EQ(number("grid"), 64);
    EXPECT_EQ(number("steps_per_frame"), 2);
    EXPECT_GT(number("fps_mean"), 0);
    EXPECT_LE(number("fps_p5"), number("fps_median"));
    EXPECT_LE(number("fps_median"), number("fps_p95"));
    // Two steps every frame: steps/s is twice the frame rate.
    EXPECT_NEAR(number("steps_per_s"), 2 * number("fps_mean"), 1e-6 * number("steps_per_s"));
    EXPECT_GT(number("duration_s"), 0);
}

TEST(Viewer, MouseDragPaintsTheFieldAndSettingsAreRead) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-drag");
    // The persisted settings choose the grayscale colormap (id 3): every field pixel is grey.
    std::filesystem::create_directories(dir + "/config/adilab");
    std::ofstream(dir + "/config/adilab/viewer.ini") << "colormap = 3\nbrush_radius = 4\n";
    // `free` heat starts uniform: flat until the drag at frame 2 paints a stroke across it.
    auto r = run_viewer(dir + "/config",
                        "--model heat --scenario free --grid 64 --frames 4 --screenshot-area "
                        "viewport --inject 'drag@2:0.2,0.5:0.6,0.5' --first-screenshot " +
                            dir + "/before.png --screenshot " + dir + "/after.png");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Image before = load(dir + "/before.png"), after = load(dir + "/after.png");
    ASSERT_TRUE(before.ok() && after.ok());
    EXPECT_GT(difference(before, after), 1.0) << "the drag did not change the field";
    EXPECT_GT(colour_count(after), colour_count(before));
    // The field area: left of the colour bar's 90 px (whose labels are anti-aliased text).
    std::size_t coloured = 0;
    for (std::size_t i = 0; i + 3 < after.rgba.size(); i += 4)
        coloured +=
            int(i / 4 % std::size_t(after.width)) < after.width - 90 &&
            !(after.rgba[i] == after.rgba[i + 1] && after.rgba[i + 1] == after.rgba[i + 2]) &&
            // the viewport's background (0.08, 0.09, 0.11) around the domain
            !(after.rgba[i] == 20 && after.rgba[i + 1] == 23 && after.rgba[i + 2] == 28);
    EXPECT_EQ(coloured, 0u) << "the grayscale setting was not applied";
}

TEST(Viewer, MinimiseAndResizeDoNotCrash) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-resize");
    auto r = run_viewer(dir + "/config",
                        "--model shallow-water --scenario drops --grid 64 --frames 12 "
                        "--inject 'resize@3:0x0;resize@6:320x200;resize@8:520x330' "
                        "--screenshot " +
                            dir + "/after.png");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    Image after = load(dir + "/after.png");
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after.width, 520);  // the last resize took effect
    EXPECT_EQ(after.height, 330);
    EXPECT_GT(colour_count(after), 20u);
}

TEST(Viewer, PresetsLoadAndSettingsRoundTrip) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-settings");
    // A preset from assets/presets (found beside the executable), the grid overridden.
    auto r = run_viewer(dir + "/config",
                        "--preset advection-river --grid 32 --frames 2 "
                        "--colormap grayscale --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string saved = read_text(dir + "/config/adilab/viewer.ini");
    EXPECT_NE(saved.find("model = advection"), std::string::npos) << saved;
    EXPECT_NE(saved.find("scenario = river"), std::string::npos) << saved;
    EXPECT_NE(saved.find("colormap = 3"), std::string::npos) << saved;
    EXPECT_NE(saved.find("grid = 32"), std::string::npos) << saved;
    auto bad = run_viewer(dir + "/config", "--preset no-such-preset --frames 2");
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("heat-two-heaters"), std::string::npos) << "lists the presets";
}

TEST(Viewer, BenchSimRenderDrawsEveryFrameOffscreen) {
    const std::string dir = temp_folder("viewer-bench-render");
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

TEST(Viewer, BenchSimUiDrawsTheGuisInterfaceOffscreenAndTimesIt) {
    // No window: ImGui's OpenGL3 backend on the headless context, as on the GPU machine.
    const std::string dir = temp_folder("viewer-bench-ui");
    auto r = run_adilab(
        "--bench sim --scenario drops --grid 32 --steps 3 --repeats 1 "
        "--render 320x200 --ui --ui-screenshot " +
        dir + "/ui.png --report " + dir + "/r.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text = read_text(dir + "/r.json");
    for (const char* key : {"\"gui_sim_ms\"", "\"gui_draw_ms\"", "\"gui_ui_ms\"",
                            "\"gui_draw_plus_ui_ms\"", "\"gui_fps_wall\"", "\"ui_frames\": 3"})
        EXPECT_NE(text.find(key), std::string::npos) << key << " in " << text;
    const Image image = load(dir + "/ui.png");
    ASSERT_TRUE(image.ok());
    ASSERT_EQ(image.width, 320);
    // The side panel (min(400, 0.6 * 320) = 192 px on the right) and the overlay (top left of
    // the viewport) carry ImGui's white text; the 3-D water in the viewport has none in its
    // lower half (no specular highlight reaches pure white over a whole glyph-sized area).
    auto white = [&](int x0, int y0, int x1, int y1) {  // rows from the top
        int n = 0;
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) {
                const unsigned char* p = &image.rgba[4 * (std::size_t(y) * image.width + x)];
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

// Parameters fine on their own but past the fp32 limit together with the grid (the vortex's
// weight grows with it) are a usage error in the viewer as in headless mode: exit 2, named.
TEST(Viewer, ParametersPastTheLimitWithTheGridExitTwo) {
    ADILAB_NEED_XVFB();
    const std::string config = temp_folder("viewer-limit") + "/config";
    const ProcessResult r =
        run_adilab_gui("--model advection --scenario vortex --grid 512 --set omega=1000 --frames 2",
                       "1024x768x24", "XDG_CONFIG_HOME='" + config + "' HOME='" + config + "' ");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("implicit weight"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("usage: adilab"), std::string::npos) << r.output;
}

TEST(Viewer, InstabilityPausesNamesTheStepAndNothingIsDrawnFromNaN) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-unstable");
    // A river state at step 0 whose field holds a NaN (a good state with one value of its field
    // buffer overwritten), loaded by the viewer at its first frame (Load state): the first step
    // spreads it. (Parameters that would blow up are refused before they run:
    // sim/simulation.hpp, check_parameters.)
    const std::string state = dir + "/nan.state";
    ASSERT_EQ(run_adilab("--headless --model advection --scenario river --grid 32 --steps 0 --set "
                         "initial_concentration=0.25 --save-state " +
                         state)
                  .exit_code,
              0);
    {
        std::string bytes = read_text(state);
        const std::string field = "buffer C " + std::to_string(32 * 32 * 4) + "\n";
        const std::size_t at = bytes.find(field);
        ASSERT_NE(at, std::string::npos);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(&bytes[at + field.size() + 4 * (5 * 32 + 7)], &nan, sizeof nan);
        std::ofstream(state, std::ios::binary) << bytes;
    }
    const std::string params =
        "--model advection --scenario river --grid 32 --inject load@1:" + state;
    const ProcessResult headless =
        run_adilab("--headless --load-state " + state + " --model advection --steps 20");
    ASSERT_EQ(headless.exit_code, 1) << headless.output;
    const std::string marker = " at step ";
    const std::size_t at = headless.output.find(marker);
    ASSERT_NE(at, std::string::npos) << headless.output;
    const int bad_step = std::atoi(headless.output.c_str() + at + marker.size());
    ASSERT_EQ(bad_step, 1);

    const std::string config = dir + "/config";
    auto r = run_adilab_gui(
        "--window 800x400 " + params + " --frames 20 --screenshot-area viewport --screenshot " +
            dir + "/shot.png --record " + dir + "/rec",
        "1024x768x24", "XDG_CONFIG_HOME='" + config + "' HOME='" + config + "' ");
    // The scripted run ends with an error that names the step the GPU flagged.
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("instability: C became NaN or infinite"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("at step " + std::to_string(bad_step) + ". Paused"), std::string::npos)
        << r.output;

    // Paused: the recording's steps column stops (the check runs on the first frame, then
    // every 0.25 s), at or after the bad step.
    std::string csv;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/rec"))
        if (entry.path().extension() == ".csv") csv = entry.path().string();
    ASSERT_FALSE(csv.empty());
    std::istringstream lines(read_text(csv));
    std::string line;
    std::getline(lines, line);  // header
    std::vector<int> steps;
    while (std::getline(lines, line))
        steps.push_back(std::atoi(line.c_str() + line.rfind(',') + 1));
    ASSERT_EQ(steps.size(), 20u);
    int total = 0;
    for (int k : steps) total += k;
    EXPECT_GE(total, bad_step);
    // The check reads the GPU's flag every 0.25 s, not every frame (a read-back per frame would
    // stall the pipeline), so on a fast run the pause may come only at the last frames; once a
    // frame has stopped stepping, every later one must stay stopped.
    bool paused = false;
    for (std::size_t f = 0; f < steps.size(); ++f) {
        if (paused) {
            EXPECT_EQ(steps[f], 0) << "frame " << f + 1 << " stepped while paused";
        }
        paused = paused || (f > 0 && steps[f] == 0);
    }

    // Nothing drawn from NaN: the domain (440x400 viewport: the panel takes 45 % of 800 px; 90 px
    // for the bar: a 350x350 square 25 px from the top) is all grey (the checker; the white
    // arrows keep it grey).
    const Image shot = load(dir + "/shot.png");
    ASSERT_TRUE(shot.ok());
    ASSERT_EQ(shot.width, 440);
    std::set<int> greys;
    for (int y = 49; y < 351; ++y)
        for (int x = 3; x < 307; ++x) {
            const unsigned char* p = &shot.rgba[4 * (std::size_t(y) * shot.width + x)];
            ASSERT_TRUE(p[0] == p[1] && p[1] == p[2])
                << "pixel (" << x << ", " << y << ") coloured " << int(p[0]) << "," << int(p[1])
                << "," << int(p[2]);
            greys.insert(p[0]);
        }
    EXPECT_TRUE(greys.count(64) && greys.count(89)) << "the two checker greys (0.25, 0.35)";
}

TEST(Viewer, RealKeyPressesPauseAndStepAndTheWindowCloses) {
    ADILAB_NEED_XVFB();
#ifndef ADILAB_XKEY_EXE
    GTEST_SKIP() << "libX11's headers (libx11-dev) were missing at configure time: no key sender";
#else
    const std::string dir = temp_folder("viewer-keys");
    const std::string config = dir + "/config";
    // adilab runs until its window is closed; meanwhile real X events reach its window through
    // the X server: Space (pause), S twice (one step each), then WM_DELETE_WINDOW. The keys
    // start once the first frame is on screen (its screenshot exists: shader compiles are done;
    // a key pressed and released within one frame would be lost, ImGui 1.86 has no input
    // queue). `timeout` bounds the run should the close request be lost.
    const std::string script = dir + "/keys.sh";
    std::ofstream(script) << "timeout -k 5 120 " << gui_program()
                          << " --window 480x300 --model heat"
                          << " --scenario two-heaters --grid 32 --frames 100000 --record '" << dir
                          << "/rec' --first-screenshot '" << dir << "/first.png' &\npid=$!\n'"
                          << ADILAB_XKEY_EXE << "' --after '" << dir << "/first.png' adilab "
                          << "space@500 s@500 s@500 close@500\necho \"keys=$?\"\n"
                          << "wait $pid\necho \"adilab=$?\"\n";
    const auto lock = std::filesystem::temp_directory_path() / "adilab-xvfb.lock";
    const ProcessResult r =
        run_command("XDG_CONFIG_HOME='" + config + "' HOME='" + config + "' flock -o -w 600 '" +
                    lock.string() + "' xvfb-run -a -s '-screen 0 1024x768x24' sh '" + script + "'");
    ASSERT_NE(r.output.find("keys=0"), std::string::npos) << r.output;
    ASSERT_NE(r.output.find("adilab=0"), std::string::npos) << "closed cleanly: " << r.output;
    std::string csv;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/rec"))
        if (entry.path().extension() == ".csv") csv = entry.path().string();
    ASSERT_FALSE(csv.empty()) << "the recording is written when the window closes";
    std::istringstream lines(read_text(csv));
    std::string line;
    std::getline(lines, line);  // header
    std::string steps;          // one digit per frame: the steps it took
    while (std::getline(lines, line)) steps += line.substr(line.rfind(',') + 1);
    // Playing (1 step a frame) until Space, then paused (0) but for the two frames S stepped.
    const std::size_t paused = steps.find('0');
    ASSERT_NE(paused, std::string::npos) << "Space never paused: " << steps;
    EXPECT_GT(paused, 0u) << "it played before Space";
    const std::string after = steps.substr(paused);
    EXPECT_EQ(std::count(after.begin(), after.end(), '1'), 2) << "S, S: " << steps;
    EXPECT_EQ(after.find_first_not_of("01"), std::string::npos) << steps;
    EXPECT_EQ(after.back(), '0') << steps;
#endif
}

TEST(Viewer, LoadStateFollowsTheFilesModelGridAndScenario) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-load-state");
    // States of two models on two grids, written headless.
    ASSERT_EQ(
        run_adilab("--headless --model shallow-water --scenario dam-break --grid 32 --steps 3 "
                   "--save-state " +
                   dir + "/water.bin")
            .exit_code,
        0);
    ASSERT_EQ(run_adilab("--headless --model heat --scenario free --grid 48 --steps 2 "
                         "--save-state " +
                         dir + "/heat.bin")
                  .exit_code,
              0);
    // On 64^2 drops, load the 32^2 dam break: the panel's model, scenario and grid follow (the
    // settings saved on exit are what the panel held), and the status line says what loaded.
    auto r = run_viewer(dir + "/config",
                        "--model shallow-water --scenario drops --grid 64 --frames 4 "
                        "--save-settings --inject 'load@2:" +
                            dir + "/water.bin'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string saved = read_text(dir + "/config/adilab/viewer.ini");
    EXPECT_NE(saved.find("scenario = dam-break"), std::string::npos) << saved;
    EXPECT_NE(saved.find("grid = 32"), std::string::npos) << saved;
    EXPECT_NE(r.output.find("status: loaded " + dir +
                            "/water.bin: shallow-water, dam-break, 32 x 32, step 3"),
              std::string::npos)
        << r.output;
    // A heat state into shallow water: the model changes with it, no error.
    r = run_viewer(dir + "/config2",
                   "--model shallow-water --scenario drops --grid 64 --frames 4 "
                   "--save-settings --inject 'load@2:" +
                       dir + "/heat.bin'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    saved = read_text(dir + "/config2/adilab/viewer.ini");
    EXPECT_NE(saved.find("model = heat"), std::string::npos) << saved;
    EXPECT_NE(saved.find("scenario = free"), std::string::npos) << saved;
    EXPECT_NE(saved.find("grid = 48"), std::string::npos) << saved;
    // A missing file: the full path and the operating system's reason; the run goes on.
    r = run_viewer(dir + "/config3",
                   "--model heat --grid 32 --frames 3 --inject 'load@2:" + dir + "/missing.bin'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("status: cannot read state file '" + dir +
                            "/missing.bin': No such file or directory"),
              std::string::npos)
        << r.output;
}

TEST(Viewer, ViewportCaptureRightAfterResetHasTheColourBarsTicks) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-colour-bar");
    // Frame 1 is the reset state: two heaters at 1 K in a 0 K plate. The bar's labels (ImGui
    // text, light grey) must be in the viewport capture, beside the bar at the right.
    auto r = run_viewer(dir + "/config",
                        "--model heat --scenario two-heaters --grid 64 --frames 2 "
                        "--screenshot-area viewport --first-screenshot " +
                            dir + "/first.png");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const Image image = load(dir + "/first.png");
    ASSERT_TRUE(image.ok());
    int text = 0;  // light grey pixels right of the bar (the labels' 60 px), not the field
    for (int y = 0; y < image.height; ++y)
        for (int x = image.width - 62; x < image.width; ++x) {
            const unsigned char* p = &image.rgba[4 * (std::size_t(y) * image.width + x)];
            text += p[0] > 150 && p[0] == p[1] && p[1] == p[2];
        }
    EXPECT_GT(text, 30) << "no tick labels in the viewport capture";
}

#ifdef ADILAB_XKEY_EXE
// Runs adilab (its own arguments) until its window closes, while adilab_test_xkey plays `keys`
// once the first frame is on screen; returns the recording's rows (frame_ms, steps).
struct Row {
    double frame_ms = 0;
    int steps = 0;
};
std::vector<Row> run_with_keys(const std::string& dir, const std::string& arguments,
                               const std::string& keys, const std::string& screen,
                               std::string* output) {
    const std::string config = dir + "/config";
    const std::string script = dir + "/keys.sh";
    std::ofstream(script) << "timeout -k 5 120 " << gui_program() << " " << arguments
                          << " --frames 100000 --record '" << dir << "/rec' --first-screenshot '"
                          << dir << "/first.png' &\npid=$!\n'" << ADILAB_XKEY_EXE << "' --after '"
                          << dir << "/first.png' adilab " << keys << "\necho \"keys=$?\"\n"
                          << "wait $pid\necho \"adilab=$?\"\n";
    const auto lock = std::filesystem::temp_directory_path() / "adilab-xvfb.lock";
    const ProcessResult r = run_command(
        "XDG_CONFIG_HOME='" + config + "' HOME='" + config + "' flock -o -w 600 '" + lock.string() +
        "' xvfb-run -a -s '-screen 0 " + screen + "' sh '" + script + "'");
    *output = r.output;
    std::vector<Row> rows;
    if (!std::filesystem::is_directory(dir + "/rec")) return rows;
    std::string csv;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/rec"))
        if (entry.path().extension() == ".csv") csv = entry.path().string();
    std::istringstream lines(read_text(csv));
    std::string line;
    std::getline(lines, line);  // header: frame,t_s,frame_ms,sim_ms,render_ms,steps
    while (std::getline(lines, line)) {
        Row row;
        int frame = 0;
        double t = 0, sim = 0, render = 0;
        if (std::sscanf(line.c_str(), "%d,%lf,%lf,%lf,%lf,%d", &frame, &t, &row.frame_ms, &sim,
                        &render, &row.steps) == 6)
            rows.push_back(row);
    }
    return rows;
}
#endif

TEST(Viewer, QuickKeyTapsAtLowFrameRatesAreEachCounted) {
    ADILAB_NEED_XVFB();
#ifndef ADILAB_XKEY_EXE
    GTEST_SKIP() << "libX11's headers (libx11-dev) were missing at configure time: no key sender";
#else
    // The 3-D water, ray-cast per pixel over a large viewport on llvmpipe, gives frames of tens
    // to hundreds of milliseconds. Space pauses, then ten S taps of 10 ms each, 30 ms apart:
    // several fall inside one frame, and with ImGui 1.86 sampling keys once a frame most were
    // lost. Every tap must be one step.
    const std::string dir = temp_folder("viewer-taps");
    std::string keys = "space@300";
    for (int k = 0; k < 10; ++k) keys += std::string(" s/10@") + (k == 0 ? "400" : "30");
    keys += " close@2500";
    std::string output;
    const auto rows =
        run_with_keys(dir, "--window 1000x700 --model shallow-water --scenario drops --grid 128",
                      keys, "1024x768x24", &output);
    ASSERT_NE(output.find("keys=0"), std::string::npos) << output;
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    ASSERT_FALSE(rows.empty()) << output;
    std::size_t paused = 0;
    while (paused < rows.size() && rows[paused].steps > 0) ++paused;
    ASSERT_LT(paused, rows.size()) << "Space never paused";
    int after = 0;
    double slowest = 0;
    for (std::size_t f = paused; f < rows.size(); ++f) {
        after += rows[f].steps;
        slowest = std::max(slowest, rows[f].frame_ms);
    }
    EXPECT_EQ(after, 10) << "ten taps, ten steps (slowest frame " << slowest << " ms)";
#endif
}

TEST(Viewer, TypedStepsPerFrameIsClampedAndFramesStayShort) {
    ADILAB_NEED_XVFB();
#ifndef ADILAB_XKEY_EXE
    GTEST_SKIP() << "libX11's headers (libx11-dev) were missing at configure time: no key sender";
#else
    // Ctrl+click on "Steps / frame" (its place in an 800x600 window: the panel's sixth row) and
    // type 100000. The field clamps it to the command line's 1000, and the viewer takes no more
    // steps a frame than fit in ~100 ms: the window keeps answering (the close request is
    // served within the run's timeout), where before it froze for over a minute.
    const std::string dir = temp_folder("viewer-typed-steps");
    std::string output;
    const auto rows = run_with_keys(
        dir,
        "--window 800x600 --model heat --scenario two-heaters --grid 64 "
        "--save-settings",
        "ctrlclick:530,204@300 type:100000@200 Return@100 close@4000", "1024x768x24", &output);
    ASSERT_NE(output.find("keys=0"), std::string::npos) << output;
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    ASSERT_FALSE(rows.empty()) << output;
    const std::string saved = read_text(dir + "/config/adilab/viewer.ini");
    EXPECT_NE(saved.find("steps_per_frame = 1000\n"), std::string::npos)
        << "typed 100000: " << saved;
    int most = 0;
    std::vector<double> frame_ms;
    std::string trace;
    for (const Row& row : rows) {
        most = std::max(most, row.steps);
        if (row.steps > 8) frame_ms.push_back(row.frame_ms);
        trace += std::to_string(row.steps) + ":" + std::to_string(int(row.frame_ms)) + " ";
    }
    // More than the 8 steps a frame starts from after a reset: the typed value took effect,
    // and the steps grew as far as the budget allows on this machine.
    EXPECT_GT(most, 8) << trace;
    EXPECT_LE(most, 1000) << trace;
    ASSERT_FALSE(frame_ms.empty()) << trace;
    std::sort(frame_ms.begin(), frame_ms.end());
    // Frames of the capped steps: about the 100 ms budget; the median leaves room for llvmpipe's
    // drawing and a loaded CI machine, far below the seconds 1000 uncapped steps can take.
    EXPECT_LT(frame_ms[frame_ms.size() / 2], 400.0) << trace;
#endif
}

TEST(Viewer, TabHidesTheInterfaceForACleanCapture) {
    ADILAB_NEED_XVFB();
#ifndef ADILAB_XKEY_EXE
    GTEST_SKIP() << "libX11's headers (libx11-dev) were missing at configure time: no key sender";
#else
    // Tab, then F12 (a whole-window screenshot): the picture fills the window, no panel. The
    // panel's place (the right 45 %) then shows the field and the colour bar, not ImGui's
    // window colours.
    const std::string dir = temp_folder("viewer-hide-ui");
    std::filesystem::create_directories(dir + "/config/adilab");
    std::ofstream(dir + "/config/adilab/viewer.ini")
        << "screenshots_folder = " << dir << "/shots\n";
    std::string output;
    run_with_keys(dir, "--window 480x300 --model heat --scenario two-heaters --grid 32",
                  "Tab@300 F12@600 close@800", "1024x768x24", &output);
    ASSERT_NE(output.find("keys=0"), std::string::npos) << output;
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    std::string shot;
    if (std::filesystem::is_directory(dir + "/shots"))
        for (const auto& entry : std::filesystem::directory_iterator(dir + "/shots"))
            shot = entry.path().string();
    ASSERT_FALSE(shot.empty()) << "F12 wrote no screenshot: " << output;
    const Image image = load(shot);
    ASSERT_TRUE(image.ok());
    EXPECT_EQ(image.width, 480);
    // The colour bar (its 16 px strip 80 px from the right edge) is at the window's right side,
    // where the panel was: the viewport is the whole window.
    std::set<unsigned> strip;
    for (int y = image.height / 4; y < 3 * image.height / 4; ++y) {
        const unsigned char* p = &image.rgba[4 * (std::size_t(y) * image.width + image.width - 72)];
        strip.insert(p[0] << 16 | p[1] << 8 | p[2]);
    }
    EXPECT_GT(strip.size(), 20u) << "no colour bar where the panel was";
    // Above the bar, where the panel's title bar was: the viewport's background.
    const unsigned char* corner =
        &image.rgba[4 * (std::size_t(5) * image.width + image.width - 20)];
    EXPECT_EQ(corner[0] << 16 | corner[1] << 8 | corner[2], 20 << 16 | 23 << 8 | 28);
#endif
}

// Video (--record-video with --frames): every frame of the run, at the chosen size.
std::vector<std::filesystem::path> files_in(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> out;
    if (std::filesystem::is_directory(folder))
        for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
            if (entry.is_regular_file()) out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(Viewer, VideoHasEveryFrameAtTheRequestedSizeAsPngFrames) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-video-png");
    auto r = run_viewer(dir + "/config",
                        "--model heat --scenario two-heaters --grid 64 --frames 8 "
                        "--record-video " +
                            dir +
                            "/videos --video-size 320x180 "
                            "--video-fps 24 --video-format png");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("video written to " + dir + "/videos/adilab-video-"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("(8 PNG frames, 320x180 at 24 fps)"), std::string::npos) << r.output;
    const auto frames = files_in(dir + "/videos");
    ASSERT_EQ(frames.size(), 8u) << r.output;
    Image first = load(frames.front().string()), last = load(frames.back().string());
    ASSERT_TRUE(first.ok() && last.ok());
    EXPECT_EQ(first.width, 320);
    EXPECT_EQ(first.height, 180);
    EXPECT_EQ(frames.back().filename(), "frame-000008.png");
    EXPECT_GT(difference(first, last), 0.05) << "the frames follow the simulation";
    EXPECT_GT(colour_count(last), 20u);
}

TEST(Viewer, VideoAsMp4IsPipedToFfmpegOrSaysItWrotePngFrames) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-video-mp4");
    const bool have_ffmpeg = run_command("command -v ffmpeg").exit_code == 0;
    // Without ffmpeg on PATH: PNG frames and a message that says so.
    if (!have_ffmpeg) {
        auto r = run_viewer(dir + "/config", "--model heat --grid 32 --frames 3 --record-video " +
                                                 dir + "/plain --video-size 64x48");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("ffmpeg is not on PATH, so PNG frames instead of an MP4"),
                  std::string::npos)
            << r.output;
        EXPECT_EQ(files_in(dir + "/plain").size(), 3u);
    }
    // A stand-in ffmpeg first on PATH that stores the frames it is piped: adilab's side of the
    // pipe (the raw frames, their count and size, the rename into place), wherever ffmpeg is
    // missing.
    std::filesystem::create_directories(dir + "/bin");
    write_text(dir + "/bin/ffmpeg", "#!/bin/sh\nfor last; do :; done\ncat > \"$last\"\n");
    std::filesystem::permissions(dir + "/bin/ffmpeg", std::filesystem::perms::owner_all);
    auto r = run_adilab_gui("--window 480x300 --model heat --grid 32 --frames 5 --record-video " +
                                dir + "/stand-in --video-size 64x48",
                            "1024x768x24",
                            "XDG_CONFIG_HOME='" + dir + "/config' HOME='" + dir +
                                "/config' PATH='" + dir + "/bin':\"$PATH\" ");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto files = files_in(dir + "/stand-in");
    ASSERT_EQ(files.size(), 1u) << r.output;
    EXPECT_EQ(files[0].extension(), ".mp4");
    EXPECT_EQ(std::filesystem::file_size(files[0]), 5u * 64 * 48 * 4) << "five raw 64x48 frames";
    EXPECT_NE(r.output.find("(5 frames, 64x48 at 30 fps)"), std::string::npos) << r.output;
    if (!have_ffmpeg)
        GTEST_SKIP() << "ffmpeg is not installed: the MP4 was checked with a stand-in that stores "
                        "the piped frames (apt-get install ffmpeg for the real encoder)";
    r = run_viewer(dir + "/config", "--model heat --grid 32 --frames 6 --record-video " + dir +
                                        "/real --video-size 64x48");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    files = files_in(dir + "/real");
    ASSERT_EQ(files.size(), 1u) << r.output;
    EXPECT_EQ(files[0].extension(), ".mp4");
    EXPECT_GT(std::filesystem::file_size(files[0]), 100u);
    if (run_command("command -v ffprobe").exit_code == 0) {
        const ProcessResult probe = run_command(
            "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
            "stream=nb_read_frames,width,height -of csv=p=0 '" +
            files[0].string() + "'");
        EXPECT_NE(probe.output.find("64,48,6"), std::string::npos) << probe.output;
    }
}

TEST(Viewer, F10StartsAndStopsAVideoOfTheSavedSize) {
    ADILAB_NEED_XVFB();
#ifndef ADILAB_XKEY_EXE
    GTEST_SKIP() << "libX11's headers (libx11-dev) were missing at configure time: no key sender";
#else
    const std::string dir = temp_folder("viewer-f10");
    std::filesystem::create_directories(dir + "/config/adilab");
    std::ofstream(dir + "/config/adilab/viewer.ini")
        << "videos_folder = " << dir << "/videos\nvideo_format = png\nvideo_width = 160\n"
        << "video_height = 90\nvideo_fps = 10\n";
    std::string output;
    run_with_keys(dir, "--window 480x300 --model heat --scenario two-heaters --grid 32",
                  "F10@300 F10@1500 close@300", "1024x768x24", &output);
    ASSERT_NE(output.find("keys=0"), std::string::npos) << output;
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    const auto frames = files_in(dir + "/videos");
    ASSERT_FALSE(frames.empty()) << "F10 wrote no video: " << output;
    // At most 10 frames a second of the ~1.5 s between the presses (and the frames it took to
    // see them), however fast the window ran.
    EXPECT_LE(frames.size(), 30u);
    const Image image = load(frames.front().string());
    EXPECT_EQ(image.width, 160);
    EXPECT_EQ(image.height, 90);
    EXPECT_NE(output.find("status: video " + dir + "/videos/adilab-video-"), std::string::npos)
        << "the status line says where: " << output;
#endif
}

// A heat state a few steps after the two heaters switched on (a field that varies across the
// plate), and the same state exported as .npy by the headless mode: what the viewer shows when it
// loads the state paused must be this field, cell for cell.
struct SavedField {
    std::string state;
    sim::NpyArray exported;
};
SavedField heat_state(const std::string& dir) {
    SavedField saved;
    saved.state = dir + "/heat.state";
    EXPECT_EQ(run_adilab("--headless --model heat --scenario two-heaters --grid 64 --steps 40 "
                         "--save-state " +
                         saved.state)
                  .exit_code,
              0);
    EXPECT_EQ(run_adilab("--headless --load-state " + saved.state +
                         " --model heat --steps 0 "
                         "--export " +
                         dir + "/field.npy")
                  .exit_code,
              0);
    saved.exported = sim::read_npy(dir + "/field.npy");
    return saved;
}

// In an 800x600 window the viewport is 440x600 (the panel takes 45 %), a 64^2 field fills a
// 350 px square (the colour bar keeps 90 px) from window y 125 to 475: cell (i, j) is centred at
// window pixel (5.47 (i + 0.5), 475 - 5.47 (j + 0.5)).
constexpr double kCellPx = 350.0 / 64;

TEST(Viewer, CrossSectionPlotsTheFieldAlongTheDraggedLine) {
    ADILAB_NEED_XVFB();
#ifndef ADILAB_XKEY_EXE
    GTEST_SKIP() << "libX11's headers (libx11-dev) were missing at configure time: no key sender";
#else
    const std::string dir = temp_folder("viewer-cross-section");
    const SavedField saved = heat_state(dir);
    ASSERT_EQ(saved.exported.nx, 64);
    std::filesystem::create_directories(dir + "/config/adilab");
    std::ofstream(dir + "/config/adilab/viewer.ini") << "line_csv_path = " << dir << "/line.csv\n";
    // Ctrl+drag from (40, 140) to (330, 400), then a click on the plot's "Save CSV" (the plot is
    // pinned 10 px inside the viewport's bottom left: 12 font heights tall, its first button at
    // its top left).
    std::string output;
    run_with_keys(dir,
                  "--window 800x600 --model heat --grid 64 --paused --inject load@1:" + saved.state,
                  "ctrldrag:40,140:330,400@400 click:40,451@800 close@800", "1024x768x24", &output);
    ASSERT_NE(output.find("keys=0"), std::string::npos) << output;
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    ASSERT_NE(output.find("status: cross-section " + dir + "/line.csv"), std::string::npos)
        << output;
    std::istringstream lines(read_text(dir + "/line.csv"));
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "distance_m,i,j,value");
    struct Sample {
        double distance;
        int i, j;
        float value;
    };
    std::vector<Sample> samples;
    while (std::getline(lines, line)) {
        Sample p{};
        ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%d,%d,%f", &p.distance, &p.i, &p.j, &p.value), 4)
            << line;
        samples.push_back(p);
    }
    // One sample per cell along the longer side: the drag spans ~53 columns and ~48 rows.
    ASSERT_GE(samples.size(), 45u);
    ASSERT_LE(samples.size(), 60u);
    // The line's ends are the cells under the drag's ends (within the pointer's last step).
    EXPECT_NEAR(samples.front().i, 40 / kCellPx, 1.5);
    EXPECT_NEAR(samples.front().j, (475 - 140) / kCellPx, 1.5);
    EXPECT_NEAR(samples.back().i, 330 / kCellPx, 1.5);
    EXPECT_NEAR(samples.back().j, (475 - 400) / kCellPx, 1.5);
    double previous = -1;
    std::set<float> distinct;
    for (const Sample& p : samples) {
        ASSERT_TRUE(p.i >= 0 && p.i < 64 && p.j >= 0 && p.j < 64) << p.i << ", " << p.j;
        // The very value the exported field holds in that cell: the plot is the field read back
        // from the GPU, nine digits give a float back bit for bit.
        EXPECT_EQ(p.value, saved.exported.values[std::size_t(p.j) * 64 + std::size_t(p.i)])
            << "cell (" << p.i << ", " << p.j << ")";
        EXPECT_GT(p.distance, previous);
        previous = p.distance;
        distinct.insert(p.value);
    }
    EXPECT_GT(distinct.size(), 10u) << "the line crosses a field that varies";
#endif
}

TEST(Viewer, ProbeShowsTheExportedFieldsValueUnderTheCursor) {
    ADILAB_NEED_XVFB();
#ifndef ADILAB_XKEY_EXE
    GTEST_SKIP() << "libX11's headers (libx11-dev) were missing at configure time: no key sender";
#else
    const std::string dir = temp_folder("viewer-probe");
    const SavedField saved = heat_state(dir);
    ASSERT_EQ(saved.exported.nx, 64);
    // The pointer over cell (20, 33), a flank of the left heater's warm disc, then the window
    // closes; the scripted run prints the probe as the overlay shows it.
    const int i = 20, j = 33;
    const int x = int((i + 0.5) * kCellPx), y = int(475 - (j + 0.5) * kCellPx);
    std::string output;
    run_with_keys(dir,
                  "--window 800x600 --model heat --grid 64 --paused --inject load@1:" + saved.state,
                  "move:" + std::to_string(x) + "," + std::to_string(y) + "@400 close@1000",
                  "1024x768x24", &output);
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    const std::string expected =
        "probe (" + std::to_string(i) + ", " + std::to_string(j) + ") at x = ";
    const std::size_t at = output.find(expected);
    ASSERT_NE(at, std::string::npos) << output;
    const std::size_t equals = output.find(": T = ", at);
    ASSERT_NE(equals, std::string::npos) << output;
    const double shown = std::atof(output.c_str() + equals + 6);
    const float value = saved.exported.values[std::size_t(j) * 64 + i];
    EXPECT_GT(value, 1e-3f) << "a cell the heat has reached";
    // Shown with 7 significant digits: within half a unit of the 7th.
    EXPECT_NEAR(shown, value, 5e-7 * std::abs(value)) << output.substr(at, 120);
#endif
}

TEST(Viewer, ScreenshotAtAChosenSizeIsTheViewWithItsColourBar) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-sized-shot");
    auto r = run_viewer(dir + "/config",
                        "--model heat --scenario two-heaters --grid 64 --frames 3 "
                        "--screenshot " +
                            dir + "/view.png --screenshot-size 400x300");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const Image image = load(dir + "/view.png");
    ASSERT_TRUE(image.ok());
    EXPECT_EQ(image.width, 400);
    EXPECT_EQ(image.height, 300);
    int labels = 0, overlay = 0;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            const unsigned char* p = &image.rgba[4 * (std::size_t(y) * image.width + x)];
            const bool text = p[0] > 150 && p[0] == p[1] && p[1] == p[2];
            labels += text && x >= image.width - 62;
            overlay += text && x < 200 && y < 60;
        }
    EXPECT_GT(labels, 30) << "the colour bar's tick labels";
    EXPECT_EQ(overlay, 0) << "no overlay text in the view";
    EXPECT_EQ(run_adilab("--frames 2 --screenshot-size 400x300").exit_code, 2)
        << "--screenshot-size needs --screenshot";
    EXPECT_EQ(run_adilab("--record-video /tmp").exit_code, 2) << "--record-video needs --frames";
    EXPECT_EQ(run_adilab("--frames 2 --video-format avi").exit_code, 2);
}

// "key = value" of a settings or preset file, or "" when the key is missing.
std::string value_of(const std::string& text, const std::string& key) {
    const std::string prefix = key + " = ";
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with(prefix)) return line.substr(prefix.size());
    return {};
}

TEST(Viewer, RunUntilPausesOnTheStepThatReachesTheTime) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-run-until");
    // dt = 0.5 s and 4 steps a frame: t = 7 s is step 14, reached in the fourth frame's first
    // two steps; the run pauses there however many frames follow.
    auto r = run_viewer(dir + "/config",
                        "--model heat --scenario two-heaters --grid 32 --set dt=0.5 "
                        "--steps-per-frame 4 --run-until 7 --frames 20 --record " +
                            dir + "/rec");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("status: reached t = 7 s at step 14: paused"), std::string::npos)
        << r.output;
    std::string csv;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/rec"))
        if (entry.path().extension() == ".csv") csv = entry.path().string();
    std::istringstream lines(read_text(csv));
    std::string line, steps;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) steps += line.substr(line.rfind(',') + 1);
    EXPECT_EQ(steps.substr(0, 5), "44420") << steps;
    EXPECT_EQ(steps.find_first_not_of('0', 4), std::string::npos) << steps;
    EXPECT_EQ(run_adilab("--frames 2 --run-until -3").exit_code, 2);
    EXPECT_EQ(run_adilab("--frames 2 --run-until soon").exit_code, 2);
}

TEST(Viewer, SettingsRestoreParametersTerrainAndCamera) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-restore");
    const std::string ini = dir + "/config/adilab/viewer.ini";
    // A first run sets a parameter and a terrain; its settings hold them.
    auto r = run_viewer(dir + "/config",
                        "--model shallow-water --scenario drops --terrain island "
                        "--set damping=0.01 --grid 32 --frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string saved = read_text(ini);
    EXPECT_EQ(value_of(saved, "param.damping"), "0.01") << saved;
    EXPECT_EQ(value_of(saved, "terrain"), "island") << saved;
    EXPECT_FALSE(value_of(saved, "camera_distance").empty()) << saved;
    // The user left the 3-D camera turned (as an orbit would); the next start, with no options,
    // restores all three: had it not, it would save the defaults (damping 0, flat, a fitted
    // camera at yaw -0.9).
    std::string edited;
    std::istringstream lines(saved);
    for (std::string line; std::getline(lines, line);)
        edited +=
            (line.starts_with("camera_yaw = ") ? std::string("camera_yaw = 0.5") : line) + "\n";
    write_text(ini, edited);
    r = run_viewer(dir + "/config", "--frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    saved = read_text(ini);
    EXPECT_EQ(value_of(saved, "model"), "shallow-water") << saved;
    EXPECT_EQ(value_of(saved, "param.damping"), "0.01") << saved;
    EXPECT_EQ(value_of(saved, "terrain"), "island") << saved;
    EXPECT_EQ(value_of(saved, "camera_yaw"), "0.5") << saved;
    EXPECT_EQ(r.output.find("viewer.ini: ignored"), std::string::npos) << r.output;
}

TEST(Viewer, StaleOrInvalidSettingsFallBackToDefaultsWithANotice) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-stale");
    std::filesystem::create_directories(dir + "/config/adilab");
    write_text(dir + "/config/adilab/viewer.ini",
               "model = shallow-water\nscenario = whirlpool\ngrid = 99999\ncolormap = 42\n"
               "param.dt = banana\nparam.nosuch = 1\nparam.g = 1e300\nterrain = moon\n"
               "camera_pitch = nan\ncamera_distance = 3\nview_zoom = -2\nvsync = maybe\n");
    auto r = run_viewer(dir + "/config", "--frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::size_t status = r.output.find("status: viewer.ini: ignored ");
    ASSERT_NE(status, std::string::npos) << r.output;
    const std::string notice = r.output.substr(status, r.output.find('\n', status) - status);
    for (const char* key : {"scenario = whirlpool", "grid = 99999", "colormap = 42",
                            "param.dt = banana", "param.nosuch = 1", "param.g = 1e300",
                            "terrain = moon", "3-D camera", "view_zoom = -2", "vsync = maybe"})
        EXPECT_NE(notice.find(key), std::string::npos) << key << " not in: " << notice;
    EXPECT_NE(notice.find("(defaults used)"), std::string::npos) << notice;
    const std::string saved = read_text(dir + "/config/adilab/viewer.ini");
    EXPECT_EQ(value_of(saved, "scenario"), "diagonal-push") << saved;  // the model's first
    EXPECT_EQ(value_of(saved, "grid"), "512") << saved;
    EXPECT_EQ(value_of(saved, "colormap"), "0") << saved;
    EXPECT_EQ(value_of(saved, "param.dt"), "0.050000000000000003") << saved;  // the default, 0.05
    EXPECT_EQ(value_of(saved, "param.nosuch"), "") << saved;
    EXPECT_EQ(value_of(saved, "terrain"), "flat") << saved;
    EXPECT_EQ(value_of(saved, "view_zoom"), "1") << saved;
}

#ifdef ADILAB_XKEY_EXE
TEST(Viewer, RResetsTheTwoDimensionalZoomAndPan) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-r-zoom");
    const std::string ini = "model = heat\nview_zoom = 4\nview_pan_x = 0.25\nview_pan_y = -0.125\n";
    // Restored as saved without R...
    std::filesystem::create_directories(dir + "/still/config/adilab");
    write_text(dir + "/still/config/adilab/viewer.ini", ini);
    auto r = run_viewer(dir + "/still/config", "--grid 32 --frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string saved = read_text(dir + "/still/config/adilab/viewer.ini");
    EXPECT_EQ(value_of(saved, "view_zoom"), "4") << saved;
    EXPECT_EQ(value_of(saved, "view_pan_x"), "0.25") << saved;
    // ...and back to the whole domain after R.
    std::filesystem::create_directories(dir + "/config/adilab");
    write_text(dir + "/config/adilab/viewer.ini", ini);
    std::string output;
    run_with_keys(dir, "--window 480x300 --grid 32 --save-settings", "r@300 close@500",
                  "1024x768x24", &output);
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    saved = read_text(dir + "/config/adilab/viewer.ini");
    EXPECT_EQ(value_of(saved, "view_zoom"), "1") << saved;
    EXPECT_EQ(value_of(saved, "view_pan_x"), "0") << saved;
    EXPECT_EQ(value_of(saved, "view_pan_y"), "0") << saved;
}

TEST(Viewer, CtrlSSavesAPresetThatIsListedAndLoadsBack) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-save-preset");
    std::string output;
    run_with_keys(dir,
                  "--window 800x600 --model heat --scenario two-heaters --grid 48 --set dt=0.5 "
                  "--colormap inferno",
                  "ctrl+s@300 type:warm-plate.2@400 Return@300 close@500", "1024x768x24", &output);
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    const std::string path = dir + "/config/adilab/presets/warm-plate.2.preset";
    ASSERT_NE(output.find("status: saved preset 'warm-plate.2' to " + path), std::string::npos)
        << output;
    const std::string preset = read_text(path);
    EXPECT_EQ(value_of(preset, "model"), "heat") << preset;
    EXPECT_EQ(value_of(preset, "scenario"), "two-heaters") << preset;
    EXPECT_EQ(value_of(preset, "grid"), "48") << preset;
    EXPECT_EQ(value_of(preset, "colormap"), "inferno") << preset;
    EXPECT_EQ(value_of(preset, "set.dt"), "0.5") << preset;
    EXPECT_EQ(value_of(preset, "set.c"), "1") << preset;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/config/adilab/presets"))
        EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
    // Listed with the shipped ones: --preset finds it and its values take effect.
    auto r = run_viewer(dir + "/config", "--preset warm-plate.2 --frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string saved = read_text(dir + "/config/adilab/viewer.ini");
    EXPECT_EQ(value_of(saved, "grid"), "48") << saved;
    EXPECT_EQ(value_of(saved, "param.dt"), "0.5") << saved;
    EXPECT_EQ(value_of(saved, "colormap"), "1") << saved;  // inferno
}

TEST(Viewer, ResetParametersButtonRestoresTheDefaults) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-reset-params");
    std::string output;
    // "Reset parameters" is the first row of the Parameters section: in an 800x600 window with
    // heat, at (505, 330).
    run_with_keys(dir,
                  "--window 800x600 --model heat --scenario two-heaters --grid 32 "
                  "--set dt=0.5 --set c=2 --save-settings",
                  "click:505,330@300 close@500", "1024x768x24", &output);
    ASSERT_NE(output.find("adilab=0"), std::string::npos) << output;
    EXPECT_NE(output.find("status: parameters back to their defaults"), std::string::npos)
        << output;
    const std::string saved = read_text(dir + "/config/adilab/viewer.ini");
    EXPECT_EQ(value_of(saved, "param.dt"), "1") << saved;
    EXPECT_EQ(value_of(saved, "param.c"), "1") << saved;
}
#endif

TEST(Viewer, BadScriptedOptionsAreUsageErrors) {
    EXPECT_EQ(run_adilab("--frames 2 --inject 'wiggle@1'").exit_code, 2);
    EXPECT_EQ(run_adilab("--frames 2 --screenshot-area corner").exit_code, 2);
    EXPECT_EQ(run_adilab("--frames 2 --colormap jet").exit_code, 2);
    EXPECT_EQ(run_adilab("--record /tmp").exit_code, 2);
    EXPECT_EQ(run_adilab("--frames 2 --grid 2").exit_code, 2);
    EXPECT_EQ(run_adilab("--frames 2 --grid 9000").exit_code, 2);
    EXPECT_EQ(run_adilab("--frames 2 --steps-per-frame 1001").exit_code, 2);
    EXPECT_EQ(run_adilab("--frames 2 --inject 'load@2:'").exit_code, 2);
    // Numbers in the events are read strictly, the text quoted: no wrap, no truncation.
    for (const std::string bad : {"resize@3:4294967360x200", "drag@99999999999999999999:0,0:1,1",
                                  "drag@2:0.2,0.5x:0.6,0.5", "resize@1:-5x10"}) {
        const ProcessResult r = run_adilab("--frames 2 --inject '" + bad + "'");
        EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
        EXPECT_NE(r.output.find("--inject"), std::string::npos) << bad << "\n" << r.output;
    }
}

TEST(ViewerColourBar, TicksAreRoundValuesInsideTheRange) {
    auto texts = [](double lo, double hi) {
        std::vector<std::string> out;
        for (const gui::Tick& t : gui::nice_ticks(lo, hi)) {
            EXPECT_GE(t.value, lo - 1e-12 * std::abs(hi - lo));
            EXPECT_LE(t.value, hi + 1e-12 * std::abs(hi - lo));
            out.push_back(t.text);
        }
        return out;
    };
    using V = std::vector<std::string>;
    // Steps of 1, 2 or 5 times a power of ten, with the digits the step needs.
    EXPECT_EQ(texts(0.0, 1.0), (V{"0", "0.5", "1.0"}));
    EXPECT_EQ(texts(1.0, 1.2), (V{"1.00", "1.05", "1.10", "1.15", "1.20"}));
    EXPECT_EQ(texts(5.279, 7.039), (V{"5.5", "6.0", "6.5", "7.0"})) << "not 5.279, 7.039";
    EXPECT_EQ(texts(0.0, 3e6), (V{"0", "1e+06", "2e+06", "3e+06"}));
    // The denormal range that was clipped to "-1.401e-4": short labels in exponent form.
    EXPECT_EQ(texts(-1.401e-45, 0.0), (V{"-1.0e-45", "-5.0e-46", "0"}));
    EXPECT_TRUE(gui::nice_ticks(2.0, 2.0).empty()) << "a flat range has no ticks of its own";
    // Log scale: decades, and 2 and 5 times them within two decades.
    std::vector<std::string> decades, fine;
    for (const gui::Tick& t : gui::log_ticks(1e-4, 1.0)) decades.push_back(t.text);
    for (const gui::Tick& t : gui::log_ticks(0.15, 3.0)) fine.push_back(t.text);
    EXPECT_EQ(decades, (V{"0.0001", "0.001", "0.01", "0.1", "1"}));
    EXPECT_EQ(fine, (V{"0.2", "0.5", "1", "2"}));
}

// The overlay's time per phase, end to end under Xvfb: the frame's parts as its lines show them
// (printed at the end of a scripted run). Its first phase read 0.000 ms here (llvmpipe's query
// marks all took the time of the next flush); now both sweeps read their work and the lines add
// up to the frame.
TEST(ViewerOverlay, APhasesFrameHasBothSweepsAndAddsUpToTheFrame) {
    ADILAB_NEED_XVFB();
    const std::string dir = temp_folder("viewer-phases");
    auto r = run_viewer(dir + "/config", "--model heat --scenario free --grid 128 --frames 30");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::size_t line = r.output.find("phases: frame ");
    ASSERT_NE(line, std::string::npos) << r.output;
    const std::string text = r.output.substr(line, r.output.find('\n', line) - line);
    auto value = [&](const std::string& key) {
        const std::size_t at = text.find(key);
        return at == std::string::npos ? -1.0 : std::atof(text.c_str() + at + key.size());
    };
    const double x = value(" x sweep "), y = value(" y sweep "), draw = value(" draw "),
                 ui = value(" UI "), other = value(" other "), frame = value(" = ");
    EXPECT_GT(x, 0.0) << text;
    EXPECT_GT(y, 0.0) << text;
    // The same work in x and in y (a square grid, a uniform field).
    EXPECT_GT(x, 0.25 * y) << text;
    EXPECT_GT(y, 0.25 * x) << text;
    EXPECT_GT(draw, 0.0) << text;
    EXPECT_GE(ui, 0.0) << text;
    EXPECT_GT(frame, 0.0) << text;
    // Every part of the same frame: they sum to it (the printed figures are rounded to 1 us).
    EXPECT_NEAR(x + y + draw + ui + other, frame, 0.01) << text;
    if (text.find("(CPU clock)") != std::string::npos) {
        EXPECT_GE(other, 0.0) << text;
    }
}

TEST(ViewerOverlay, PhasesAreNamedAndWrappedTimesAreRefused) {
    using Phase = gl::DispatchProfiler::Phase;
    const std::vector<Phase> frame = {
        {"shaders/sim/heat.comp DIRECTION=0 KERNEL_FUSED=1 LINES=8 CHUNK=8", 0.40, 1},
        {"shaders/sim/heat.comp DIRECTION=1 KERNEL_FUSED=1 LINES=8 CHUNK=8", 0.50, 1},
        {"shaders/sim/brush.comp", 0.01, 1},
        {"shaders/lu/pivot_column.comp", 3.0, 12},  // a benchmark tab's kernel
    };
    const auto named = gui::named_phases(frame);
    ASSERT_EQ(named.size(), 3u);
    EXPECT_EQ(named[0].name, "x sweep");
    EXPECT_EQ(named[1].name, "y sweep");
    EXPECT_EQ(named[2].name, "brush");
    const auto details = gui::shader_phases(frame);
    ASSERT_EQ(details.size(), 3u);
    EXPECT_EQ(details[0].name, "heat.comp DIRECTION=0 KERNEL_FUSED");
    EXPECT_TRUE(gui::phases_valid(frame));
    // The difference of two out-of-order timestamps as an unsigned 64-bit number.
    std::vector<Phase> wrapped = frame;
    wrapped[1].ms = static_cast<double>(std::uint64_t(0) - std::uint64_t(2700000)) * 1e-6;
    EXPECT_FALSE(gui::phases_valid(wrapped));
    wrapped[1].ms = -0.1;
    EXPECT_FALSE(gui::phases_valid(wrapped));
}

}  // namespace
}  // namespace adilab::test
