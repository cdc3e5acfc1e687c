// `gpu-blocked`: right-looking blocked LU with partial pivoting (Fig. 3-4 of the LU paper, its
// §2.3), block size nb in {8, 16, 32, 64, 128}. For each block column k0 = 0, nb, 2nb, ...:
//   1. panel: rows k0..n-1, columns k0..k0+nb-1, factored with partial pivoting in ONE dispatch
//      (beyond the paper): the panel's rows are spread over up to 128 work groups that keep
//      them on chip and exchange their pivot candidates through epoch-tagged slots once a
//      column, with no dispatch and no counter barrier between columns. A column of the paper's
//      way costs two dispatches and a barrier, ~10 us on any GPU; the exchange costs ~3 us.
//      `registers` (shaders/lu/panel_registers.comp) holds the rows in registers, `lean`
//      (shaders/lu/panel_lean.comp) in shared memory; Tuning::registers_panel picks. The
//      paper's way (pivot_column.comp + rank1_update.comp limited to the panel) is the fallback
//      where the one-dispatch panel cannot run: on a software renderer (work groups may run one
//      after another there, so only a single-group panel is safe) when the panel does not fit
//      one group, and on any GPU when it would need more groups than can be resident.
//   2. the panel's row interchanges applied to all other columns (shaders/lu/swap_block_row.comp,
//      which gathers A12's interchanged rows into a scratch block row) beside X = L11^-1
//      (shaders/lu/trtri.comp), then U12 = X * block row by matmul::gemm over A12: a GEMM has
//      no dependent chain, a substitution has nb^2 / 2 multiply-adds of one (MAGMA and cuBLAS
//      do the same; the rounding argument is in trtri.comp);
//   3. the trailing update A22 -= L21 U12 by matmul::gemm (the matmul family's kernel) with
//      tiles chosen for an inner dimension of nb (update_tiles below).
// Look-ahead (Tuning::lookahead): after step 2 of panel p, the next panel's columns are updated
// first (a narrow GEMM), then panel p+1 is factored while the GEMM for the rest of the trailing
// matrix runs beside it: the two are dispatched one after the other with no barrier in between
// (they write disjoint parts of the matrix and read only panel p's L21 and U12), and the GPU
// runs them side by side where the panel leaves room on the SMs. The panel is latency-bound
// (a few microseconds a column of L2 round trips and barriers), the GEMM throughput-bound, so
// the pair takes little more than the GEMM. Fewer panel groups leave more room for the GEMM:
// hence Tuning::panel_rows.
// Same pivots and the same O(2/3 n^3) flops as unblocked LU. Measured figures, the tries that
// lost and the peers (cuSOLVER getrf) are in docs/performance.md, "LU".
// Assumption of the one-dispatch panel: all its work groups are resident at once (true for
// <= 128 groups of 512 invocations on the GPUs adilab targets). On a GPU where they are not, a
// wait times out (~1 s) and singular_column() reports the failure: wrong factors never pass
// silently.
#include <algorithm>
#include <string>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/lu/variants.hpp"
#include "solvers/matmul/matmul.hpp"

