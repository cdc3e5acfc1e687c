#pragma once
// GPU timing. GL_TIME_ELAPSED queries measure the GPU time of the commands between begin()
// and end(). Where the driver's timer reads 0 (Mesa llvmpipe), the wall clock between two
// glFinish calls is used instead, so every figure is a real measurement on every driver.
#include <chrono>
#include <functional>
#include <vector>

#include "solvers/gl/objects.hpp"

namespace adilab::gl {

class GpuTimer {
  public:
    GpuTimer();
    void begin();
    void end();
    // Milliseconds between begin() and end(); waits for the GPU.
    double elapsed_ms();

  private:
    Query query_;
    bool use_queries_ = true;
    std::chrono::steady_clock::time_point wall_start_, wall_end_;
};

struct TimingOptions {
    int warmup = 3;    // untimed runs first: compiles, allocations and caches settle
    int repeats = 10;  // timed runs
};

// Runs `work` warmup + repeats times and returns the milliseconds of each timed run. Each run
// waits for the GPU (the query's result, or glFinish), and each starts at a cancellation point
// (commands.hpp): a cancelled GUI run leaves at most one run's work in flight. So does warm_up.
std::vector<double> time_runs(const std::function<void()>& work, TimingOptions options = {});

// Runs `work` (waiting for the GPU after each run) at least `min_runs` times and for at least
// `min_ms` of wall time. Benchmarks call it before timing work that follows CPU work (float64
// references, CPU baselines, set-up): an idle GPU clocks down, and a few short kernels do not
// bring it back up; after a second of CPU work the clocks took up to a second of GPU work to
// recover, so every benchmark warms up for a second (docs/performance.md, "Warm-up before
// timing", has the figures).
inline constexpr double kWarmUpMs = 1000;
void warm_up(const std::function<void()>& work, double min_ms = kWarmUpMs, int min_runs = 3);
double median(std::vector<double> samples);

// GPU timestamps at chosen points of a command stream (glQueryCounter), to split a long sequence
// of dispatches by phase. A mark is taken once the GPU has completed every earlier command, so
// place marks where a barrier already waits: a mark between two unordered dispatches may order
// them. Reading waits for the GPU: for diagnostics, not for timed paths.
class StampLog {
  public:
    // Charges the GPU time since the previous mark to `phase` (>= 0); phase -1 only starts.
    void mark(int phase);
    // Milliseconds charged to each phase 0..phases-1 and how many marks each got (waits for the
    // GPU), then starts over.
    struct Totals {
        std::vector<double> ms;
        std::vector<int> marks;
    };
    Totals collect(int phases);

  private:
    std::vector<Query> queries_;  // reused across collects
    std::vector<int> phases_;     // the phase of each mark taken
};

}  // namespace adilab::gl
