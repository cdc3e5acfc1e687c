#pragma once
// Fields shared by the simulation tests: random starts, the comparison with a float64
// reference, the reference stepper's heat setup, the exact PR line solve and a cosine mode.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "sim/reference.hpp"
#include "sim/simulation.hpp"

namespace adilab::test {

// fp32 agreement of a few simulation steps with the float64 reference: each step is O(10)
// operations per cell plus a diagonally dominant solve (condition number < 3 here), so round-off
// grows by about 1e-6 relative per step; 6 steps at unit magnitude stay below 2e-5 with a
// factor-3 margin.
constexpr double kStepTolerance = 2e-5;

// The GPU solvers a test runs every variant of: "fused" and each tridiagonal variant the model
// supports (cg-1 and cg-2 stop after one or two iterations by design, so they solve nothing
// exactly; they still must not hide a NaN).
inline std::vector<std::string> gpu_solvers(const std::string& model) {
    std::vector<std::string> out;
    for (const std::string& s : sim::solver_names())
        if (sim::solver_supports(model, s)) out.push_back(s);
    return out;
}

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
    setup.implicit_euler = sim.param("scheme") == 0;
    return setup;
}

// The float64 advection stepper's setup for `sim` on an nx x ny grid, from the model's own
// parameters and the scenario's velocity and source as sim/advection.cpp places them.
inline sim::reference::AdvectionSetup advection_setup(const sim::Simulation& sim,
                                                      const std::string& scenario, int nx, int ny) {
    sim::reference::AdvectionSetup setup;
    setup.nx = nx;
    setup.ny = ny;
    setup.half_dt = 0.5 * sim.param("dt");
    setup.dh = sim.param("dh");
    setup.diffusivity = sim.param("D");
    setup.implicit_euler = sim.param("scheme") == 0;
    setup.rotation = scenario == "vortex";
    setup.u = sim.param("u");
    setup.v = scenario == "river" ? 0.0 : sim.param("v");
    setup.omega = sim.param("omega");
    setup.center_x = 0.5 * nx * setup.dh;
    setup.center_y = 0.5 * ny * setup.dh;
    if (scenario != "free") {
        setup.source_x = 0.3 * nx;
        setup.source_y = scenario == "vortex" ? 0.3 * ny : 0.5 * ny;
        setup.source_radius = std::max(0.5, sim.param("source_radius") * std::min(nx, ny));
        setup.source_rate = sim.param("source_rate");
        setup.source_steps =
            scenario == "vortex" ? (long long)sim.param("source_steps") : 1LL << 40;
    }
    return setup;
}

// The Neumann Peaceman–Rachford system of one line (off-diagonals -lambda, diagonal
// 1 + 2 lambda, 1 + lambda in the wall rows) solved exactly by Thomas in float64.
inline std::vector<double> neumann_pr_solve(double lambda, const std::vector<double>& d) {
    const int n = int(d.size());
    std::vector<double> cp(n), dp(n), x(n);
    for (int i = 0; i < n; ++i) {
        const double b = 1 + 2 * lambda - (i == 0 ? lambda : 0) - (i == n - 1 ? lambda : 0);
        const double a = i == 0 ? 0 : -lambda, c = i == n - 1 ? 0 : -lambda;
        const double m = b - (i == 0 ? 0 : a * cp[i - 1]);
        cp[i] = c / m;
        dp[i] = (d[i] - (i == 0 ? 0 : a * dp[i - 1])) / m;
    }
    for (int i = n - 1; i >= 0; --i) x[i] = dp[i] - (i == n - 1 ? 0 : cp[i] * x[i + 1]);
    return x;
}

// The cosine mode cos(kx (i + 1/2)) cos(ky (j + 1/2)) with 3 half-waves along x and 2 along y
// (dh = 1): it satisfies the mirrored (Neumann) walls exactly and is an eigenvector of the
// discrete Laplacian, so one PR step multiplies it by `factor` =
// (1 - ax)(1 - ay) / ((1 + ax)(1 + ay)), a = 4 lambda sin^2(k / 2).
struct CosineMode {
    std::vector<float> field;
    double factor = 0;
};
inline CosineMode cosine_mode(int nx, int ny, double lambda) {
    const double tx = std::numbers::pi * 3 / nx, ty = std::numbers::pi * 2 / ny;
    CosineMode mode;
    mode.field.resize(std::size_t(nx) * ny);
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i)
            mode.field[j * nx + i] = float(std::cos(tx * (i + 0.5)) * std::cos(ty * (j + 0.5)));
    const double ax = 4 * lambda * std::pow(std::sin(tx / 2), 2);
    const double ay = 4 * lambda * std::pow(std::sin(ty / 2), 2);
    mode.factor = (1 - ax) * (1 - ay) / ((1 + ax) * (1 + ay));
    return mode;
}

// `steps` heat steps of `sim` on the GPU and in the float64 stepper, from one random field in
// [0, 1) (`seed`) on an nx x ny grid of `scenario`. The caller makes the model and sets its dt and
// scheme first; lambda = dt / 2 (c = 1, dh = 1). `error` is the largest difference relative to
// the largest |T| of the reference, at least 1: the start is in [0, 1]; with heaters and a large
// lambda the PR scheme can overshoot beyond, and fp32 round-off scales with it.
struct HeatComparison {
    double error = 0;
    std::string kernel;
    bool stable = false;
};
inline HeatComparison compare_heat_with_reference(sim::Simulation& sim, const std::string& scenario,
                                                  int nx, int ny, int steps, unsigned seed) {
    sim.reset(scenario, nx, ny);
    const std::vector<float> start = random_field(nx, ny, 0, 1, seed);
    sim.set_field(start);
    const sim::reference::HeatSetup setup =
        heat_setup(sim, scenario, nx, ny, 0.5 * sim.param("dt"));
    std::vector<double> ref(start.begin(), start.end());
    for (int s = 0; s < steps; ++s) sim::reference::heat_step(setup, ref);
    sim.step(steps);
    HeatComparison result;
    result.kernel = sim.kernel();
    result.stable = sim.stats().stable;
    double magnitude = 1;
    for (double v : ref) magnitude = std::max(magnitude, std::abs(v));
    result.error = max_abs_diff(sim.read_field(), ref) / magnitude;
    return result;
}

// The cosine mode (lambda = dt / 2) through `steps` steps of `sim` on the "free" nx x ny grid
// (dt set by the caller): the largest difference from factor^steps times the mode.
struct CosineDecay {
    double error = 0;
    double factor = 0;  // the PR factor g
};
inline CosineDecay cosine_mode_decay(sim::Simulation& sim, int nx, int ny, int steps) {
    sim.reset("free", nx, ny);
    const CosineMode mode = cosine_mode(nx, ny, 0.5 * sim.param("dt"));
    sim.set_field(mode.field);
    sim.step(steps);
    std::vector<double> expected(mode.field.size());
    for (std::size_t k = 0; k < expected.size(); ++k)
        expected[k] = std::pow(mode.factor, steps) * mode.field[k];
    return {max_abs_diff(sim.read_field(), expected), mode.factor};
}

}  // namespace adilab::test
