// The GUI benchmark tabs' worker (app/gui/bench_runner.hpp): a run on its own thread
// and its own headless GL context, progress, Cancel, errors, and the report it hands back.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "app/gui/bench_runner.hpp"
#include "app/gui/phases.hpp"
#include "sim/simulation.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/frame_timer.hpp"
#include "solvers/gl/objects.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"
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

// Waits until the run reports `what` (its progress text) or ends.
void wait_for_progress(BenchRunner& runner, const std::string& what,
                       std::chrono::seconds limit = 120s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (runner.running() && runner.status().what.find(what) == std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(2ms);
}

// Cancel, then the time until the run has ended, in seconds. The bounds below are generous for
// llvmpipe on a loaded machine: the promise is "within about a second", and the runs cancelled
// here would take minutes.
double seconds_to_stop(BenchRunner& runner) {
    const auto pressed = std::chrono::steady_clock::now();
    runner.cancel();
    wait_for_end(runner);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - pressed).count();
}

TEST(BenchRunner, CancelStopsABenchmarkThatNeverChecksAtItsNextDispatch) {
    // A benchmark of long measurements that never calls check_cancelled itself: the worker's
    // cancellation check in gl::dispatch and the timing loops stops it (gl::CancellationCheck).
    ADILAB_NEED_GL();
    std::atomic<bool> measuring{false};
    auto endless = fake([&](const cli::Args&, bench::BenchContext&) -> bench::Report {
        const gl::Program& copy = gl::compute_program("common/copy_vec4.comp");
        gl::Buffer source(std::size_t(1) << 22), destination(std::size_t(1) << 22);
        auto run = [&] {
            copy.use();
            copy.set("count", 1u << 18);
            source.bind_storage(0);
            destination.bind_storage(1);
            gl::dispatch(32);  // 8192 vec4s a work group
            gl::memory_barrier(gl::Barrier::storage);
        };
        measuring = true;
        for (;;) gl::time_runs(run, {.warmup = 1, .repeats = 1000000});
    });
    BenchRunner runner;
    runner.start(endless, cli::Args{});
    while (!measuring) std::this_thread::sleep_for(2ms);
    std::this_thread::sleep_for(300ms);  // well inside the timed repeats
    const double seconds = seconds_to_stop(runner);
    EXPECT_EQ(runner.status().state, BenchRunner::State::cancelled) << runner.status().error;
    EXPECT_LT(seconds, 3.0);
}

TEST(BenchRunner, CancelStopsTheBandwidthBenchmarkMidMeasurement) {
    // 100000 timed copies of 32 MiB: minutes on llvmpipe; cancelled inside measure_stable.
    ADILAB_NEED_GL();
    const bench::Benchmark* bandwidth = bench::find_benchmark("bandwidth");
    BenchRunner runner;
    runner.start(*bandwidth,
                 cli::Args::parse({"--mib", "32", "--repeats", "100000"}, bandwidth->options));
    wait_for_progress(runner, "32 MiB");
    std::this_thread::sleep_for(1s);
    ASSERT_TRUE(runner.running()) << runner.status().error;
    const double seconds = seconds_to_stop(runner);
    const auto status = runner.status();
    EXPECT_EQ(status.state, BenchRunner::State::cancelled) << status.error;
    EXPECT_LT(seconds, 3.0);
    EXPECT_LT(status.seconds_since_cancel, 3.0);
    EXPECT_FALSE(runner.take_report().has_value());
}

TEST(BenchRunner, CancelStopsTheSimulationBenchmarkInsideATimedInterval) {
    // 2000 steps of a 256^2 heat plate per timed interval, thousands of dispatches a run: the
    // warm-up and each interval are one call to Simulation::step, which knows nothing of Cancel.
    // (256^2: Cancel waits for the work in flight, and under AddressSanitizer on llvmpipe beside
    // a second test process one 1024^2 sweep took over a second, and 512^2 runs took 4.6 s to
    // stop in two of three CI runs while passing alone and beside one other GL test.)
    ADILAB_NEED_GL();
    const bench::Benchmark* sim = bench::find_benchmark("sim");
    BenchRunner runner;
    runner.start(*sim, cli::Args::parse({"--scenario", "heat/two-heaters", "--grid", "256",
                                         "--steps", "2000", "--repeats", "3"},
                                        sim->options));
    wait_for_progress(runner, "256");
    std::this_thread::sleep_for(2s);
    ASSERT_TRUE(runner.running()) << runner.status().error;
    const double seconds = seconds_to_stop(runner);
    EXPECT_EQ(runner.status().state, BenchRunner::State::cancelled) << runner.status().error;
    EXPECT_LT(seconds, 3.0);
}