namespace adilab::lu {

namespace {

// Slots of the panel's exchange (GROUPS_MAX in the shaders): the most groups a panel may use.
constexpr int kGroupsMax = 128;
// `registers`: rows an invocation holds at most (beyond, its registers spill: `lean`).
constexpr int kRowsPerPartMax = 64;

// Tiles of the trailing update C -= A B (inner dimension nb: C is read and written once per
// panel, A and B are thin). With k this short, small blocks (128 invocations, 64 accumulators)
// win: several per SM overlap one's C traffic with another's products, where matmul's own
// choice for a big C (256 x 128) keeps one block an SM waiting on C. The first of these that
// gives C at least 128 work groups (with blocks no wider than C), else the smallest.
matmul::GemmTiles update_tiles(int m, int l) {
    static const matmul::GemmTiles candidates[] = {
        {64, 128, 8, 8, 8}, {32, 64, 8, 4, 8}, {32, 32, 8, 4, 4}};
    for (const matmul::GemmTiles& t : candidates) {
        const long long groups =
            static_cast<long long>((m + t.bm - 1) / t.bm) * ((l + t.bn - 1) / t.bn);
        if (t.bn <= l && groups >= 128) return t;
    }
    return candidates[2];
}

// The panel's shape for an n x n matrix: one source for factor() and panel_that_runs().
struct PanelPlan {
    int group_size = 512;  // invocations a panel group: whole columns, a multiple of nb
    bool registers = false;
    int rows_per_part = 0;  // registers: rows an invocation holds
    int rows_min = 0;       // rows a group at least
    int rows_max = 0;       // rows a group at most
    int groups_max = 1;     // groups that may be resident at once
};

PanelPlan plan_panel(const gl::DeviceInfo& info, int n, int block, const Tuning& t) {
    PanelPlan plan;
    plan.group_size = std::max(block, t.panel_group_size / block * block);
    // `registers`: each invocation holds one column of rows_per_part rows of its group; enough
    // rows a group that the first panel fits the co-resident groups, at least rows_min, a
    // multiple of 4 a part (the multipliers are read 4 rows at a time).
    const int parts = plan.group_size / block;
    const int groups_cap = info.software ? 1 : std::min(kGroupsMax, plan.group_size);
    plan.rows_min = t.resolved().panel_rows;
    const int rows_wanted = std::max(plan.rows_min, (n + groups_cap - 1) / groups_cap);
    plan.rows_per_part = ((rows_wanted + parts - 1) / parts + 3) / 4 * 4;
    plan.registers = t.registers_panel != 0 && plan.rows_per_part <= kRowsPerPartMax;
    // `lean`: shared memory for the panel's rows, what the group may use less the reduction
    // arrays.
    const int shared_bytes = std::min(info.max_shared_memory_bytes, 48 * 1024);
    plan.rows_max = plan.registers
                        ? parts * plan.rows_per_part
                        : std::max(1, (shared_bytes - 3 * 4 * plan.group_size - 8 * block - 256) /
                                          (4 * block + 4));  // a row and its label
    // Invocation s of a group takes slot s's header, so groups <= its invocations.
    plan.groups_max = info.software ? 1 : std::min(kGroupsMax, plan.group_size);
    return plan;
}

class BlockedSolver final : public Solver {
  public:
    BlockedSolver(int block, const Tuning& tuning) : block_(block), tuning_(tuning) {}
    std::string name() const override { return "gpu-blocked"; }

