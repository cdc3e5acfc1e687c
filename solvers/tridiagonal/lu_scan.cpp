// `lu-scan`: the fast path for constant coefficients (heat, advection-diffusion): one dispatch,
// every line, no coefficient arrays read. The Thomas factorisation A = L U is the same for every
// line, so it is computed once on the host in float64 (and cached while a, b, c, b_first,
// b_last and N stay the same), and the per-line work is the two linear recurrences of Thomas,
// split into chunks of CHUNK unknowns and joined by a short carry scan
// (shaders/tridiagonal/lu_scan.comp explains the algebra). Beyond the paper.
// Numerics: fp32 like the others; the recurrences are those of Thomas (stable for diagonally
// dominant systems, where |m_i|, |q_i| < 1 and the carry products only shrink). A zero or
// non-finite pivot u_i is found on the host while tabulating (no GPU read-back needed) and
// reported through the same flag as the GPU variants (line 0: every line shares the matrix).
// Limits: general coefficients go to `partition` (whole lines to a work group in one dispatch
// along x and on y lines of up to 2048 unknowns, its split solve on longer y lines: 1.9-13x
// cr-shared's speed from 1024 to 8192 unknowns in both directions), and so do constant x lines
// of at least ScanTuning::partition_x_min unknowns (its one pass holds whole lines in a work
// group, where the scan stages row segments: 1.6-1.8x the scan's speed at 4096 and 8192). Lines
// too long for one work group (x: a row's shared tile, about 11000 unknowns in 48 KiB; y: more than
// 1024 chunks, unless the band kernel takes them) go to cr-shared (which itself falls back to
// cr-pingpong): slower than the scans, never an error.
// Long y lines (n >= band_min_n) take lu_bands.comp instead: three dispatches, one invocation
// per column and band of rows, the bands joined through a small carry buffer.
// Why bands: every one-pass layout of long y lines (whole columns, or walking down them band by
// band) ran far below the copy bandwidth; the band kernel has the groups in flight read
// consecutive column blocks of the same rows, like an x solve. It helps only a little (the
// serial walk over many rows, not the read order, is what is slow: lu-window is built on that),
// and only on lines long enough that the field leaves the L2 cache, hence band_min_n.
// docs/performance.md ("Tridiagonal") has the measurements.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/lu_factors.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

struct Tables {
    unsigned n = 0, chunk = 0, table_chunks = 0;
    ConstantCoefficients coefficients;
    bool ok = true;                // every pivot u_i non-zero and finite
    gl::Buffer forward, backward;  // vec2 (m, G), vec4 (r, q, H, 0) per position
};

struct BandTables {
    unsigned n = 0, rows_per_band = 0;
    ConstantCoefficients coefficients;
    bool ok = true;
    gl::Buffer rows, bands;
};

class LuScanSolver final : public GpuSolver {
  public:
    LuScanSolver(std::string name, const ScanTuning& t, const PartitionTuning& partition)
        : name_(std::move(name)),
          partition_tuning_(partition),
          chunk_x_(unsigned(t.chunk_x)),
          chunk_y_(unsigned(t.chunk_y)),
          max_lines_x_(unsigned(t.lines)),
          max_lines_y_(unsigned(t.lines)),
          band_rows_(unsigned(t.band_rows)),
          band_cols_(std::clamp(unsigned(t.band_cols), 32u, 1024u)),
          band_min_n_(unsigned(t.band_min_n)),
          subgroups_x_(t.subgroups != 0),
          subgroups_y_(t.subgroups != 0),
          partition_x_min_(t.partition_x_min) {}

    std::string name() const override { return name_; }

