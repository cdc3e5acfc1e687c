#pragma once
// Compressed sparse row (CSR) matrices, the layout the power method's SpMV kernels read
// (seed 004) and the form Matrix Market files are converted to.
//
// Indices are 32-bit: a GPU gathers x[column] for every nonzero, and 4-byte indices move half
// the bytes of 8-byte ones. That limits rows, columns and nonzeros to 2^31 - 1, far beyond what
// one shader storage block holds anyway (20M nonzeros in fp64 are 240 MB).
#include <cstdint>
#include <vector>

namespace adilab {

struct CsrMatrix {
    std::int32_t rows = 0;
    std::int32_t cols = 0;
    // rows + 1 offsets into columns/values; row r holds [row_offsets[r], row_offsets[r + 1]).
    std::vector<std::int32_t> row_offsets{0};
    std::vector<std::int32_t> columns;  // sorted ascending within a row, no duplicates
    std::vector<double> values;

    std::int64_t nnz() const { return static_cast<std::int64_t>(columns.size()); }
};

}  // namespace adilab
