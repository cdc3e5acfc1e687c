#pragma once
// Float64 CPU steppers of exactly the discrete schemes the GPU kernels implement
// (shaders/sim/*.comp), with the Thomas algorithm per line. The tests step the GPU model and
// these side by side from the same start; the GPU result must agree to fp32 round-off.
// Grid layout as everywhere: cell (i, j) at j * nx + i.
#include <vector>

namespace adilab::sim::reference {

struct HeatSetup {
    int nx = 0, ny = 0;
    double lambda = 0;  // c (dt / 2) / dh^2
    // Heaters (two discs, in cells); radius <= 0: none.
    double left_x = 0, left_y = 0, right_x = 0, right_y = 0, radius = 0, temperature = 0;
    // The scheme: Peaceman–Rachford (false) or implicit Euler splitting (each sweep
    // (1 - 2 lambda d_xx) T* = T over the whole dt).
    bool implicit_euler = false;
};
// One step (x sweep, then y sweep) in place; heater cells are identity rows of both sweeps.
void heat_step(const HeatSetup& setup, std::vector<double>& temperature);

struct AdvectionSetup {
    int nx = 0, ny = 0;
    double half_dt = 0, dh = 1, diffusivity = 0;
    bool implicit_euler = false;  // each sweep implicit over dt, no explicit part (else eq. 8)
    bool rotation = false;
    double u = 0, v = 0, omega = 0, center_x = 0, center_y = 0;             // m
    double source_x = 0, source_y = 0, source_radius = 1, source_rate = 0;  // cells, C/s
    long long source_steps = 0;
};
// Step number `step_index` (1-based: the source switch) of the flux-form upwind ADI scheme in a
// closed box (shaders/sim/advection.comp).
void advection_step(const AdvectionSetup& setup, long long step_index,
                    std::vector<double>& concentration);

struct ShallowWaterSetup {
    int nx = 0, ny = 0;
    double coupling = 0;  // g dt^2 / (2 dh^2)
    double damping = 0;
    std::vector<double> bottom;
};
// One Kass–Miller step: (h, previous) -> (new h, h), no forcing.
void shallow_water_step(const ShallowWaterSetup& setup, std::vector<double>& h,
                        std::vector<double>& previous);

}  // namespace adilab::sim::reference
