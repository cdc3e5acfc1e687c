// `lu-window`: constant, diagonally dominant coefficients, every unknown of the grid in one fully
// parallel dispatch: the "decay window" (truncated SPIKE) solver. Beyond the paper (seed 001
// solves each line by cyclic reduction; this uses that, for the constant dominant matrices of
// implicit heat / diffusion steps, the LU factors converge geometrically, so each unknown
// depends, to fp32 precision, only on the right-hand sides within K rows).
// Each invocation solves ROWS unknowns of one line after a K-row warm-up of Thomas's forward
// recurrence before them and K rows of the backward one after (shaders/tridiagonal/lu_window.comp);
// K is derived from the coefficients on the host (solvers/tridiagonal/lu_factors.cpp: the bound
// and its derivation) so that the truncation stays below 2^-26 max|x|.
// Why: every layout of the exact column solvers that has to join chunks of a column (carry
// scans, band carries) ran far below the copy bandwidth along y (issue 3; see lu_scan.cpp), and
// whole-column walks give too few warps (4096 columns = 128 warps; `--bench strided` measures a
// plain copy in that shape at 390 GB/s, and at 3.1 TB/s with 32-row chunks). Here there is
// nothing to join: n / ROWS x nx / 32 independent warps, each reading rows of 128 contiguous
// bytes. x lines: the same windows, staged through a shared tile per row segment.
// Cost: ROWS + 2K loads per ROWS unknowns (the overlap mostly hits L1 / L2, or the tile along x),
// compute O(ROWS + 2K).
// Limits, all falling back to the exact `lu-scan` (never an error): general coefficients
// (-> cr-shared), a bad pivot (lu-scan reports it), and windows wider than max_window rows (weak
// dominance: K grows like 1 / log(1 / rho); the register cost of ROWS + 2K values per invocation
// bounds it).
// Programs are compiled once per (direction, ROWS, K rounded up to 8): a change of coefficients
// that changes K costs a compile on the next solve, never per step.
// Measured (H200, --bench tridiag, constant coefficients, ms per solve; every run checked against
// float64, max rel. error 1e-7 - 2e-7; the same binary, settings set through the knobs):
//  - 4096^2 y, K = 16 (the bench's random coefficients; also a = c = -1, b = 4 and
//    a = c = -0.5, b = 2): ROWS 16: 0.069 (1 run); ROWS 32: 0.100-0.104 in 4 runs, 0.296 in 2
//    (separate processes of the same command: bimodal), ROWS 64: 0.39. lu-scan in the same
//    processes: 0.42-0.69 (0.21 in one). CHUNKS 4 / 8 / 16: 0.140 / 0.1005 / 0.104 (ROWS 32).
//  - 4096^2 x: GROUP_X 32: 0.1415, 64: 0.160 (5 runs), 128: 0.194; ROWS_X 8: 0.166, 32: 0.302;
//    lu-scan 0.1805 (stable).
//  - 1024^2 and 2048^2 (L2-resident): the window lost to lu-scan (1024^2 y 0.0138-0.0168 against
//    0.0120, x 0.017-0.045 against 0.0089; 2048^2 y 0.0496 against 0.0377), hence min_unknowns.
//  - K = 48 (a = c = -4, b = 9; ROWS 32): 4096^2 y 1.69, x 0.40 against lu-scan 0.69 / 0.18:
//    wide windows lose (ROWS + 2K = 128 values per invocation), hence max_window = 32 (K between
//    16 and 32 is not measured yet). a = c = -10, b = 21 needs K ~ 70: exact path, as fast as
//    lu-scan (it is lu-scan).
// The column scan (y up to 2048^2, the default after the H200 sweep below; above, the window
// kernel: see the end of these notes; shaders/tridiagonal/lu_colscan.comp):
// the heat solver's column-scan shape with the tabulated factors. Lanes = 32 columns, 8 chunks
// of 8 rows stacked down the same columns per work group (16 when the warm-up needs 3-4 chunks),
// each chunk's recurrences affine in its carries, joined exactly through shared memory with one
// barrier; only between work groups a warm-up of ceil(K / 8) chunks (same K and bound as the
// window). Each invocation walks 8 rows (plus 2 x 8 folds in shared memory) instead of
// ROWS + 2K. Columns of up to 64 rows are solved whole (exact, any pivots that factorise).
// Measured (H200, one call, --bench tridiag --coefficients constant --grid 1024,4096, K = 16,
// every run checked against float64, max rel. error 1.1e-7 (1024^2) / 2.3e-7 (4096^2); one
// process per shape, ADILAB_COLSCAN_ROWS x _WARPS):
//   rows x warps   1024^2 y (ms)   4096^2 y (ms)
//   8 x 8          0.00977         0.0989        <- default
//   8 x 16         0.0101-0.0102   0.125-0.126 (0.1385, 0.354, 0.382 in processes that ran
//                                   the x configurations first: the transient below)
//   16 x 8         0.0137          0.167
//   16 x 16        0.0138          0.180
//   8 x 32         0.0143          0.150
//   4 x 16         0.0125          0.162
//   4 x 32         0.0159          0.226
//   2 x 32         0.0314          0.500
//   (ORDER 1, 8 x 16: 0.0102 / 0.126 - no effect.) Against lu-scan in the same processes:
//   1024^2 y 0.0120-0.0121; the old window kernel at 4096^2 y 0.104-0.264.
// The 4096^2 y spread between processes (0.10 against 0.21-0.41 ms for the column scan, H200)
// was a transient that followed the bench's 4096^2 x configurations (64 MiB buffers freed and
// allocated, a 64 MiB read-back, ~1 s of float64 reference on the CPU) and ended by itself
// between 0.2 and 1 s later: re-timed a moment later in the same process, the same instance on
// the same buffers ran at the fast figure; y-only processes never showed it; it never went from
// fast to slow. Not the cause: the buffers' placement, the pivot flag's read-back (read through
// a staging copy: still slow in 3 of 5 processes), the checked output's move to host memory on
// a direct read-back (big reads through a client-storage copy: slow in 3 of 5, against 3 of 4),
// clocks in nvidia-smi's 100 ms samples, dispatch cost (2.14-2.25 us in both states), row bands
// of 480 rows per dispatch (0.111 against 0.102 when fast). The benches' warm-up raised from 0.2
// to 1 s (gl::kWarmUpMs) outlasts it: the window kernel's 4096^2 y was 0.0695-0.0697 in 5 of 5
// full-bench processes, against 0.280 / 0.319 in 2 of 2 with 0.2 s in the same call. It behaves
// like a device power state that ramps back slowly after a host-only phase, which only the
// strided kernels feel.
// The window kernel (16 rows, 16 chunks) is faster than the column scan at 4096^2 in both
// states: 0.0706-0.0712 against 0.102 when fast, 0.150 / 0.193 / 0.204 against 0.31-0.41 when
// slow (full-bench processes of the same call), so grids above 2048^2 take it along y
// (WindowSettings::scan_max_unknowns); at 1024^2 the column scan stays (0.0101 against 0.0138).
// The lean column scan (shaders/tridiagonal/lu_colscan_lean.comp; scan_form, knob
// ADILAB_COLSCAN_FORM: 0 the first form above, 1 the lean one, 2 (default) the lean one where at
// least half the row blocks are interior): interior groups take the factors as uniforms, only
// the right-hand sides stay in registers across the barrier, and ORDER 2 starts the groups that
// read the factor table first. Measured (H200, one call each, every run checked against
// float64; ms per solve, 1024^2 y constant, K = 16; y-only processes, two per setting):
//   lean, ORDER 0:  8 x 8 0.00968 / 0.00968   8 x 16 0.00943   4 x 16 0.00945   16 x 8 0.0104
//                   16 x 4 0.0108   4 x 32 0.0113   16 x 16 0.0121   8 x 32 0.0132
//   lean, ORDER 2:  8 x 8 0.00728 / 0.00728 (default)   8 x 16 0.00753 / 0.00753
//   first form (ADILAB_COLSCAN_FORM=0, this binary) 0.0098 / 0.0098; main's 0.00983 / 0.00984.
//   KEEP_FACTORS 1 (the table path keeps its factors across the barrier): ORDER 0 0.00882 /
//   0.00881, ORDER 2 0.00747 / 0.00745: the table groups are faster with it, the kernel not
//   (ORDER 2 hides them), so it stays off.
// The final call: `--bench tridiag --grid 1024 --solver lu-window`, three processes each,
// interleaved with main's binary: y 0.00736 / 0.00736 / 0.00735 against 0.00978 / 0.00978 /
// 0.00977; x 0.00898 / 0.0090 / 0.00898 against 0.00902 / 0.00899 / 0.00899; max rel. error
// (y) 8.5e-8 against 1.06e-7. y-only, --grid 256,2048: 256^2 lean 0.00693 against the first
// form's 0.00631 (3 of its 4 row blocks take the table: hence scan_form 2, which gives 256^2
// the first form), 2048^2 0.0183 against 0.0305. 4096^2 is untouched (the window kernel along
// y): x 0.1414 / y 0.0699 against main's 0.1413 / 0.0696 in the same call. Not taken yet: the
// lean column scan at 4096^2 y (ADILAB_COLSCAN_MAX_UNKNOWNS=16777216) measured 0.0597 (8 x 8)
// and 0.0555 (8 x 16, ADILAB_COLSCAN_WARPS=16) against the window kernel's 0.0699, one process
// each.
#include <algorithm>
#include <cmath>
#include <cstdlib>
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

