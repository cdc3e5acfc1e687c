// The viewer's files: the state file (save, and load with the simulation made to match it), the
// field as .npy, FPS recordings, videos and the screenshots (their names, and the view drawn at a
// chosen size). Failures go to the status line with the operating system's reason.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "app/bench/image.hpp"
#include "app/gui/view_capture.hpp"
#include "app/gui/viewer.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {

// The operating system's reason why `path` cannot be opened for reading or writing ("Permission
// denied", "No such file or directory"), or empty when it can. Called after a failed save or
// load, whose own message names the file but not the cause.
std::string os_reason(const std::filesystem::path& path, bool write) {
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    const int fd =
        write ? ::open(path.c_str(), O_WRONLY | O_CREAT, 0644) : ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    if (write && !existed) std::filesystem::remove(path, ec);
    return {};
}

std::string with_reason(const std::string& message, const std::filesystem::path& path, bool write) {
    const std::string reason = os_reason(path, write);
    return reason.empty() ? message : message + ": " + reason;
}

std::string absolute_text(const std::filesystem::path& path) {
    std::error_code ec;
    const auto full = std::filesystem::absolute(path, ec);
    return (ec ? path : full).string();
}

// The model, solver and grid a state file holds: its text lines before the first buffer
// (sim/model.cpp writes them), so that the viewer can make the matching simulation first.
struct StateHeader {
    std::string model, solver;
};
StateHeader read_state_header(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(
            with_reason("cannot read state file '" + absolute_text(path) + "'", path, false));
    StateHeader header;
    std::string line;
    std::getline(in, line);
    if (line != "ADILAB-STATE 1")
        throw Error("'" + absolute_text(path) + "' is not an adilab state file");
    while (std::getline(in, line) && !line.starts_with("buffer ")) {
        std::istringstream fields(line);
        std::string key;
        fields >> key;
        if (key == "model") fields >> header.model;
        if (key == "solver") fields >> header.solver;
    }
    if (header.model.empty())
        throw Error("state file '" + absolute_text(path) + "' names no model");
    return header;
}

// The solver to load a state of `model` with: the file's when this build has it and it can run
// the model, else the running one where it can, else the first.
std::string solver_for_state(const StateHeader& header, const std::string& running) {
    const auto solvers = sim::solver_names();
    if (std::find(solvers.begin(), solvers.end(), header.solver) != solvers.end() &&
        sim::solver_supports(header.model, header.solver))
        return header.solver;
    if (!sim::solver_supports(header.model, running)) return solvers.front();
    return running;
}

}  // namespace

void Viewer::save_state() {
    try {
        sim_->save_state(files_.state_path);
        notify("saved " + absolute_text(files_.state_path));
    } catch (const std::exception& e) {
        report_error(with_reason(e.what(), files_.state_path, true));
    }
}

