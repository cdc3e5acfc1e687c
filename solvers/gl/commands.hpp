#pragma once
// The GL commands adilab issues outside object methods, so that no module but solvers/gl
// includes the loader.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace adilab::gl {

// Which later accesses must see the writes of earlier shaders (glMemoryBarrier bits).
enum class Barrier : unsigned {
    storage = 1u << 0,        // shader storage buffer reads and writes
    uniform = 1u << 1,        // buffers later bound as uniform blocks
    vertex_attrib = 1u << 2,  // buffers later read as vertex attributes
    buffer_update = 1u << 3,  // glGetBufferSubData / glBufferSubData / copies
    texture_fetch = 1u << 4,  // textures sampled after image stores
    image_access = 1u << 5,   // image loads and stores
    command = 1u << 6,        // indirect dispatch and draw arguments
    all = 0xFFFFFFFFu,
};
constexpr Barrier operator|(Barrier a, Barrier b) {
    return static_cast<Barrier>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

class Buffer;

void dispatch(unsigned groups_x, unsigned groups_y = 1, unsigned groups_z = 1);
// A dispatch whose work-group counts (three uints) the GPU reads from `arguments` at byte
// `offset` when it runs: a count that a kernel wrote earlier in the queue (after a
// Barrier::command), zero for none, with no read-back.
void dispatch_indirect(const Buffer& arguments, std::size_t offset);
void memory_barrier(Barrier bits);
void finish();
void flush();

// Cancellation points: where a benchmark that a GUI tab runs on a worker thread stops when the
// user presses Cancel or closes the window. The worker installs a check (a function that throws
// to stop: bench::Cancelled) for the length of the run; gl::dispatch calls it before every
// dispatch, and the timing loops (timer.hpp) before every run. So a run stops at its next
// dispatch wherever it is (inside a solver, a warm-up, the middle of a measurement of many
// repeats), and none of those needs to know of the GUI: the exception unwinds through their RAII
// objects, and the worker's context goes with it. A dispatch already issued cannot be called
// back: on a software renderer, which runs a dispatch before glDispatchCompute returns, that one
// dispatch bounds the wait; on a GPU, the work queued since the timing loop last waited for the
// GPU (one timed run). Per thread, like DispatchProfiler::active(): the viewer's thread and
// `adilab --bench` install none and pay one thread-local pointer test per dispatch.
class CancellationCheck {
  public:
    explicit CancellationCheck(std::function<void()> check);  // for this thread, until destroyed
    ~CancellationCheck();                                     // the previous check again
    CancellationCheck(const CancellationCheck&) = delete;
    CancellationCheck& operator=(const CancellationCheck&) = delete;

  private:
    std::function<void()> check_;
    const std::function<void()>* previous_;
};
// Calls this thread's check, if one is installed (it may throw).
void cancellation_point();

// Waits until the GPU has passed `fence` (a GLsync): looks first without flushing (a fence the
// host lags behind has usually signalled), else flushes the queue so that it can signal at all
// and waits in one-second slices. Throws adilab::Error naming `what` when the wait fails. The
// fence stays the caller's to delete.
void wait_for_fence(void* fence, const char* what);

// Bounds how much GPU work the host queues ahead of the GPU: mark() after each batch of work
// queues a fence and, once more than `depth` batches are pending, waits for the oldest one. A
// loop of many steps (a headless run, a benchmark interval) otherwise queues all of them before
// the first wait: on an H100 with NVIDIA's driver, 500 steps of 8192^2 shallow water (about 14 s
// of work) or 2,000 of advection (13 s) queued at once lost the context — every later read
// returned garbage, and the stability flag read as a blow-up at a nonsense step — while 200 steps
// (5.5 s) ran. With a batch of a few tenths of a second and two batches pending the GPU never
// idles: the host is still a whole batch ahead when it waits.
class QueueBound {
  public:
    explicit QueueBound(int depth = 2) : depth_(depth) {}
    ~QueueBound();
    QueueBound(const QueueBound&) = delete;
    QueueBound& operator=(const QueueBound&) = delete;
    void mark();
    int pending() const { return int(fences_.size()); }

  private:
    int depth_;
    std::vector<void*> fences_;  // GLsync, oldest first
};

// Rendering state and draws (the viewer's renderer uses these).
void viewport(int x, int y, int width, int height);
void clear(float r, float g, float b, float a, bool depth = true);
void set_depth_test(bool on);
void set_blending(bool on);  // straight alpha blending
enum class Primitive { triangles, triangle_strip, lines, points };
void draw_arrays(Primitive mode, int first, int count);
void draw_arrays_instanced(Primitive mode, int first, int count, int instances);
// Reads the bound read framebuffer as RGBA8, rows top first (flipped from GL's bottom-up).
std::vector<std::uint8_t> read_pixels_rgba(int x, int y, int width, int height);

// Saves the read and draw framebuffer bindings and the viewport, and puts them back when it goes:
// for work that draws into a framebuffer of its own in the middle of someone else's frame (the
// viewer's offscreen captures).
class FramebufferBindingGuard {
  public:
    FramebufferBindingGuard();
    ~FramebufferBindingGuard();
    FramebufferBindingGuard(const FramebufferBindingGuard&) = delete;
    FramebufferBindingGuard& operator=(const FramebufferBindingGuard&) = delete;

  private:
    int draw_ = 0, read_ = 0;
    int viewport_[4] = {0, 0, 0, 0};
};

// Checks glGetError and throws adilab::Error naming `where` if anything is pending.
void check_errors(const char* where);

}  // namespace adilab::gl
