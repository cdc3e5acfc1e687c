#pragma once
// A Matrix Market (.mtx) reader (https://math.nist.gov/MatrixMarket/formats.html).
//
// Supported:
//   %%MatrixMarket matrix coordinate real|integer|pattern general|symmetric
//   %%MatrixMarket matrix array      real|integer         general|symmetric
// Symmetric files store the lower triangle; the reader expands them, so `entries` and `values`
// always describe the full matrix. Pattern entries read as 1.0. complex, hermitian and
// skew-symmetric files are refused with a message saying so.
//
// Every problem (bad header, wrong counts, an index out of range, a token that is not a number,
// a truncated file) throws adilab::Error reading "<file>:<line>: <what is wrong>".
#include <cstdint>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

#include "solvers/common/csr.hpp"

namespace adilab::mm {

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric };

struct Entry {
    std::int64_t row = 0;  // 0-based
    std::int64_t col = 0;  // 0-based
    double value = 0.0;
};

struct Matrix {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    Format format = Format::coordinate;
    Field field = Field::real;
    Symmetry symmetry = Symmetry::general;
    // coordinate: the entries in file order, symmetric ones followed by their mirror image
    // (diagonal entries once). Duplicates are kept as stored; the conversions below add them.
    std::vector<Entry> entries;
    // array: rows * cols values, column-major as the file stores them (symmetric: expanded).
    std::vector<double> values;
};

// Reads a file. `source_name` in messages is the path as given.
Matrix read(const std::filesystem::path& path);
// Parses a stream; messages name `source_name`.
Matrix parse(std::istream& in, const std::string& source_name);

// rows * cols values, row-major, duplicates added. Throws adilab::Error when too large (over
// 2^31 elements).
std::vector<double> to_dense_row_major(const Matrix& matrix);
// CSR with sorted columns and duplicates added. Coordinate files keep their explicit zeros (they
// are structure); array files keep only nonzero values. Throws adilab::Error when the matrix
// exceeds 32-bit indices.
CsrMatrix to_csr(const Matrix& matrix);

}  // namespace adilab::mm
