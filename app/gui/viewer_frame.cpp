// A frame of the viewer: playing, single steps and "run until t", the steps timed on the GPU,
// the viewport drawn, and the bookkeeping after the frame was presented (rates, the step cap,
// the FPS recording's rows, the GPU timers' results, the frame breakdown, and the range and
// stability read back a few times a second).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/gui/phases.hpp"
#include "app/gui/viewer.hpp"

namespace adilab::gui {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kReadbackInterval_s = 0.25;  // colour-bar labels and stability: 4 per second
constexpr double kStatsInterval_s = 2.0;      // full statistics on grids over 1024^2
constexpr std::size_t kPlotFrames = 240;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

void Viewer::run_until(double t) {
    if (!(t > sim_->time())) {
        char text[96];
        std::snprintf(text, sizeof text,
                      "already at t = %.6g s, past %.6g s: reset (R) to run again", sim_->time(),
                      t);
        report_error(text);
        return;
    }
    run_until_ = t;
    interface_.run_until_field = t;
    playing_ = true;
    char text[64];
    std::snprintf(text, sizeof text, "running until t = %.6g s", t);
    notify(text);
}

void Viewer::step_once() {
    playing_ = false;
    ++step_requests_;
}

void Viewer::advance(std::int64_t frame) {
    figures_.steps = 0;
    if (unstable_) playing_ = false;
    int steps = 0;
    if (tab_shown_ && playing_) {
        steps = std::min(steps_per_frame_, step_budget_.cap());
        if (run_until_) {
            // The steps left to the target, so that the run stops on the step that reaches it.
            const double left = (*run_until_ - sim_->time()) / sim_->param("dt");
            steps =
                static_cast<int>(std::min<double>(steps, std::max(0.0, std::ceil(left - 1e-9))));
        }
    } else if (tab_shown_ && step_requests_ > 0) {
        steps = std::min(step_requests_, step_budget_.cap());
        step_requests_ -= steps;
    }
    const auto start = Clock::now();
    const bool profile = profiling();
    if (steps > 0) {
        if (profile) phase_profiler_.begin(frame);
        sim_timer_.begin(frame);
        sim_->step(steps);
        sim_timer_.end();
        if (profile) phase_profiler_.end();
        figures_.steps = steps;
        field_changed_ = true;
    } else if (profile) {
        partial_frame(frame).phases_known = true;  // no steps: no phases to wait for
    }
    figures_.sim_cpu_ms = ms_since(start);
    figures_.sim_seconds = steps * sim_->param("dt");
    if (run_until_ && sim_->time() >= *run_until_ - 1e-6 * sim_->param("dt")) {
        playing_ = false;
        char text[96];
        std::snprintf(text, sizeof text, "reached t = %.6g s at step %lld: paused", sim_->time(),
                      static_cast<long long>(sim_->steps_taken()));
        notify(text);
        run_until_.reset();
    }
}

bool Viewer::profiling() const {
    return interface_.profile_phases && interface_.show_overlay;
}

void Viewer::begin_ui_timing(std::int64_t frame) {
    ui_start_ = Clock::now();
    ui_timer_.begin(frame);
}

void Viewer::end_ui_timing() {
    ui_timer_.end();
    figures_.ui_cpu_ms = ms_since(ui_start_);
}

void Viewer::render(render::Rect viewport, std::int64_t frame) {
    if (camera_fit_pending_ && !viewport.empty()) {
        last_viewport_ = viewport;
        fit_camera();
    }
    const auto start = Clock::now();
    render_timer_.begin(frame);
    renderer_.draw(source(), view_, viewport);
    render_timer_.end();
    figures_.render_cpu_ms = ms_since(start);
}

void Viewer::end_frame(double frame_ms, std::int64_t frame) {
    // The simulation's share: the frame less the drawing and the UI where the GPU timed them
    // (a slow 3-D view alone must not throttle a cheap simulation).
    const double simulation_ms =
        gpu_timers_ && figures_.render_gpu_ms
            ? std::max(0.0, frame_ms - *figures_.render_gpu_ms - figures_.ui_gpu_ms.value_or(0.0))
            : frame_ms;
    step_budget_.adapt(simulation_ms, figures_.steps, steps_per_frame_);
    count_frame_rate(frame_ms);
    if (recorder_.active()) record_frame(frame_ms, frame);
    if (video_.active()) video_elapsed_s_ += frame_ms / 1000.0;
    if (profiling()) {
        PartialFrame& part = partial_frame(frame);
        part.frame_ms = frame_ms;
        if (!gpu_timers_) {
            part.draw_ms = figures_.render_cpu_ms;
            part.ui_ms = figures_.ui_cpu_ms;
        }
    }
    poll_timers();
    since_readback_s_ += frame_ms / 1000.0;
    since_stats_s_ += frame_ms / 1000.0;
    if (since_readback_s_ >= kReadbackInterval_s) {
        since_readback_s_ = 0;
        check_stability();
    }
    read_cross_section(frame_ms);
}

void Viewer::count_frame_rate(double frame_ms) {
    figures_.history_ms.push_back(static_cast<float>(frame_ms));
    while (figures_.history_ms.size() > kPlotFrames) figures_.history_ms.pop_front();
    rate_window_s_ += frame_ms / 1000.0;
    ++rate_window_frames_;
    rate_window_steps_ += figures_.steps;
    rate_window_sim_s_ += figures_.sim_seconds;
    if (rate_window_s_ >= 0.5) {
        figures_.fps = rate_window_frames_ / rate_window_s_;
        figures_.frame_ms = 1000.0 * rate_window_s_ / rate_window_frames_;
        figures_.steps_per_s = rate_window_steps_ / rate_window_s_;
        figures_.sim_seconds_per_s = rate_window_sim_s_ / rate_window_s_;
        rate_window_s_ = 0;
        rate_window_frames_ = 0;
        rate_window_steps_ = 0;
        rate_window_sim_s_ = 0;
    }
}

void Viewer::record_frame(double frame_ms, std::int64_t frame) {
    FrameSample sample;
    sample.frame = recorder_.next_frame();
    // Timer results are tagged with the GUI's frame numbers; rows count from 1.
    if (sample.frame == 1) record_offset_ = frame - 1;
    sample.t_s = recorder_.elapsed_s() + frame_ms / 1000.0;
    sample.frame_ms = frame_ms;
    sample.sim_ms = figures_.sim_cpu_ms;  // replaced by the GPU time when it arrives
    sample.render_ms = figures_.render_cpu_ms;
    sample.steps = figures_.steps;
    recorder_.add(sample);
    if (recorder_.time_is_up()) stop_recording();
}

void Viewer::poll_timers() {
    // Frame numbers of the timers are recording frame numbers while recording.
    for (const auto& s : sim_timer_.collect()) {
        figures_.sim_gpu_ms = s.ms;
        if (gpu_timers_) recorder_.set_sim_ms(s.frame - record_offset_, s.ms);
        if (timing_log_ != nullptr) timing_log_->sim_ms.push_back(s.ms);
    }
    const bool profile = profiling();
    for (const auto& s : render_timer_.collect()) {
        figures_.render_gpu_ms = s.ms;
        if (profile && gpu_timers_) partial_frame(s.frame).draw_ms = s.ms;
        if (gpu_timers_) recorder_.set_render_ms(s.frame - record_offset_, s.ms);
        if (timing_log_ != nullptr) timing_log_->render_ms.push_back(s.ms);
    }
    for (const auto& s : ui_timer_.collect()) {
        figures_.ui_gpu_ms = s.ms;  // not recorded: UI only
        if (profile && gpu_timers_) partial_frame(s.frame).ui_ms = s.ms;
        if (timing_log_ != nullptr) timing_log_->ui_ms.push_back(s.ms);
    }
    // A frame with a wrapped or negative time is dropped whole; the last good one stays.
    if (auto phases = phase_profiler_.collect(); !phases.empty() && phases_valid(phases)) {
        PartialFrame& part = partial_frame(phase_profiler_.last_frame());
        part.phases = std::move(phases);
        part.phases_known = true;
    }
    complete_breakdowns();
}

Viewer::PartialFrame& Viewer::partial_frame(std::int64_t frame) {
    for (PartialFrame& part : partial_frames_)
        if (part.frame == frame) return part;
    // The timers deliver within a few frames (their rings hold 4 to 6); older parts never will.
    constexpr std::size_t kFramesKept = 16;
    while (partial_frames_.size() >= kFramesKept) partial_frames_.pop_front();
    partial_frames_.push_back(PartialFrame{});
    partial_frames_.back().frame = frame;
    return partial_frames_.back();
}

void Viewer::complete_breakdowns() {
    // The newest frame whose every part has arrived becomes the overlay's; it and all older ones
    // leave the list.
    for (auto it = partial_frames_.rbegin(); it != partial_frames_.rend(); ++it) {
        if (!it->phases_known || !it->draw_ms || !it->ui_ms || !it->frame_ms) continue;
        FrameBreakdown& b = figures_.breakdown;
        b.frame = it->frame;
        b.gpu_phases = phase_profiler_.source() == gl::DispatchProfiler::Source::gpu_timestamps;
        b.gpu_draw = gpu_timers_;
        b.phases = std::move(it->phases);
        b.draw_ms = *it->draw_ms;
        b.ui_ms = *it->ui_ms;
        b.frame_ms = *it->frame_ms;
        partial_frames_.erase(partial_frames_.begin(), it.base());
        return;
    }
}

void Viewer::check_stability() {
    // The stability flag and the GPU's min/max are a few bytes; the full statistics (sum) read
    // the whole field back, so on large grids they are refreshed only every few seconds.
    const std::int64_t bad_step = sim_->first_bad_step();
    range_ = renderer_.read_range();
    // The value under the cursor: one float, read with the range (4 times a second), never per
    // frame.
    if (probe_cell_ && probe_cell_->x < sim_->nx() && probe_cell_->y < sim_->ny())
        probe_value_ =
            sim_->field().read<float>(1, std::size_t(probe_cell_->y) * std::size_t(sim_->nx()) +
                                             std::size_t(probe_cell_->x))[0];
    const bool large = std::int64_t(sim_->nx()) * sim_->ny() > (1 << 20);
    if (!large || since_stats_s_ >= kStatsInterval_s || bad_step >= 0) {
        stats_ = sim_->stats();
        since_stats_s_ = 0;
    }
    if (!unstable_ && (bad_step >= 0 || range_.nonfinite > 0)) {
        unstable_ = true;
        playing_ = false;
        unstable_message_ =
            "instability: " +
            (bad_step >= 0 ? sim_->instability() : std::string("the field has NaN/Inf")) +
            ". Paused; change the parameters and reset (R).";
    }
}

}  // namespace adilab::gui
