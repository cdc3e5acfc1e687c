// Model "heat": dT/dt = c (T_xx + T_yy) with insulated walls, by ADI line sweeps (Kim & Lee
// 2005, simulation 1). shaders/sim/heat.comp has the two schemes (implicit Euler splitting, the
// default, and the paper's Peaceman–Rachford) and why the heaters are rows of the implicit
// systems. Kernels of the `fused` solver, by regime:
//   windowed: where no cell is pinned (the `free` scenario, or heaters of radius 0) the sweep's
//             matrix is the same on every line, and its inverse decays as rho^|m|
//             (heat_window_halo): two dispatches a step, x by a scan across subgroup lanes
//             (heat_rowscan.comp), y with chunk ends joined in shared memory (heat_colscan.comp),
//             the inverse truncated below fp32 round-off. Where that needs a halo over 48
//             (lambda above ~7) the fused line solve instead.
//   with heaters on large grids: the windowed kernels for every line, then the fused line solve
//             again for only the lines that cross a heater (a pinned cell changes its line's
//             matrix, so the closed-form inverse holds only on the others), and along them only
//             from a halo before a heater to a halo after it (resolve_heater_lines says why): at
//             4096^2 the default heaters cross 8% of the rows and columns, on a tenth of their
//             length. On smaller grids (resolve_window says why) and with heaters: the fused
//             line solve on every line.
//   fused line solve (heat.comp with tridiagonal/fused_lines.glsl): where the halo would
//             exceed 48 (lambda above ~7): every line.
// The generic path (any tridiagonal Solver, AdiModel::half_step): the rows kernel writes each
// line's coefficients and right-hand side (GeneralCoefficients: heater rows differ), the Solver
// solves, the finish kernel adds the increment and checks the value.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "sim/model.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim::detail {

double heat_window_rho(double lambda) {
    // The smaller root of lambda r^2 - (1 + 2 lambda) r + lambda = 0, in the form without
    // cancellation for small lambda (the two roots multiply to 1).
    return 2 * lambda / (1 + 2 * lambda + std::sqrt(1 + 4 * lambda));
}

double heat_window_tail(double lambda, int halo) {
    const double rho = heat_window_rho(lambda);
    return 2 * std::pow(rho, halo + 1) / (1 + rho);
}

int heat_window_halo(double lambda) {
    for (int halo : {8, 16, 24, 32, 48})
        if (heat_window_tail(lambda, halo) <= std::ldexp(1.0, -26)) return halo;
    return 0;
}

namespace {

enum class Scheme { implicit_euler = 0, peaceman_rachford = 1 };

class Heat final : public AdiModel {
  public:
    explicit Heat(const std::string& solver)
        : AdiModel("heat",
                   {{"scheme",
                     "",
                     "implicit-euler (default): every sweep a backward-Euler step, "
                     "first order in time; the maximum principle holds at any dt, "
                     "so T stays within its start, heater and brush values, for "
                     "2 c dt / dh^2 up to 1e4. "
                     "peaceman-rachford: the paper's eq. 3, second order; with "
                     "heaters or sharp edges it overshoots once c dt / (2 dh^2) "
                     "exceeds ~1 (stable, but not bounded by the start values); "
                     "c dt / dh^2 up to 100",
                     0,
                     0,
                     1,
                     {"implicit-euler", "peaceman-rachford"}},
                    {"c", "m^2/s", "thermal diffusivity", 1.0, 1e-9, 1e9},
                    {"dt", "s",
                     "time step: stable with either scheme while the weight 2 c dt / dh^2 is at "
                     "most 1e4 "
                     "(c dt / dh^2 at most 100 for peaceman-rachford); a larger one is refused: "
                     "past it fp32 no longer conserves T",
                     1.0, 1e-9, 1e9},
                    {"dh", "m", "cell size", 1.0, 1e-9, 1e9},
                    {"initial_temperature", "K", "uniform start value (scenarios without --init)",
                     0.0, -1e9, 1e9},
                    {"heater_temperature",
                     "K",
                     "temperature the heaters hold (two-heaters)",
                     1.0,
                     -1e9,
                     1e9,
                     {},
                     {"two-heaters"}},
                    {"heater_radius",
                     "1",
                     "heater radius, fraction of the domain's smaller side",
                     0.04,
                     0.0,
                     0.5,
                     {},
                     {"two-heaters"}},
                    {"heater_offset",
                     "1",
                     "heater distance from the centre, fraction of the width",
                     0.2,
                     0.0,
                     0.5,
                     {},
                     {"two-heaters"}}},
                   {"two-heaters", "free"}, solver) {}

