#pragma once
// A few bytes the host reads back without draining the GPU's queue: capture() queues a GPU copy
// of a buffer range into a persistently mapped, coherent buffer (GL 4.4 buffer storage) and a
// fence after it; wait() waits for that fence only, so commands queued after the capture keep
// the GPU busy while the host looks. Where buffer storage is missing (a GL 4.3 driver) it falls
// back to an ordinary (draining) read.
// Used by the power method's gpu-opt to read an iteration's control block while the next
// iteration already runs.
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

    // Queues the copy of source[offset, offset + bytes()) and a fence.
    void capture(const Buffer& source, std::size_t offset = 0);
    // Waits for the latest capture (flushing the queue so that it can complete) and returns
    // its bytes. Throws adilab::Error when nothing was captured.
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
    bool captured_ = false;
};

}  // namespace adilab::gl
