#include "app/files/paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace adilab::files {

std::string absolute_text(const std::filesystem::path& path) {
    std::error_code ec;
    const auto full = std::filesystem::absolute(path, ec);
    return (ec ? path : full).string();
}

std::string os_reason(const std::filesystem::path& path, bool write) {
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    const int fd =
        write ? ::open(path.c_str(), O_WRONLY | O_CREAT, 0644) : ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    if (write && !existed) std::filesystem::remove(path, ec);
    return {};
}

std::string with_reason(const std::string& message, const std::filesystem::path& path, bool write) {
    const std::string reason = os_reason(path, write);
    return reason.empty() ? message : message + ": " + reason;
}

}  // namespace adilab::files
