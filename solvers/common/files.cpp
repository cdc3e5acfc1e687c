#include "solvers/common/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "solvers/gl/error.hpp"

namespace adilab::files {

namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& why) {
    throw Error("cannot write '" + path.string() + "': " + why);
}

std::filesystem::path folder_of(const std::filesystem::path& path) {
    return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

// Same folder as the target: rename() is atomic only within one file system.
std::filesystem::path temporary_for(const std::filesystem::path& path) {
    if (path.empty()) throw Error("cannot write a file with an empty path");
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail(path, "it is a folder");
    std::filesystem::path temporary = path;
    temporary += ".tmp-" + std::to_string(::getpid());
    return temporary;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
    const std::filesystem::path temporary = temporary_for(path);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT) fail(path, "folder '" + folder_of(path).string() + "' does not exist");
        fail(path, std::strerror(error));
    }
    auto give_up = [&](int error) {
        ::close(fd);
        ::unlink(temporary.c_str());
        fail(path, std::strerror(error));
    };
    // write() may write less than asked (signals, pipes); under a file-size limit it returns
    // EFBIG once SIGXFSZ is ignored (main() ignores it, so the limit is an error, not a crash).
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) give_up(n < 0 ? errno : ENOSPC);
        done += std::size_t(n);
    }
    // fsync before the rename: otherwise a crash just after it could leave the new name on an
    // empty file, losing both the old contents and the new.
    if (::fsync(fd) != 0 && errno != EINVAL) give_up(errno);
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        fail(path, std::strerror(error));
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        fail(path, std::strerror(error));
    }
}

PendingFile::PendingFile(std::filesystem::path path)
    : path_(std::move(path)), temporary_(temporary_for(path_)) {}

PendingFile::PendingFile(PendingFile&& other) noexcept
    : path_(std::move(other.path_)), temporary_(std::exchange(other.temporary_, {})) {}

PendingFile& PendingFile::operator=(PendingFile&& other) noexcept {
    if (this != &other) {
        abandon();
        path_ = std::move(other.path_);
        temporary_ = std::exchange(other.temporary_, {});
    }
    return *this;
}

PendingFile::~PendingFile() {
    abandon();
}

void PendingFile::abandon() {
    if (temporary_.empty()) return;
    ::unlink(temporary_.c_str());
    temporary_.clear();
}

void PendingFile::commit() {
    if (temporary_.empty()) throw Error("cannot write '" + path_.string() + "': nothing to commit");
    const std::filesystem::path temporary = std::exchange(temporary_, {});
    auto give_up = [&](int error) {
        ::unlink(temporary.c_str());
        fail(path_, std::strerror(error));
    };
    // As write_file_atomically: on disk before the rename, so that a crash cannot leave the new
    // name on an empty file. The writer (another program) did not fsync.
    const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) give_up(errno);
    if (::fsync(fd) != 0 && errno != EINVAL) {
        const int error = errno;
        ::close(fd);
        give_up(error);
    }
    ::close(fd);
    if (::rename(temporary.c_str(), path_.c_str()) != 0) give_up(errno);
}

void check_output_path(const std::filesystem::path& path, const std::string& what) {
    const std::string prefix = "cannot write " + what + " '" + path.string() + "': ";
    if (path.empty()) throw Error("cannot write " + what + ": the path is empty");
    const std::filesystem::path folder = folder_of(path);
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec))
        throw Error(prefix + "folder '" + folder.string() + "' does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
        throw Error(prefix + "folder '" + folder.string() + "' is not writable (" +
                    std::strerror(errno) + ")");
    if (std::filesystem::is_directory(path, ec)) throw Error(prefix + "it is a folder");
}

std::uintmax_t file_length(const std::filesystem::path& path, const std::string& what) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
        throw InputError("cannot read " + what + " '" + path.string() +
                         "': " + std::strerror(errno));
    if (S_ISDIR(info.st_mode))
        throw InputError("cannot read " + what + " '" + path.string() + "': it is a folder");
    if (!S_ISREG(info.st_mode))
        throw InputError("cannot read " + what + " '" + path.string() + "': not a regular file");
    if (::access(path.c_str(), R_OK) != 0)
        throw InputError("cannot read " + what + " '" + path.string() +
                         "': " + std::strerror(errno));
    return std::uintmax_t(info.st_size);
}

void check_declared_bytes(const std::filesystem::path& path, const std::string& field,
                          std::uintmax_t declared, std::uintmax_t available) {
    if (declared > available)
        throw InputError("'" + path.string() + "': " + field + " declares " +
                         std::to_string(declared) + " bytes but the file has only " +
                         std::to_string(available) + " left");
}

}  // namespace adilab::files
