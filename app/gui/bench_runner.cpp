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

#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

// The benchmark's printed output (BenchContext::out), collected for the panel as it comes.
class BenchRunner::LogBuffer : public std::streambuf {
public:
    explicit LogBuffer(BenchRunner& runner) : runner_(runner) {}

protected:
    int_type overflow(int_type c) override {
        if (c != traits_type::eof()) {
            const char ch = traits_type::to_char_type(c);
            xsputn(&ch, 1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* text, std::streamsize count) override {
        std::lock_guard lock(runner_.mutex_);
        runner_.log_.append(text, static_cast<std::size_t>(count));
        return count;
    }

private:
    BenchRunner& runner_;
};

BenchRunner::~BenchRunner() { stop(); }

void BenchRunner::start(const bench::Benchmark& benchmark, cli::Args args, int device) {
    if (running()) throw Error("a benchmark run is still going");
    if (worker_.joinable()) worker_.join();  // the previous run, already ended
    {
        std::lock_guard lock(mutex_);
        status_ = Status{};
        status_.state = State::running;
        report_.reset();
        log_.clear();
        started_ = std::chrono::steady_clock::now();
    }
    cancel_ = false;
    worker_ = std::thread(&BenchRunner::work, this, benchmark, std::move(args), device);
}

void BenchRunner::work(bench::Benchmark benchmark, cli::Args args, int device) {
    LogBuffer buffer(*this);
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
                                [this](double fraction, const std::string& what) {
                                    std::lock_guard lock(mutex_);
                                    status_.fraction = std::clamp(fraction, 0.0, 1.0);
                                    status_.what = what;
                                },
                                &cancel_};
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
    std::lock_guard lock(mutex_);
    status_.state = end;
    status_.error = std::move(error);
    status_.usage_error = usage_error;
    status_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (end == State::done) {
        status_.fraction = 1.0;
        report_ = std::move(report);
        status_.has_report = report_.has_value();
    }
}

void BenchRunner::cancel() { cancel_ = true; }

void BenchRunner::stop() {
    cancel();
    if (worker_.joinable()) worker_.join();
}

bool BenchRunner::running() const {
    std::lock_guard lock(mutex_);
    return status_.state == State::running;
}

BenchRunner::Status BenchRunner::status() const {
    std::lock_guard lock(mutex_);
    Status copy = status_;
    if (copy.state == State::running)
        copy.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    return copy;
}

std::optional<bench::Report> BenchRunner::take_report() {
    std::lock_guard lock(mutex_);
    std::optional<bench::Report> out = std::move(report_);
    report_.reset();
    status_.has_report = false;
    return out;
}

std::string BenchRunner::log() const {
    std::lock_guard lock(mutex_);
    return log_;
}

}  // namespace adilab::gui
