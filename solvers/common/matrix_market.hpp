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
// a truncated file) throws files::InputError reading "<file>:<line>: <what is wrong>".
//
// Sizes. What the file holds bounds the entries (coordinate) and values (array) it may declare,
// and those are checked against the bytes left before anything is reserved. The row and column
// counts of a coordinate file are not bounded by its length (a sparse matrix has empty rows), so
// a consumer must check what they imply (a CSR row pointer of rows + 1 ints, vectors of rows
// doubles, a dense rows x cols matrix) against the GPU before converting: a 44-byte file may
// declare 2e9 x 2e9. describe_size_line() starts that message.
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
    // Where the sizes came from, for messages about them: the file as named, and the line of
    // its size line.
    std::string source;
    std::int64_t size_line = 0;
    std::int64_t declared_entries = 0;  // coordinate: the size line's third number
};

// "<file>:<line>: the size line declares <rows> x <cols> (with <n> entries)": the start of a
// message about what the declared sizes imply (a GPU that cannot hold them).
std::string describe_size_line(const Matrix& matrix);

// The stored entries of the CSR form (coordinate: the entries read, duplicates counted; array:
// rows * cols at most): an upper bound for the buffers a consumer allocates.
std::int64_t stored_entries(const Matrix& matrix);

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
