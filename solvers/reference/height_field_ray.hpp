#pragma once
// The first crossing of a ray with a height field, on the CPU in float64: the reference the 3-D
// view's ray caster (shaders/render/surface_ray.comp) is checked against.
//
// The surface is the bilinear interpolant of z over samples at integer (x, y), x in [0, nx - 1],
// y in [0, ny - 1], row-major (z[y * nx + x]); outside that rectangle there is no surface. The
// ray is o + t d, t >= 0 (any units, as long as x, y are in sample units). Method: independent
// of the GPU's (block skipping, exact quadratic per cell): the sign of o.z + t d.z - S(x(t), y(t))
// is sampled at steps of `step` sample units of horizontal travel, and the first sign change is
// bisected to double precision. A crest thinner than `step` can be missed; tests use surfaces
// smooth on that scale.
#include <array>
#include <span>

namespace adilab::reference {

struct HeightFieldHit {
    bool hit = false;
    double t = 0;
    double x = 0, y = 0, z = 0;  // the hit point
};

// The bilinear interpolant at (x, y), clamped into the sample rectangle.
double height_field_at(std::span<const double> z, int nx, int ny, double x, double y);

HeightFieldHit ray_height_field(std::span<const double> z, int nx, int ny, std::array<double, 3> o,
                                std::array<double, 3> d, double step = 1.0 / 32);

}  // namespace adilab::reference
