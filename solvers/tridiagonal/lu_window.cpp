// `lu-window`: constant, diagonally dominant coefficients, every unknown of the grid in one fully
// parallel dispatch: the "decay window" (truncated SPIKE) solver. Beyond the paper (Kim & Lee
// 2005 solve each line by cyclic reduction); this uses that, for the constant dominant matrices
// of implicit heat / diffusion steps, the LU factors converge geometrically, so each unknown
// depends, to fp32 precision, only on the right-hand sides within K rows.
// Each invocation solves ROWS unknowns of one line after a K-row warm-up of Thomas's forward
// recurrence before them and K rows of the backward one after (shaders/tridiagonal/lu_window.comp);
// K is derived from the coefficients on the host (solvers/tridiagonal/lu_factors.cpp: the bound
// and its derivation) so that the truncation stays below 2^-26 max|x|.
// Why: every layout of the exact column solvers that has to join chunks of a column (carry
// scans, band carries) ran far below the copy bandwidth along y (issue 3; see lu_scan.cpp), and
// whole-column walks give too few warps (4096 columns = 128 warps: a plain copy in that shape
// ran at an eighth of the copy bandwidth of 32-row chunks). Here there is
// nothing to join: n / ROWS x nx / 32 independent warps, each reading rows of 128 contiguous
// bytes. x lines: the same windows, staged through a shared tile per row segment.
// Cost: ROWS + 2K loads per ROWS unknowns (the overlap mostly hits L1 / L2, or the tile along x),
// compute O(ROWS + 2K).
// Limits, all falling back to the exact `lu-scan` (never an error): general coefficients
// (-> partition), a bad pivot (lu-scan reports it), and windows
// wider than max_window rows (weak dominance: K grows like 1 / log(1 / rho); the register cost of
// ROWS + 2K values per invocation bounds it). Programs are compiled once per (direction, ROWS, K
// rounded up to 8): a change of coefficients that changes K costs a compile on the next solve,
// never per step. The column scan (lu_colscan.comp, y lines up to WindowTuning::scan_max_unknowns):
// lanes = 32 columns, chunks of 8 rows stacked down the same columns per work group, each chunk's
// recurrences affine in its carries, joined exactly through shared memory with one barrier;
// only between work groups a warm-up of ceil(K / 8) chunks (same K and bound as the window).
// Each invocation walks 8 rows instead of ROWS + 2K, which is why it beats the window kernel on
// L2-resident grids; on larger grids the window kernel, which reads fewer rows twice, wins. The
// lean form (lu_colscan_lean.comp) takes the converged factors as uniforms in interior groups;
// where most row blocks reach an end of the column (small grids) the first form is faster, hence
// scan_form's rule (colscan_lean). Columns of up to 64 rows are solved whole (exact).
// docs/performance.md ("Tridiagonal") has the measurements behind each of these choices.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/lu_factors.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

// The truncation target: a quarter of fp32's unit roundoff, relative to max|x| (lu_factors.cpp).
const double kWindowTarget = std::ldexp(1.0, -26);

struct InteriorRows {
    int first = -1, last = -2;  // (-1, -2: none)
    float factors[3] = {0, 0, 0};
};

// The factors converge (geometrically) to those of an infinite line; in fp32 they stop changing
// some rows in, up to the last row's own diagonal. `table`: the fp32 (m, r, q, 0) of each row.
InteriorRows interior_rows(const std::vector<float>& table) {
    InteriorRows interior;
    const std::size_t n = table.size() / 4;
    if (n < 3) return interior;
    const std::size_t last = n - 2;
    auto equal = [&](std::size_t i) {
        return table[4 * i] == table[4 * last] && table[4 * i + 1] == table[4 * last + 1] &&
               table[4 * i + 2] == table[4 * last + 2];
    };
    std::size_t first = last;
    while (first > 0 && equal(first - 1)) --first;
    interior.first = int(first);
    interior.last = int(last);
    for (int j = 0; j < 3; ++j) interior.factors[j] = table[4 * last + j];
    return interior;
}

std::vector<float> factor_table(const std::vector<double>& m, const std::vector<double>& r,
                                const std::vector<double>& q) {
    std::vector<float> rows(4 * m.size(), 0.0f);
    for (std::size_t i = 0; i < m.size(); ++i) {
        rows[4 * i] = float(m[i]);
        rows[4 * i + 1] = float(r[i]);
        rows[4 * i + 2] = float(q[i]);
    }
    return rows;
}

}  // namespace

unsigned colscan_halo(unsigned n, bool pivots_ok, const DecayWindow& window,
                      const WindowTuning& settings);
unsigned colscan_warps(unsigned halo, const WindowTuning& settings);

