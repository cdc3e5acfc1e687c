// CSR helpers: the float64 SpMV every variant is checked against, and the seeded generators.
#include "solvers/common/csr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvers/gl/error.hpp"

namespace adilab {

namespace {

// splitmix64: a tiny generator with a fixed definition, so matrices repeat across platforms
// (std:: distributions do not promise that).
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    std::int32_t below(std::int32_t n) {
        return static_cast<std::int32_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
    }
};

// Sorts one row's (column, value) pairs and adds duplicates, appending to the CSR arrays.
void append_row(std::vector<std::pair<std::int32_t, double>>& row, CsrMatrix& m) {
    std::sort(row.begin(), row.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::size_t first = m.columns.size();
    for (const auto& [col, value] : row) {
        if (m.columns.size() > first && m.columns.back() == col)
            m.values.back() += value;
        else {
            m.columns.push_back(col);
            m.values.push_back(value);
        }
    }
    if (m.columns.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw Error("matrix has more than 2^31 - 1 nonzeros");
    m.row_offsets.push_back(static_cast<std::int32_t>(m.columns.size()));
}

}  // namespace

void csr_multiply(const CsrMatrix& a, const std::vector<double>& x, std::vector<double>& y) {
    y.resize(static_cast<std::size_t>(a.rows));
    for (std::int32_t r = 0; r < a.rows; ++r) {
        double sum = 0.0;
        for (std::int32_t k = a.row_offsets[r]; k < a.row_offsets[r + 1]; ++k)
            sum += a.values[k] * x[static_cast<std::size_t>(a.columns[k])];
        y[static_cast<std::size_t>(r)] = sum;
    }
}

CsrMatrix random_csr(std::int32_t n, std::int32_t per_row, std::uint64_t seed, std::int32_t band) {
    if (n < 0 || per_row < 0) throw Error("random_csr: negative size");
    if (n > 0 && static_cast<std::int64_t>(n) * per_row > std::numeric_limits<std::int32_t>::max())
        throw Error("random_csr: " + std::to_string(n) + " rows x " + std::to_string(per_row) +
                    " per row exceeds 2^31 - 1 nonzeros");
    CsrMatrix m;
    m.rows = m.cols = n;
    m.columns.reserve(static_cast<std::size_t>(n) * per_row);
    m.values.reserve(static_cast<std::size_t>(n) * per_row);
    SplitMix64 rng{seed};
    std::vector<std::pair<std::int32_t, double>> row;
    for (std::int32_t r = 0; r < n; ++r) {
        row.clear();
        for (std::int32_t k = 0; k < per_row; ++k) {
            std::int32_t col = rng.below(n);
            if (band > 0) {
                const std::int64_t lo = std::max<std::int64_t>(0, std::int64_t{r} - band);
                const std::int64_t hi = std::min<std::int64_t>(n - 1, std::int64_t{r} + band);
                col = static_cast<std::int32_t>(lo +
                                                rng.below(static_cast<std::int32_t>(hi - lo + 1)));
            }
            row.emplace_back(col, rng.uniform());
        }
        append_row(row, m);
    }
    return m;
}

CsrMatrix pagerank_csr(const CsrMatrix& graph, double damping) {
    if (graph.rows != graph.cols)
        throw Error("a PageRank graph must be square, this one is " + std::to_string(graph.rows) +
                    " x " + std::to_string(graph.cols));
    if (!(damping > 0.0 && damping < 1.0)) throw Error("damping must lie in (0, 1)");
    const std::int32_t n = graph.rows;
    if (n >= std::numeric_limits<std::int32_t>::max()) throw Error("graph too large");
    const std::int32_t s = n;  // the teleport node
    // Out-degrees without self-duplicates (graph columns are already unique per row).
    std::vector<std::int32_t> out_degree(static_cast<std::size_t>(n));
    for (std::int32_t i = 0; i < n; ++i)
        out_degree[i] = graph.row_offsets[i + 1] - graph.row_offsets[i];
    // A = transition matrix, column-stochastic: A[j][i] = probability i -> j. Build A's rows
    // (in-links) by transposing the graph.
    std::vector<std::int32_t> in_count(static_cast<std::size_t>(n) + 1, 0);
    for (std::int32_t c : graph.columns) ++in_count[static_cast<std::size_t>(c) + 1];
    for (std::int32_t j = 0; j < n; ++j) in_count[j + 1] += in_count[j];
    CsrMatrix a;
    a.rows = a.cols = n + 1;
    const std::size_t links = graph.columns.size();
    a.columns.resize(links + 2 * static_cast<std::size_t>(n));
    a.values.resize(a.columns.size());
    a.row_offsets.assign(static_cast<std::size_t>(n) + 2, 0);
    // Row j: its in-links (sorted by source since we sweep sources in order), then S.
    for (std::int32_t j = 0; j < n; ++j) a.row_offsets[j + 1] = in_count[j + 1] + j + 1;
    std::vector<std::int32_t> next(static_cast<std::size_t>(n));
    for (std::int32_t j = 0; j < n; ++j) next[j] = a.row_offsets[j];
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t k = graph.row_offsets[i]; k < graph.row_offsets[i + 1]; ++k) {
            const std::int32_t j = graph.columns[k];
            a.columns[next[j]] = i;
            a.values[next[j]++] = damping / out_degree[i];
        }
    for (std::int32_t j = 0; j < n; ++j) {
        a.columns[next[j]] = s;
        a.values[next[j]++] = 1.0 / n;
    }
    // Row S: every page sends 1 - d (a dangling page everything) to S.
    std::size_t k = static_cast<std::size_t>(a.row_offsets[n]);
    for (std::int32_t i = 0; i < n; ++i) {
        a.columns[k] = i;
        a.values[k++] = out_degree[i] == 0 ? 1.0 : 1.0 - damping;
    }
    a.row_offsets[n + 1] = static_cast<std::int32_t>(k);
    return a;
}

CsrMatrix pagerank_csr(std::int32_t n, double damping, std::uint64_t seed) {
    if (n < 1) throw Error("a PageRank graph needs at least one page");
    SplitMix64 rng{seed};
    CsrMatrix graph;
    graph.rows = graph.cols = n;
    std::vector<std::pair<std::int32_t, double>> row;
    const std::int32_t max_degree = std::min<std::int32_t>(n - 1, 1000);
    for (std::int32_t i = 0; i < n; ++i) {
        row.clear();
        // Out-degree: a discrete power law by inversion, d = floor(u^(-1/1.1)) - 1, so about a
        // third of the pages have no links (dangling).
        const double u = std::max(rng.uniform(), 1e-12);
        const auto degree = std::min<std::int64_t>(
            static_cast<std::int64_t>(std::floor(std::pow(u, -1.0 / 1.1))) - 1, max_degree);
        for (std::int64_t e = 0; e < degree; ++e) {
            // Skewed targets: page floor(n u^3) is popular near 0; a multiplicative scatter
            // spreads the popular pages over the index range.
            const auto rank = static_cast<std::int64_t>(n * std::pow(rng.uniform(), 3.0));
            const auto j = static_cast<std::int32_t>((rank * 2654435761ll) % n);
            if (j != i) row.emplace_back(j, 1.0);
        }
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end(),
                              [](const auto& a, const auto& b) { return a.first == b.first; }),
                  row.end());
        append_row(row, graph);
    }
    return pagerank_csr(graph, damping);
}

CsrMatrix csr_from_dense(std::int32_t n, const std::vector<double>& dense) {
    CsrMatrix m;
    m.rows = m.cols = n;
    for (std::int32_t r = 0; r < n; ++r) {
        for (std::int32_t c = 0; c < n; ++c) {
            const double value = dense[static_cast<std::size_t>(r) * n + c];
            if (value != 0.0) {
                m.columns.push_back(c);
                m.values.push_back(value);
            }
        }
        m.row_offsets.push_back(static_cast<std::int32_t>(m.columns.size()));
    }
    return m;
}

}  // namespace adilab