    const gl::Buffer& field() const override { return field_; }
    // The heaters hold their temperature: heat flows in and out through them.
    bool has_sources(const std::string& scenario) const override {
        return scenario == "two-heaters";
    }
    std::string kernel() const override {
        return AdiModel::kernel() + (heater_segments_[0].empty() ? "" : "+heater-lines");
    }
    void apply_brush(const Brush& brush) override { dispatch_brush(brush, field_, nullptr); }

  protected:
    gl::Buffer& field_buffer() override { return field_; }
    std::vector<StateBuffer> state_buffers() override { return {{"T", &field_}}; }
    // A sweep's row: 1 + 2 mu on the diagonal, -mu either side, mu = c dt / dh^2 (implicit
    // Euler) or c dt / (2 dh^2) (Peaceman–Rachford).
    ImplicitWeight implicit_weight(const std::string&, int, int) const override {
        const double dh = param("dh");
        const double mu = param("c") * param("dt") / (dh * dh);
        if (int(param("scheme")) == 0)
            return {2 * mu, kMaxImplicitWeight, "2 c dt / dh^2", "lower dt or c, or raise dh", {}};
        return {
            mu, kMaxHeatPeacemanRachfordWeight, "c dt / dh^2", "lower dt or c, or raise dh", {}};
    }

    std::vector<gl::BufferNeed> buffer_needs(int nx, int ny) const override {
        std::vector<gl::BufferNeed> needs = {{"heat's T field", field_bytes(nx, ny)},
                                             {"heat's half-step T", field_bytes(nx, ny)}};
        for (gl::BufferNeed& need : line_solve_needs(nx, ny)) needs.push_back(std::move(need));
        return needs;
    }

    void allocate() override {
        // One allocation: the sweeps' rate then does not hang on where the driver placed each
        // field (gl::Buffer::pair says why).
        auto [field, half] = gl::Buffer::pair(cells() * sizeof(float));
        field_ = std::move(field);
        half_ = std::move(half);
        half_.poison();  // a half step that missed a cell shows up as NaN in the tests
        resolve_programs("sim/heat.comp", 1);
    }

    void initialize() override {
        const double t0 = param("initial_temperature");
        field_.fill(float(t0));
        range_low_ = range_high_ = double(float(t0));
    }

    void step_once() override {
        sweep(0, field_, half_);
        sweep(1, half_, field_);
    }

    // The maximum principle: with implicit Euler every sweep makes each new value a convex
    // combination of the old ones and the heaters', so T stays inside the hull of its start,
    // heater and brush values; the margin covers fp32 round-off (a few ulps a step, not
    // accumulated: each step contracts) and the windowed inverse's truncation (2^-26 of the
    // increment). Peaceman–Rachford is stable in the norm |(1 - lambda d_yy) e| (the product of
    // two Cayley transforms of symmetric negative semi-definite operators, heater rows removed),
    // which bounds the deviation from the steady state by (1 + 4 lambda) sqrt(cells) times the
    // hull's width: a loose bound, but one that only a blow-up crosses.
    FieldBounds field_bounds() const override {
        double lo = range_low_, hi = range_high_;
        if (heaters()) {
            lo = std::min(lo, double(float(param("heater_temperature"))));
            hi = std::max(hi, double(float(param("heater_temperature"))));
        }
        const double width = hi - lo;
        const double scale = std::max(std::abs(lo), std::abs(hi));
        FieldBounds bounds;
        double margin = 1e-3 * width + 1e-5 * scale + 1e-30;
        if (scheme() == Scheme::peaceman_rachford) {
            const double lambda = 0.5 * param("c") * param("dt") / (param("dh") * param("dh"));
            margin += (1 + 4 * lambda) * std::sqrt(double(cells())) * width;
            bounds.why = "Peaceman–Rachford's stability bound around the start and heater values";
        } else {
            bounds.why = "the maximum principle: the start, heater and brush values, plus 0.1%";
        }
        bounds.low = lo - margin;
        bounds.high = hi + margin;
        return bounds;
    }

