// The view drawn offscreen (ViewCapture): videos (F10, the Files section, --record-video), written
// as MP4 through ffmpeg or as PNG frames, and screenshots at a chosen size. Failures go to the
// status line; a video that fails mid-way stops with the frames it has.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "app/files/paths.hpp"
#include "app/files/png.hpp"
#include "app/gui/view_capture.hpp"
#include "app/gui/viewer.hpp"

namespace adilab::gui {

ViewCapture& Viewer::capture() {
    if (!capture_) capture_ = std::make_unique<ViewCapture>();
    return *capture_;
}

void Viewer::save_view_screenshot(const std::filesystem::path& path, int width, int height) {
    files::check_png_path(path);
    capture().draw(*this, renderer_, width, height);
    files::write_png(path, width, height, capture().target().read_rgba());
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
    notify("recording video to " + files::absolute_text(video_.path()) +
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
        notify("video " + files::absolute_text(result.path) + detail +
               (result.note.empty() ? "" : ": " + result.note));
    return result;
}

void Viewer::capture_view() {
    if (sized_screenshot_requested_) {
        sized_screenshot_requested_ = false;
        try {
            const std::filesystem::path path = next_screenshot_path();
            save_view_screenshot(path, files_.shot_width, files_.shot_height);
            notify("screenshot " + files::absolute_text(path) + " (" +
                   std::to_string(files_.shot_width) + " x " + std::to_string(files_.shot_height) +
                   ")");
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
                     std::to_string(result.frames) + " frames in " +
                     files::absolute_text(result.path));
    }
}

}  // namespace adilab::gui
