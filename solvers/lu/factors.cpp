#include <string>

#include "solvers/gl/error.hpp"
#include "solvers/lu/lu.hpp"

namespace adilab::lu {

Factors Factors::upload(std::span<const float> matrix, int n) {
    if (n < 1) throw Error("LU needs a matrix of size at least 1 (got " + std::to_string(n) + ")");
    if (matrix.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
        throw Error("LU: the matrix holds " + std::to_string(matrix.size()) +
                    " values, an n x n matrix with n = " + std::to_string(n) + " needs n*n");
    Factors f;
    f.n = n;
    f.values = gl::Buffer(matrix.size_bytes(), matrix.data());
    f.pivots = gl::Buffer(static_cast<std::size_t>(n) * sizeof(int));
    f.pivots.zero();
    const int none = n;
    f.status = gl::Buffer(sizeof(int), &none);
    return f;
}

void Factors::load(const gl::Buffer& matrix) {
    values.copy_from(matrix, values.size());
    status.fill(static_cast<std::int32_t>(n));
}

std::optional<int> singular_column(const Factors& f) {
    const int column = f.status.read<int>(1)[0];
    if (column < f.n) return column;
    return std::nullopt;
}

}  // namespace adilab::lu
