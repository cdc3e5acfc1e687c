#pragma once
// How app/ names a file in a message and explains why it could not be read or written. The GUI's
// saves and loads (the state file, the .npy export, the cross-section's CSV, videos and
// screenshots) report failures with these; the writers below them (solvers/common/files.hpp)
// name the path but not always the operating system's cause.
#include <filesystem>
#include <string>

namespace adilab::files {

// `path` made absolute for a message, so that a relative name says which folder it went to
// (`path` as given when the current folder cannot be read).
std::string absolute_text(const std::filesystem::path& path);

// The operating system's reason why `path` cannot be opened for reading or writing ("Permission
// denied", "No such file or directory"), or empty when it can. Called after a failed save or
// load, whose own message names the file but not the cause; a probe for writing that creates
// the file removes it again.
std::string os_reason(const std::filesystem::path& path, bool write);

// `message`, followed by ": " and os_reason(path, write) when there is one.
std::string with_reason(const std::string& message, const std::filesystem::path& path, bool write);

}  // namespace adilab::files
