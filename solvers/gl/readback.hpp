#pragma once
// A few bytes that shaders write and the host reads without draining the GPU's queue: a
// persistently mapped, coherent buffer (GL 4.4 buffer storage) bound as a storage buffer.
// fence() after the dispatch that writes it; wait() waits for that fence only, so commands
// queued after the fence keep the GPU busy while the host looks. Where buffer storage is
// missing (a GL 4.3 driver) it is an ordinary buffer and wait() an ordinary (draining) read.
// Used by the power method's gpu-opt: Step2 copies the control block here, and the host reads
// iteration k's verdict while Step3 of the next iteration runs.
#include <cstddef>
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
    // Makes the shader writes queued so far visible to the host and queues a fence.
    void fence();
    // Waits for the latest fence (flushing the queue so that it can signal) and returns the
    // bytes. Without a fence (or without buffer storage) it reads after all queued work.
    const void* wait();
    std::size_t bytes() const { return bytes_; }

private:
    void release();
    std::size_t bytes_ = 0;
    Id buffer_ = 0;
    void* mapped_ = nullptr;
    void* fence_ = nullptr;  // GLsync
    Buffer fallback_;        // without buffer storage: an ordinary buffer, read with a drain
    std::vector<unsigned char> fallback_bytes_;
};

}  // namespace adilab::gl