  private:
    Scheme scheme() const { return Scheme(int(param("scheme"))); }
    bool heaters() const { return scenario_ == "two-heaters" && param("heater_radius") > 0; }
    // The implicit weight along a sweep's line and the explicit one across it (heat.comp).
    double implicit_lambda() const {
        const double dh = param("dh");
        const double mu = param("c") * param("dt") / (dh * dh);
        return scheme() == Scheme::implicit_euler ? mu : 0.5 * mu;
    }
    double explicit_lambda() const {
        return scheme() == Scheme::implicit_euler ? 0.0 : implicit_lambda();
    }

    // Peaceman–Rachford's explicit half across the line is compiled in only with that scheme
    // (heat.comp, heat_scan.glsl): implicit Euler's kernels then read no neighbouring lines.
    gl::Defines specialization() const override {
        if (scheme() == Scheme::implicit_euler) return {};
        return {{"EXPLICIT_ACROSS", "1"}};
    }

    void set_uniforms(const gl::Program& p) const override {
        const float lambda = float(implicit_lambda());
        p.set("lambda", lambda);
        p.set("lambda_across", float(explicit_lambda()));  // with EXPLICIT_ACROSS only
        const float side = float(std::min(nx_, ny_));
        const float offset = float(param("heater_offset")) * float(nx_);
        p.set("heater_left", glm::vec2(0.5f * nx_ - offset, 0.5f * ny_));
        p.set("heater_right", glm::vec2(0.5f * nx_ + offset, 0.5f * ny_));
        p.set("heater_radius", heaters() ? float(param("heater_radius")) * side : 0.0f);
        p.set("heater_temperature", float(param("heater_temperature")));
        const double rho = heat_window_rho(double(lambda));
        p.set("rho", float(rho));
        p.set("gain", float((1 - rho) / (1 + rho)));
    }

    // Picks the windowed kernels for the current parameters and grid (a new lambda can need
    // another halo, i.e. another program: compiled once, then cached), or none.
    //
    // Shapes (FusedTuning's window_* knobs, AdiModel::build_window): x as 4 subgroups a group,
    // chunks of 8 positions a lane (16-byte loads and stores where nx is a multiple of 4); y as 8
    // subgroups of chunks of 16 rows. A scan's warm-up lanes cost 2 halo / segment of its work,
    // which longer chunks cut (at halo 24, 26 of 32 lanes store with chunks of 8, 20 with chunks of
    // 4), while each lane keeps a few chunk-length arrays in registers. These were the fastest
    // shapes on the H100 for every halo (docs/performance.md, 2026-11-26 night: the x scan 5-62%
    // faster than chunks of 4, once its stores were 16 bytes; the y shape 7-25% faster than 16
    // subgroups of 8 rows). A shape whose warm-up leaves no lane or subgroup to store takes the
    // fused line solve instead.
    void resolve_window() override {
        heater_segments_[0].clear();
        heater_segments_[1].clear();
        gl::Defines row = {{"X_VEC4", "1"}};
        const gl::DeviceInfo& info = gl::Context::current().info();
        if (info.subgroups && info.subgroup_size == 32) row.push_back({"SUBGROUPS", "1"});
        const int halo = heat_window_halo(double(float(implicit_lambda())));
        build_window({WindowHalo{halo, halo}, WindowHalo{halo, halo}},
                     WindowShape{8, 4, 16, 8, 32, 32}, "sim/heat_rowscan.comp", row,
                     "sim/heat_colscan.comp", {});
        if (!window_[0]) return;
        if (heaters()) {
            // The window plus the exact solve of some lines costs three dispatches where the
            // exact solve of all lines costs one, and a dispatch of a few groups of line solves
            // takes about as long as one of all of them while they fit in one wave of the GPU.
            // So only where a sweep has more groups than two waves hold on a GPU of up to ~128
            // multiprocessors (with 4 lines a group, lines of 2048 cells and more); below, the
            // exact solve everywhere.
            const int choice = fused_tuning_.heater_lines;
            if (choice == 2 ||
                (choice == 0 && std::min(fused_groups_[0], fused_groups_[1]) < kManyGroups)) {
                window_[0] = window_[1] = nullptr;
                return;
            }
            resolve_heater_lines();
        }
    }
    static constexpr unsigned kManyGroups = 512;

