// dispatch_breakdown (benchmark.hpp): where a run's GPU time goes, per program.
#include <cstdio>

#include "app/bench/benchmark.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/frame_timer.hpp"

namespace adilab::bench {

std::string dispatch_breakdown(const std::function<void(int runs)>& run, int runs) {
    gl::DispatchProfiler profiler(1, 64 * runs);
    gl::finish();
    profiler.begin();
    run(runs);
    profiler.end();
    gl::finish();
    std::string breakdown;
    for (const auto& phase : profiler.collect()) {
        char text[512];
        std::snprintf(text, sizeof text, "%s%s: %.5f ms (%g)", breakdown.empty() ? "" : "; ",
                      phase.label.c_str(), phase.ms / runs, double(phase.dispatches) / runs);
        breakdown += text;
    }
    return breakdown;
}

}  // namespace adilab::bench
