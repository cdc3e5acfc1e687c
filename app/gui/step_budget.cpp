#include "app/gui/step_budget.hpp"

#include <algorithm>

namespace adilab::gui {

void StepBudget::restart() {
    cap_ = std::min(cap_, 8);
    capped_frame_ms_ = 0;
    settle_frames_ = 2;
    frames_since_change_ = 0;
}

void StepBudget::adapt(double simulation_ms, int steps, int steps_per_frame) {
    // The simulation's share of a frame cannot be read without waiting for the GPU, but the
    // wall-clock frame (which includes it: presenting waits for the frame's work) bounds it.
    // Over budget: the cap falls in proportion at once. Well under budget for a few frames
    // (the GPU may still be working on earlier frames): it doubles, up to the setting. A
    // typed 1000 steps on a 4096^2 grid so plays at about 10 frames a second, never frozen.
    // The first frames after a reset compile shaders, and one slow frame can be the system's
    // doing: only two slow frames in a row count. Starting from at most 8 steps and at most
    // doubling, no frame gets far past the budget on the way.
    ++frames_since_change_;
    if (settle_frames_ > 0) {
        --settle_frames_;
        return;
    }
    if (steps <= 0) return;
    slow_frames_ = simulation_ms > kFrameBudget_ms ? slow_frames_ + 1 : 0;
    if (slow_frames_ >= 2 && steps > 1) {
        cap_ = std::max(1, static_cast<int>(steps * kFrameBudget_ms / simulation_ms));
        frames_since_change_ = 0;
        slow_frames_ = 0;
        capped_frame_ms_ = simulation_ms;
    } else if (simulation_ms < 0.5 * kFrameBudget_ms && steps >= cap_ && cap_ < kMaxStepsPerFrame &&
               frames_since_change_ >= 2) {
        cap_ = std::min(kMaxStepsPerFrame, 2 * cap_);
        frames_since_change_ = 0;
    }
    if (simulation_ms > kFrameBudget_ms && cap_ < steps_per_frame) capped_frame_ms_ = simulation_ms;
}

}  // namespace adilab::gui
