// What the factors give: solve(b) and the determinant, on the GPU (shaders/lu/solve.comp,
// shaders/lu/log_determinant.comp).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/lu/lu.hpp"

namespace adilab::lu {

void solve(const Factors& f, const gl::Buffer& b, gl::Buffer& x) {
    const std::size_t bytes = static_cast<std::size_t>(f.n) * sizeof(float);
    if (b.size() < bytes || x.size() < bytes)
        throw Error("LU solve: b and x need " + std::to_string(f.n) + " floats");
    // The one read-back: a zero pivot would make back substitution divide by zero.
    if (auto column = singular_column(f))
        throw Error("LU solve: the matrix is singular (zero pivot in column " +
                    std::to_string(*column) + ")");
    if (&b != &x) x.copy_from(b, bytes);  // ordered after earlier shader writes (copy_from)
    const gl::Program& program = gl::compute_program("lu/solve.comp");
    program.use();
    program.set("n", f.n);
    f.values.bind_storage(0);
    f.pivots.bind_storage(1);
    x.bind_storage(2);
    gl::dispatch(1);
    gl::memory_barrier(gl::Barrier::storage | gl::Barrier::buffer_update);
}

double Determinant::value() const {
    if (sign == 0) return 0.0;
    // exp overflows to +inf for log_abs > ~709: the sign still holds, no NaN.
    return sign * std::exp(log_abs);
}

Determinant determinant(const Factors& f) {
    gl::Buffer result(16);
    const gl::Program& program = gl::compute_program("lu/log_determinant.comp");
    program.use();
    program.set("n", f.n);
    f.values.bind_storage(0);
    f.pivots.bind_storage(1);
    result.bind_storage(2);
    gl::dispatch(1);
    gl::memory_barrier(gl::Barrier::buffer_update);
    unsigned char raw[16];
    result.download(0, 16, raw);
    double log_abs;
    int flips, zeros;
    std::memcpy(&log_abs, raw, 8);
    std::memcpy(&flips, raw + 8, 4);
    std::memcpy(&zeros, raw + 12, 4);
    if (zeros > 0) return {0, -std::numeric_limits<double>::infinity()};
    return {flips % 2 == 0 ? 1 : -1, log_abs};
}

}  // namespace adilab::lu
