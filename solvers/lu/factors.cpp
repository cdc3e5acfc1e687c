#include <string>
#include <vector>

#include "solvers/gl/error.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/lu/variants.hpp"

namespace adilab::lu {

std::vector<gl::BufferNeed> buffer_needs(std::int64_t n, int block) {
    const std::uint64_t size = n < 0 ? 0 : std::uint64_t(n);
    std::vector<gl::BufferNeed> needs = {
        {"the LU matrix (" + std::to_string(n) + " x " + std::to_string(n) + " floats)",
         gl::bytes_of(gl::bytes_of(size, size), sizeof(float))},
        {"the LU pivots", gl::bytes_of(size, sizeof(int))},
        {"the LU status", 2 * sizeof(int)},
    };
    if (block > 0)
        for (gl::BufferNeed& need : blocked_scratch_needs(n, block))
            needs.push_back(std::move(need));
    return needs;
}

Factors Factors::upload(std::span<const float> matrix, int n) {
    if (n < 1) throw Error("LU needs a matrix of size at least 1 (got " + std::to_string(n) + ")");
    if (matrix.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
        throw Error("LU: the matrix holds " + std::to_string(matrix.size()) +
                    " values, an n x n matrix with n = " + std::to_string(n) + " needs n*n");
    gl::check_buffers_fit(buffer_needs(n));
    Factors f;
    f.n = n;
    f.values = gl::Buffer(matrix.size_bytes(), matrix.data());
    f.pivots = gl::Buffer(static_cast<std::size_t>(n) * sizeof(int));
    f.pivots.zero();
    const int none[2] = {n, 0};
    f.status = gl::Buffer(sizeof none, none);
    return f;
}

void Factors::load(const gl::Buffer& matrix) {
    values.copy_from(matrix, values.size());
    const int none[2] = {n, 0};
    status.upload(0, sizeof none, none);
}

std::optional<int> singular_column(const Factors& f) {
    const std::vector<int> status = f.status.read<int>(2);
    if (status[1] != 0)
        throw Error(
            "LU: the one-dispatch panel's work groups did not all run at once (a grid "
            "barrier timed out), so the factors are wrong; this GPU cannot run gpu-blocked's "
            "fused panel");
    if (status[0] < f.n) return status[0];
    return std::nullopt;
}

}  // namespace adilab::lu
