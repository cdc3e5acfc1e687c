#pragma once
// Compressed sparse row (CSR) matrices, the layout the power method's SpMV kernels read
// (Kim & Kim 2011) and the form Matrix Market files are converted to.
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

namespace adilab {

// y = A x in float64, each row summed left to right (the order the host variant uses).
// The nonzeros of a dense n x n row-major matrix (small test and example matrices).
CsrMatrix csr_from_dense(std::int32_t n, const std::vector<double>& dense);

void csr_multiply(const CsrMatrix& a, const std::vector<double>& x, std::vector<double>& y);

// A seeded random square matrix like the paper's (Kim & Kim 2011) and the CuPy peer's: every row
// has `per_row` columns drawn uniformly from [0, n) with values uniform in [0, 1); a column drawn
// twice in a row is one entry with the values added, so a row may hold slightly fewer than
// `per_row` entries. The same seed gives the same matrix on every machine (splitmix64).
// band > 0 draws row r's columns from [r - band, r + band] instead (clipped to [0, n)): the
// same work with local gathers of x, to tell gather cost from streaming cost.
CsrMatrix random_csr(std::int32_t n, std::int32_t per_row, std::uint64_t seed = 1,
                     std::int32_t band = 0);

// PageRank as an eigenproblem with sparse rows only (Kim & Kim's motivating use).
// A random directed graph on `n` pages with power-law out-degrees (P(d) ~ d^-2.1, some pages
// with none: dangling) and power-law in-degrees (targets drawn as n * u^3, scattered).
// Google's matrix G = d P^T + (d D(x) + (1 - d) sum(x)) / n * 1 (dangling pages spread their
// rank evenly) is dense; instead one extra node S carries the teleport and the dangling mass:
//   page i -> j with d / outdeg(i) for each link, i -> S with 1 - d (dangling: i -> S with 1),
//   S -> every page with 1 / n.
// The matrix is that chain's column-stochastic transition matrix, (n + 1) x (n + 1): its
// dominant eigenvalue is 1 and the first n entries of its eigenvector, divided by their sum,
// are exactly Google's PageRank (the flow through S equals (1 - d) + d D(p) of the page mass).
// Row S holds one entry per page: the one long row of the matrix.
CsrMatrix pagerank_csr(std::int32_t n, double damping = 0.85, std::uint64_t seed = 1);
// The same construction from a graph's adjacency matrix (entry (i, j) = a link i -> j; values
// ignored), for example a .mtx graph.
CsrMatrix pagerank_csr(const CsrMatrix& graph, double damping = 0.85);

}  // namespace adilab
