#pragma once
// Video recordings of the viewer (F10, --record-video): frames of the view at a chosen size and
// rate, written as an MP4 through ffmpeg when it is on PATH (raw frames piped to its stdin, so no
// frame ever lands on disk) or else as a PNG frame sequence. Every file goes through the files
// module's temporary-then-rename protocol: each PNG through write_file_atomically, the MP4 as a
// PendingFile that ffmpeg writes and that is renamed once ffmpeg has finished with success.
//
// A worker thread encodes and writes, so the frame loop only hands pixels over. When the worker
// falls behind (a PNG of 1920x1080 takes tens of milliseconds to encode), hand-over waits: frames
// are never dropped, the window slows down instead. No GL or ImGui here.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "solvers/common/files.hpp"

namespace adilab::gui {

struct VideoSettings {
    int width = 1280, height = 720;
    int fps = 30;  // the video's frame rate (see Viewer::capture_view for when frames are taken)
    enum class Format { mp4, png };
    Format format = Format::mp4;
};
// The limits of the panel's fields and of --video-size / --video-fps alike.
inline constexpr int kMinVideoSide = 16, kMaxVideoSide = 8192;
inline constexpr int kMaxVideoFps = 240;
// Sizes within the limits and even (H.264's 4:2:0 sampling needs even sides), fps 1 .. 240.
VideoSettings clamped(VideoSettings settings);
const char* format_name(VideoSettings::Format format);  // "mp4", "png"

// `name` in the first folder of `path_list` (colon-separated, as PATH) that holds an executable
// file of that name, or empty.
std::filesystem::path find_program(const std::string& name, const std::string& path_list);

class VideoWriter {
  public:
    VideoWriter() = default;
    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;
    ~VideoWriter();  // stops, keeping what was written

    // Starts writing into `folder` (created if missing) under a timestamped name: "<name>.mp4"
    // through `ffmpeg` when the format is MP4 and `ffmpeg` is not empty, else the folder
    // "<name>/" of frame-000001.png, ... (note() then says why, when an MP4 was asked for).
    // Throws adilab::Error naming the path and the reason when the folder cannot be made or
    // ffmpeg cannot be started.
    void start(const std::filesystem::path& folder, const VideoSettings& settings,
               const std::filesystem::path& ffmpeg);
    bool active() const { return active_; }
    // One frame of settings().width x height RGBA pixels, rows top first. Waits while the
    // worker is a few frames behind. Throws adilab::Error once when the worker failed (a full
    // disk, ffmpeg gone); later frames are refused the same way until stop().
    void add(std::vector<unsigned char> rgba);

    struct Result {
        std::filesystem::path path;  // the MP4, or the folder of PNG frames
        std::int64_t frames = 0;     // written
        bool mp4 = false;
        std::string note;   // why PNG frames were written where an MP4 was asked for, else ""
        std::string error;  // what went wrong, else "" (frames written before it are kept)
    };
    // Waits for the frames handed in, closes ffmpeg and renames its MP4 into place.
    Result stop();

    const VideoSettings& settings() const { return settings_; }
    const std::filesystem::path& path() const { return path_; }
    std::int64_t frames_added() const { return added_; }
    const std::string& note() const { return note_; }

  private:
    void run_worker();
    void write_frame(const std::vector<unsigned char>& rgba, std::int64_t index);
    void start_ffmpeg(const std::filesystem::path& ffmpeg);

    bool active_ = false;
    VideoSettings settings_;
    std::filesystem::path path_;
    std::string note_;
    std::int64_t added_ = 0;
    // MP4: ffmpeg's process, the pipe to its stdin, the file it writes.
    int ffmpeg_pid_ = -1, pipe_fd_ = -1;
    files::PendingFile mp4_;

    std::thread worker_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::vector<unsigned char>> queue_;
    bool stopping_ = false;
    bool error_reported_ = false;
    std::string error_;         // the worker's first failure
    std::int64_t written_ = 0;  // by the worker
};

}  // namespace adilab::gui
