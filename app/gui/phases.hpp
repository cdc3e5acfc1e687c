#pragma once
// The overlay's time per phase, from the dispatch profiler's per-program times: named for a
// reader of an ADI paper ("x sweep", "y sweep", ...) or, behind "details", per shader, then the
// drawing, the UI and the rest of the same frame, so that the lines add up to the frame.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "solvers/gl/frame_timer.hpp"

namespace adilab::gui {

struct PhaseTime {
    std::string name;
    double ms = 0;
    int dispatches = 0;
};

// One frame's time, split: the simulation step's dispatches (by program), the viewport's drawing,
// the UI's, and the rest of the frame's wall-clock time (the CPU's own work, waits, vsync). Every
// part is of the same frame: GPU times arrive a few frames late and are matched by frame number.
struct FrameBreakdown {
    std::int64_t frame = 0;  // 0: no frame complete yet
    // Where the times come from: the GPU's timer queries, or the CPU's clock around each part
    // (drivers whose queries do not time compute work: Context::timer_queries_work).
    bool gpu_phases = false, gpu_draw = false;
    std::vector<gl::DispatchProfiler::Phase> phases;  // empty: the frame took no steps
    double draw_ms = 0, ui_ms = 0;
    double frame_ms = 0;  // wall clock, from the start of this frame to the start of the next
    double parts_ms() const;
    // The frame less its parts; negative where the GPU's work of the frame ran on past it
    // (frames overlap on a GPU that is behind).
    double other_ms() const { return frame_ms - parts_ms(); }
};
// "frame 12 (GPU): x sweep 0.020 ms, y sweep 0.019 ms, draw 0.094 ms, UI 0.086 ms, other
// 16.47 ms = 16.69 ms": what the overlay lists, for the end of a scripted run.
std::string describe(const FrameBreakdown& breakdown);

// Whether a frame's times can be shown: each finite, not negative and under a minute. A
// difference of two GL timestamps that arrive out of order wraps (unsigned) to ~1.8e13 ms.
bool phases_valid(std::span<const gl::DispatchProfiler::Phase> phases);
// Only the simulation's programs (shaders/sim/ and the tridiagonal solvers they call): work
// that another thread or tab dispatched (a benchmark) is never a simulation phase.
bool is_simulation_program(const std::string& label);
// The simulation's dispatches grouped as people name them: "x sweep" and "y sweep" (each ADI
// half step: its explicit part and the implicit line solves along that axis, fused or not), "line
// solves" (a registry tridiagonal solver's kernels, both half steps: the profiler sums them per
// program), "whole step" (a one-dispatch step), "brush", "other". In order of first appearance.
std::vector<PhaseTime> named_phases(std::span<const gl::DispatchProfiler::Phase> phases);
// One line per simulation program: the shader's file name and its DIRECTION / KERNEL_* defines
// (the shape defines left out: they are numbers, not names).
std::vector<PhaseTime> shader_phases(std::span<const gl::DispatchProfiler::Phase> phases);

}  // namespace adilab::gui