unsigned knob(const char* name, unsigned fallback) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return fallback;
    return static_cast<unsigned>(std::strtoul(text, nullptr, 10));
}

bool same(const ConstantCoefficients& x, const ConstantCoefficients& y) {
    return x.a == y.a && x.b == y.b && x.c == y.c && x.b_first == y.b_first &&
           x.b_last == y.b_last;
}

// The truncation target: a quarter of fp32's unit roundoff, relative to max|x| (lu_factors.cpp).
const double window_target = std::ldexp(1.0, -26);

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
                      const WindowSettings& settings);
unsigned colscan_warps(unsigned halo, const WindowSettings& settings);

namespace {

// The column scan's row blocks (groups down a column), and how many of them, from the top
// (head) and from the bottom (tail), hold a row outside the interior range [first, last]: those
// take the factor table in the lean form (its ORDER 2 starts them first). All at the head when
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
        if (top < first) ++blocks.head;
        else if (bottom > last) ++blocks.tail;
    }
    if (blocks.head + blocks.tail == blocks.row_blocks) {
        blocks.head = blocks.row_blocks;
        blocks.tail = 0;
    }
    return blocks;
}

// scan_form 2 (auto): the lean form where at least half the row blocks are interior (H200: at
// 256^2 y, 3 of 4 row blocks take the table and the lean form measured 0.00693 ms against the
// first form's 0.00631; at 1024^2 (2 of 32) 0.00736 against 0.00978, at 2048^2 0.0183 against
// 0.0305).
bool colscan_lean(const ColscanBlocks& blocks, const WindowSettings& settings) {
    if (settings.scan_form != 2) return settings.scan_form == 1;
    return 2 * (blocks.head + blocks.tail) <= blocks.row_blocks;
}

}  // namespace

