#pragma once
// A few bytes that shaders write and the host reads without draining the GPU's queue: a
// persistently mapped, coherent buffer (GL 4.4 buffer storage) bound as a storage buffer.
// fence() after the dispatch that writes it; wait() waits for that fence only, so commands
// queued after the fence keep the GPU busy while the host looks. Where buffer storage is
// missing (a GL 4.3 driver) it is an ordinary buffer and wait() an ordinary (draining) read.
// Used by the power method's gpu-opt: Step2 copies the control block here, and the host reads
// iteration k's verdict while Step3 of the next iteration runs.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "solvers/gl/objects.hpp"

namespace adilab::gl {

class Readback {
  public:
    Readback() = default;
    explicit Readback(std::size_t bytes);
    Readback(Readback&& other) noexcept;
    Readback& operator=(Readback&& other) noexcept;
    Readback(const Readback&) = delete;
    Readback& operator=(const Readback&) = delete;
    ~Readback();

    void bind_storage(unsigned index) const;
    // Makes the shader writes queued so far visible to the host and queues a fence (fences
    // queue up: wait(keep) can wait for an older one while newer ones stay pending).
    void fence();
    // Waits for the fence that leaves the `keep` newest ones pending (the latest for keep = 0;
    // it flushes the queue only where that fence has not signalled yet) and returns the bytes.
    // Without a fence (or without buffer storage) it reads after all queued work.
    const void* wait(std::size_t keep = 0);
    // The mapped bytes as they are now, with no wait (nullptr without buffer storage): for a
    // word that the GPU stamps and the host polls.
    const volatile void* peek() const { return mapped_; }
    // Drops the pending fences (no wait).
    void forget();
    // All queued work done and its writes visible (a drain), then the bytes.
    const void* drain();
    std::size_t pending() const { return fences_.size(); }
    std::size_t bytes() const { return bytes_; }

  private:
    void release();
    std::size_t bytes_ = 0;
    Id buffer_ = 0;
    void* mapped_ = nullptr;
    std::deque<void*> fences_;  // GLsync, oldest first
    Buffer fallback_;           // without buffer storage: an ordinary buffer, read with a drain
    std::vector<unsigned char> fallback_bytes_;
};

// A framebuffer's pixels read back without stalling the frame that asks: queue() copies the
// colour attachment into one of a few pixel-pack buffers (glReadPixels into a bound
// GL_PIXEL_PACK_BUFFER returns at once; the copy runs on the GPU after the frame's drawing) and
// fences it; take() hands over the copies whose fences have signalled, oldest first, a frame or
// two later. The viewer's video reads one frame per recorded frame this way while recording,
// and nothing otherwise.
class FramebufferReader {
  public:
    struct Image {
        int width = 0, height = 0;
        std::vector<unsigned char> rgba;  // rows top first (flipped from GL's bottom-up)
    };
    explicit FramebufferReader(int depth = 3);
    FramebufferReader(const FramebufferReader&) = delete;
    FramebufferReader& operator=(const FramebufferReader&) = delete;
    ~FramebufferReader();

    // Queues a copy of `source`'s colour (rgba8). When every buffer is still in flight, the
    // oldest is waited for first and kept for the next take().
    void queue(const Framebuffer& source);
    // The copies that are done, oldest first; `wait`: all queued ones, waiting as needed (at the
    // end of a recording).
    std::vector<Image> take(bool wait);
    std::size_t pending() const;

  private:
    struct Slot {
        Id buffer = 0;
        std::size_t bytes = 0;
        int width = 0, height = 0;
        void* fence = nullptr;  // GLsync; null when the slot is free
        std::uint64_t order = 0;
    };
    bool read_slot(Slot& slot, bool wait, std::vector<Image>& out);
    std::vector<Slot> slots_;
    std::vector<Image> ready_;  // taken out of a slot that queue() needed
    std::uint64_t next_order_ = 0;
};

}  // namespace adilab::gl
