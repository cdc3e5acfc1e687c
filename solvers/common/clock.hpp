#pragma once
// Wall-clock intervals for the CPU baselines' timings and the benches' time limits.
#include <chrono>

namespace adilab {

// Milliseconds from `start` to now, on the monotonic clock.
inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

}  // namespace adilab