namespace {

// The column scan's row blocks (groups down a column), and how many of them, from the top
// (head) and from the bottom (tail), hold a row outside the interior range [first, last]: those
// take the factor table in the lean form (which starts them first). All at the head when
// none is interior.
struct ColscanBlocks {
    unsigned row_blocks = 0, head = 0, tail = 0;
};

ColscanBlocks colscan_blocks(unsigned n, int first, int last, unsigned halo, unsigned warps,
                             unsigned rows) {
    ColscanBlocks blocks;
    const unsigned segment = (warps - 2 * halo) * rows;
    blocks.row_blocks = (n + segment - 1) / segment;
    for (unsigned b = 0; b < blocks.row_blocks; ++b) {
        const long long top = (long long)b * segment - (long long)halo * rows;
        const long long bottom = top + (long long)warps * rows - 1;
        if (top < first)
            ++blocks.head;
        else if (bottom > last)
            ++blocks.tail;
    }
    if (blocks.head + blocks.tail == blocks.row_blocks) {
        blocks.head = blocks.row_blocks;
        blocks.tail = 0;
    }
    return blocks;
}

// scan_form 2 (auto): the lean form where at least half the row blocks are interior. The lean
// form saves the table loads of interior groups but its table groups are slower than the first
// form's (they load their factors before and again after the barrier), so it only pays where
// interior groups are the majority (docs/performance.md: 256^2 against 1024^2 and 2048^2).
bool colscan_lean(const ColscanBlocks& blocks, const WindowTuning& settings) {
    if (settings.scan_form != 2) return settings.scan_form == 1;
    return 2 * (blocks.head + blocks.tail) <= blocks.row_blocks;
}

}  // namespace

namespace {

class LuWindowSolver final : public GpuSolver {
  public:
    LuWindowSolver(std::string name, const WindowTuning& tuning, std::unique_ptr<Solver> exact)
        : name_(std::move(name)), settings_(tuning), exact_(std::move(exact)) {
        // Values a kernel cannot take are brought into range here (tuning_fields has the ranges
        // for the command line; a struct filled in code may hold anything).
        settings_.rows = std::clamp(settings_.rows, 1, 256);
        settings_.chunks = std::clamp(settings_.chunks, 1, 32);
        settings_.max_window = std::clamp(settings_.max_window, 0, 256);
        settings_.rows_x = std::clamp(settings_.rows_x, 1, 64);
        settings_.group_x = std::clamp(settings_.group_x, 32, 1024) / 32 * 32;
        settings_.scan_rows = std::clamp(settings_.scan_rows, 1, 64);
        settings_.scan_warps = std::clamp(settings_.scan_warps, 1, 32);
        settings_.scan_form = std::clamp(settings_.scan_form, 0, 2);
    }

    std::string name() const override { return name_; }

    // Its own buffers are per line length; everything else is the exact solver's.
    std::vector<gl::BufferNeed> scratch_needs(Grid grid) const override {
        return exact_->scratch_needs(grid);
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        last_exact_ = false;
        const auto* constant = std::get_if<ConstantCoefficients>(&coefficients);
        const double unknowns = double(grid.nx) * double(grid.ny);
        if (constant != nullptr && direction == Direction::y && settings_.scan_y &&
            unknowns <= double(settings_.scan_max_unknowns)) {
            const Plan& plan = plan_for(unsigned(grid.ny), *constant);
            const unsigned halo = scan_halo(plan);
            if (halo != kNoScan) {
                solve_scan(grid, *constant, plan, halo, rhs, solution);
                return;
            }
        }
        const bool large = double(grid.nx) * double(grid.ny) >= double(settings_.min_unknowns);
        if (constant != nullptr && large && (direction == Direction::y || settings_.x_lines)) {
            const Plan& plan =
                plan_for(unsigned(direction == Direction::x ? grid.nx : grid.ny), *constant);
            if (plan.window.usable) {
                solve_window(grid, direction, *constant, plan, rhs, solution);
                return;
            }
        }
        last_exact_ = true;
        exact_->solve(grid, direction, coefficients, rhs, solution);
    }

    std::string last_path() override { return last_exact_ ? exact_->last_path() : std::string(); }

    std::optional<PivotFailure> check_pivots() override { return check_pivots_and(exact_.get()); }

  private:
    struct Plan {
        unsigned n = 0;
        ConstantCoefficients coefficients;
        DecayWindow window;
        bool pivots_ok = false;
        gl::Buffer rows;  // vec4 (m_i, r_i, q_i, 0) per row (when pivots_ok)
        // Rows interior_first .. interior_last all have the fp32 factors `interior` (-1, -2:
        // none); lu_window.comp uses them as constants in windows inside that range.
        int interior_first = -1, interior_last = -2;
        float interior[3] = {0, 0, 0};
    };