TEST(BenchRunner, CancellingIsReportedUntilTheRunHasStopped) {
    // What the tab shows as "cancelling...": Cancel pressed, the run not ended yet.
    ADILAB_NEED_GL();
    auto slow_to_stop = fake([](const cli::Args&, bench::BenchContext& ctx) -> bench::Report {
        ctx.progress(0.1, "busy");
        while (!ctx.cancel->load()) std::this_thread::sleep_for(1ms);
        std::this_thread::sleep_for(300ms);  // one step that cannot be interrupted
        ctx.check_cancelled();
        return {};
    });
    BenchRunner runner;
    runner.start(slow_to_stop, cli::Args{});
    wait_for_progress(runner, "busy");
    EXPECT_FALSE(runner.status().cancel_requested);
    runner.cancel();
    const auto during = runner.status();
    EXPECT_EQ(during.state, BenchRunner::State::running);
    EXPECT_TRUE(during.cancel_requested);
    const auto after = wait_for_end(runner);
    EXPECT_EQ(after.state, BenchRunner::State::cancelled);
    EXPECT_TRUE(after.cancel_requested);
    EXPECT_GE(after.seconds_since_cancel, 0.25);
}

TEST(BenchRunner, StopWithinLeavesAWorkerThatCannotStopBehind) {
    // Closing the window: a worker inside one long step (a dispatch that cannot be called back)
    // is left to end on its own; the runner is free at once and nothing it owned is touched.
    ADILAB_NEED_GL();
    auto finished = std::make_shared<std::atomic<bool>>(false);
    {
        BenchRunner runner;
        runner.start(fake([finished](const cli::Args&, bench::BenchContext& ctx) -> bench::Report {
                         ctx.progress(0.5, "one long step");
                         std::this_thread::sleep_for(1500ms);
                         *finished = true;
                         ctx.check_cancelled();
                         return {};
                     }),
                     cli::Args{});
        wait_for_progress(runner, "one long step");
        const auto pressed = std::chrono::steady_clock::now();
        EXPECT_FALSE(runner.stop_within(100ms));
        EXPECT_LT(std::chrono::steady_clock::now() - pressed, 1s);
        EXPECT_FALSE(runner.running());
        EXPECT_EQ(runner.status().state, BenchRunner::State::idle);
    }  // the runner goes first; the worker still runs
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (!*finished && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(5ms);
    EXPECT_TRUE(*finished);
    std::this_thread::sleep_for(100ms);  // its context torn down on its own thread
    BenchRunner quick;
    EXPECT_TRUE(quick.stop_within(100ms)) << "nothing running: stops at once";
}

TEST(BenchRunner, CancellationChecksBelongToTheirThreadAndNest) {
    ADILAB_NEED_GL();
    EXPECT_NO_THROW(gl::cancellation_point()) << "no check installed: nothing happens";
    struct Stop {};
    int outer_calls = 0;
    {
        gl::CancellationCheck outer([&] { ++outer_calls; });
        gl::cancellation_point();
        {
            gl::CancellationCheck inner([] { throw Stop{}; });
            EXPECT_THROW(gl::cancellation_point(), Stop);
            EXPECT_THROW(gl::dispatch(1), Stop) << "a dispatch is a cancellation point";
            bool other_thread_threw = false;
            std::thread([&] {
                try {
                    gl::cancellation_point();
                } catch (...) {
                    other_thread_threw = true;
                }
            }).join();
            EXPECT_FALSE(other_thread_threw);
        }
        gl::cancellation_point();  // the outer check again
    }
    EXPECT_EQ(outer_calls, 2);
    EXPECT_NO_THROW(gl::cancellation_point());
}

TEST(BenchRunner, TheViewersPhasesNeverShowABenchmarkTabsKernels) {
    // The overlay after (and during) a benchmark tab's run: the viewer profiles its simulation's
    // dispatches on this thread while the tridiag benchmark dispatches tridiagonal/ programs,
    // whose names the overlay would take for the simulation's line solves, on the worker. Only
    // the simulation's phases appear, with times that are neither negative nor wrapped.
    ADILAB_NEED_GL();
    const bench::Benchmark* tridiag = bench::find_benchmark("tridiag");
    BenchRunner runner;
    runner.start(*tridiag, cli::Args::parse({"--grid", "64", "--repeats", "1000", "--warmup-ms",
                                             "0", "--solver", "cr-pingpong,lu-scan"},
                                            tridiag->options));
    auto simulation = sim::make_simulation("heat");
    simulation->reset("two-heaters", 64, 64);
    gl::DispatchProfiler profiler;
    int frames = 0, frames_during_run = 0;
    for (int frame = 0; frame < 400 && (frames < 20 || runner.running()); ++frame) {
        const bool during = runner.running();
        profiler.begin();
        simulation->step(1);
        profiler.end();
        gl::finish();
        const auto phases = profiler.collect();
        if (phases.empty()) continue;
        ++frames;
        frames_during_run += during;
        EXPECT_TRUE(phases_valid(phases));
        for (const auto& phase : phases) {
            EXPECT_NE(phase.label.find("sim/"), std::string::npos) << phase.label;
            EXPECT_GE(phase.ms, 0.0);
            EXPECT_LT(phase.ms, 60000.0) << phase.label;
        }
        for (const PhaseTime& named : named_phases(phases))
            EXPECT_NE(named.name, "line solves") << "a benchmark's tridiagonal kernels";
        if (frames >= 20 && frames_during_run >= 10) break;
    }
    EXPECT_GE(frames_during_run, 5) << "the benchmark ran beside the frames";
    runner.stop();
}

}  // namespace
}  // namespace adilab::gui
