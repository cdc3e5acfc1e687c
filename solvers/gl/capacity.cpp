#include "solvers/gl/capacity.hpp"

#include <cstdio>
#include <cstring>

#include "solvers/gl/context.hpp"
#include <glad/gl.h>

namespace adilab::gl {

std::int64_t free_memory_bytes() {
    if (!Context::has_current() || Context::current().info().total_memory_mib <= 0) return -1;
    GLint available_kib = 0;
    glGetIntegerv(0x9049, &available_kib);  // GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX (KiB)
    return std::int64_t(available_kib) * 1024;
}

std::string format_bytes(std::uint64_t bytes) {
    char text[48];
    if (bytes >= (1ull << 30)) std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20)) std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1ull << 20));
    else if (bytes >= 1024) std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024.0);
    else std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
    return text;
}

void check_buffer_fits(std::size_t bytes, const std::string& what) {
    if (!Context::has_current()) return;
    const DeviceInfo& device = Context::current().info();
    if (device.max_storage_block_bytes > 0 && bytes > std::uint64_t(device.max_storage_block_bytes))
        throw CapacityError("the GPU cannot hold " + what + " of " + format_bytes(bytes) + " (" +
                            std::to_string(bytes) + " bytes): its largest storage buffer is " +
                            format_bytes(std::uint64_t(device.max_storage_block_bytes)) +
                            " (GL_MAX_SHADER_STORAGE_BLOCK_SIZE on " + device.renderer + ")");
    const std::int64_t free = free_memory_bytes();
    if (free >= 0 && bytes > std::uint64_t(free))
        throw CapacityError("the GPU cannot hold " + what + " of " + format_bytes(bytes) +
                            ": it reports " + format_bytes(std::uint64_t(free)) + " free on " +
                            device.renderer);
}

}  // namespace adilab::gl