    // The band kernel's carries (long y lines), and what the fallbacks for general coefficients
    // and for lines too long for a work group (cr-shared, partition) may need.
    std::vector<gl::BufferNeed> scratch_needs(Grid grid) const override {
        std::vector<gl::BufferNeed> needs = make_cr_shared()->scratch_needs(grid);
        for (gl::BufferNeed& need : make_partition(partition_tuning_)->scratch_needs(grid))
            needs.push_back(std::move(need));
        if (banded(grid.ny, Direction::y))
            needs.push_back({name_ + "'s band carries", carry_bytes(grid)});
        return needs;
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const auto* constant = std::get_if<ConstantCoefficients>(&coefficients);
        const int n = direction == Direction::x ? grid.nx : grid.ny;
        last_general_ = false;
        if (constant != nullptr && banded(n, direction)) {
            solve_banded(grid, *constant, rhs, solution);
            return;
        }
        const bool partition_x =
            direction == Direction::x && partition_x_min_ > 0 && n >= partition_x_min_;
        if (constant == nullptr || partition_x) {
            last_general_ = true;
            if (!general_) general_ = make_partition(partition_tuning_);
            general_->solve(grid, direction, coefficients, rhs, solution);
            return;
        }
        if (!fits(n, direction)) {
            if (!fallback_) fallback_ = make_cr_shared();
            fallback_->solve(grid, direction, coefficients, rhs, solution);
            return;
        }
        solve_lines(grid, direction, *constant, rhs, solution);
    }

    std::string last_path() override {
        return last_general_ ? "partition: " + general_->last_path() : std::string();
    }

    std::optional<PivotFailure> check_pivots() override {
        auto failure = check_pivots_and(fallback_.get());
        if (general_) {  // read (and so clear) its flag too
            if (auto y = general_->check_pivots(); y && !failure) failure = y;
        }
        return failure;
    }

  private:
    unsigned chunk(Direction direction) const {
        return direction == Direction::x ? chunk_x_ : chunk_y_;
    }

    // A (carry, product) pair of floats per band of rows and column.
    std::size_t carry_bytes(Grid grid) const {
        const std::size_t bands = (std::size_t(grid.ny) + band_rows_ - 1) / band_rows_;
        return bands * std::size_t(grid.nx) * 2 * sizeof(float);
    }

    // The three-pass band kernel (lu_bands.comp) for long columns.
    bool banded(int n, Direction direction) const {
        return direction == Direction::y && band_rows_ > 0 && band_rows_ <= 128 &&
               unsigned(n) >= band_min_n_;
    }

    void solve_banded(Grid grid, const ConstantCoefficients& constant, const gl::Buffer& rhs,
                      gl::Buffer& solution) {
        const LineLayout layout = line_layout(grid, Direction::y);
        const unsigned bands = (layout.n + band_rows_ - 1) / band_rows_;
        const BandTables& tables = band_tables_for(layout.n, constant);
        if (carries_.size() < carry_bytes(grid)) {
            gl::check_buffers_fit({{name_ + "'s band carries", carry_bytes(grid)}});
            carries_ = gl::Buffer(carry_bytes(grid));
        }
        if (band_programs_[0] == nullptr) {
            for (int pass = 1; pass <= 3; ++pass)
                band_programs_[pass - 1] = &gl::compute_program(
                    "tridiagonal/lu_bands.comp",
                    {{"CONSTANT_COEFFICIENTS", "1"},
                     {"PASS", std::to_string(pass)},
                     {"ROWS", std::to_string(band_rows_)},
                     // Pass 2 has one invocation per column: small groups spread it over SMs.
                     {"WG_SIZE", std::to_string(pass == 2 ? 32u : band_cols_)}});
        }
        if (!tables.ok) {
            const std::vector<std::uint32_t> flag = {1u, 1u};
            pivot_flag().write(flag);
        }
        const unsigned blocks = (layout.lines + band_cols_ - 1) / band_cols_;
        for (int pass = 1; pass <= 3; ++pass) {
            const gl::Program& program = *band_programs_[pass - 1];
            bind_lines(program, layout, constant, rhs, solution);
            program.set("band_count", bands);
            tables.rows.bind_storage(6);
            tables.bands.bind_storage(7);
            carries_.bind_storage(8);
            if (pass == 2)
                gl::dispatch((layout.lines + 31) / 32);
            else
                dispatch_spread(bands * blocks);
            gl::memory_barrier(gl::Barrier::storage);
        }
    }

