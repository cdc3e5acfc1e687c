// The GUI benchmark tabs' worker (app/gui/bench_runner.hpp): a run on its own thread
// and its own headless GL context, progress, Cancel, errors, and the report it hands back.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "app/gui/bench_runner.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/objects.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::gui {
namespace {

using namespace std::chrono_literals;

// Polls until the run has ended; a run that hangs fails the test instead of hanging it.
BenchRunner::Status wait_for_end(BenchRunner& runner, std::chrono::seconds limit = 120s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (runner.running() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(2ms);
    return runner.status();
}

bench::Benchmark fake(std::function<bench::Report(const cli::Args&, bench::BenchContext&)> run) {
    return {"fake", "a benchmark for the runner's tests", {{"n", "N", "a number"}}, std::move(run)};
}

TEST(BenchRunner, RunsTheRegistryBenchmarkOnItsOwnContext) {
    ADILAB_NEED_GL();
    const bench::Benchmark* bandwidth = bench::find_benchmark("bandwidth");
    ASSERT_NE(bandwidth, nullptr);
    gl::Context* mine = &gl::Context::current();
    BenchRunner runner;
    runner.start(*bandwidth,
                 cli::Args::parse({"--mib", "1,2", "--repeats", "2"}, bandwidth->options));
    const auto status = wait_for_end(runner);
    ASSERT_EQ(status.state, BenchRunner::State::done) << status.error;
    EXPECT_EQ(status.fraction, 1.0);
    auto report = runner.take_report();
    ASSERT_TRUE(report.has_value());
    EXPECT_FALSE(runner.take_report().has_value()) << "a report is handed over once";
    ASSERT_EQ(report->rows.size(), 2u);
    EXPECT_EQ(report->rows[1].number("mib"), 2.0);
    EXPECT_GT(report->rows[0].number("gb_per_s"), 0.0);
    EXPECT_NE(runner.log().find("gl-copy-vec4"), std::string::npos) << runner.log();
    // This thread's context is still the current one, and still works.
    ASSERT_EQ(&gl::Context::current(), mine);
    std::vector<float> values = {1.0f, 2.0f, 3.0f};
    gl::Buffer buffer(values.size() * sizeof(float), values.data());
    EXPECT_EQ(buffer.read<float>(3), values);
}

TEST(BenchRunner, ReportsProgressAndStopsOnCancel) {
    ADILAB_NEED_GL();
    std::atomic<const gl::Context*> worker_context{nullptr};
    auto waits = fake([&](const cli::Args&, bench::BenchContext& ctx) -> bench::Report {
        worker_context = &gl::Context::current();
        ctx.progress(0.5, "waiting for Cancel");
        for (;;) {
            ctx.check_cancelled();
            std::this_thread::sleep_for(1ms);
        }
    });
    BenchRunner runner;
    runner.start(waits, cli::Args{});
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (runner.status().what.empty() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(2ms);
    const auto during = runner.status();
    EXPECT_EQ(during.state, BenchRunner::State::running);
    EXPECT_EQ(during.fraction, 0.5);
    EXPECT_EQ(during.what, "waiting for Cancel");
    EXPECT_NE(worker_context.load(), nullptr);
    EXPECT_NE(worker_context.load(), &gl::Context::current())
        << "the worker shares this thread's context";
    runner.cancel();
    const auto after = wait_for_end(runner);
    EXPECT_EQ(after.state, BenchRunner::State::cancelled);
    EXPECT_FALSE(runner.take_report().has_value());
}

TEST(BenchRunner, DestructorCancelsAndJoins) {
    ADILAB_NEED_GL();
    std::atomic<bool> started{false}, stopped{false};
    {
        BenchRunner runner;
        runner.start(fake([&](const cli::Args&, bench::BenchContext& ctx) -> bench::Report {
                         started = true;
                         try {
                             for (;;) {
                                 ctx.check_cancelled();
                                 std::this_thread::sleep_for(1ms);
                             }
                         } catch (const bench::Cancelled&) {
                             stopped = true;
                             throw;
                         }
                     }),
                     cli::Args{});
        while (!started) std::this_thread::sleep_for(1ms);
    }
    EXPECT_TRUE(stopped) << "the runner went away before its worker stopped";
}

TEST(BenchRunner, UsageAndRunErrorsAreReportedApart) {
    ADILAB_NEED_GL();
    auto validating = fake([](const cli::Args& args, bench::BenchContext&) -> bench::Report {
        args.get_int("n", 1, 1, 10);  // the same validation as the CLI's
        throw Error("the GPU cannot hold that");
    });
    const std::vector<cli::OptionSpec> options = {{"n", "N", "a number"}};
    BenchRunner runner;
    runner.start(validating, cli::Args::parse({"--n", "0"}, options));
    auto status = wait_for_end(runner);
    EXPECT_EQ(status.state, BenchRunner::State::failed);
    EXPECT_TRUE(status.usage_error);
    EXPECT_NE(status.error.find("--n: '0' is out of range"), std::string::npos) << status.error;

    runner.start(validating, cli::Args::parse({"--n", "5"}, options));  // the same runner again
    status = wait_for_end(runner);
    EXPECT_EQ(status.state, BenchRunner::State::failed);
    EXPECT_FALSE(status.usage_error);
    EXPECT_EQ(status.error, "the GPU cannot hold that");
}

}  // namespace
}  // namespace adilab::gui
