#include "tests/support/process.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace adilab::test {

ProcessResult run_command(const std::string& command_line) {
    // As popen(command, "r") with stderr joined, but through fork and wait4, whose rusage gives
    // the peak memory of the shell and every process it waited for.
    ProcessResult result;
    int pipe_fd[2];
    if (::pipe(pipe_fd) != 0) return result;
    const std::string full = command_line + " 2>&1";
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(pipe_fd[0]);
        ::close(pipe_fd[1]);
        return result;
    }
    if (child == 0) {
        ::close(pipe_fd[0]);
        ::dup2(pipe_fd[1], STDOUT_FILENO);
        ::close(pipe_fd[1]);
        ::execl("/bin/sh", "sh", "-c", full.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(pipe_fd[1]);
    std::array<char, 4096> buffer;
    for (ssize_t n; (n = ::read(pipe_fd[0], buffer.data(), buffer.size())) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        result.output.append(buffer.data(), std::size_t(n));
    }
    ::close(pipe_fd[0]);
    int status = 0;
    rusage usage{};
    while (::wait4(child, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.peak_rss_kib = usage.ru_maxrss;
    return result;
}

ProcessResult run_adilab(const std::string& arguments) {
#ifdef ADILAB_EXE
    return run_command(std::string("'") + ADILAB_EXE + "' " + arguments);
#else
    return run_command("adilab " + arguments);
#endif
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

}  // namespace adilab::test