namespace {

class LuWindowSolver final : public GpuSolver {
public:
    LuWindowSolver(std::string name, WindowSettings settings, std::unique_ptr<Solver> exact)
        : name_(std::move(name)), exact_(std::move(exact)) {
        // Tuning knobs for the bench (reports record them): ADILAB_WINDOW_ROWS (y: rows per
        // invocation), _CHUNKS (y: warps per work group), _MAX (widest window), _MIN_UNKNOWNS
        // (smaller grids take the exact path), _ORDER (0 / 1, lu_window.comp), _X (1: x lines
        // by the window too, 0: by lu-scan), _ROWS_X, _GROUP_X (x: unknowns per invocation,
        // invocations per work group).
        settings_.rows = std::clamp(knob("ADILAB_WINDOW_ROWS", settings.rows), 1u, 256u);
        settings_.min_unknowns = knob("ADILAB_WINDOW_MIN_UNKNOWNS", settings.min_unknowns);
        settings_.chunks = std::clamp(knob("ADILAB_WINDOW_CHUNKS", settings.chunks), 1u, 32u);
        settings_.max_window = std::min(knob("ADILAB_WINDOW_MAX", settings.max_window), 256u);
        settings_.order = knob("ADILAB_WINDOW_ORDER", settings.order) != 0 ? 1u : 0u;
        settings_.x_lines = knob("ADILAB_WINDOW_X", settings.x_lines) != 0;
        settings_.rows_x = std::clamp(knob("ADILAB_WINDOW_ROWS_X", settings.rows_x), 1u, 64u);
        settings_.group_x =
            std::clamp(knob("ADILAB_WINDOW_GROUP_X", settings.group_x), 32u, 1024u) / 32 * 32;
        // The column scan (y): ADILAB_COLSCAN (0: the window kernel / lu-scan along y), _ROWS
        // (rows per chunk), _WARPS (chunks per work group), _ORDER (the kernels' ORDER; the
        // first form takes 2 as 0).
        settings_.scan_y = knob("ADILAB_COLSCAN", settings.scan_y) != 0;
        settings_.scan_rows = std::clamp(knob("ADILAB_COLSCAN_ROWS", settings.scan_rows), 1u, 64u);
        settings_.scan_warps =
            std::clamp(knob("ADILAB_COLSCAN_WARPS", settings.scan_warps), 1u, 32u);
        settings_.scan_order = std::min(knob("ADILAB_COLSCAN_ORDER", settings.scan_order), 2u);
        // _FORM: 0 the first column scan (lu_colscan.comp), 1 the lean one (lu_colscan_lean.comp),
        // 2 either, by the share of interior row blocks (colscan_lean);
        // _KEEP_FACTORS: its KEEP_FACTORS (an experiment: lu_colscan_lean.comp).
        settings_.scan_keep_factors =
            knob("ADILAB_COLSCAN_KEEP_FACTORS", settings.scan_keep_factors) != 0;
        settings_.scan_form = std::min(knob("ADILAB_COLSCAN_FORM", settings.scan_form), 2u);
        // _MAX_UNKNOWNS: larger grids take the window kernel along y.
        settings_.scan_max_unknowns =
            knob("ADILAB_COLSCAN_MAX_UNKNOWNS", settings.scan_max_unknowns);
    }

