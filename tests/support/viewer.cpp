#include "tests/support/viewer.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace adilab::test {

namespace {

std::string config_environment(const std::string& config) {
    return "XDG_CONFIG_HOME='" + config + "' HOME='" + config + "' ";
}

}  // namespace

ProcessResult run_viewer(const std::string& config, const std::string& arguments,
                         const std::string& window, const std::string& environment) {
    return run_adilab_gui("--window " + window + " " + arguments, "1024x768x24",
                          config_environment(config) + environment);
}

ViewerCapture run_viewer_capture(const std::string& dir, const std::string& arguments,
                                 const std::string& name) {
    ViewerCapture capture;
    capture.run = run_viewer(dir + "/config", arguments + " --screenshot " + dir + "/" + name);
    capture.image = load_png(dir + "/" + name);
    return capture;
}

std::string settings_path(const std::string& config) {
    return config + "/adilab/viewer.ini";
}

void write_settings(const std::string& config, const std::string& text) {
    std::filesystem::create_directories(config + "/adilab");
    write_text(settings_path(config), text);
}

std::string read_settings(const std::string& config) {
    return read_text(settings_path(config));
}

std::string value_of(const std::string& text, const std::string& key) {
    const std::string prefix = key + " = ";
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with(prefix)) return line.substr(prefix.size());
    return {};
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> out;
    if (std::filesystem::is_directory(folder))
        for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
            if (entry.is_regular_file()) out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::filesystem::path recording_csv(const std::filesystem::path& folder) {
    std::filesystem::path csv;
    if (std::filesystem::is_directory(folder))
        for (const auto& entry : std::filesystem::directory_iterator(folder))
            if (entry.path().extension() == ".csv") csv = entry.path();
    return csv;
}

std::vector<RecordedFrame> read_recording(const std::filesystem::path& folder) {
    std::vector<RecordedFrame> frames;
    const std::filesystem::path csv = recording_csv(folder);
    if (csv.empty()) return frames;
    std::istringstream lines(read_text(csv.string()));
    std::string line;
    std::getline(lines, line);  // header: frame,t_s,frame_ms,sim_ms,render_ms,steps
    while (std::getline(lines, line)) {
        RecordedFrame f;
        if (std::sscanf(line.c_str(), "%d,%lf,%lf,%lf,%lf,%d", &f.frame, &f.t_s, &f.frame_ms,
                        &f.sim_ms, &f.render_ms, &f.steps) == 6)
            frames.push_back(f);
    }
    return frames;
}

std::string steps_per_frame(const std::vector<RecordedFrame>& frames) {
    std::string steps;
    for (const RecordedFrame& f : frames) steps += std::to_string(f.steps);
    return steps;
}

::testing::AssertionResult KeyRun::ended_cleanly() const {
    for (const char* code : {"keys=0", "adilab=0"})
        if (output.find(code) == std::string::npos)
            return ::testing::AssertionFailure() << "no \"" << code << "\" in:\n" << output;
    return ::testing::AssertionSuccess();
}

bool have_key_sender() {
#ifdef ADILAB_XKEY_EXE
    return true;
#else
    return false;
#endif
}

KeyRun run_with_keys(const std::string& dir, const std::string& arguments, const std::string& keys,
                     const std::string& screen) {
    KeyRun run;
#ifdef ADILAB_XKEY_EXE
    const std::string script = dir + "/keys.sh";
    std::ofstream(script) << "timeout -k 5 120 " << gui_program() << " " << arguments
                          << " --frames 100000 --record '" << dir << "/rec' --first-screenshot '"
                          << dir << "/first.png' &\npid=$!\n'" << ADILAB_XKEY_EXE << "' --after '"
                          << dir << "/first.png' adilab " << keys << "\necho \"keys=$?\"\n"
                          << "wait $pid\necho \"adilab=$?\"\n";
    const auto lock = std::filesystem::temp_directory_path() / "adilab-xvfb.lock";
    run.output =
        run_command(config_environment(dir + "/config") + "flock -o -w 600 '" + lock.string() +
                    "' xvfb-run -a -s '-screen 0 " + screen + "' sh '" + script + "'")
            .output;
    run.frames = read_recording(dir + "/rec");
#else
    (void)dir, (void)arguments, (void)keys, (void)screen;
    run.output = "no key sender (libX11's headers were missing at configure time)";
#endif
    return run;
}

Viewer::Viewer()
    : dir(temp_folder(std::string("viewer-") +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name())),
      config(dir + "/config") {}

}  // namespace adilab::test
