#include "solvers/gl/frame_timer.hpp"

#include <glad/gl.h>

#include <algorithm>

#include "solvers/gl/context.hpp"

namespace adilab::gl {

FrameTimer::FrameTimer(int depth) : slots_(static_cast<std::size_t>(depth < 2 ? 2 : depth)) {
    for (Slot& slot : slots_) slot.query = Query::create();
}

void FrameTimer::begin(std::int64_t frame) {
    Slot& slot = slots_[static_cast<std::size_t>(next_)];
    if (slot.pending) {
        // Still in flight after `depth` frames (a very deep GPU queue): skip this frame rather
        // than wait for it.
        active_ = -1;
        return;
    }
    active_ = next_;
    slot.frame = frame;
    glBeginQuery(GL_TIME_ELAPSED, slot.query.id());
}

void FrameTimer::end() {
    if (active_ < 0) return;
    glEndQuery(GL_TIME_ELAPSED);
    slots_[static_cast<std::size_t>(active_)].pending = true;
    next_ = (active_ + 1) % static_cast<int>(slots_.size());
    active_ = -1;
}

std::vector<FrameTimer::Sample> FrameTimer::collect() {
    std::vector<Sample> out;
    // Queries finish in order: walk from the oldest pending slot and stop at the first that
    // is not ready.
    const int n = static_cast<int>(slots_.size());
    for (int k = 0; k < n; ++k) {
        Slot& slot = slots_[static_cast<std::size_t>((next_ + k) % n)];
        if (!slot.pending) continue;
        GLuint available = 0;
        glGetQueryObjectuiv(slot.query.id(), GL_QUERY_RESULT_AVAILABLE, &available);
        if (!available) break;
        GLuint64 ns = 0;
        glGetQueryObjectui64v(slot.query.id(), GL_QUERY_RESULT, &ns);
        slot.pending = false;
        latest_ = static_cast<double>(ns) * 1e-6;
        out.push_back({slot.frame, *latest_});
    }
    return out;
}

std::vector<FrameTimer::Sample> FrameTimer::collect_all() {
    glFinish();
    return collect();
}

void set_scissor(bool on, int x, int y, int width, int height) {
    if (on) {
        glEnable(GL_SCISSOR_TEST);
        glScissor(x, y, width, height);
    } else {
        glDisable(GL_SCISSOR_TEST);
    }
}

void set_depth_write(bool on) {
    glDepthMask(on ? GL_TRUE : GL_FALSE);
}

}  // namespace adilab::gl

namespace adilab::gl {
void blit_to_draw_framebuffer(const Framebuffer& source, int x, int y, int width, int height) {
    GLint previous_read = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, source.id());
    glBlitFramebuffer(0, 0, width, height, x, y, x + width, y + height, GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous_read));
}
}  // namespace adilab::gl

namespace adilab::gl {

DispatchProfiler::DispatchProfiler(int depth, int max_dispatches, std::optional<Source> source)
    : slots_(static_cast<std::size_t>(depth < 2 ? 2 : depth)),
      max_dispatches_(max_dispatches),
      source_(source                                         ? *source
              : Context::current().timestamps_time_compute() ? Source::gpu_timestamps
                                                             : Source::cpu_clock) {
    for (Slot& slot : slots_) {
        if (source_ == Source::gpu_timestamps)
            for (int k = 0; k <= max_dispatches_; ++k) slot.stamps.push_back(Query::create());
        else
            slot.clock.resize(static_cast<std::size_t>(max_dispatches_) + 1);
        slot.labels.resize(static_cast<std::size_t>(max_dispatches_));
    }
}

DispatchProfiler::~DispatchProfiler() {
    if (active_ == this) active_ = nullptr;
}

void DispatchProfiler::mark(Slot& slot, int index) {
    if (source_ == Source::gpu_timestamps)
        glQueryCounter(slot.stamps[static_cast<std::size_t>(index)].id(), GL_TIMESTAMP);
    else
        slot.clock[static_cast<std::size_t>(index)] = std::chrono::steady_clock::now();
}

void DispatchProfiler::begin(std::int64_t frame) {
    Slot& slot = slots_[static_cast<std::size_t>(next_)];
    if (slot.pending) return;  // the GPU is that far behind: skip rather than wait
    current_ = next_;
    slot.count = 0;
    slot.frame = frame;
    mark(slot, 0);
    active_ = this;
}

void DispatchProfiler::after_dispatch() {
    if (current_ < 0) return;
    Slot& slot = slots_[static_cast<std::size_t>(current_)];
    if (slot.count >= max_dispatches_) return;
    mark(slot, slot.count + 1);
    const std::string* label = detail::current_program_label;
    slot.labels[static_cast<std::size_t>(slot.count)] = label != nullptr ? *label : "?";
    ++slot.count;
}

void DispatchProfiler::end() {
    if (active_ == this) active_ = nullptr;
    if (current_ < 0) return;
    slots_[static_cast<std::size_t>(current_)].pending = true;
    next_ = (current_ + 1) % static_cast<int>(slots_.size());
    current_ = -1;
}

double DispatchProfiler::interval_ms(Slot& slot, int index, std::uint64_t& previous_stamp) const {
    const auto k = static_cast<std::size_t>(index);
    if (source_ == Source::cpu_clock)
        return std::chrono::duration<double, std::milli>(slot.clock[k] - slot.clock[k - 1]).count();
    GLuint64 stamp = 0;
    glGetQueryObjectui64v(slot.stamps[k].id(), GL_QUERY_RESULT, &stamp);
    const double ms = static_cast<double>(stamp - previous_stamp) * 1e-6;
    previous_stamp = stamp;
    return ms;
}

std::vector<DispatchProfiler::Phase> DispatchProfiler::collect() {
    std::vector<Phase> newest;
    const int n = static_cast<int>(slots_.size());
    for (int k = 0; k < n; ++k) {  // oldest first
        Slot& slot = slots_[static_cast<std::size_t>((next_ + k) % n)];
        if (!slot.pending) continue;
        std::uint64_t previous = 0;
        if (source_ == Source::gpu_timestamps) {
            GLuint available = 0;
            glGetQueryObjectuiv(slot.stamps[static_cast<std::size_t>(slot.count)].id(),
                                GL_QUERY_RESULT_AVAILABLE, &available);
            if (!available) break;
            GLuint64 first = 0;
            glGetQueryObjectui64v(slot.stamps[0].id(), GL_QUERY_RESULT, &first);
            previous = first;
        }
        std::vector<Phase> phases;
        for (int d = 0; d < slot.count; ++d) {
            const double ms = interval_ms(slot, d + 1, previous);
            const std::string& label = slot.labels[static_cast<std::size_t>(d)];
            auto it = std::find_if(phases.begin(), phases.end(),
                                   [&](const Phase& p) { return p.label == label; });
            if (it == phases.end())
                phases.push_back({label, ms, 1});
            else
                it->ms += ms, ++it->dispatches;
        }
        slot.pending = false;
        last_frame_ = slot.frame;
        newest = std::move(phases);
    }
    return newest;
}

}  // namespace adilab::gl
