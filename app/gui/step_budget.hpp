#pragma once
// How many simulation steps a frame may take so that the window stays interactive: the user's
// steps per frame, capped where frames took longer than kFrameBudget_ms. No GL or ImGui here.
namespace adilab::gui {

// Most steps a frame may ask for, as on the command line (--steps-per-frame).
constexpr int kMaxStepsPerFrame = 1000;
// Simulation time a frame may take before the viewer takes fewer steps per frame (wall clock):
// above ~100 ms the window stops feeling interactive.
constexpr double kFrameBudget_ms = 100;

class StepBudget {
  public:
    // Steps the next frame may take at most.
    int cap() const { return cap_; }
    // Whether the cap holds the frames below the steps the user set (`steps_per_frame`) because
    // frames took longer than the budget: the panel and the overlay say so.
    bool limits(int steps_per_frame) const {
        return cap_ < steps_per_frame && capped_frame_ms_ > kFrameBudget_ms;
    }
    // The simulation's share of the slowest frame that made the cap fall.
    double capped_frame_ms() const { return capped_frame_ms_; }

    // After a reset: start again from at most 8 steps, and leave the next frames (which compile
    // shaders) unmeasured.
    void restart();
    // After a state was loaded: leave the next frames unmeasured; the cap stays.
    void settle() { settle_frames_ = 2; }
    // After each frame: `simulation_ms` is the frame's wall-clock time less what the GPU timed
    // for drawing and the UI, `steps` the steps it took, `steps_per_frame` the user's setting.
    void adapt(double simulation_ms, int steps, int steps_per_frame);

  private:
    int cap_ = 8;
    int frames_since_change_ = 0;
    int settle_frames_ = 2;  // frames after a reset that compile shaders: not measured
    int slow_frames_ = 0;    // frames over budget in a row
    double capped_frame_ms_ = 0;
};

}  // namespace adilab::gui
