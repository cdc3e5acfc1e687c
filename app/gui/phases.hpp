#pragma once
// The overlay's GPU time per phase, from the dispatch profiler's per-program times: named for
// a reader of an ADI paper ("x sweep", "y sweep", ...) or, behind "details", per shader.
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

// Whether a frame's times can be shown: each finite, not negative and under a minute. A
// difference of two GL timestamps that arrive out of order wraps (unsigned) to ~1.8e13 ms.
bool phases_valid(std::span<const gl::DispatchProfiler::Phase> phases);
// Only the simulation's programs (shaders/sim/ and the tridiagonal solvers they call): work
// that another thread or tab dispatched (a benchmark) is never a simulation phase.
bool is_simulation_program(const std::string& label);
// The simulation's dispatches grouped as people name them: "x sweep" and "y sweep" (each ADI
// half step: its explicit part and the implicit line solves along that axis, fused or not), "line solves" (a registry tridiagonal solver's kernels, both
// half steps: the profiler sums them per program), "whole step" (a one-dispatch step),
// "brush", "other". In order of first appearance.
std::vector<PhaseTime> named_phases(std::span<const gl::DispatchProfiler::Phase> phases);
// One line per simulation program: the shader's file name and its DIRECTION / KERNEL_* defines
// (the shape defines left out: they are numbers, not names).
std::vector<PhaseTime> shader_phases(std::span<const gl::DispatchProfiler::Phase> phases);

}  // namespace adilab::gui
