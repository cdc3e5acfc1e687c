#pragma once
// Small GL wrappers the real-time viewer needs (app/render, app/gui), kept here because only
// solvers/gl includes the loader.
//
// FrameTimer: GPU time of one phase of a frame (a simulation step, the drawing) from
// GL_TIME_ELAPSED queries, read back a few frames later without ever waiting for the GPU.
// GpuTimer (timer.hpp) calls glGetQueryObject(GL_QUERY_RESULT), which stalls until the GPU is
// done: right for a benchmark, wrong inside a 1 ms frame. Here each phase owns a ring of queries;
// a result is collected only once GL_QUERY_RESULT_AVAILABLE says so, and when every query of the
// ring is still in flight the phase is simply not measured that frame.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "solvers/gl/objects.hpp"

namespace adilab::gl {

class FrameTimer {
  public:
    struct Sample {
        std::int64_t frame;  // the tag given to begin()
        double ms;           // GPU milliseconds between begin() and end()
    };

    explicit FrameTimer(int depth = 6);
    // GL_TIME_ELAPSED queries cannot nest: time phases one after another.
    void begin(std::int64_t frame);
    void end();
    // Results that became available since the last call, oldest first. Never waits.
    std::vector<Sample> collect();
    // Waits for every query in flight (at the end of a recording), then returns them.
    std::vector<Sample> collect_all();
    // The latest collected result in milliseconds.
    std::optional<double> latest_ms() const { return latest_; }

  private:
    struct Slot {
        Query query;
        std::int64_t frame = 0;
        bool pending = false;
    };
    std::vector<Slot> slots_;
    int next_ = 0;
    int active_ = -1;  // slot between begin() and end(), or -1
    std::optional<double> latest_;
};

// Restricts clears and draws to a rectangle (glScissor), or lifts the restriction.
void set_scissor(bool on, int x = 0, int y = 0, int width = 0, int height = 0);
// Whether draws write the depth buffer (off for the translucent water surface).
void set_depth_write(bool on);

}  // namespace adilab::gl

namespace adilab::gl {
// Copies `source`'s colour (0, 0, width, height) into the bound draw framebuffer at (x, y)
// (glBlitFramebuffer, nearest). The viewer computes its flat view into a texture, then blits it.
void blit_to_draw_framebuffer(const Framebuffer& source, int x, int y, int width, int height);
}  // namespace adilab::gl

namespace adilab::gl {

namespace detail {
// The label of the program last made current with Program::use() (shader path and defines).
inline thread_local const std::string* current_program_label = nullptr;
}  // namespace detail

// Per-dispatch times for the viewer's phase breakdown (x sweep / y sweep / ...): while a profiler
// is active (between begin() and end()), every gl::dispatch is followed by a mark, and the time
// between consecutive marks is charged to the program that dispatched (its label, e.g.
// "sim/heat.comp [DIRECTION=0]"). The simulation needs no change: it only calls gl::dispatch, as
// everything does.
//
// The marks are GL_TIMESTAMP queries where the context's timestamps time compute work
// (Context::timestamps_time_compute): a mark is taken once the GPU has completed all earlier
// commands, so barrier waits count to the dispatch before them, and results are read a few frames
// later when available; nothing ever waits. Elsewhere (Mesa's llvmpipe with a window, whose
// marks all take the time of the next flush) they are the CPU's clock: such a driver runs each
// dispatch inside the call, so the clock between two calls is the dispatch's work, and the
// frame's phases are ready at once. source() says which, for the overlay to name.
class DispatchProfiler {
  public:
    struct Phase {
        std::string label;
        double ms = 0;
        int dispatches = 0;
    };
    enum class Source { gpu_timestamps, cpu_clock };

    // Needs a current context: the source is the one that works there (the tests name one).
    explicit DispatchProfiler(int depth = 4, int max_dispatches = 96,
                              std::optional<Source> source = std::nullopt);
    ~DispatchProfiler();
    DispatchProfiler(const DispatchProfiler&) = delete;
    DispatchProfiler& operator=(const DispatchProfiler&) = delete;

    // Starts timing this frame's dispatches (skipped when every slot is still in flight);
    // `frame` tags its results (last_frame()).
    void begin(std::int64_t frame = 0);
    void end();
    // The phases of the newest frame whose marks have all arrived, summed per label in the
    // order first seen; empty when none is ready. Never waits.
    std::vector<Phase> collect();
    // The tag of the frame the last non-empty collect() returned.
    std::int64_t last_frame() const { return last_frame_; }
    Source source() const { return source_; }

    static DispatchProfiler* active() { return active_; }
    void after_dispatch();  // called by gl::dispatch

  private:
    struct Slot {
        std::vector<Query> stamps;  // stamps[0]: begin(); stamps[k]: after dispatch k
        std::vector<std::chrono::steady_clock::time_point> clock;  // the same marks, CPU clock
        std::vector<std::string> labels;
        int count = 0;
        std::int64_t frame = 0;
        bool pending = false;
    };
    void mark(Slot& slot, int index);
    double interval_ms(Slot& slot, int index, std::uint64_t& previous_stamp) const;
    std::vector<Slot> slots_;
    int next_ = 0, current_ = -1;
    int max_dispatches_;
    Source source_;
    std::int64_t last_frame_ = 0;
    // Per thread: a benchmark tab's worker dispatches on its own context at the same time, and
    // its dispatches must neither be charged to the viewer's frame nor write the viewer's
    // queries from another context (whose timestamps then wrapped to ~1.8e13 ms).
    static inline thread_local DispatchProfiler* active_ = nullptr;
};

}  // namespace adilab::gl
