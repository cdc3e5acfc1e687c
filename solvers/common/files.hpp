#pragma once
// The one module that owns files: how every output is written and how every reader learns what
// a file can hold before it allocates. It lives under solvers/common because both sim/
// (save_state, the .npy export) and app/ (reports, screenshots, recordings, settings, the GUI's
// saves) write files, and dependencies point one way (app -> sim -> solvers): this is the lowest
// layer that all of them may include.
//
// Outputs: write_file_atomically() writes a temporary file in the target's own folder and renames
// it over the target, so a reader sees either the old file or the complete new one, never a
// half-written mix. Any failure (no such folder, no permission, disk full, a file-size limit)
// removes the temporary file, leaves the old target untouched and throws adilab::Error naming the
// path and the operating system's reason (strerror).
//
// Inputs: a reader compares the sizes a file declares with the bytes the file really has
// (file_length) before it allocates, so a 16-byte file that claims to hold 20000 x 20000 values
// fails at once, naming the file and the field, instead of allocating gigabytes first.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "solvers/gl/error.hpp"

namespace adilab::files {

// A file the user named holds something wrong (a truncated .npy, a state with a negative step
// count, a Matrix Market size line larger than the file): the readers throw it with the file and
// the field named. main() treats it as a mistake in the input (exit 2, as a wrong option value);
// the GUI shows it as any other error.
class InputError : public Error {
  public:
    using Error::Error;
};

// Writes `bytes` to `path` through "<path>.tmp-<pid>" in the same folder and a rename.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

// The same protocol for an output that another program writes or that grows over a long run
// (the GUI's MP4 videos, which ffmpeg writes as frames arrive): the writer is given temporary(),
// "<path>.tmp-<pid>" in the target's folder; commit() flushes it to disk and renames it over the
// target (throwing adilab::Error with the path and the system's reason, the temporary file
// removed); a PendingFile destroyed or abandoned without commit() removes its temporary file and
// leaves the target untouched.
class PendingFile {
  public:
    PendingFile() = default;
    // Throws adilab::Error when `path` is empty or a folder.
    explicit PendingFile(std::filesystem::path path);
    PendingFile(PendingFile&& other) noexcept;
    PendingFile& operator=(PendingFile&& other) noexcept;
    PendingFile(const PendingFile&) = delete;
    PendingFile& operator=(const PendingFile&) = delete;
    ~PendingFile();

    const std::filesystem::path& path() const { return path_; }
    const std::filesystem::path& temporary() const { return temporary_; }
    void commit();
    void abandon();

  private:
    std::filesystem::path path_, temporary_;
};

// Throws adilab::Error naming `what` and `path` unless a file could be created at `path`: its
// folder exists and is writable, and `path` itself is not a folder. For checks before a long run.
void check_output_path(const std::filesystem::path& path, const std::string& what);

// The size in bytes of a regular file; throws InputError naming `what` and `path` when there
// is no such file, it is a folder, or it cannot be opened for reading.
std::uintmax_t file_length(const std::filesystem::path& path, const std::string& what);

// Throws InputError("'<path>': <field> declares <declared> bytes but the file has only
// <available> left") when a declared size does not fit in what the file holds.
void check_declared_bytes(const std::filesystem::path& path, const std::string& field,
                          std::uintmax_t declared, std::uintmax_t available);

}  // namespace adilab::files
