#pragma once
// Runs a command line through the shell and captures its exit code and output (stdout and
// stderr together), for the end-to-end tests of the adilab executable.
#include <string>

#include "tests/support/temp_folder.hpp"  // temp_folder, for the files these runs write

namespace adilab::test {

struct ProcessResult {
    int exit_code = -1;
    std::string output;
    // The peak resident memory of the command (the largest of its processes: the shell, and what
    // it ran), in KiB, from wait4's rusage; -1 where unknown.
    long peak_rss_kib = -1;
};

ProcessResult run_command(const std::string& command_line);
// adilab's path (the build's executable) followed by `arguments`.
ProcessResult run_adilab(const std::string& arguments);
// The whole of a file (reports, recordings, settings); empty where it cannot be read.
std::string read_text(const std::string& path);
// Writes `text` to `path` as bytes (inputs a test hands adilab: presets, states, .mtx files).
void write_text(const std::string& path, const std::string& text);

}  // namespace adilab::test
