#pragma once
// Fields shared by the simulation tests: random starts, the comparison with a float64
// reference, and the reference stepper's heat setup.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "sim/reference.hpp"
#include "sim/simulation.hpp"

namespace adilab::test {

// nx * ny values uniform in [lo, hi), row-major, reproducible from `seed`.
inline std::vector<float> random_field(int nx, int ny, float lo, float hi, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(std::size_t(nx) * ny);
    for (float& x : v) x = dist(rng);
    return v;
}

// The largest |gpu - ref|; a NaN or Inf on the GPU side counts as infinitely far.
inline double max_abs_diff(const std::vector<float>& gpu, const std::vector<double>& ref) {
    double worst = 0;
    for (std::size_t k = 0; k < gpu.size(); ++k)
        worst = std::max(worst, std::isfinite(gpu[k]) ? std::abs(gpu[k] - ref[k]) : INFINITY);
    return worst;
}

// The float64 heat stepper's setup for `sim` on an nx x ny grid: `lambda` = c (dt / 2) / dh^2,
// and the two heaters where the scenario has them, placed from the model's own parameters.
inline sim::reference::HeatSetup heat_setup(const sim::Simulation& sim, const std::string& scenario,
                                            int nx, int ny, double lambda) {
    sim::reference::HeatSetup setup{nx, ny, lambda};
    if (scenario == "two-heaters") {
        const double offset = sim.param("heater_offset") * nx;
        setup.left_x = 0.5 * nx - offset;
        setup.right_x = 0.5 * nx + offset;
        setup.left_y = setup.right_y = 0.5 * ny;
        setup.radius = float(sim.param("heater_radius") * std::min(nx, ny));
        setup.temperature = sim.param("heater_temperature");
    }
    return setup;
}

}  // namespace adilab::test
