#include "solvers/gl/capacity.hpp"

#include <glad/gl.h>

#include <cstdio>
#include <cstring>
#include <limits>

#include "solvers/gl/context.hpp"

namespace adilab::gl {

std::int64_t free_memory_bytes() {
    if (!Context::has_current() || Context::current().info().total_memory_mib <= 0) return -1;
    GLint available_kib = 0;
    glGetIntegerv(0x9049, &available_kib);  // GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX (KiB)
    return std::int64_t(available_kib) * 1024;
}

Limits current_limits() {
    if (!Context::has_current()) return {};
    Limits limits = limits_of(Context::current().info());
    limits.free_bytes = free_memory_bytes();
    return limits;
}

Limits limits_of(const DeviceInfo& device) {
    Limits limits;
    limits.max_block_bytes =
        device.max_storage_block_bytes > 0 ? std::uint64_t(device.max_storage_block_bytes) : 0;
    limits.free_bytes = device.available_memory_mib > 0 ? device.available_memory_mib << 20 : -1;
    limits.device = device.renderer;
    return limits;
}

std::uint64_t bytes_of(std::uint64_t count, std::uint64_t size) {
    constexpr std::uint64_t kMost = std::numeric_limits<std::uint64_t>::max();
    if (size != 0 && count > kMost / size) return kMost;
    return count * size;
}

std::string format_bytes(std::uint64_t bytes) {
    char text[48];
    if (bytes >= (1ull << 40))
        std::snprintf(text, sizeof text, "%.1f TiB", double(bytes) / double(1ull << 40));
    else if (bytes >= (1ull << 30))
        std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1ull << 20));
    else if (bytes >= 1024)
        std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024.0);
    else
        std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
    return text;
}

std::string capacity_problem(std::span<const BufferNeed> buffers, const Limits& limits) {
    const std::string on = limits.device.empty() ? "" : " on " + limits.device;
    for (const BufferNeed& b : buffers)
        if (limits.max_block_bytes > 0 && b.bytes > limits.max_block_bytes)
            return "the GPU cannot hold " + b.name + " of " + format_bytes(b.bytes) + " (" +
                   std::to_string(b.bytes) + " bytes): its largest storage buffer is " +
                   format_bytes(limits.max_block_bytes) + " (GL_MAX_SHADER_STORAGE_BLOCK_SIZE" +
                   on + ")";
    if (limits.free_bytes < 0) return {};
    std::uint64_t total = 0;
    for (const BufferNeed& b : buffers)
        total = total > std::numeric_limits<std::uint64_t>::max() - b.bytes
                    ? std::numeric_limits<std::uint64_t>::max()
                    : total + b.bytes;
    if (total <= std::uint64_t(limits.free_bytes)) return {};
    std::string list;
    for (const BufferNeed& b : buffers)
        list += (list.empty() ? "" : ", ") + b.name + " (" + format_bytes(b.bytes) + ")";
    return "the GPU cannot hold " + list +
           (buffers.size() > 1 ? ": " + format_bytes(total) + " in all, and" : ":") +
           " it reports " + format_bytes(std::uint64_t(limits.free_bytes)) + " free" + on;
}

void check_buffers_fit(std::span<const BufferNeed> buffers, const Limits& limits) {
    const std::string problem = capacity_problem(buffers, limits);
    if (!problem.empty()) throw CapacityError(problem);
}

void check_buffers_fit(std::span<const BufferNeed> buffers) {
    if (!Context::has_current()) return;
    check_buffers_fit(buffers, current_limits());
}

void check_buffer_fits(std::size_t bytes, const std::string& what) {
    check_buffers_fit({BufferNeed{what, bytes}});
}

}  // namespace adilab::gl