    const Plan& plan_for(unsigned n, const ConstantCoefficients& k) {
        for (const Plan& p : plans_)
            if (p.n == n && p.coefficients == k) return p;
        if (plans_.size() >= 4) plans_.erase(plans_.begin());
        Plan p;
        p.n = n;
        p.coefficients = k;
        p.window = plan_decay_window(n, k, unsigned(settings_.max_window), kWindowTarget);
        std::vector<double> m, r, q;
        p.pivots_ok = factorise(n, k, m, r, q);
        if (p.pivots_ok) {  // (a usable window implies good pivots)
            const std::vector<float> rows = factor_table(m, r, q);
            p.rows = gl::Buffer::from(rows);
            const InteriorRows interior = interior_rows(rows);
            p.interior_first = interior.first;
            p.interior_last = interior.last;
            for (int j = 0; j < 3; ++j) p.interior[j] = interior.factors[j];
        }
        plans_.push_back(std::move(p));
        return plans_.back();
    }

    void solve_window(Grid grid, Direction direction, const ConstantCoefficients& constant,
                      const Plan& plan, const gl::Buffer& rhs, gl::Buffer& solution) {
        const LineLayout layout = line_layout(grid, direction);
        const bool x_lines = direction == Direction::x;
        const unsigned rows = unsigned(x_lines ? settings_.rows_x : settings_.rows);
        // y: 32 columns per warp; narrower grids leave lanes idle (they return at once).
        const unsigned cols = 32;
        const unsigned group_size =
            unsigned(x_lines ? settings_.group_x : int(cols) * settings_.chunks);
        const gl::Program*& cached = programs_[{unsigned(x_lines), rows, plan.window.rows}];
        if (cached == nullptr)
            cached = &gl::compute_program("tridiagonal/lu_window.comp",
                                          {{"CONSTANT_COEFFICIENTS", "1"},
                                           {"X_LINES", x_lines ? "1" : "0"},
                                           {"COLS", std::to_string(cols)},
                                           {"CHUNKS", std::to_string(settings_.chunks)},
                                           {"ROWS", std::to_string(rows)},
                                           {"WINDOW", std::to_string(plan.window.rows)},
                                           {"WG_SIZE", std::to_string(group_size)}});
        const gl::Program& program = *cached;
        bind_lines(program, layout, constant, rhs, solution);
        plan.rows.bind_storage(6);
        program.set("interior_first", plan.interior_first);
        program.set("interior_last", plan.interior_last);
        program.set("interior_factors",
                    glm::vec3(plan.interior[0], plan.interior[1], plan.interior[2]));
        if (x_lines) {
            const unsigned segment = group_size * rows;
            dispatch_spread(layout.lines * ((layout.n + segment - 1) / segment));
        } else {
            const unsigned column_blocks = (layout.lines + cols - 1) / cols;
            const unsigned chunk_blocks = (layout.n + rows * unsigned(settings_.chunks) - 1) /
                                          (rows * unsigned(settings_.chunks));
            dispatch_spread(column_blocks * chunk_blocks);
        }
        gl::memory_barrier(gl::Barrier::storage);
    }

    static constexpr unsigned kNoScan = ~0u;

    // The lean column scan's chunk map (G_e, P_s, H_s) of `rows` interior rows, whose fp32
    // factors are all (m, r, q): G = m^rows, H = q^rows, P = sum_j q^j r m^(j+1) (the backward
    // recurrence over r G from zero, expanded), in float64 and rounded once.
    static glm::vec3 interior_chunk_map(const Plan& plan, unsigned rows) {
        const double m = plan.interior[0], r = plan.interior[1], q = plan.interior[2];
        double g = 1.0, h = 1.0, p = 0.0;
        for (unsigned j = 0; j < rows; ++j) {
            g *= m;
            p += h * r * g;
            h *= q;
        }
        return {float(g), float(p), float(h)};
    }

    unsigned scan_halo(const Plan& plan) const {
        return colscan_halo(plan.n, plan.pivots_ok, plan.window, settings_);
    }

