#pragma once
// One benchmark run of a GUI tab on a worker thread with its own headless GL context: progress,
// Cancel, and the Report or the error it ends with. No ImGui here: the tests drive the runner
// without a window.
#include <atomic>
#include <chrono>
#include <memory>
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
        double fraction = 0.0;     // from BenchContext::on_progress
        std::string what;          // what is being measured
        std::string error;         // failed: the message
        bool usage_error = false;  // failed with cli::UsageError (bad option), not a run error
        double seconds = 0.0;      // since start (running) or the run's length (ended)
        bool has_report = false;   // done: a report waits in take_report()
        // Cancel was pressed during the run: while it runs, it is stopping ("cancelling…");
        // seconds_since_cancel is the time since the press, or once it ended, from the press to
        // the end (how long the user waited).
        bool cancel_requested = false;
        double seconds_since_cancel = 0.0;
    };

    BenchRunner() = default;
    ~BenchRunner();  // cancels a run and joins the worker
    BenchRunner(const BenchRunner&) = delete;
    BenchRunner& operator=(const BenchRunner&) = delete;

    // Starts `benchmark.run(args, ...)` on a worker thread that makes its own headless GL context
    // (gl::HeadlessContext::create(device)), so the calling thread's context stays untouched.
    // The benchmark is copied. Must not be called while running().
    void start(const bench::Benchmark& benchmark, cli::Args args, int device = -1);
    // Asks the run to stop: the benchmark throws bench::Cancelled at its next check, which is
    // its next GPU dispatch or timed run at the latest (gl::CancellationCheck).
    void cancel();
    // cancel(), then waits for the worker to end.
    void stop();
    // cancel(), then waits at most `limit` for the worker to end; true if it ended. A worker that
    // has not is left to end on its own (detached: it owns everything it touches), for closing
    // the window while one dispatch that cannot be called back still runs (seconds on a software
    // renderer); the runner is then idle and its status says nothing of that run.
    bool stop_within(std::chrono::milliseconds limit);
    // Workers that stop_within left behind and that have not ended yet, in the whole process:
    // main() then ends the process with _Exit once the GUI has closed everything of its own,
    // rather than run static destructors while such a thread may still use what they destroy.
    static int left_running();
    bool running() const;
    Status status() const;
    // The report of the run that ended in State::done, once.
    std::optional<bench::Report> take_report();
    // What the benchmark printed (its table and notes), so far.
    std::string log() const;

  private:
    // Everything the worker touches, shared with it so that a worker left to end on its own
    // (stop_within) outlives the runner safely.
    struct Shared {
        mutable std::mutex mutex;
        std::atomic<bool> cancel{false};
        bool left_behind = false;  // by stop_within: the worker counts itself out when it ends
        Status status;
        std::optional<bench::Report> report;
        std::string log;
        std::chrono::steady_clock::time_point started, cancelled_at;
    };
    class LogBuffer;
    static void work(std::shared_ptr<Shared> shared, bench::Benchmark benchmark, cli::Args args,
                     int device);

    std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
    std::thread worker_;
};

}  // namespace adilab::gui
