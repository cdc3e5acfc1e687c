#pragma once
// One benchmark run of a GUI tab on a worker thread with its own headless GL context: progress,
// Cancel, and the Report or the error it ends with. No ImGui here: the tests drive the runner
// without a window.
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "app/bench/benchmark.hpp"
#include "app/cli/args.hpp"

namespace adilab::gui {

class BenchRunner {
public:
    enum class State { idle, running, done, cancelled, failed };

    struct Status {
        State state = State::idle;
        double fraction = 0.0;  // from BenchContext::on_progress
        std::string what;       // what is being measured
        std::string error;      // failed: the message
        bool usage_error = false;  // failed with cli::UsageError (bad option), not a run error
        double seconds = 0.0;      // since start (running) or the run's length (ended)
        bool has_report = false;   // done: a report waits in take_report()
    };

    BenchRunner() = default;
    ~BenchRunner();  // cancels a run and joins the worker
    BenchRunner(const BenchRunner&) = delete;
    BenchRunner& operator=(const BenchRunner&) = delete;

    // Starts `benchmark.run(args, ...)` on a worker thread that makes its own headless GL context
    // (gl::HeadlessContext::create(device)), so the calling thread's context stays untouched.
    // The benchmark is copied. Must not be called while running().
    void start(const bench::Benchmark& benchmark, cli::Args args, int device = -1);
    // Asks the run to stop: the benchmark throws bench::Cancelled at its next check_cancelled().
    void cancel();
    // cancel(), then waits for the worker to end.
    void stop();
    bool running() const;
    Status status() const;
    // The report of the run that ended in State::done, once.
    std::optional<bench::Report> take_report();
    // What the benchmark printed (its table and notes), so far.
    std::string log() const;

private:
    void work(bench::Benchmark benchmark, cli::Args args, int device);
    class LogBuffer;

    mutable std::mutex mutex_;
    std::thread worker_;
    std::atomic<bool> cancel_{false};
    Status status_;
    std::optional<bench::Report> report_;
    std::string log_;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace adilab::gui
