// Video recordings: see video.hpp.
#include "app/gui/video.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "app/files/png.hpp"
#include "app/gui/recorder.hpp"
#include "solvers/gl/error.hpp"

extern char** environ;

namespace adilab::gui {

namespace {

// Frames waiting for the worker: enough to ride out a slow frame, few enough that a 4K video
// holds a bounded amount of memory (3 x 33 MB).
constexpr std::size_t kQueuedFrames = 3;

int even_within(int value, int low, int high) {
    return std::clamp(value, low, high) & ~1;
}

}  // namespace

VideoSettings clamped(VideoSettings s) {
    s.width = even_within(s.width, kMinVideoSide, kMaxVideoSide);
    s.height = even_within(s.height, kMinVideoSide, kMaxVideoSide);
    s.fps = std::clamp(s.fps, 1, kMaxVideoFps);
    return s;
}

const char* format_name(VideoSettings::Format format) {
    return format == VideoSettings::Format::mp4 ? "mp4" : "png";
}

std::filesystem::path find_program(const std::string& name, const std::string& path_list) {
    std::size_t start = 0;
    while (start <= path_list.size()) {
        std::size_t end = path_list.find(':', start);
        if (end == std::string::npos) end = path_list.size();
        // An empty entry is the working folder, as the shell reads PATH.
        const std::filesystem::path folder =
            end > start ? std::filesystem::path(path_list.substr(start, end - start)) : ".";
        const std::filesystem::path candidate = folder / name;
        struct stat info {};
        if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
            ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return {};
}

VideoWriter::~VideoWriter() {
    if (active_) stop();
}

void VideoWriter::start(const std::filesystem::path& folder, const VideoSettings& settings,
                        const std::filesystem::path& ffmpeg) {
    if (active_) stop();
    settings_ = clamped(settings);
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec || !std::filesystem::is_directory(folder))
        throw Error("cannot create the videos folder '" + folder.string() +
                    "': " + (ec ? ec.message() : "not a folder"));
    const bool mp4 = settings_.format == VideoSettings::Format::mp4 && !ffmpeg.empty();
    note_.clear();
    if (settings_.format == VideoSettings::Format::mp4 && ffmpeg.empty())
        note_ = "ffmpeg is not on PATH, so PNG frames instead of an MP4";
    // A second video within the same second gets a suffix instead of overwriting.
    const std::string base = timestamped_name("adilab-video");
    auto name = [&](int k) {
        const std::string stem = k == 1 ? base : base + "-" + std::to_string(k);
        return folder / (mp4 ? stem + ".mp4" : stem);
    };
    int k = 1;
    while (std::filesystem::exists(name(k))) ++k;
    path_ = name(k);
    if (mp4) {
        mp4_ = files::PendingFile(path_);
        start_ffmpeg(ffmpeg);
    } else {
        std::filesystem::create_directory(path_, ec);
        if (ec)
            throw Error("cannot create the frames folder '" + path_.string() +
                        "': " + ec.message());
    }
    added_ = 0;
    written_ = 0;
    error_.clear();
    error_reported_ = false;
    stopping_ = false;
    queue_.clear();
    active_ = true;
    worker_ = std::thread([this] { run_worker(); });
}

void VideoWriter::start_ffmpeg(const std::filesystem::path& ffmpeg) {
    // Raw RGBA frames on stdin at the video's size and rate; 4:2:0 output, which every player
    // reads; ffmpeg's own messages (errors only) go to adilab's stderr.
    const std::string size =
        std::to_string(settings_.width) + "x" + std::to_string(settings_.height);
    const std::string rate = std::to_string(settings_.fps);
    const std::vector<std::string> args = {ffmpeg.string(),
                                           "-hide_banner",
                                           "-loglevel",
                                           "error",
                                           "-y",
                                           "-f",
                                           "rawvideo",
                                           "-pix_fmt",
                                           "rgba",
                                           "-video_size",
                                           size,
                                           "-framerate",
                                           rate,
                                           "-i",
                                           "pipe:0",
                                           "-an",
                                           "-pix_fmt",
                                           "yuv420p",
                                           "-f",
                                           "mp4",
                                           mp4_.temporary().string()};
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw Error(std::string("cannot start ffmpeg: pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);  // dup2 clears close-on-exec
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0]);
    if (failed != 0) {
        ::close(fds[1]);
        mp4_.abandon();
        throw Error("cannot start '" + ffmpeg.string() + "': " + std::strerror(failed));
    }
    ffmpeg_pid_ = pid;
    pipe_fd_ = fds[1];
}

void VideoWriter::add(std::vector<unsigned char> rgba) {
    if (!active_) return;
    const std::size_t expected =
        static_cast<std::size_t>(settings_.width) * static_cast<std::size_t>(settings_.height) * 4;
    if (rgba.size() != expected)
        throw Error("video frame of " + std::to_string(rgba.size()) + " bytes, expected " +
                    std::to_string(expected));
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < kQueuedFrames || !error_.empty(); });
    if (!error_.empty()) {
        if (error_reported_) return;
        error_reported_ = true;
        throw Error(error_);
    }
    queue_.push_back(std::move(rgba));
    ++added_;
    changed_.notify_all();
}