    // Per row (m_i, r_i, q_i, 0) and per band (G_b, H_b, P_b, 0) of lu_bands.comp, in float64
    // then rounded once.
    const BandTables& band_tables_for(unsigned n, const ConstantCoefficients& k) {
        if (band_tables_.n == n && band_tables_.rows_per_band == band_rows_ &&
            band_tables_.coefficients == k && !band_tables_.rows.empty())
            return band_tables_;
        BandTables t;
        t.n = n;
        t.rows_per_band = band_rows_;
        t.coefficients = k;
        std::vector<double> m, r, q;
        t.ok = factorise(n, k, m, r, q);
        std::vector<float> rows(4 * std::size_t(n), 0.0f);
        for (unsigned i = 0; i < n; ++i) {
            rows[4 * i] = float(m[i]);
            rows[4 * i + 1] = float(r[i]);
            rows[4 * i + 2] = float(q[i]);
        }
        const unsigned bands = (n + band_rows_ - 1) / band_rows_;
        std::vector<float> table(4 * std::size_t(bands), 0.0f);
        std::vector<double> g(band_rows_);
        for (unsigned b = 0; b < bands; ++b) {
            const unsigned s = b * band_rows_, e = std::min(s + band_rows_, n) - 1;
            double product = 1.0;
            for (unsigned i = s; i <= e; ++i) g[i - s] = product *= m[i];
            double h = 1.0, x = 0.0;
            for (unsigned i = e + 1; i-- > s;) {
                h *= q[i];
                x = r[i] * g[i - s] + q[i] * x;
            }
            table[4 * b] = float(product);
            table[4 * b + 1] = float(h);
            table[4 * b + 2] = float(x);
        }
        t.rows = gl::Buffer::from(rows);
        t.bands = gl::Buffer::from(table);
        band_tables_ = std::move(t);
        return band_tables_;
    }

    bool fits(int n, Direction direction) const {
        const unsigned size = chunk(direction);
        const unsigned chunks = std::bit_ceil((unsigned(n) + size - 1) / size);
        return lines_per_group(chunks, size, direction == Direction::y) > 0;
    }

    void solve_lines(Grid grid, Direction direction, const ConstantCoefficients& constant,
                     const gl::Buffer& rhs, gl::Buffer& solution) {
        const LineLayout layout = line_layout(grid, direction);
        // Chunks per line rounded up to a power of two (the scan's steps; the spare invocations
        // own only padding) so that a handful of programs cover every N.
        const unsigned chunk_size = chunk(direction);
        const unsigned chunks = std::bit_ceil((layout.n + chunk_size - 1) / chunk_size);
        const bool lines_fastest = direction == Direction::y;
        const unsigned lines = lines_per_group(chunks, chunk_size, lines_fastest);
        const Tables& tables = tables_for(layout.n, chunk_size, chunks, constant);
        // The program is looked up once per shape, not per call (the registry's key building
        // costs about what the GPU spends on a small solve).
        const bool subgroups = (lines_fastest ? subgroups_y_ : subgroups_x_) &&
                               gl::Context::current().info().subgroups;
        const gl::Program*& cached =
            programs_[std::uint64_t(lines) << 33 | std::uint64_t(chunks) << 2 |
                      std::uint64_t(subgroups) << 1 | lines_fastest];
        if (cached == nullptr) {
            cached = &gl::compute_program("tridiagonal/lu_scan.comp",
                                          {{"CONSTANT_COEFFICIENTS", "1"},
                                           {"LINES", std::to_string(lines)},
                                           {"CHUNKS", std::to_string(chunks)},
                                           {"CHUNK", std::to_string(chunk_size)},
                                           {"LINES_FASTEST", lines_fastest ? "1" : "0"},
                                           {"SUBGROUP_SCAN", subgroups ? "1" : "0"},
                                           {"WG_SIZE", std::to_string(lines * chunks)}});
        }
        const gl::Program& program = *cached;
        bind_lines(program, layout, constant, rhs, solution);
        if (!tables.ok) {
            // The shared factorisation has a zero / non-finite pivot: every line fails alike
            // (found on the host, so this costs an upload only on failure, never a read-back).
            const std::vector<std::uint32_t> flag = {1u, 1u};
            pivot_flag().write(flag);
        }
        tables.forward.bind_storage(6);
        tables.backward.bind_storage(7);
        dispatch_spread((layout.lines + lines - 1) / lines);
        gl::memory_barrier(gl::Barrier::storage);
    }

