#pragma once
// FPS recordings of the live viewer: one row per frame kept in memory while recording, written
// on stop as a CSV (`frame,t_s,frame_ms,sim_ms,render_ms,steps`) and a JSON summary, under a
// timestamped name in the reports folder. No GLFW or ImGui here.
//
// sim_ms and render_ms are GPU times from timer queries, which arrive a few frames late: the
// viewer hands them in by frame number (set_gpu_times) and the recorder files them under the
// right row. Where the driver has no working timer (llvmpipe), the viewer gives the CPU time of
// issuing the work instead, and the summary's `timing` says which.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace adilab::gui {

struct FrameSample {
    std::int64_t frame = 0;  // 1-based within the recording
    double t_s = 0;          // seconds since the recording started, at the end of the frame
    double frame_ms = 0;     // wall time of the whole frame
    double sim_ms = 0;       // simulation steps of the frame
    double render_ms = 0;    // drawing of the viewport
    int steps = 0;           // simulation steps taken in the frame
};

struct RecordingInfo {
    std::string renderer, gl_version, model, scenario, solver, timing;
    int grid = 0;
    int steps_per_frame = 0;
};

struct RecordingSummary {
    double fps_mean = 0, fps_median = 0, fps_p5 = 0, fps_p95 = 0;
    double frame_ms_median = 0, steps_per_s = 0, duration_s = 0;
    std::int64_t frames = 0;
};
// Statistics of a recording. fps_mean is frames over total time; the percentiles are of the
// per-frame rates 1000 / frame_ms (p5: the slow frames).
RecordingSummary summarise(const std::vector<FrameSample>& rows);

std::string format_csv(const std::vector<FrameSample>& rows);
std::string format_json(const RecordingInfo& info, const RecordingSummary& summary);
// "adilab-20261121-053012" from the local time (the folder listing sorts by time).
std::string timestamped_name(const std::string& prefix);

class Recorder {
  public:
    // Throws adilab::Error when the folder cannot be created or written.
    void start(const std::filesystem::path& folder, RecordingInfo info, double max_seconds);
    bool active() const { return active_; }
    // The frame number the next add() gets.
    std::int64_t next_frame() const { return static_cast<std::int64_t>(rows_.size()) + 1; }
    void add(const FrameSample& sample);
    // GPU times that arrived for an earlier frame of this recording.
    void set_sim_ms(std::int64_t frame, double ms);
    void set_render_ms(std::int64_t frame, double ms);
    // True once max_seconds have been recorded (0: no limit).
    bool time_is_up() const;
    double elapsed_s() const { return rows_.empty() ? 0.0 : rows_.back().t_s; }
    // Writes both files and returns the CSV's path (the JSON lies beside it).
    std::filesystem::path stop();
    const std::filesystem::path& csv_path() const { return csv_path_; }
    const std::filesystem::path& json_path() const { return json_path_; }

  private:
    bool active_ = false;
    RecordingInfo info_;
    double max_seconds_ = 0;
    std::vector<FrameSample> rows_;
    std::filesystem::path csv_path_, json_path_;
};

}  // namespace adilab::gui