    void solve_scan(Grid grid, const ConstantCoefficients& constant, const Plan& plan,
                    unsigned halo, const gl::Buffer& rhs, gl::Buffer& solution) {
        const LineLayout layout = line_layout(grid, Direction::y);
        const unsigned rows = unsigned(settings_.scan_rows);
        const unsigned warps = colscan_warps(halo, settings_);
        const ColscanBlocks blocks =
            colscan_blocks(layout.n, plan.interior_first, plan.interior_last, halo, warps, rows);
        const bool lean = colscan_lean(blocks, settings_);
        const gl::Program*& cached = scan_programs_[{unsigned(lean), halo}];
        if (cached == nullptr)
            cached = &gl::compute_program(
                lean ? "tridiagonal/lu_colscan_lean.comp" : "tridiagonal/lu_colscan.comp",
                {{"CONSTANT_COEFFICIENTS", "1"},
                 {"CHUNK", std::to_string(rows)},
                 {"WARPS", std::to_string(warps)},
                 {"HALO_WARPS", std::to_string(halo)},
                 {"WG_SIZE", std::to_string(32 * warps)}});
        const gl::Program& program = *cached;
        bind_lines(program, layout, constant, rhs, solution);
        plan.rows.bind_storage(6);
        if (lean) {
            program.set("interior_first", plan.interior_first);
            program.set("interior_last", plan.interior_last);
            program.set("interior_factors",
                        glm::vec3(plan.interior[0], plan.interior[1], plan.interior[2]));
            program.set("interior_chunk", interior_chunk_map(plan, rows));
            program.set("head_blocks", blocks.head);
            program.set("tail_blocks", blocks.tail);
        }
        dispatch_spread(((layout.lines + 31) / 32) * blocks.row_blocks);
        gl::memory_barrier(gl::Barrier::storage);
    }

    std::string name_;
    WindowTuning settings_;
    std::map<std::pair<unsigned, unsigned>, const gl::Program*> scan_programs_;  // (lean, halo)
    std::unique_ptr<Solver> exact_;
    bool last_exact_ = false;  // whether the last solve went to exact_ (last_path)
    std::vector<Plan> plans_;
    // Programs of the current context's shader cache, by (x lines, ROWS, WINDOW).
    std::map<std::tuple<unsigned, unsigned, unsigned>, const gl::Program*> programs_;
};

}  // namespace

// The column scan's work group for a warm-up of `halo` chunks at each end: scan_warps chunks,
// doubled (up to 32) while the warm-up would take more than half of them (so that at least half
// the rows a group loads are stored).
unsigned colscan_warps(unsigned halo, const WindowTuning& settings) {
    unsigned warps = unsigned(settings.scan_warps);
    while (warps < 32 && warps < 4 * halo) warps = std::min(2 * warps, 32u);
    return warps;
}

// Warm-up chunks at each end of a column-scan work group: none when the group holds the whole
// column (exact), else enough chunks to cover the decay window; ~0u when neither applies (bad
// pivots, no window, or a window too wide for a group of 32 chunks).
unsigned colscan_halo(unsigned n, bool pivots_ok, const DecayWindow& window,
                      const WindowTuning& settings) {
    if (!pivots_ok) return ~0u;
    if (n <= unsigned(settings.scan_rows * settings.scan_warps)) return 0;
    if (!window.usable) return ~0u;
    const unsigned halo =
        (window.rows + unsigned(settings.scan_rows) - 1) / unsigned(settings.scan_rows);
    return colscan_warps(halo, settings) > 2 * halo ? halo : ~0u;
}

unsigned lu_colscan_halo(unsigned n, const ConstantCoefficients& k, const WindowTuning& settings) {
    std::vector<double> m, r, q;
    const bool ok = factorise(n, k, m, r, q);
    return colscan_halo(
        n, ok, plan_decay_window(n, k, unsigned(settings.max_window), kWindowTarget), settings);
}

unsigned lu_colscan_warps(unsigned halo, const WindowTuning& settings) {
    return colscan_warps(halo, settings);
}

bool lu_colscan_lean(unsigned n, const ConstantCoefficients& k, const WindowTuning& settings) {
    const unsigned halo = lu_colscan_halo(n, k, settings);
    if (halo == ~0u) return false;
    const auto [first, last] = lu_window_interior_rows(n, k);
    const unsigned warps = colscan_warps(halo, settings);
    return colscan_lean(colscan_blocks(n, first, last, halo, warps, unsigned(settings.scan_rows)),
                        settings);
}

std::unique_ptr<Solver> make_lu_window(const std::string& name, const WindowTuning& settings,
                                       std::unique_ptr<Solver> exact) {
    return std::make_unique<LuWindowSolver>(name, settings, std::move(exact));
}

std::pair<int, int> lu_window_interior_rows(unsigned n, const ConstantCoefficients& k) {
    std::vector<double> m, r, q;
    if (!factorise(n, k, m, r, q)) return {-1, -2};
    const InteriorRows interior = interior_rows(factor_table(m, r, q));
    return {interior.first, interior.last};
}

DecayWindow lu_window_plan(unsigned n, const ConstantCoefficients& k, unsigned max_window) {
    return plan_decay_window(n, k, max_window, kWindowTarget);
}

}  // namespace adilab::tridiag