    std::string name() const override { return name_; }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const auto* constant = std::get_if<ConstantCoefficients>(&coefficients);
        const double unknowns = double(grid.nx) * double(grid.ny);
        if (constant != nullptr && direction == Direction::y && settings_.scan_y &&
            unknowns <= double(settings_.scan_max_unknowns)) {
            const Plan& plan = plan_for(unsigned(grid.ny), *constant);
            const unsigned halo = scan_halo(plan);
            if (halo != no_scan) {
                solve_scan(grid, *constant, plan, halo, rhs, solution);
                return;
            }
        }
        const bool large =
            double(grid.nx) * double(grid.ny) >= double(settings_.min_unknowns);
        if (constant != nullptr && large && (direction == Direction::y || settings_.x_lines)) {
            const Plan& plan =
                plan_for(unsigned(direction == Direction::x ? grid.nx : grid.ny), *constant);
            if (plan.window.usable) {
                solve_window(grid, direction, *constant, plan, rhs, solution);
                return;
            }
        }
        exact_->solve(grid, direction, coefficients, rhs, solution);
    }

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
            if (p.n == n && same(p.coefficients, k)) return p;
        if (plans_.size() >= 4) plans_.erase(plans_.begin());
        Plan p;
        p.n = n;
        p.coefficients = k;
        p.window = plan_decay_window(n, k, settings_.max_window, window_target);
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
        const unsigned rows = x_lines ? settings_.rows_x : settings_.rows;
        // y: 32 columns per warp; narrower grids leave lanes idle (they return at once).
        const unsigned cols = 32;
        const unsigned group_size = x_lines ? settings_.group_x : cols * settings_.chunks;
        const gl::Program*& cached = programs_[{unsigned(x_lines), rows, plan.window.rows}];
        if (cached == nullptr)
            cached = &gl::compute_program("tridiagonal/lu_window.comp",
                                          {{"CONSTANT_COEFFICIENTS", "1"},
                                           {"X_LINES", x_lines ? "1" : "0"},
                                           {"COLS", std::to_string(cols)},
                                           {"CHUNKS", std::to_string(settings_.chunks)},
                                           {"ROWS", std::to_string(rows)},
                                           {"WINDOW", std::to_string(plan.window.rows)},
                                           {"ORDER", std::to_string(settings_.order)},
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
            const unsigned chunk_blocks =
                (layout.n + rows * settings_.chunks - 1) / (rows * settings_.chunks);
            dispatch_spread(column_blocks * chunk_blocks);
        }
        gl::memory_barrier(gl::Barrier::storage);
    }