void VideoWriter::run_worker() {
    // A write to a pipe whose reader is gone raises SIGPIPE, which would end adilab: blocked in
    // this thread, the write fails with EPIPE instead and the recording stops with a message.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
    for (std::int64_t index = 1;; ++index) {
        std::vector<unsigned char> frame;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] { return !queue_.empty() || stopping_; });
            if (queue_.empty()) return;  // stopping, and everything handed in is written
            frame = std::move(queue_.front());
            queue_.pop_front();
        }
        changed_.notify_all();
        try {
            write_frame(frame, index);
            std::lock_guard lock(mutex_);
            ++written_;
        } catch (const std::exception& e) {
            std::lock_guard lock(mutex_);
            error_ = e.what();
            queue_.clear();
            changed_.notify_all();
            return;
        }
    }
}

void VideoWriter::write_frame(const std::vector<unsigned char>& rgba, std::int64_t index) {
    if (pipe_fd_ < 0) {
        char name[32];
        std::snprintf(name, sizeof name, "frame-%06lld.png", static_cast<long long>(index));
        files::write_png(path_ / name, settings_.width, settings_.height, rgba);
        return;
    }
    std::size_t done = 0;
    while (done < rgba.size()) {
        const ssize_t n = ::write(pipe_fd_, rgba.data() + done, rgba.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw Error("cannot write '" + path_.string() + "': ffmpeg stopped reading frames (" +
                        std::strerror(n < 0 ? errno : EPIPE) +
                        "); its messages are on the terminal");
        done += static_cast<std::size_t>(n);
    }
}

VideoWriter::Result VideoWriter::stop() {
    Result result;
    if (!active_) return result;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
    active_ = false;
    result.path = path_;
    result.frames = written_;
    result.note = note_;
    result.error = error_;
    if (pipe_fd_ >= 0) {
        ::close(pipe_fd_);  // end of input: ffmpeg finishes the file and exits
        pipe_fd_ = -1;
        int status = 0;
        while (::waitpid(ffmpeg_pid_, &status, 0) < 0 && errno == EINTR) {
        }
        ffmpeg_pid_ = -1;
        result.mp4 = true;
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok && result.error.empty())
            result.error =
                "ffmpeg " +
                (WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                   : std::string("was stopped by a signal")) +
                " and wrote no video to '" + path_.string() + "'; its messages are on the terminal";
        if (ok) {
            try {
                mp4_.commit();
            } catch (const std::exception& e) {
                if (result.error.empty()) result.error = e.what();
            }
        } else {
            mp4_.abandon();
        }
    }
    return result;
}

}  // namespace adilab::gui