    // Whether the heater lines of `direction` are solved by the split solve: y where it splits
    // and the fused kernel's groups would hold fewer than 4 columns (reading less than half of
    // each 32-byte sector). On the H100, the heaters' columns at 4096^2 (4 columns a group) took
    // 0.107 ms fused against 0.141 split (three dispatches for each disc's columns), at 8192^2 (2
    // columns a group) 0.745 against 0.416.
    bool split_columns(int direction) const {
        return direction == 1 && split_[0] != nullptr &&
               fused_shape(1, nx_, ny_, 1, fused_tuning_).lines < 4;
    }
    static constexpr int kSplitLanes = 32;  // columns a work group of split_solve.glsl

    // The lines crossing a heater disc, per direction, and the part of each that the exact solve
    // needs. Lines: rows whose centres lie within the radius of the discs' centre row (x),
    // columns likewise around each disc (y), widened by a cell for the rounding of the centres.
    // Along them, the window's solution differs from the exact one only near the pinned cells:
    // the difference solves the exact system with a right-hand side at the pinned rows alone, so
    // it decays as rho^m with the distance m from them, and past the halo it is below the
    // window's own truncation (2^-26 of the increment). So each line is solved exactly only
    // from `reach` cells before a disc to `reach` cells after it, its ends held at the window's
    // values (heat.comp, SEGMENT); a segment that reaches a wall ends at the wall. Overlapping
    // ranges merge. Segments of more than half the line take the whole line instead, by the
    // half step's own kernel: its x rows leave 16 bytes at a time, and its columns split where
    // they are long (on the H100, heater radius 0.45: 8192^2 y segments 1.93 ms fused against
    // 0.78 split; 4096^2 x segments of 81% of the rows 0.109 against 0.093 whole). The groups are
    // the kernel's, or where a whole column splits (split_columns) the split solve's groups of 32
    // columns, whose loads are whole 128-byte rows where the fused kernel's groups of a few
    // columns (2 at 8192 rows) read a few floats of each.
    void resolve_heater_lines() {
        const float radius = float(param("heater_radius")) * float(std::min(nx_, ny_));
        const float offset = float(param("heater_offset")) * float(nx_);
        const std::vector<float> centres_y = {0.5f * ny_};
        const std::vector<float> centres_x = {0.5f * nx_ - offset, 0.5f * nx_ + offset};
        // Cells from a disc to where its lines' window values are exact: the halo and a cell.
        const int reach = window_halo_[0].low + 1;  // the same both ways
        // Merged [first, last] ranges of cells within `margin` of a disc, on a line of `count`.
        const auto near = [radius](const std::vector<float>& centres, int count, int margin) {
            std::vector<std::pair<int, int>> ranges;
            for (const float c : centres) {
                const int first =
                    std::clamp(int(std::floor(c - radius - 1.5f)) - margin, 0, count - 1);
                const int last =
                    std::clamp(int(std::ceil(c + radius + 0.5f)) + margin, 0, count - 1);
                if (!ranges.empty() && first <= ranges.back().second + 1)
                    ranges.back().second = std::max(ranges.back().second, last);
                else
                    ranges.push_back({first, last});
            }
            return ranges;
        };
        for (int d = 0; d < 2; ++d) {
            const int length = d == 0 ? nx_ : ny_, count = d == 0 ? ny_ : nx_;
            const auto lines = near(d == 0 ? centres_y : centres_x, count, 0);
            auto along = near(d == 0 ? centres_x : centres_y, length, reach);
            int covered = 0;
            for (const auto& [first, last] : along) covered += last - first + 1;
            if (2 * covered > length) along = {{0, length - 1}};
            for (const auto& [first, last] : along) {
                HeaterSegment segment;
                const bool whole = first == 0 && last == length - 1;
                segment.first = first;
                segment.length = last - first + 1;
                segment.split = whole && split_columns(d);
                int lines_a_group = kSplitLanes;
                if (whole && !segment.split) {
                    lines_a_group =
                        fused_shape(d, nx_, ny_, 1, fused_tuning_, x_hierarchy_chunks()).lines;
                } else if (!whole) {
                    FusedTuning tuning = fused_tuning_;
                    tuning.store4 = 0;  // X_STORE4 stores whole rows
                    const int seg_nx = d == 0 ? segment.length : nx_;
                    const int seg_ny = d == 0 ? ny_ : segment.length;
                    gl::Defines defines =
                        fused_defines(d, seg_nx, seg_ny, 0, tuning, x_hierarchy_chunks());
                    defines.push_back({"SEGMENT", "1"});
                    for (const auto& define : specialization()) defines.push_back(define);
                    segment.program = &gl::compute_program("sim/heat.comp", defines);
                    lines_a_group =
                        fused_shape(d, seg_nx, seg_ny, 0, tuning, x_hierarchy_chunks()).lines;
                }
                std::vector<std::pair<int, int>> groups;  // merged like the lines
                for (const auto& [l0, l1] : lines) {
                    const int g0 = l0 / lines_a_group, g1 = l1 / lines_a_group;
                    if (!groups.empty() && g0 <= groups.back().second + 1)
                        groups.back().second = std::max(groups.back().second, g1);
                    else
                        groups.push_back({g0, g1});
                }
                for (const auto& [g0, g1] : groups)
                    segment.groups.push_back({unsigned(g0), unsigned(g1 - g0 + 1)});
                heater_segments_[d].push_back(std::move(segment));
            }
        }
    }