void Viewer::load_state(const std::filesystem::path& path) {
    files_.state_path = path.string();
    // A state of another model, grid, scenario or terrain: the simulation is made to match the
    // file first (on a copy, so that a failed load leaves the running one as it was), then the
    // panel follows it: model, scenario, grid, solver and terrain all read from the result.
    try {
        const StateHeader header = read_state_header(files_.state_path);
        auto next = sim::make_simulation(header.model, solver_for_state(header, sim_->solver()));
        next->load_state(files_.state_path);
        sim_ = std::move(next);
        scenario_ = sim_->scenario();
        grid_ = sim_->nx();
        preset_index_ = -1;
        run_until_.reset();
        measure_new_field();
        step_budget_.settle();
        set_reference();
        fit_height();
        fit_view();
        char detail[160];
        std::snprintf(detail, sizeof detail, ": %s, %s, %d x %d, step %lld, t = %.4g s",
                      sim_->model().c_str(), scenario_.c_str(), sim_->nx(), sim_->ny(),
                      static_cast<long long>(stats_.steps), stats_.time);
        notify("loaded " + absolute_text(files_.state_path) + detail);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::export_field() {
    try {
        sim::write_npy(files_.npy_path, sim_->nx(), sim_->ny(), sim_->read_field());
        notify("exported " + absolute_text(files_.npy_path));
    } catch (const std::exception& e) {
        report_error(with_reason(e.what(), files_.npy_path, true));
    }
}

void Viewer::toggle_recording() {
    try {
        if (recorder_.active())
            stop_recording();
        else
            start_recording(files_.reports_folder, files_.record_seconds);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::start_recording(const std::filesystem::path& folder, double seconds) {
    RecordingInfo info;
    info.renderer = renderer_name_;
    info.gl_version = gl_version_;
    info.model = sim_->model();
    info.scenario = scenario_;
    info.solver = sim_->solver();
    info.grid = grid_;
    info.steps_per_frame = steps_per_frame_;
    info.timing = gpu_timers_ ? "sim_ms and render_ms: GPU timer queries"
                              : "sim_ms and render_ms: CPU time issuing the work (this driver's "
                                "GPU timer reads 0)";
    recorder_.start(folder, info, seconds);
    // The timers' frame tags restart with the recording's frame numbers.
    notify("recording to " + recorder_.csv_path().string());
}

std::filesystem::path Viewer::stop_recording() {
    if (!recorder_.active()) return {};
    // The last frames' GPU times: one wait at the end of the recording, not per frame.
    for (const auto& s : sim_timer_.collect_all())
        if (gpu_timers_) recorder_.set_sim_ms(s.frame - record_offset_, s.ms);
    for (const auto& s : render_timer_.collect_all())
        if (gpu_timers_) recorder_.set_render_ms(s.frame - record_offset_, s.ms);
    auto path = recorder_.stop();
    notify("recorded " + path.string() + " and " + recorder_.json_path().filename().string());
    return path;
}

std::filesystem::path Viewer::next_screenshot_path() {
    std::filesystem::path folder = files_.screenshots_folder;
    std::filesystem::create_directories(folder);
    return folder / (timestamped_name("adilab") + ".png");
}

void Viewer::save_cross_section() {
    if (!cross_section_ || cross_section_->values.empty()) {
        report_error("no cross-section to save: Ctrl+drag across the field first");
        return;
    }
    // The plotted values exactly: nine significant digits give a float back bit for bit.
    const CrossSection& line = *cross_section_;
    std::string csv = "distance_m,i,j,value\n";
    char row[96];
    for (std::size_t k = 0; k < line.values.size() && k < line.cells.size(); ++k) {
        std::snprintf(row, sizeof row, "%.9g,%d,%d,%.9g\n", line.distance_m(k), line.cells[k].x,
                      line.cells[k].y, double(line.values[k]));
        csv += row;
    }
    try {
        files::write_file_atomically(files_.line_csv_path, csv);
        notify("cross-section " + absolute_text(files_.line_csv_path) + " (" +
               std::to_string(line.values.size()) + " cells, " + model_info().field_name +
               " at step " + std::to_string(stats_.steps) + ")");
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

// ---- The view drawn offscreen: screenshots at a chosen size, videos ---------------------------

ViewCapture& Viewer::capture() {
    if (!capture_) capture_ = std::make_unique<ViewCapture>();
    return *capture_;
}

void Viewer::save_view_screenshot(const std::filesystem::path& path, int width, int height) {
    bench::check_png_path(path);
    capture().draw(*this, renderer_, width, height);
    bench::write_png(path, width, height, capture().target().read_rgba());
}

void Viewer::toggle_video() {
    try {
        if (video_.active())
            stop_video();
        else
            start_video(files_.videos_folder, false);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::start_video(const std::filesystem::path& folder, bool every_frame) {
    video_settings_ = clamped(video_settings_);
    const char* path_variable = std::getenv("PATH");
    const std::filesystem::path ffmpeg =
        video_settings_.format == VideoSettings::Format::mp4
            ? find_program("ffmpeg", path_variable != nullptr ? path_variable : "")
            : std::filesystem::path();
    video_.start(folder, video_settings_, ffmpeg);
    video_every_frame_ = every_frame;
    video_elapsed_s_ = 0;
    video_next_s_ = 0;
    notify("recording video to " + absolute_text(video_.path()) +
           (video_.note().empty() ? "" : ": " + video_.note()));
}

void Viewer::hand_video_frames(bool wait) {
    for (gl::FramebufferReader::Image& image : capture().reader().take(wait))
        video_.add(std::move(image.rgba));
}

VideoWriter::Result Viewer::stop_video() {
    if (!video_.active()) return {};
    std::string failure;
    try {
        hand_video_frames(true);  // the last frames still being read back
    } catch (const std::exception& e) {
        failure = e.what();
    }
    VideoWriter::Result result = video_.stop();
    if (result.error.empty()) result.error = failure;
    const VideoSettings& v = video_.settings();
    char detail[96];
    std::snprintf(detail, sizeof detail, " (%lld %s, %d x %d at %d fps)",
                  static_cast<long long>(result.frames), result.mp4 ? "frames" : "PNG frames",
                  v.width, v.height, v.fps);
    if (!result.error.empty())
        report_error(result.error);
    else
        notify("video " + absolute_text(result.path) + detail +
               (result.note.empty() ? "" : ": " + result.note));
    return result;
}

void Viewer::capture_view() {
    if (sized_screenshot_requested_) {
        sized_screenshot_requested_ = false;
        try {
            const std::filesystem::path path = next_screenshot_path();
            save_view_screenshot(path, files_.shot_width, files_.shot_height);
            notify("screenshot " + absolute_text(path) + " (" + std::to_string(files_.shot_width) +
                   " x " + std::to_string(files_.shot_height) + ")");
        } catch (const std::exception& e) {
            report_error(e.what());
        }
    }
    if (!video_.active()) return;
    try {
        // A frame is due every 1/fps seconds of the wall clock; a window slower than that takes
        // one at every frame without catching up in bursts (the video then runs faster than
        // real time: a time-lapse, never a stutter of repeated frames).
        if (video_every_frame_ || video_elapsed_s_ >= video_next_s_) {
            const VideoSettings& v = video_.settings();
            capture().draw(*this, renderer_, v.width, v.height);
            capture().reader().queue(capture().target());
            video_next_s_ = std::max(video_next_s_ + 1.0 / v.fps, video_elapsed_s_);
        }
        hand_video_frames(false);
    } catch (const std::exception& e) {
        // A frame the writer refused (a full disk, ffmpeg gone): the video stops with what it has;
        // frames still being read back are dropped with it.
        capture().reader().take(true);
        const VideoWriter::Result result = video_.stop();
        report_error(std::string(e.what()) + "; the video stopped after " +
                     std::to_string(result.frames) + " frames in " + absolute_text(result.path));
    }
}

}  // namespace adilab::gui
