#pragma once
// What the GPU can hold, checked before a buffer is allocated. A storage buffer larger than
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE can be allocated but not bound whole: shaders then read zeros
// past the limit (an 8192^2 heat grid on a 128 MiB-limit device ran, exited 0 and exported an
// all-zero field; with steps it was reported as "unstable"). And buffers larger than the free
// GPU memory fail late or swap.
//
// Two lines of checks:
//  - Each model, solver and benchmark lists the buffers it is about to allocate, by name in the
//    problem's words ("heat's T field", "the LU panel scratch"), and calls check_buffers_fit()
//    before it allocates any of them: a refusal names the size, the buffer and the limit, and
//    nothing was allocated (a model keeps its old grid).
//  - gl::Buffer's constructor checks every allocation once more (check_buffer_fits, "a buffer"):
//    the last line of defence for a buffer nobody listed.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "solvers/gl/error.hpp"

namespace adilab::gl {

struct DeviceInfo;

// The GPU cannot hold what was asked: a failed run (exit 1), not a usage error.
class CapacityError : public Error {
  public:
    using Error::Error;
};

// One buffer about to be allocated. `name` is what the user knows it as.
struct BufferNeed {
    std::string name;
    std::uint64_t bytes = 0;
};

// What a device holds, for the checks (a plain struct, so tests can give fake limits).
struct Limits {
    std::uint64_t max_block_bytes = 0;  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE; 0: unknown
    std::int64_t free_bytes = -1;       // free GPU memory now; -1: the driver does not tell
    std::string device;                 // the renderer, for messages
};

// The limits of the context current on this thread (free memory read now); no limits at all
// (nothing refused) without a current context.
Limits current_limits();
// The limits `device` recorded when its context was made (free memory as it was then).
Limits limits_of(const DeviceInfo& device);

// Free GPU memory in bytes now, where the driver tells (GL_NVX_gpu_memory_info); -1 elsewhere.
std::int64_t free_memory_bytes();

// count * size in bytes, saturating at UINT64_MAX instead of wrapping (a file declaring 2^31 x
// 2^31 floats is 2^64 bytes: it must read as too large, not as 0).
std::uint64_t bytes_of(std::uint64_t count, std::uint64_t size);

// Why `buffers` do not fit `limits`, or "" when they do. The first buffer (in list order) above
// the largest storage block: "the GPU cannot hold <name> of <size> (<n> bytes): its largest
// storage buffer is <limit> (GL_MAX_SHADER_STORAGE_BLOCK_SIZE on <device>)"; else, when their sum
// exceeds the free memory: "the GPU cannot hold <name> (<size>), <name> (<size>)...: <total> in
// all, and it reports <free> free on <device>".
std::string capacity_problem(std::span<const BufferNeed> buffers, const Limits& limits);

// Throws CapacityError(capacity_problem(...)) unless `buffers` fit, the current context's limits
// by default.
void check_buffers_fit(std::span<const BufferNeed> buffers, const Limits& limits);
void check_buffers_fit(std::span<const BufferNeed> buffers);
inline void check_buffers_fit(std::initializer_list<BufferNeed> buffers) {
    check_buffers_fit(std::span<const BufferNeed>(buffers.begin(), buffers.size()));
}

// One buffer: check_buffers_fit({{what, bytes}}). gl::Buffer's constructor calls it for every
// allocation ("a buffer": the callers above name theirs first).
void check_buffer_fits(std::size_t bytes, const std::string& what = "a buffer");

// "1.5 GiB", "300.0 MiB", "12.0 KiB", "17 bytes": sizes in messages.
std::string format_bytes(std::uint64_t bytes);

}  // namespace adilab::gl
