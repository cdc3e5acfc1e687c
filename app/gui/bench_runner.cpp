// One benchmark run on a worker thread: see bench_runner.hpp.
//
// Threads and GL: the worker makes its own EGL headless context with
// gl::HeadlessContext::create(), which is current on the worker only; the GUI thread's GLFW
// context stays current on the GUI thread. gl::Context::current() is thread-local, so each
// thread's programs and shader cache belong to its own context. glad's entry points are
// process-wide pointers that the worker's context creation loads again; through libglvnd both
// glfwGetProcAddress and eglGetProcAddress hand out the same per-thread dispatch stubs for core
// GL, so the GUI thread keeps calling valid entry points while the worker loads.
#include "app/gui/bench_runner.hpp"

#include <algorithm>
#include <ostream>
#include <streambuf>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

// The benchmark's printed output (BenchContext::out), collected for the panel as it comes.
class BenchRunner::LogBuffer : public std::streambuf {
  public:
    explicit LogBuffer(Shared& shared) : shared_(shared) {}

  protected:
    int_type overflow(int_type c) override {
        if (c != traits_type::eof()) {
            const char ch = traits_type::to_char_type(c);
            xsputn(&ch, 1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* text, std::streamsize count) override {
        std::lock_guard lock(shared_.mutex);
        shared_.log.append(text, static_cast<std::size_t>(count));
        return count;
    }

  private:
    Shared& shared_;
};

namespace {
std::atomic<int> workers_left_running{0};

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}
}  // namespace

BenchRunner::~BenchRunner() {
    stop();
}

void BenchRunner::start(const bench::Benchmark& benchmark, cli::Args args, int device) {
    if (running()) throw Error("a benchmark run is still going");
    if (worker_.joinable()) worker_.join();  // the previous run, already ended
    // A fresh state for each run: a worker left to end on its own keeps the old one.
    shared_ = std::make_shared<Shared>();
    shared_->status.state = State::running;
    shared_->started = std::chrono::steady_clock::now();
    worker_ = std::thread(&BenchRunner::work, shared_, benchmark, std::move(args), device);
}

void BenchRunner::work(std::shared_ptr<Shared> shared, bench::Benchmark benchmark, cli::Args args,
                       int device) {
    LogBuffer buffer(*shared);
    std::ostream out(&buffer);
    State end = State::done;
    std::string error;
    bool usage_error = false;
    std::optional<bench::Report> report;
    try {
        // The context lives and dies on this thread, inside this block: its programs and
        // buffers are freed before the run is reported as ended.
        auto context = gl::HeadlessContext::create(device);
        bench::BenchContext ctx{context->info(), out,
                                [&shared](double fraction, const std::string& what) {
                                    std::lock_guard lock(shared->mutex);
                                    shared->status.fraction = std::clamp(fraction, 0.0, 1.0);
                                    shared->status.what = what;
                                },
                                &shared->cancel};
        // Every dispatch and timed run of the benchmark, down in the solvers, checks the flag.
        const gl::CancellationCheck check([&ctx] { ctx.check_cancelled(); });
        ctx.check_cancelled();
        report = benchmark.run(args, ctx);
    } catch (const bench::Cancelled&) {
        end = State::cancelled;
    } catch (const cli::UsageError& e) {
        end = State::failed;
        usage_error = true;
        error = e.what();
    } catch (const Error& e) {
        end = State::failed;
        error = e.what();
    } catch (const std::exception& e) {
        end = State::failed;
        error = std::string("unexpected error: ") + e.what();
    } catch (...) {
        end = State::failed;
        error = "unexpected error of an unknown kind";
    }
    out.flush();
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(shared->mutex);
    Status& status = shared->status;
    status.state = end;
    status.error = std::move(error);
    status.usage_error = usage_error;
    status.seconds = seconds_between(shared->started, now);
    if (status.cancel_requested)
        status.seconds_since_cancel = seconds_between(shared->cancelled_at, now);
    if (end == State::done) {
        status.fraction = 1.0;
        shared->report = std::move(report);
        status.has_report = shared->report.has_value();
    }
    if (shared->left_behind) --workers_left_running;
}

void BenchRunner::cancel() {
    std::lock_guard lock(shared_->mutex);
    if (shared_->status.state != State::running || shared_->status.cancel_requested) return;
    shared_->status.cancel_requested = true;
    shared_->cancelled_at = std::chrono::steady_clock::now();
    shared_->cancel = true;
}

void BenchRunner::stop() {
    cancel();
    if (worker_.joinable()) worker_.join();
}

bool BenchRunner::stop_within(std::chrono::milliseconds limit) {
    cancel();
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (running() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    {
        // Decided under the lock the worker takes to report its end, so that it either has
        // ended (and is joined) or counts itself out of left_running() when it does.
        std::lock_guard lock(shared_->mutex);
        if (shared_->status.state == State::running) {
            shared_->left_behind = true;
            ++workers_left_running;
        }
    }
    if (!shared_->left_behind) {
        if (worker_.joinable()) worker_.join();
        return true;
    }
    worker_.detach();
    shared_ = std::make_shared<Shared>();
    return false;
}

int BenchRunner::left_running() {
    return workers_left_running.load();
}

bool BenchRunner::running() const {
    std::lock_guard lock(shared_->mutex);
    return shared_->status.state == State::running;
}

BenchRunner::Status BenchRunner::status() const {
    std::lock_guard lock(shared_->mutex);
    Status copy = shared_->status;
    if (copy.state == State::running) {
        const auto now = std::chrono::steady_clock::now();
        copy.seconds = seconds_between(shared_->started, now);
        if (copy.cancel_requested)
            copy.seconds_since_cancel = seconds_between(shared_->cancelled_at, now);
    }
    return copy;
}

std::optional<bench::Report> BenchRunner::take_report() {
    std::lock_guard lock(shared_->mutex);
    std::optional<bench::Report> out = std::move(shared_->report);
    shared_->report.reset();
    shared_->status.has_report = false;
    return out;
}

std::string BenchRunner::log() const {
    std::lock_guard lock(shared_->mutex);
    return shared_->log;
}

}  // namespace adilab::gui
