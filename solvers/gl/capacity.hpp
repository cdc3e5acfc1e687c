#pragma once
// What the GPU can hold, checked before a buffer is allocated. A storage buffer larger than
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE can be allocated but not bound whole: shaders then read zeros
// past the limit (an 8192^2 heat grid on a 128 MiB-limit device ran, exited 0 and exported an
// all-zero field; with steps it was reported as "unstable"). And a buffer larger than the free
// GPU memory fails late or swaps. check_buffer_fits refuses both with a message naming the
// size, the buffer and the limit; gl::Buffer's constructor calls it for every allocation, so
// models, solvers and benchmarks are all covered, and callers that know more (the grid, the
// matrix) catch CapacityError to add it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "solvers/gl/error.hpp"

namespace adilab::gl {

// The GPU cannot hold what was asked: a failed run (exit 1), not a usage error.
class CapacityError : public Error {
public:
    using Error::Error;
};

// Free GPU memory in bytes now, where the driver tells (GL_NVX_gpu_memory_info); -1 elsewhere.
std::int64_t free_memory_bytes();

// Throws CapacityError when `bytes` exceed the current context's largest storage block, or the
// free GPU memory the driver reports. `what` names the buffer ("a buffer" when unknown).
void check_buffer_fits(std::size_t bytes, const std::string& what = "a buffer");

// "1.5 GiB", "300 MiB", "12 KiB", "17 bytes": sizes in messages.
std::string format_bytes(std::uint64_t bytes);

}  // namespace adilab::gl
