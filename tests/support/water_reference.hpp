#pragma once
// Shallow water's step in float64, for the tests that compare the GPU's step with it on wet/dry
// ground (shaders/sim/shallow_water.comp), and the rough water over rocks they run it on.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "app/files/png.hpp"
#include "sim/simulation.hpp"

namespace adilab::test {

// The step of shaders/sim/shallow_water.comp in float64: Kass & Miller's two sweeps with the
// upstream-limited edge conductance and the velocity term of the wet cells less their mean (0 in
// dry cells), then settling. State h, v = h^{n-1} - h^{n-2}, bottom b;
// coupling = g dt^2 / (2 dh^2). (sim/reference.cpp's stepper is the paper's scheme with the old
// clamp; on a flat, wet bottom the two agree.)
struct WaterState {
    int nx = 0, ny = 0;
    std::vector<double> h, v, b;
};
// Returns how many cells the sweeps overdrew (left below their bottom before settling).
inline int reference_water_step(WaterState& s, double coupling, double damping) {
    const int nx = s.nx, ny = s.ny;
    auto at = [&](int i, int j) { return std::size_t(j) * nx + i; };
    auto depth = [&](std::size_t id) { return std::max(s.h[id] - s.b[id], 0.0); };
    auto conductance = [&](std::size_t p, std::size_t q) {  // p before q along the line
        const double up = s.h[p] >= s.h[q] ? depth(p) : depth(q);
        return std::min(depth(p) + depth(q), 2 * up);
    };
    // The velocity term: 0 in dry cells, less the mean over the wet ones elsewhere.
    double wet_sum = 0, wet_cells = 0;
    for (std::size_t k = 0; k < s.h.size(); ++k)
        if (s.h[k] > s.b[k]) wet_sum += s.v[k], wet_cells += 1;
    const double mean = wet_cells > 0 ? wet_sum / wet_cells : 0;
    std::vector<double> dx(s.h.size()), dv(s.h.size());
    for (int direction = 0; direction < 2; ++direction) {
        const int lines = direction == 0 ? ny : nx, n = direction == 0 ? nx : ny;
        for (int line = 0; line < lines; ++line) {
            auto id = [&](int pos) { return direction == 0 ? at(pos, line) : at(line, pos); };
            std::vector<double> a(n), diag(n), c(n), d(n);
            for (int pos = 0; pos < n; ++pos) {
                const std::size_t k = id(pos);
                const double left = pos > 0 ? conductance(id(pos - 1), k) : 0;
                const double right = pos < n - 1 ? conductance(k, id(pos + 1)) : 0;
                a[pos] = -coupling * left;
                c[pos] = -coupling * right;
                diag[pos] = 1 + coupling * (left + right);
                const double flux =
                    coupling * ((pos > 0 ? left * (s.h[k] - s.h[id(pos - 1)]) : 0) +
                                (pos < n - 1 ? right * (s.h[k] - s.h[id(pos + 1)]) : 0));
                const double v = depth(k) > 0 ? s.v[k] - mean : 0.0;
                d[pos] = (direction == 0 ? (1 - damping) * v : dx[k]) - flux;
            }
            for (int pos = 1; pos < n; ++pos) {  // Thomas
                const double m = a[pos] / diag[pos - 1];
                diag[pos] -= m * c[pos - 1];
                d[pos] -= m * d[pos - 1];
            }
            std::vector<double>& out = direction == 0 ? dx : dv;
            for (int pos = n - 1; pos >= 0; --pos)
                out[id(pos)] = (d[pos] - (pos < n - 1 ? c[pos] * out[id(pos + 1)] : 0)) / diag[pos];
        }
    }
    std::vector<double> wet(s.h.size());
    int overdrawn = 0;
    for (std::size_t k = 0; k < wet.size(); ++k) {
        wet[k] = s.h[k] + dv[k];
        overdrawn += wet[k] < s.b[k];
    }
    auto depth_after = [&](int i, int j) {
        if (i < 0 || j < 0 || i >= nx || j >= ny) return 0.0;
        return std::max(wet[at(i, j)] - s.b[at(i, j)], 0.0);
    };
    const int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
    auto around = [&](int i, int j) {
        double w = 0;
        for (int k = 0; k < 4; ++k) w += depth_after(i + di[k], j + dj[k]);
        return w;
    };
    auto ratio = [&](int i, int j) {
        if (i < 0 || j < 0 || i >= nx || j >= ny) return 0.0;
        const double deficit = s.b[at(i, j)] - wet[at(i, j)];
        const double w = around(i, j);
        return deficit > 0 && w > 0 ? std::min(deficit / w, 0.25) : 0.0;
    };
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            double drawn = 0;
            for (int k = 0; k < 4; ++k) drawn += ratio(i + di[k], j + dj[k]);
            const double change = ratio(i, j) * around(i, j) - depth_after(i, j) * drawn;
            s.h[at(i, j)] = wet[at(i, j)] + change;
            s.v[at(i, j)] = dv[at(i, j)] + change;
        }
    return overdrawn;
}

// Random rocks for the png terrain: 70 x 45 grey levels from 128 to 204 (0.5 .. 0.8 of the
// terrain's 1.5 levels), from `seed`.
inline void write_rocks(const std::string& path, unsigned seed) {
    std::vector<std::uint8_t> rgba(4 * 70 * 45, 255);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> grey(128, 204);
    for (std::size_t k = 0; k < rgba.size(); k += 4)
        rgba[k] = rgba[k + 1] = rgba[k + 2] = std::uint8_t(grey(rng));
    files::write_png(path, 70, 45, rgba);
}

// A rough surface, 0.85 .. 1.15 m from `seed`, over `bottom` (never below it).
inline std::vector<float> rough_surface(const std::vector<float>& bottom, unsigned seed) {
    std::vector<float> start(bottom.size());
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> rough(0.85f, 1.15f);
    for (std::size_t k = 0; k < start.size(); ++k) start[k] = std::max(rough(rng), bottom[k]);
    return start;
}

// The dam-break's shallow water at nx x ny on `terrain`, its surface set rough (rough_surface,
// `seed`) over the bottom, with the bottom and that surface.
struct RoughWater {
    std::unique_ptr<sim::Simulation> sim;
    std::vector<float> bottom, start;
};
inline RoughWater rough_water(const std::string& solver, const sim::FusedTuning& tuning,
                              const std::string& terrain, int nx, int ny, double dt, double damping,
                              unsigned seed) {
    RoughWater w{sim::make_simulation("shallow-water", solver), {}, {}};
    w.sim->set_fused_tuning(tuning);
    w.sim->set_param("dt", dt);
    w.sim->set_param("damping", damping);
    w.sim->set_terrain(terrain);
    w.sim->reset("dam-break", nx, ny);
    w.bottom = w.sim->terrain()->read<float>(std::size_t(nx) * ny);
    w.start = rough_surface(w.bottom, seed);
    w.sim->set_field(w.start);
    return w;
}

// The float64 stepper's state at rest at `start` over `bottom`.
inline WaterState at_rest(int nx, int ny, const std::vector<float>& start,
                          const std::vector<float>& bottom) {
    return {nx,
            ny,
            {start.begin(), start.end()},
            std::vector<double>(start.size(), 0.0),
            {bottom.begin(), bottom.end()}};
}

}  // namespace adilab::test
