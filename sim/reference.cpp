#include "sim/reference.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace adilab::sim::reference {
namespace {

struct Row {
    double a = 0, b = 1, c = 0, d = 0;
};

// Solves every line of one direction: row(line, pos) gives the system, the solution goes to out.
void solve_lines(int nx, int ny, int direction, const std::function<Row(int, int)>& row,
                 std::vector<double>& out) {
    const int n = direction == 0 ? nx : ny, lines = direction == 0 ? ny : nx;
    std::vector<double> cp(n), dp(n);
    for (int line = 0; line < lines; ++line) {
        for (int pos = 0; pos < n; ++pos) {
            Row r = row(line, pos);
            if (pos == 0) r.a = 0;
            if (pos == n - 1) r.c = 0;
            const double m = pos == 0 ? r.b : r.b - r.a * cp[pos - 1];
            cp[pos] = r.c / m;
            dp[pos] = (r.d - (pos == 0 ? 0 : r.a * dp[pos - 1])) / m;
        }
        for (int pos = n - 1; pos >= 0; --pos) {
            const double x = dp[pos] - (pos == n - 1 ? 0 : cp[pos] * dp[pos + 1]);
            dp[pos] = x;
            const int id = direction == 0 ? line * nx + pos : pos * nx + line;
            out[id] = x;
        }
    }
}

}  // namespace

void heat_step(const HeatSetup& s, std::vector<double>& temperature) {
    auto in_heater = [&](int i, int j) {
        if (s.radius <= 0) return false;
        const double x = i + 0.5, y = j + 0.5;
        const double r2 = s.radius * s.radius;
        return (x - s.left_x) * (x - s.left_x) + (y - s.left_y) * (y - s.left_y) <= r2 ||
               (x - s.right_x) * (x - s.right_x) + (y - s.right_y) * (y - s.right_y) <= r2;
    };
    const double along = s.implicit_euler ? 2 * s.lambda : s.lambda;
    const double across = s.implicit_euler ? 0 : s.lambda;
    std::vector<double> half(temperature.size());
    for (int direction = 0; direction < 2; ++direction) {
        const std::vector<double>& in = direction == 0 ? temperature : half;
        std::vector<double>& out = direction == 0 ? half : temperature;
        const int n = direction == 0 ? s.nx : s.ny;
        auto temperature = [&](int i, int j) {
            i = std::clamp(i, 0, s.nx - 1);
            j = std::clamp(j, 0, s.ny - 1);
            return in_heater(i, j) ? s.temperature : in[j * s.nx + i];
        };
        solve_lines(
            s.nx, s.ny, direction,
            [&](int line, int pos) {
                const int i = direction == 0 ? pos : line, j = direction == 0 ? line : pos;
                Row r;
                if (in_heater(i, j)) {
                    r.d = s.temperature;
                    return r;
                }
                const int di = direction == 0 ? 0 : 1, dj = direction == 0 ? 1 : 0;
                const double centre = temperature(i, j);
                r.d = centre + across * (temperature(i - di, j - dj) - 2 * centre +
                                         temperature(i + di, j + dj));
                r.a = r.c = -along;
                r.b = 1 + 2 * along;
                if (pos == 0) r.b -= along;
                if (pos == n - 1) r.b -= along;
                return r;
            },
            out);
    }
}