    static constexpr unsigned no_scan = ~0u;

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
        const unsigned rows = settings_.scan_rows;
        const unsigned warps = colscan_warps(halo, settings_);
        const ColscanBlocks blocks = colscan_blocks(layout.n, plan.interior_first,
                                                    plan.interior_last, halo, warps, rows);
        const bool lean = colscan_lean(blocks, settings_);
        // (ORDER 2 is the lean form's; the first form takes it as 0, its own default.)
        const unsigned order = lean ? settings_.scan_order : (settings_.scan_order == 1 ? 1u : 0u);
        const char* keep = settings_.scan_keep_factors ? "1" : "0";
        const gl::Program*& cached = scan_programs_[{unsigned(lean), halo}];
        if (cached == nullptr)
            cached = &gl::compute_program(lean ? "tridiagonal/lu_colscan_lean.comp"
                                               : "tridiagonal/lu_colscan.comp",
                                          {{"CONSTANT_COEFFICIENTS", "1"},
                                           {"CHUNK", std::to_string(rows)},
                                           {"WARPS", std::to_string(warps)},
                                           {"HALO_WARPS", std::to_string(halo)},
                                           {"ORDER", std::to_string(order)},
                                           {"KEEP_FACTORS", keep},
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
    WindowSettings settings_;
    std::map<std::pair<unsigned, unsigned>, const gl::Program*> scan_programs_;  // (lean, halo)
    std::unique_ptr<Solver> exact_;
    std::vector<Plan> plans_;
    // Programs of the current context's shader cache, by (x lines, ROWS, WINDOW).
    std::map<std::tuple<unsigned, unsigned, unsigned>, const gl::Program*> programs_;
};

}  // namespace

// The column scan's work group for a warm-up of `halo` chunks at each end: scan_warps chunks,
// doubled (up to 32) while the warm-up would take more than half of them (so that at least half
// the rows a group loads are stored).
unsigned colscan_warps(unsigned halo, const WindowSettings& settings) {
    unsigned warps = settings.scan_warps;
    while (warps < 32 && warps < 4 * halo) warps = std::min(2 * warps, 32u);
    return warps;
}

// Warm-up chunks at each end of a column-scan work group: none when the group holds the whole
// column (exact), else enough chunks to cover the decay window; ~0u when neither applies (bad
// pivots, no window, or a window too wide for a group of 32 chunks).
unsigned colscan_halo(unsigned n, bool pivots_ok, const DecayWindow& window,
                      const WindowSettings& settings) {
    if (!pivots_ok) return ~0u;
    if (n <= settings.scan_rows * settings.scan_warps) return 0;
    if (!window.usable) return ~0u;
    const unsigned halo = (window.rows + settings.scan_rows - 1) / settings.scan_rows;
    return colscan_warps(halo, settings) > 2 * halo ? halo : ~0u;
}

unsigned lu_colscan_halo(unsigned n, const ConstantCoefficients& k,
                         const WindowSettings& settings) {
    std::vector<double> m, r, q;
    const bool ok = factorise(n, k, m, r, q);
    return colscan_halo(n, ok, plan_decay_window(n, k, settings.max_window, window_target),
                        settings);
}

unsigned lu_colscan_warps(unsigned halo, const WindowSettings& settings) {
    return colscan_warps(halo, settings);
}

bool lu_colscan_lean(unsigned n, const ConstantCoefficients& k, const WindowSettings& settings) {
    const unsigned halo = lu_colscan_halo(n, k, settings);
    if (halo == ~0u) return false;
    const auto [first, last] = lu_window_interior_rows(n, k);
    const unsigned warps = colscan_warps(halo, settings);
    return colscan_lean(colscan_blocks(n, first, last, halo, warps, settings.scan_rows), settings);
}

std::unique_ptr<Solver> make_lu_window(const std::string& name, WindowSettings settings,
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
    return plan_decay_window(n, k, max_window, window_target);
}

}  // namespace adilab::tridiag