    // Lines per work group: a power of two (8 lines of a y grid fill whole 32-byte sectors), at
    // most max_lines_, 1024 invocations, and the shared memory: the scan's two vec2 per
    // invocation, plus the x tile.
    unsigned lines_per_group(unsigned chunks, unsigned chunk_size, bool lines_fastest) const {
        if (chunks == 0 || chunks > 1024) return 0;
        const std::size_t span = std::size_t(chunks) * chunk_size;
        const std::size_t per_line =
            chunks * 16 + (lines_fastest ? 0 : (span + span / 32 + 1) * sizeof(float));
        const auto shared =
            static_cast<std::size_t>(gl::Context::current().info().max_shared_memory_bytes);
        unsigned lines = lines_fastest ? max_lines_y_ : max_lines_x_;
        // x lines: the fewest lines that make 64 invocations. More, smaller work groups overlap
        // their load / scan / store phases better (docs/performance.md).
        if (!lines_fastest) lines = std::min(lines, std::max(1u, 64u / chunks));
        while (lines > 0 && (lines * chunks > 1024 || lines * per_line + 4 > shared)) lines /= 2;
        return lines;
    }

    // Tables for lines of n unknowns cut into table_chunks chunks of chunk_size (padding past n).
    const Tables& tables_for(unsigned n, unsigned chunk_size, unsigned table_chunks,
                             const ConstantCoefficients& k) {
        for (Tables& t : tables_)
            if (t.n == n && t.chunk == chunk_size && t.table_chunks == table_chunks &&
                t.coefficients == k)
                return t;
        if (tables_.size() >= 4) tables_.erase(tables_.begin());
        Tables t;
        t.n = n;
        t.chunk = chunk_size;
        t.table_chunks = table_chunks;
        t.coefficients = k;
        // Sized for every invocation's chunk; past n the forward map is the identity (m = 1, so
        // a chunk's last y is y_{n-1}) and the backward one zero.
        const unsigned span = table_chunks * chunk_size;
        std::vector<float> forward(2 * std::size_t(span), 1.0f);
        std::vector<float> backward(4 * std::size_t(span), 0.0f);
        std::vector<double> m, r, q;
        const bool ok = factorise(n, k, m, r, q);
        // Transposed storage (lu_scan.comp): unknown i = p * chunk + t at t * chunks + p.
        const unsigned chunks = table_chunks;
        auto at = [&](unsigned i) { return (i % chunk_size) * chunks + i / chunk_size; };
        for (unsigned s = 0; s < n; s += chunk_size) {
            const unsigned e = std::min(s + chunk_size, n) - 1;
            double g = 1.0;
            for (unsigned i = s; i <= e; ++i) {
                g *= m[i];
                forward[2 * at(i)] = float(m[i]);
                forward[2 * at(i) + 1] = float(g);
            }
            double h = 1.0;
            for (unsigned i = e + 1; i-- > s;) {
                h *= q[i];
                backward[4 * at(i)] = float(r[i]);
                backward[4 * at(i) + 1] = float(q[i]);
                backward[4 * at(i) + 2] = float(h);
            }
        }
        t.forward = gl::Buffer::from(forward);
        t.backward = gl::Buffer::from(backward);
        t.ok = ok;
        tables_.push_back(std::move(t));
        return tables_.back();
    }

    std::string name_;
    PartitionTuning partition_tuning_;
    unsigned chunk_x_, chunk_y_, max_lines_x_, max_lines_y_, band_rows_, band_cols_, band_min_n_;
    bool subgroups_x_, subgroups_y_;
    std::vector<Tables> tables_;
    // Programs of the current context's shader cache (which outlives no solver that uses it).
    std::unordered_map<std::uint64_t, const gl::Program*> programs_;
    const gl::Program* band_programs_[3] = {};
    BandTables band_tables_;
    gl::Buffer carries_;
    int partition_x_min_;
    std::unique_ptr<Solver> fallback_;  // cr-shared: constant lines too long for the scans
    std::unique_ptr<Solver> general_;   // partition: general coefficients
    bool last_general_ = false;         // whether the last solve went to general_ (last_path)
};

}  // namespace

std::unique_ptr<Solver> make_lu_scan(const std::string& name, const ScanTuning& tuning,
                                     const PartitionTuning& partition) {
    return std::make_unique<LuScanSolver>(name, tuning, partition);
}

}  // namespace adilab::tridiag