void advection_step(const AdvectionSetup& s, long long step_index,
                    std::vector<double>& concentration) {
    auto velocity = [&](int i, int j) {
        if (!s.rotation) return std::pair<double, double>(s.u, s.v);
        const double x = (i + 0.5) * s.dh - s.center_x, y = (j + 0.5) * s.dh - s.center_y;
        return std::pair<double, double>(-s.omega * y, s.omega * x);
    };
    auto source = [&](int i, int j) {
        if (s.source_rate == 0 || step_index > s.source_steps) return 0.0;
        const double rx = (i + 0.5 - s.source_x) / s.source_radius;
        const double ry = (j + 0.5 - s.source_y) / s.source_radius;
        const double r2 = rx * rx + ry * ry;
        return r2 < 9 ? s.source_rate * std::exp(-r2) : 0.0;
    };
    const double implicit_dt = s.implicit_euler ? 2 * s.half_dt : s.half_dt;
    const double explicit_dt = s.implicit_euler ? 0 : s.half_dt;
    const double k = s.diffusivity / (s.dh * s.dh);
    std::vector<double> half(concentration.size());
    for (int direction = 0; direction < 2; ++direction) {
        const std::vector<double>& in = direction == 0 ? concentration : half;
        std::vector<double>& out = direction == 0 ? half : concentration;
        const int n = direction == 0 ? s.nx : s.ny;
        // Velocity component along (w) and across (e) this sweep's lines.
        auto w_at = [&](int i, int j) {
            const auto [u, v] = velocity(i, j);
            return direction == 0 ? u : v;
        };
        auto e_at = [&](int i, int j) {
            const auto [u, v] = velocity(i, j);
            return direction == 0 ? v : u;
        };
        solve_lines(
            s.nx, s.ny, direction,
            [&](int line, int pos) {
                const int i = direction == 0 ? pos : line, j = direction == 0 ? line : pos;
                const int ai = direction == 0 ? 1 : 0, aj = 1 - ai;  // along
                const int ci = 1 - ai, cj = 1 - aj;                  // across
                Row r;
                const double centre = in[j * s.nx + i];
                r.d = centre + s.half_dt * source(i, j);
                double diagonal = 0;
                if (pos > 0) {  // the face before: upwind, closed at the wall
                    const double w = 0.5 * (w_at(i, j) + w_at(i - ai, j - aj));
                    r.a = -implicit_dt * (std::max(w, 0.0) / s.dh + k);
                    diagonal += -std::min(w, 0.0) / s.dh + k;
                }
                if (pos < n - 1) {
                    const double w = 0.5 * (w_at(i, j) + w_at(i + ai, j + aj));
                    r.c = -implicit_dt * (-std::min(w, 0.0) / s.dh + k);
                    diagonal += std::max(w, 0.0) / s.dh + k;
                }
                r.b = 1 + implicit_dt * diagonal;
                const int across_pos = direction == 0 ? j : i;
                const int across_n = direction == 0 ? s.ny : s.nx;
                double divergence = 0;  // of the central fluxes across the line
                if (across_pos < across_n - 1) {
                    const double high = in[(j + cj) * s.nx + i + ci];
                    const double e = 0.5 * (e_at(i, j) + e_at(i + ci, j + cj));
                    divergence += 0.5 * e * (centre + high) / s.dh - k * (high - centre);
                }
                if (across_pos > 0) {
                    const double low = in[(j - cj) * s.nx + i - ci];
                    const double e = 0.5 * (e_at(i, j) + e_at(i - ci, j - cj));
                    divergence -= 0.5 * e * (low + centre) / s.dh - k * (centre - low);
                }
                r.d -= explicit_dt * divergence;
                return r;
            },
            out);
    }
}

void shallow_water_step(const ShallowWaterSetup& s, std::vector<double>& h,
                        std::vector<double>& previous) {
    auto depth = [&](int i, int j) {
        const int id = j * s.nx + i;
        return std::max(h[id] - s.bottom[id], 0.0);
    };
    std::vector<double> star(h.size()), next(h.size());
    for (int direction = 0; direction < 2; ++direction) {
        const int n = direction == 0 ? s.nx : s.ny;
        solve_lines(
            s.nx, s.ny, direction,
            [&](int line, int pos) {
                const int i = direction == 0 ? pos : line, j = direction == 0 ? line : pos;
                const int di = direction == 0 ? 1 : 0, dj = direction == 0 ? 0 : 1;
                const double here = depth(i, j);
                const double left = pos > 0 ? depth(i - di, j - dj) + here : 0;
                const double right = pos < n - 1 ? here + depth(i + di, j + dj) : 0;
                Row r;
                r.a = -s.coupling * left;
                r.c = -s.coupling * right;
                r.b = 1 + s.coupling * (left + right);
                const int id = j * s.nx + i;
                r.d = direction == 0 ? h[id] + (1 - s.damping) * (h[id] - previous[id]) : star[id];
                return r;
            },
            direction == 0 ? star : next);
    }
    for (std::size_t id = 0; id < h.size(); ++id) next[id] = std::max(next[id], s.bottom[id]);
    previous = h;
    h = next;
}

}  // namespace adilab::sim::reference
