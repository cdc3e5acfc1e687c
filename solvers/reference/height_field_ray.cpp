#include "solvers/reference/height_field_ray.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace adilab::reference {

double height_field_at(std::span<const double> z, int nx, int ny, double x, double y) {
    x = std::clamp(x, 0.0, double(nx - 1));
    y = std::clamp(y, 0.0, double(ny - 1));
    const int i = std::min(int(x), nx - 2), j = std::min(int(y), ny - 2);
    const double u = x - i, v = y - j;
    auto at = [&](int a, int b) { return z[std::size_t(b) * nx + a]; };
    return (1 - v) * ((1 - u) * at(i, j) + u * at(i + 1, j)) +
           v * ((1 - u) * at(i, j + 1) + u * at(i + 1, j + 1));
}

HeightFieldHit ray_height_field(std::span<const double> z, int nx, int ny, std::array<double, 3> o,
                                std::array<double, 3> d, double step) {
    HeightFieldHit none;
    if (nx < 2 || ny < 2) return none;
    // The part of the ray over the sample rectangle (and above t = 0).
    double t0 = 0, t1 = std::numeric_limits<double>::infinity();
    const double hi[2] = {double(nx - 1), double(ny - 1)};
    for (int a = 0; a < 2; ++a) {
        if (d[a] == 0) {
            if (o[a] < 0 || o[a] > hi[a]) return none;
            continue;
        }
        double ta = (0 - o[a]) / d[a], tb = (hi[a] - o[a]) / d[a];
        if (ta > tb) std::swap(ta, tb);
        t0 = std::max(t0, ta);
        t1 = std::min(t1, tb);
    }
    if (!(t0 <= t1)) return none;
    auto gap = [&](double t) {
        return o[2] + t * d[2] - height_field_at(z, nx, ny, o[0] + t * d[0], o[1] + t * d[1]);
    };
    const double horizontal = std::hypot(d[0], d[1]);
    const double dt = horizontal > 0 ? step / horizontal : (t1 - t0);
    double ta = t0, ga = gap(t0);
    if (ga == 0) return {true, t0, o[0] + t0 * d[0], o[1] + t0 * d[1], o[2] + t0 * d[2]};
    while (ta < t1) {
        const double tb = std::min(ta + dt, t1);
        const double gb = gap(tb);
        if ((ga < 0) != (gb < 0) || gb == 0) {
            double lo = ta, hi_t = tb;
            for (int k = 0; k < 80; ++k) {
                const double mid = 0.5 * (lo + hi_t);
                if ((gap(mid) < 0) == (ga < 0) && gap(mid) != 0)
                    lo = mid;
                else
                    hi_t = mid;
            }
            const double t = 0.5 * (lo + hi_t);
            return {true, t, o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
        }
        ta = tb;
        ga = gb;
    }
    return none;
}

}  // namespace adilab::reference
