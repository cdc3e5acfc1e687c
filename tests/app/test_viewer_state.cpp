// What the simulation viewer keeps and restores, under Xvfb: presets (shipped, and saved by the
// user with Ctrl+S), the settings file (saved on exit, restored at the next start, stale values
// replaced by defaults with a notice), state files loaded mid-run, and the parameters the panel
// and the command line set (past the fp32 limit, back to their defaults).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "tests/support/viewer.hpp"

namespace adilab::test {
namespace {

TEST_F(Viewer, PresetsLoadAndSettingsRoundTrip) {
    ADILAB_NEED_XVFB();
    // A preset from assets/presets (found beside the executable), the grid overridden.
    auto r =
        run("--preset advection-river --grid 32 --frames 2 "
            "--colormap grayscale --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string saved = saved_settings();
    EXPECT_NE(saved.find("model = advection"), std::string::npos) << saved;
    EXPECT_NE(saved.find("scenario = river"), std::string::npos) << saved;
    EXPECT_NE(saved.find("colormap = 3"), std::string::npos) << saved;
    EXPECT_NE(saved.find("grid = 32"), std::string::npos) << saved;
    auto bad = run("--preset no-such-preset --frames 2");
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("heat-two-heaters"), std::string::npos) << "lists the presets";
}

// Parameters fine on their own but past the fp32 limit together with the grid (the vortex's
// weight grows with it) are a usage error in the viewer as in headless mode: exit 2, named.
TEST_F(Viewer, ParametersPastTheLimitWithTheGridExitTwo) {
    ADILAB_NEED_XVFB();
    const ProcessResult r =
        run("--model advection --scenario vortex --grid 512 --set omega=1000 --frames 2");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("implicit weight"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("usage: adilab"), std::string::npos) << r.output;
}

// --set is checked against the scenario and grid the viewer starts, not the model's first
// scenario: dt 9000 is a weight of 3,836 for the vortex on 64 x 64 (10,800 for the river).
TEST_F(Viewer, ParametersWithinTheLimitOfTheChosenScenarioStart) {
    ADILAB_NEED_XVFB();
    const ProcessResult r =
        run("--model advection --scenario vortex --grid 64 --set dt=9000 --frames 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(Viewer, LoadStateFollowsTheFilesModelGridAndScenario) {
    ADILAB_NEED_XVFB();
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
    auto r =
        run("--model shallow-water --scenario drops --grid 64 --frames 4 "
            "--save-settings --inject 'load@2:" +
            dir + "/water.bin'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string saved = saved_settings();
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
    saved = read_settings(dir + "/config2");
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

TEST_F(Viewer, SettingsRestoreParametersTerrainAndCamera) {
    ADILAB_NEED_XVFB();
    // A first run sets a parameter and a terrain; its settings hold them.
    auto r =
        run("--model shallow-water --scenario drops --terrain island "
            "--set damping=0.01 --grid 32 --frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string saved = saved_settings();
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
    save_settings(edited);
    r = run("--frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    saved = saved_settings();
    EXPECT_EQ(value_of(saved, "model"), "shallow-water") << saved;
    EXPECT_EQ(value_of(saved, "param.damping"), "0.01") << saved;
    EXPECT_EQ(value_of(saved, "terrain"), "island") << saved;
    EXPECT_EQ(value_of(saved, "camera_yaw"), "0.5") << saved;
    EXPECT_EQ(r.output.find("viewer.ini: ignored"), std::string::npos) << r.output;
}

TEST_F(Viewer, StaleOrInvalidSettingsFallBackToDefaultsWithANotice) {
    ADILAB_NEED_XVFB();
    save_settings(
        "model = shallow-water\nscenario = whirlpool\ngrid = 99999\ncolormap = 42\n"
        "param.dt = banana\nparam.nosuch = 1\nparam.g = 1e300\nterrain = moon\n"
        "camera_pitch = nan\ncamera_distance = 3\nview_zoom = -2\nvsync = maybe\n");
    auto r = run("--frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::size_t status = r.output.find("status: viewer.ini: ignored ");
    ASSERT_NE(status, std::string::npos) << r.output;
    const std::string notice = r.output.substr(status, r.output.find('\n', status) - status);
    for (const char* key : {"scenario = whirlpool", "grid = 99999", "colormap = 42",
                            "param.dt = banana", "param.nosuch = 1", "param.g = 1e300",
                            "terrain = moon", "3-D camera", "view_zoom = -2", "vsync = maybe"})
        EXPECT_NE(notice.find(key), std::string::npos) << key << " not in: " << notice;
    EXPECT_NE(notice.find("(defaults used)"), std::string::npos) << notice;
    const std::string saved = saved_settings();
    EXPECT_EQ(value_of(saved, "scenario"), "diagonal-push") << saved;  // the model's first
    EXPECT_EQ(value_of(saved, "grid"), "512") << saved;
    EXPECT_EQ(value_of(saved, "colormap"), "0") << saved;
    EXPECT_EQ(value_of(saved, "param.dt"), "0.050000000000000003") << saved;  // the default, 0.05
    EXPECT_EQ(value_of(saved, "param.nosuch"), "") << saved;
    EXPECT_EQ(value_of(saved, "terrain"), "flat") << saved;
    EXPECT_EQ(value_of(saved, "view_zoom"), "1") << saved;
}

TEST_F(Viewer, RResetsTheTwoDimensionalZoomAndPan) {
    ADILAB_NEED_XVFB();
    ADILAB_NEED_KEY_SENDER();
    const std::string ini = "model = heat\nview_zoom = 4\nview_pan_x = 0.25\nview_pan_y = -0.125\n";
    // Restored as saved without R...
    write_settings(dir + "/still/config", ini);
    auto r = run_viewer(dir + "/still/config", "--grid 32 --frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string saved = read_settings(dir + "/still/config");
    EXPECT_EQ(value_of(saved, "view_zoom"), "4") << saved;
    EXPECT_EQ(value_of(saved, "view_pan_x"), "0.25") << saved;
    // ...and back to the whole domain after R.
    save_settings(ini);
    const KeyRun session =
        run_keys("--window 480x300 --grid 32 --save-settings", "r@300 close@500");
    ASSERT_TRUE(session.ended_cleanly());
    saved = saved_settings();
    EXPECT_EQ(value_of(saved, "view_zoom"), "1") << saved;
    EXPECT_EQ(value_of(saved, "view_pan_x"), "0") << saved;
    EXPECT_EQ(value_of(saved, "view_pan_y"), "0") << saved;
}

TEST_F(Viewer, CtrlSSavesAPresetThatIsListedAndLoadsBack) {
    ADILAB_NEED_XVFB();
    ADILAB_NEED_KEY_SENDER();
    const KeyRun session = run_keys(
        "--window 800x600 --model heat --scenario two-heaters --grid 48 --set "
        "dt=0.5 --colormap inferno",
        "ctrl+s@300 type:warm-plate.2@400 Return@300 close@500");
    ASSERT_TRUE(session.ended_cleanly());
    const std::string path = config + "/adilab/presets/warm-plate.2.preset";
    ASSERT_NE(session.output.find("status: saved preset 'warm-plate.2' to " + path),
              std::string::npos)
        << session.output;
    const std::string preset = read_text(path);
    EXPECT_EQ(value_of(preset, "model"), "heat") << preset;
    EXPECT_EQ(value_of(preset, "scenario"), "two-heaters") << preset;
    EXPECT_EQ(value_of(preset, "grid"), "48") << preset;
    EXPECT_EQ(value_of(preset, "colormap"), "inferno") << preset;
    EXPECT_EQ(value_of(preset, "set.dt"), "0.5") << preset;
    EXPECT_EQ(value_of(preset, "set.c"), "1") << preset;
    for (const auto& entry : files_in(config + "/adilab/presets"))
        EXPECT_EQ(entry.string().find(".tmp-"), std::string::npos) << entry;
    // Listed with the shipped ones: --preset finds it and its values take effect.
    auto r = run("--preset warm-plate.2 --frames 2 --save-settings");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string saved = saved_settings();
    EXPECT_EQ(value_of(saved, "grid"), "48") << saved;
    EXPECT_EQ(value_of(saved, "param.dt"), "0.5") << saved;
    EXPECT_EQ(value_of(saved, "colormap"), "1") << saved;  // inferno
}

TEST_F(Viewer, ResetParametersButtonRestoresTheDefaults) {
    ADILAB_NEED_XVFB();
    ADILAB_NEED_KEY_SENDER();
    // "Reset parameters" is the first row of the Parameters section: in an 800x600 window with
    // heat, at (505, 330).
    const KeyRun session = run_keys(
        "--window 800x600 --model heat --scenario two-heaters "
        "--grid 32 --set dt=0.5 --set c=2 --save-settings",
        "click:505,330@300 close@500");
    ASSERT_TRUE(session.ended_cleanly());
    EXPECT_NE(session.output.find("status: parameters back to their defaults"), std::string::npos)
        << session.output;
    const std::string saved = saved_settings();
    EXPECT_EQ(value_of(saved, "param.dt"), "1") << saved;
    EXPECT_EQ(value_of(saved, "param.c"), "1") << saved;
}

}  // namespace
}  // namespace adilab::test