    void factor(Factors& f) override {
        const gl::DeviceInfo& info = gl::Context::current().info();
        const std::string nb = std::to_string(block_);
        const int n = f.n;
        const PanelPlan plan = plan_panel(info, n, block_, tuning_);
        const bool subgroups = info.subgroups && tuning_.subgroups != 0;
        const gl::Program& panel =
            plan.registers
                ? gl::compute_program("lu/panel_registers.comp",
                                      {{"WG_SIZE", std::to_string(plan.group_size)},
                                       {"NB", nb},
                                       {"ROWS_PER_PART", std::to_string(plan.rows_per_part)},
                                       {"GROUPS_MAX", std::to_string(kGroupsMax)},
                                       {"SUBGROUPS", subgroups ? "1" : "0"},
                                       {"SOFTWARE", info.software ? "1" : "0"}})
                : gl::compute_program("lu/panel_lean.comp",
                                      {{"WG_SIZE", std::to_string(plan.group_size)},
                                       {"NB", nb},
                                       {"ROWS_MAX", std::to_string(plan.rows_max)},
                                       {"GROUPS_MAX", std::to_string(kGroupsMax)},
                                       {"SUBGROUPS", subgroups ? "1" : "0"},
                                       {"SOFTWARE", info.software ? "1" : "0"}});
        const gl::Program& pivot =
            gl::compute_program("lu/pivot_column.comp", {{"WG_SIZE", "1024"}});
        const gl::Program& update = gl::compute_program("lu/rank1_update.comp");
        const gl::Program& origin = gl::compute_program("lu/panel_origin.comp");
        // The interchanges: swap_columns columns a group, nb / part_rows invocations a column.
        const int part_rows = std::min(block_, 16);
        const int swap_invocations = tuning_.swap_columns * (block_ / part_rows);
        if (swap_invocations > info.max_work_group_invocations)
            throw Error("gpu-blocked: the interchanges' work group (" +
                        std::to_string(swap_invocations) + " invocations) exceeds the device's " +
                        std::to_string(info.max_work_group_invocations));
        const gl::Program& swap = gl::compute_program(
            "lu/swap_block_row.comp", {{"NB", nb},
                                       {"WG_SIZE", std::to_string(swap_invocations)},
                                       {"PS", std::to_string(part_rows)},
                                       {"COLS", std::to_string(tuning_.swap_columns)}});
        // X = L11^-1 by trtri.comp, CB columns of X a group, nb * CB invocations: 512 a group,
        // enough columns a group that X keeps pace with the interchanges dispatched beside it
        // (docs/performance.md has the columns-a-group sweep).
        const int inverse_cols = std::clamp(512 / block_, 1, block_);
        const bool inverse_lower_fits = block_ * (block_ - 1) / 2 * 4 + 8 * inverse_cols * 4 + 64 <=
                                        info.max_shared_memory_bytes;
        const gl::Program& trtri = gl::compute_program(
            "lu/trtri.comp", {{"NB", nb},
                              {"CB", std::to_string(inverse_cols)},
                              {"WG_SIZE", std::to_string(block_ * inverse_cols)},
                              {"LOWER_SHARED", inverse_lower_fits ? "1" : "0"}});

        const int panels = (n + block_ - 1) / block_;
        const int w_ld_max = (n + 3) / 4 * 4;
        if (headers_.empty() ||
            block_row_.size() < static_cast<std::size_t>(block_) * w_ld_max * 4 ||
            origin_.size() < static_cast<std::size_t>(n) * sizeof(int))
            gl::check_buffers_fit(blocked_scratch_needs(n, block_));  // before any is allocated
        if (headers_.empty()) {
            // The slots of the panel's exchange: headers and rows together (uvec4 words: the
            // header, then 3 values a word) in `headers_`, two sets by column parity.
            const int words = 1 + (block_ + 2) / 3;
            headers_ = gl::Buffer(2 * (kGroupsMax + 1) * words * 4 * sizeof(unsigned));
            values_ = gl::Buffer(2 * (kGroupsMax + 1) * (block_ + 1) * 2 * sizeof(unsigned));
        }
        // X (nb x nb) and the interchanged block row (nb x the trailing width, rows padded to
        // whole vec4s so that the GEMM reads it by vec4 where the matrix allows: w_ld_max).
        if (inverse_.size() < static_cast<std::size_t>(block_) * block_ * 4)
            inverse_ = gl::Buffer(static_cast<std::size_t>(block_) * block_ * 4);
        if (block_row_.size() < static_cast<std::size_t>(block_) * w_ld_max * 4)
            block_row_ = gl::Buffer(static_cast<std::size_t>(block_) * w_ld_max * 4);
        if (origin_.size() < static_cast<std::size_t>(n) * sizeof(int)) {
            origin_ = gl::Buffer(static_cast<std::size_t>(n) * sizeof(int));
            origin_.zero();  // valid row indices from the start
        }
        // Epochs restart at 1 in every factorisation: no slot may keep one from the last.
        headers_.zero();
        values_.zero();

        auto bind = [&] {  // again after every matmul::gemm, which binds its own
            f.values.bind_storage(0);
            f.pivots.bind_storage(1);
            f.status.bind_storage(2);
            headers_.bind_storage(3);
            values_.bind_storage(4);
            f.values.bind_storage(5);  // the vec4 view of the trailing update
            origin_.bind_storage(6);
        };
        // Panel p: columns k0..k0+width-1, rows k0..n-1. `barrier_after` = false leaves the
        // one-dispatch panel unordered against the next dispatch (look-ahead below).
        auto factor_panel = [&](int p, bool barrier_after) {
            bind();
            const int k0 = p * block_;
            const int width = std::min(block_, n - k0);
            const int m = n - k0;
            const int groups_needed = (m + plan.rows_max - 1) / plan.rows_max;
            const int groups =
                std::max(groups_needed, std::min({plan.groups_max, tuning_.panel_groups,
                                                  (m + plan.rows_min - 1) / plan.rows_min}));
            if (groups <= plan.groups_max) {
                panel.use();
                panel.set("n", n);
                panel.set("k0", k0);
                panel.set("width", width);
                panel.set("groups", groups);
                panel.set("rows_per_group", (m + groups - 1) / groups);
                panel.set("epoch_base", p * block_ + 1);
                gl::dispatch(static_cast<unsigned>(groups));
                if (barrier_after) gl::memory_barrier(gl::Barrier::storage);
                return;
            }
            for (int j = 0; j < width; ++j) {
                const int k = k0 + j;
                pivot.use();
                pivot.set("n", n);
                pivot.set("k", k);
                pivot.set("col_begin", k0);
                pivot.set("col_end", k0 + width);
                gl::dispatch(1);
                gl::memory_barrier(gl::Barrier::storage);
                const int cols = k0 + width - k - 1, rows = n - k - 1;
                if (cols <= 0 || rows <= 0) continue;
                update.use();
                update.set("n", n);
                update.set("k", k);
                update.set("col_end", k0 + width);
                gl::dispatch(static_cast<unsigned>((cols + 15) / 16),
                             static_cast<unsigned>((rows + 15) / 16));
                gl::memory_barrier(gl::Barrier::storage);
            }
            origin.use();
            origin.set("n", n);
            origin.set("k0", k0);
            origin.set("width", width);
            gl::dispatch(1);
            gl::memory_barrier(gl::Barrier::storage);
        };
        auto solve_block_row = [&](int p) {
            const int k0 = p * block_;
            const int width = std::min(block_, n - k0);
            if (n <= width) return;
            bind();
            const int rest = n - k0 - width;
            const int w_ld = (rest + 3) / 4 * 4;
            if (rest > 0) {
                // X = L11^-1, beside the interchanges (it reads only L11, which they leave
                // alone, and writes its own buffer): one barrier after both.
                inverse_.bind_storage(7);
                trtri.use();
                trtri.set("n", n);
                trtri.set("k0", k0);
                trtri.set("width", width);
                gl::dispatch(static_cast<unsigned>(block_ / inverse_cols));
            }
            block_row_.bind_storage(7);
            swap.use();
            swap.set("n", n);
            swap.set("k0", k0);
            swap.set("width", width);
            swap.set("w_ld", w_ld);
            gl::dispatch(static_cast<unsigned>((n - width + tuning_.swap_columns - 1) /
                                               tuning_.swap_columns));
            gl::memory_barrier(gl::Barrier::storage);
            if (rest > 0) {
                // U12 = X * (A12 interchanged), written over A12 (beta = 0: A12 is not read);
                // ends with a barrier.
                const std::size_t ld = static_cast<std::size_t>(n);
                matmul::gemm(width, width, rest, 1.0f, {&inverse_, 0, block_},
                             {&block_row_, 0, w_ld}, 0.0f, {&f.values, k0 * ld + k0 + width, n},
                             update_tiles(width, rest));
            }
        };
        // Trailing update of panel p restricted to the columns [r0 + c_begin, r0 + c_end) of A22
        // (all of its rows): A22 -= L21 U12 there. matmul::gemm ends with a barrier.
        auto update_trailing = [&](int p, int c_begin, int c_end) {
            const int k0 = p * block_;
            const int width = std::min(block_, n - k0);
            const int r0 = k0 + width, rest = n - r0;
            if (rest <= 0 || c_end <= c_begin) return;
            const std::size_t ld = static_cast<std::size_t>(n);
            matmul::gemm(rest, width, c_end - c_begin, -1.0f, {&f.values, r0 * ld + k0, n},
                         {&f.values, k0 * ld + r0 + c_begin, n}, 1.0f,
                         {&f.values, r0 * ld + r0 + c_begin, n},
                         update_tiles(rest, c_end - c_begin));
        };

        if (!tuning_.lookahead) {
            for (int p = 0; p < panels; ++p) {
                const int rest = n - p * block_ - std::min(block_, n - p * block_);
                factor_panel(p, true);
                solve_block_row(p);
                update_trailing(p, 0, rest);
            }
            return;
        }
        // Look-ahead: the next panel's columns are updated first (a narrow GEMM), then the next
        // panel is factored by its co-resident groups while the rest of the trailing matrix is
        // updated by a GEMM dispatched right after it with no barrier in between: the two write
        // disjoint parts of the matrix (panel p+1's columns / the columns right of them) and
        // read only L21 and U12 of panel p, so the GPU may run them side by side. The panel is
        // dispatched first so that its groups are resident before the GEMM's blocks take the
        // SMs. One barrier after both; then panel p+1's interchanges and block-row solve.
        factor_panel(0, true);
        for (int p = 0; p < panels; ++p) {
            solve_block_row(p);
            const int rest = n - p * block_ - std::min(block_, n - p * block_);
            if (rest <= 0) break;
            const int next = std::min(block_, rest);
            update_trailing(p, 0, next);
            factor_panel(p + 1, false);
            if (rest > next)
                update_trailing(p, next, rest);  // ends with the barrier for both
            else
                gl::memory_barrier(gl::Barrier::storage);
        }
    }