    // The half step (the windowed kernel where resolve_window built one), then with heaters the
    // exact solve of their lines near them.
    void sweep(int direction, const gl::Buffer& in, gl::Buffer& out) {
        half_step(direction, in, out);
        if (!fused() || !window_[direction] || heater_segments_[direction].empty()) return;
        // The lines across the heaters again, exactly, near the heaters: their stores land
        // after the window's (half_step's barrier orders them), and their ends read its values.
        for (const HeaterSegment& segment : heater_segments_[direction]) {
            if (segment.split) {
                for (const GroupRange& range : segment.groups)
                    split_half_step(in, out, range.first, range.count);
                continue;
            }
            const gl::Program& exact = segment.program ? *segment.program : *fused_[direction];
            use_program(exact);
            exact.set("segment_first", segment.first);  // a whole line's kernel has neither
            exact.set("segment_length", segment.length);
            in.bind_storage(0);
            out.bind_storage(1);
            bind_flag();
            for (const GroupRange& range : segment.groups) {
                exact.set("first_group", int(range.first));
                gl::dispatch(range.count);
            }
            // Back to 0 for the whole-grid dispatches of half_step, which never set it.
            exact.set("first_group", 0);
        }
        gl::memory_barrier(gl::Barrier::storage);
    }

    gl::Buffer field_, half_;
    // With heaters, per direction: the segments of the lines that cross them which the exact
    // solve takes (resolve_heater_lines), each by its fused kernel (`program`, the lines'
    // positions first .. first + length - 1), or a whole line by the half step's fused kernel
    // (program null) or split solve (`split`); in the groups of lines that cross a heater.
    struct GroupRange {
        unsigned first = 0, count = 0;
    };
    struct HeaterSegment {
        int first = 0, length = 0;
        bool split = false;
        const gl::Program* program = nullptr;
        std::vector<GroupRange> groups;
    };
    std::vector<HeaterSegment> heater_segments_[2];
};

}  // namespace

std::unique_ptr<Simulation> make_heat(const std::string& solver) {
    return std::make_unique<Heat>(solver);
}

}  // namespace adilab::sim::detail
