#include "solvers/gl/frame_timer.hpp"

#include <glad/gl.h>

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

void set_depth_write(bool on) { glDepthMask(on ? GL_TRUE : GL_FALSE); }

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
