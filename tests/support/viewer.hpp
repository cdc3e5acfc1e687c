#pragma once
// The simulation viewer's scripted runs for the GUI tests (tests/app/test_viewer_*.cpp): a run
// under Xvfb with a config folder of its own, its capture loaded, the settings file it reads or
// saves, the FPS recording it writes, and a run driven by real X key and mouse events.
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/gui.hpp"
#include "tests/support/images.hpp"

namespace adilab::test {

// `adilab --window WxH <arguments>` under Xvfb (a 1024x768 screen) with `config` as its
// XDG_CONFIG_HOME and HOME: the user's settings never leak in, and what the run saves lands
// there. `environment` goes before it (e.g. "PATH=... ").
ProcessResult run_viewer(const std::string& config, const std::string& arguments,
                         const std::string& window = "480x300",
                         const std::string& environment = "");

// run_viewer(dir + "/config", arguments + " --screenshot <dir>/<name>") and the screenshot.
struct ViewerCapture {
    ProcessResult run;
    Image image;
};
ViewerCapture run_viewer_capture(const std::string& dir, const std::string& arguments,
                                 const std::string& name = "shot.png");

// The viewer's settings file under a config folder, written before a run or read after one.
std::string settings_path(const std::string& config);
void write_settings(const std::string& config, const std::string& text);
std::string read_settings(const std::string& config);
// The value of "key = value" in a settings or preset file, or "" when the key is missing.
std::string value_of(const std::string& text, const std::string& key);

// The regular files under `folder` (recursively), sorted; none where it does not exist.
std::vector<std::filesystem::path> files_in(const std::filesystem::path& folder);

// The rows of the FPS recording (--record FOLDER) that a run left in `folder`: its CSV's
// frame,t_s,frame_ms,sim_ms,render_ms,steps. Empty where there is none.
struct RecordedFrame {
    int frame = 0;
    double t_s = 0, frame_ms = 0, sim_ms = 0, render_ms = 0;
    int steps = 0;
};
std::filesystem::path recording_csv(const std::filesystem::path& folder);
std::vector<RecordedFrame> read_recording(const std::filesystem::path& folder);
// The steps column as one digit a frame ("44420..."), for runs of at most 9 steps a frame.
std::string steps_per_frame(const std::vector<RecordedFrame>& frames);

// Real X key and mouse events (tests/support/xkey.cpp), built where libX11's headers were found
// at configure time.
bool have_key_sender();
// Runs `adilab <arguments> --frames 100000 --record <dir>/rec --first-screenshot <dir>/first.png`
// with <dir>/config as its config folder until its window closes, while the key sender plays
// `keys` (xkey.cpp's syntax, e.g. "space@300 s@30 close@500") once the first frame is on screen.
// `timeout` bounds the run should the close request be lost. The output ends with "keys=N" and
// "adilab=N", the two programs' exit codes.
struct KeyRun {
    std::string output;
    std::vector<RecordedFrame> frames;  // the recording's rows
    // Both programs exited 0: every event was sent, and adilab closed cleanly when asked to
    // (a failure shows the output).
    ::testing::AssertionResult ended_cleanly() const;
};
KeyRun run_with_keys(const std::string& dir, const std::string& arguments, const std::string& keys,
                     const std::string& screen = "1024x768x24");

// The fixture of the viewer's tests, TEST_F(Viewer, ...): a fresh folder named for the test
// (`dir`) with the runs' config folder inside it (`config`), and the runs above made in them.
class Viewer : public ::testing::Test {
  protected:
    Viewer();
    ProcessResult run(const std::string& arguments, const std::string& window = "480x300",
                      const std::string& environment = "") const {
        return run_viewer(config, arguments, window, environment);
    }
    ViewerCapture capture(const std::string& arguments,
                          const std::string& name = "shot.png") const {
        return run_viewer_capture(dir, arguments, name);
    }
    KeyRun run_keys(const std::string& arguments, const std::string& keys) const {
        return run_with_keys(dir, arguments, keys);
    }
    void save_settings(const std::string& text) const { write_settings(config, text); }
    std::string saved_settings() const { return read_settings(config); }

  public:  // read by every test, set once by the constructor
    const std::string dir, config;
};

}  // namespace adilab::test

#define ADILAB_NEED_KEY_SENDER()                                                           \
    do {                                                                                   \
        if (!::adilab::test::have_key_sender())                                            \
            GTEST_SKIP()                                                                   \
                << "libX11's headers (libx11-dev) were missing at configure time: no key " \
                   "sender";                                                               \
    } while (0)