  private:
    int block_;
    Tuning tuning_;
    gl::Buffer headers_;    // the panel groups' slots: candidates and rows ...
    gl::Buffer values_;     // ... (panel_registers.comp's rows)
    gl::Buffer origin_;     // where each panel row came from (n ints)
    gl::Buffer inverse_;    // X = L11^-1 (nb x nb) ...
    gl::Buffer block_row_;  // ... and A12 interchanged (nb x the trailing width)
};

}  // namespace

Tuning Tuning::defaults(const gl::DeviceInfo& device) {
    Tuning t;
    if (device.max_work_group_invocations > 0)
        t.panel_group_size = std::min(t.panel_group_size, device.max_work_group_invocations);
    return t;
}

Tuning Tuning::resolved() const {
    Tuning t = *this;
    if (t.panel_rows == 0) t.panel_rows = t.registers_panel ? 64 : 128;
    return t;
}

std::vector<TuningField> tuning_fields(Tuning& t) {
    return {
        {"registers_panel", "1: registers panel (lean past 64 rows an invocation); 0: lean",
         &t.registers_panel, 0, 1},
        {"panel_rows", "rows a panel group takes at least (0: 64 registers, 128 lean)",
         &t.panel_rows, 0, 1 << 20},
        {"panel_groups", "panel work groups at most, where its rows fit them", &t.panel_groups, 1,
         kGroupsMax},
        {"panel_group_size", "invocations of a panel group (whole columns of nb)",
         &t.panel_group_size, 64, 1024},
        {"swap_columns", "columns a work group of the row interchanges takes", &t.swap_columns, 1,
         1024},
        {"lookahead", "1: the next panel beside the trailing update; 0: one after the other",
         &t.lookahead, 0, 1},
        {"subgroups", "1: subgroup shuffles in the panel where the device has them; 0: never",
         &t.subgroups, 0, 1},
    };
}

std::string describe(const Tuning& tuning) {
    Tuning t = tuning.resolved();
    std::string out;
    for (const TuningField& f : tuning_fields(t))
        out += (out.empty() ? "lu." : " lu.") + f.name + "=" + std::to_string(*f.value);
    return out;
}

std::string panel_that_runs(const gl::DeviceInfo& device, int n, int block, const Tuning& t) {
    const PanelPlan plan = plan_panel(device, n, block, t);
    const char* one = plan.registers ? "registers" : "lean";
    // A panel of m rows is one dispatch where its rows fit the resident groups; m shrinks by nb
    // a panel, so the first panels are the ones that may not.
    const long long fit = static_cast<long long>(plan.rows_max) * plan.groups_max;
    const int last = n - (n - 1) / block * block;
    if (n <= fit) return one;
    if (last > fit) return "columns";
    return std::string("columns+") + one;
}

std::vector<gl::BufferNeed> blocked_scratch_needs(std::int64_t n, int block) {
    // As factor() allocates them: the exchange slots (uvec4 words: a header, then 3 values a
    // word; and the values, two sets by column parity), X = L11^-1 (nb x nb), the interchanged
    // block row (nb x n rounded up to whole vec4s) and each row's origin.
    const std::uint64_t words = 1 + (std::uint64_t(block) + 2) / 3;
    const std::uint64_t rows = n < 0 ? 0 : std::uint64_t(n);
    return {
        {"the LU panel exchange headers", 2 * (kGroupsMax + 1) * words * 4 * sizeof(unsigned)},
        {"the LU panel exchange values",
         2 * (kGroupsMax + 1) * (std::uint64_t(block) + 1) * 2 * sizeof(unsigned)},
        {"the LU diagonal block's inverse", std::uint64_t(block) * std::uint64_t(block) * 4},
        {"the LU interchanged block row (panel scratch)",
         gl::bytes_of(std::uint64_t(block) * 4, (rows + 3) / 4 * 4)},
        {"the LU row origins", gl::bytes_of(rows, sizeof(int))},
    };
}

std::unique_ptr<Solver> make_blocked_solver(int block, const Tuning& tuning) {
    return std::make_unique<BlockedSolver>(block, tuning);
}

}  // namespace adilab::lu
