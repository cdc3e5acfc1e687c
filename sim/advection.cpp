// Model "advection": C_t + div(u C) = D (C_xx + C_yy) + S in a closed box, by ADI line sweeps
// (Kim & Lee 2005, simulation 2). shaders/sim/advection.comp has the two schemes (implicit Euler
// splitting, the default: non-negative and bounded at any dt; the paper's eq. (8)). Scenarios:
//   river  — v = 0, uniform u, a continuous source left of the centre (Fig. 15, 16);
//   vortex — solid-body rotation omega about the centre, a short injection near the lower left
//            (Fig. 17, 18);
//   free   — uniform (u, v), no source, the field from --init (else initial_concentration).
// The generic path (AdiModel::half_step) rebuilds a, b, c, d every half step: the velocity may
// vary along a line (vortex).
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "sim/model.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim::detail {

namespace {

class Advection final : public AdiModel {
  public:
    explicit Advection(const std::string& solver)
        : AdiModel(
              "advection",
              {{"scheme",
                "",
                "implicit-euler (default): every sweep a backward-Euler step, "
                "first order in time; C stays non-negative and the mass is "
                "what the start and the source put in, for a weight "
                "dt (|velocity| / dh + 2 D / dh^2) up to 1e4, to fp32 round-off "
                "of up to 2^-24 (1 + weight) of the mass a step, which long runs "
                "at large weights add up (the vortex at a weight of 9,500 loses "
                "about 5e-4 of its mass a step). "
                "peaceman-rachford: the paper's eq. (8), upwind implicit and "
                "central explicit over dt/2; overshoots (negative C) once a "
                "cell's Courant number |u| dt / dh exceeds ~1; the weight "
                "(dt / 2) (|velocity| / dh + 2 D / dh^2) up to 10",
                0,
                0,
                1,
                {"implicit-euler", "peaceman-rachford"}},
               {"u", "m/s", "x velocity (river, free)", 1.0, -1e6, 1e6, {}, {"river", "free"}},
               {"v", "m/s", "y velocity (free; river keeps v = 0)", 0.0, -1e6, 1e6, {}, {"free"}},
               {"omega",
                "rad/s",
                "angular velocity of the vortex",
                0.005,
                -1e3,
                1e3,
                {},
                {"vortex"}},
               {"D", "m^2/s", "diffusivity", 0.1, 0.0, 1e9},
               {"dt", "s",
                "time step: stable with either scheme while the weight dt (|velocity| / dh + 2 D / "
                "dh^2) "
                "is at most 1e4 (10 with dt / 2 for peaceman-rachford); a larger one is "
                "refused: past it fp32 round-off moves C's mass by more than 6e-4 a step",
                0.5, 1e-9, 1e9},
               {"dh", "m", "cell size", 1.0, 1e-9, 1e9},
               {"initial_concentration", "C", "uniform start value (without --init)", 0.0, -1e9,
                1e9},
               {"source_rate",
                "C/s",
                "source strength at its centre (a source only adds: a sink would drive C negative)",
                1.0,
                0.0,
                1e9,
                {},
                {"river", "vortex"}},
               {"source_radius",
                "1",
                "source radius, fraction of the smaller side",
                0.01,
                1e-4,
                0.5,
                {},
                {"river", "vortex"}},
               {"source_steps",
                "steps",
                "vortex injection length in steps",
                200.0,
                0.0,
                2e9,
                {},
                {"vortex"}}},
              {"river", "vortex", "free"}, solver) {}

    const gl::Buffer& field() const override { return field_; }
    // river and vortex inject pollutant (vortex for source_steps steps); free has no source.
    bool has_sources(const std::string& scenario) const override { return scenario != "free"; }
    // A negative stroke removes pollutant where there is some, never below zero.
    void apply_brush(const Brush& brush) override { dispatch_brush(brush, field_, nullptr, true); }
    std::optional<Velocity> velocity() const override {
        Velocity v;
        if (scenario_ == "vortex") {
            v.kind = Velocity::Kind::rotation;
            v.omega = float(param("omega"));
            v.center_x = float(0.5 * nx_ * param("dh"));
            v.center_y = float(0.5 * ny_ * param("dh"));
        } else {
            v.u = float(param("u"));
            v.v = scenario_ == "river" ? 0.0f : float(param("v"));
        }
        return v;
    }

  protected:
    gl::Buffer& field_buffer() override { return field_; }
    std::vector<StateBuffer> state_buffers() override { return {{"C", &field_}}; }
    // A sweep's row: its diagonal is 1 plus the upwind outflow and the diffusion either side,
    // at most dt (|w| / dh + 2 D / dh^2) with |w| the fastest velocity component of the
    // scenario (the vortex's at the domain's corners); Peaceman–Rachford takes half of dt.
    ImplicitWeight implicit_weight(const std::string& scenario, int nx, int ny) const override {
        const double dh = param("dh");
        double speed =
            std::max(std::abs(param("u")), scenario == "river" ? 0.0 : std::abs(param("v")));
        if (scenario == "vortex")
            speed = std::abs(param("omega")) * 0.5 * dh * std::hypot(double(nx), double(ny));
        const double implicit_dt = int(param("scheme")) == 0 ? param("dt") : 0.5 * param("dt");
        return {
            implicit_dt * (speed / dh + 2 * param("D") / (dh * dh)),
            int(param("scheme")) == 0 ? kMaxImplicitWeight : kMaxAdvectionPeacemanRachfordWeight,
            std::string(int(param("scheme")) == 0 ? "dt" : "dt / 2") +
                " (|velocity| / dh + 2 D / dh^2)" +
                (scenario == "vortex"
                     ? " on a " + std::to_string(nx) + " x " + std::to_string(ny) + " grid"
                     : ""),
            scenario == "vortex" ? "lower dt, omega or D, or raise dh"
                                 : "lower dt, the velocity or D, or raise dh",
            {}};
    }

    std::vector<gl::BufferNeed> buffer_needs(int nx, int ny) const override {
        std::vector<gl::BufferNeed> needs = {{"advection's C field", field_bytes(nx, ny)},
                                             {"advection's half-step C", field_bytes(nx, ny)}};
        for (gl::BufferNeed& need : line_solve_needs(nx, ny)) needs.push_back(std::move(need));
        return needs;
    }

    void allocate() override {
        // One allocation: the sweeps' rate then does not hang on where the driver placed each
        // field (gl::Buffer::pair says why).
        auto [field, half] = gl::Buffer::pair(cells() * sizeof(float));
        field_ = std::move(field);
        half_ = std::move(half);
        resolve_programs("sim/advection.comp", 1);
    }

    void initialize() override {
        const double c0 = double(float(param("initial_concentration")));
        field_.fill(float(c0));
        range_low_ = range_high_ = c0;
    }

    // Implicit Euler: every sweep's matrix is an M-matrix whose columns sum to 1, so the L1 norm
    // sum |C| never grows except by the source, and no single cell can exceed it; a field that
    // starts non-negative stays so (up to round-off). Peaceman–Rachford's central explicit half
    // is bounded in the 2-norm instead (the Cayley argument), times at most 1 + dt (|w| / dh +
    // 2 D / dh^2) for the norm change. Both: the start's L1 norm (bounded by the hull of its
    // values times the cells) plus what the source injected so far. The brush widens the hull.
    FieldBounds field_bounds() const override {
        const double span = std::max(std::abs(range_low_), std::abs(range_high_));
        const double total = span * double(cells()) + injected_bound();
        FieldBounds bounds;
        const double round_off = 1e-5 * total + 1e-30;
        if (int(param("scheme")) == 0) {
            bounds.low = range_low_ < 0 ? -total - round_off : -round_off - 1e-6 * span;
            bounds.high = total + round_off;
            bounds.why = "non-negative, and no cell above the total mass";
        } else {
            const double dh = param("dh"), dt = param("dt");
            const double speed =
                std::max({std::abs(param("u")), std::abs(param("v")),
                          std::abs(param("omega")) * dh * std::hypot(double(nx_), double(ny_))});
            const double factor = 1 + dt * (speed / dh + 2 * param("D") / (dh * dh));
            bounds.low = -factor * total - round_off;
            bounds.high = factor * total + round_off;
            bounds.why = "Peaceman–Rachford's stability bound from the total mass";
        }
        return bounds;
    }

    void step_once() override {
        half_step(0, field_, half_);
        half_step(1, half_, field_);
    }

    // The window kernels (window_lines.glsl) wherever both sweeps' transfers give halos of at
    // most 48 (W up to ~1.9), else the exact fused line solve. Each sweep takes its own, and each
    // end of its windows its own (general_window_tail): the default river's x sweep carries 0.55
    // forwards and 0.05 backwards, so its windows reach 24 cells upstream and 8 downstream; its
    // y sweep, with no flow across, 8 both ways. Rounded to fp32 first, as the kernels see them.
    // The windows solve by scans (window_scan.glsl: LU with the pivots' limit, no division away
    // from the walls) wherever the pivots settle within a chunk of the walls, as they do unless
    // the diffusion carries half a cell's worth a sweep or more; else as general lines. The scans
    // ran the vortex 7% and the river 4% faster at 4096^2 on the H200 (docs/performance.md).
    void resolve_window() override {
        gl::Defines row = {{"DIRECTION", "0"}, {"KERNEL_WINDOW", "1"}};
        gl::Defines column = {{"DIRECTION", "1"}, {"KERNEL_WINDOW", "1"}};
        const WindowShape shape = window_shape(kWindowShape);
        window_scan_ = pivots_settle(0, shape.row_chunk) && pivots_settle(1, shape.column_chunk);
        if (window_scan_) {
            row.push_back({"LINE_SCAN", "1"});
            column.push_back({"LINE_SCAN", "1"});
        }
        std::array<WindowHalo, 2> halo;
        for (int d = 0; d < 2; ++d) {
            const LineTransfers t = line_transfers(d);
            const double weight = double(float(t.weight));
            halo[d].low = general_window_halo(weight, double(float(t.forward)));
            halo[d].high = general_window_halo(weight, double(float(t.backward)));
        }
        build_window(halo, kWindowShape, "sim/advection.comp", row, "sim/advection.comp", column);
        if (window_[0] == nullptr && scenario_ == "vortex") build_vortex_bands(row, column);
    }
    // Shapes: x 8 positions a lane, 4 subgroups a group; y 32 subgroups of 10 rows
    // (docs/performance.md, 2026-11-26 late: the sweeps on the H100 and the H200).
    static constexpr WindowShape kWindowShape{8, 4, 10, 32, 0, 0};

    // The vortex's sweeps by window bands (sim/model.hpp, WindowBand), where no one window holds
    // for it. Its velocity along a line is omega times the line's distance from the centre,
    // forwards on one side of the centre and backwards on the other, so one window for every
    // line needs the fastest line's halo at both ends: none holds from 2048^2 at the defaults,
    // where the line solve made a step 2.6 times the river's at 4096^2. Here each half of a
    // sweep's lines takes windows of its own, the long halo upstream only: one band where 128
    // rows hold for the outermost line, else a band for each run of lines out from the centre,
    // one run per 128 rows of the outermost line's halo (equal runs, split at multiples of 32
    // lines), each band with the halos of its own outermost line (at 8192^2 the inner run 128
    // rows, the outer 256), so that only the fastest lines pay the longest warm-up.
    // Where even kVortexBandHalo does not hold for the outermost lines, the line solve takes
    // every line: windows over the central lines beside the line solve over the others were
    // slower at 8192^2 than the line solve alone (docs/performance.md). The halves split where
    // the flow turns, on a whole group of 32 columns only where the width is a multiple of 64;
    // elsewhere a band's loads start off the 128-byte lines, which costs little: the line solve
    // that such grids took before ran 2,147 steps/s at 4000^2 on the H200, the bands 6,463.
    // Each sweep takes one line stream instead wherever the windows solve by scans, the pivots
    // settle from either wall and the sweep has enough lines (streams): every line at once, each
    // work group walking its lines (a row, or 32 columns) from the end their flow comes from,
    // with no warm-up upstream at all and no bands. They ran the vortex 29% faster at 4096^2 and
    // 1.8 times as fast at 8192^2 on the H200 (docs/performance.md).
    static constexpr int kVortexBandHalo = 256;
    bool build_vortex_bands(const gl::Defines& row, const gl::Defines& column) {
        const double omega = param("omega");
        std::vector<WindowBand> bands[2];
        for (int d = 0; d < 2; ++d) {
            // The lines below `split` flow one way, the others the other way (a line at the
            // centre, on an odd count, does not flow and goes with the lower ones).
            const int lines = d == 0 ? ny_ : nx_, split = (lines + 1) / 2;
            const int lower = split, upper = lines - split;
            // The halos of a band whose outermost line lies `reach` lines from the split,
            // upstream (low) and downstream (high), rounded to fp32 first as the kernels see the
            // transfers: that line's centre is reach - 1/2 cells from the grid's (on an odd count
            // reach - 1 below, reach above: reach, the larger).
            const double offset = lines % 2 == 0 ? 0.5 : 0.0;
            const auto band_halo = [&](int reach) {
                const LineTransfers t =
                    transfers(std::abs(omega) * (reach - offset) * param("dh"), 0);
                const double weight = double(float(t.weight));
                return WindowHalo{
                    general_window_halo(weight, double(float(t.forward)), kVortexBandHalo),
                    general_window_halo(weight, double(float(t.backward)))};
            };
            const WindowHalo outermost = band_halo(lower);
            if (outermost.low == 0 || outermost.high == 0) return false;
            // The rows below the centre flow forwards (to +x) and the columns left of it
            // backwards where omega > 0: velocity omega (-y, x) about the centre.
            const bool lower_forwards = (d == 0) == (omega > 0);
            const gl::Defines& defines = d == 0 ? row : column;
            if (streams(d)) {
                // Along y a group of 32 columns (or the tuning's lanes) walks them one way: one
                // stream where the split falls between groups, else one for each side of it (the
                // upper one's loads then start off the 128-byte lines).
                gl::Defines stream = defines;
                stream.push_back({"LINE_STREAM", "1"});
                const WindowShape shape = window_shape(kWindowShape);
                const int lanes = shape.column_lanes != 0 ? shape.column_lanes : 32;
                const bool one = d == 0 || split % lanes == 0;
                for (int side = 0; side < (one ? 1 : 2); ++side) {
                    const int first = side == 0 ? 0 : split;
                    const int count = one ? lines : side == 0 ? lower : upper;
                    bands[d].push_back(stream_band(d, outermost, first, count, kWindowShape,
                                                   "sim/advection.comp", stream, lines));
                    if (bands[d].back().program == nullptr) return false;
                }
                continue;
            }
            // The runs of each half, from the centre out: their reach from it.
            std::vector<int> reach;
            const int runs = (outermost.low + 127) / 128;
            for (int r = 1; r <= runs; ++r) {
                const int end = r == runs ? lower : (lower * r / runs + 16) / 32 * 32;
                if (end > (reach.empty() ? 0 : reach.back())) reach.push_back(end);
            }
            int inner = 0;
            for (const int outer : reach) {
                const WindowHalo up = band_halo(outer);
                const WindowHalo down = {up.high, up.low};
                for (int side = 0; side < 2; ++side) {
                    const bool forwards = lower_forwards != (side == 1);
                    const int first = side == 1 ? split + inner : split - outer;
                    const int count = side == 1 ? std::min(outer, upper) - inner : outer - inner;
                    if (count <= 0) continue;  // the upper half is a line shorter
                    bands[d].push_back(window_band(d, forwards ? up : down, first, count,
                                                   kWindowShape, "sim/advection.comp", defines));
                    if (bands[d].back().program == nullptr) return false;
                }
                inner = outer;
            }
        }
        bands_[0] = std::move(bands[0]);
        bands_[1] = std::move(bands[1]);
        return true;
    }

    // The vortex's sweep along `direction` by line streams (line_stream.glsl) in place of its
    // bands: where the tuning allows them (y from 1, x from 2) and the pivots settle from either
    // wall (a stream walks a line from the end its flow comes from). Along y its groups of 32
    // columns each flow one way: the columns' halves are whole groups (build_vortex_bands asks
    // for nx a multiple of 64); along x a group walks one row.
    // Only on sweeps of line_stream_lines lines or more (2048 unless tuned): a stream's work
    // groups are its lines (a row each, or 32 columns), and on fewer lines they leave much of the
    // machine idle while each walks its whole line, where the bands cut every line into windows
    // and spread those over it. On the H200 the bands ran the vortex 25% faster at 1536^2 and
    // 3-12% at 1792^2; the streams 2-3% faster at 2048^2, 12% at 3072^2 and 29% at 4096^2 (at
    // 2304^2 the bands were still 6% faster; docs/performance.md).
    bool streams(int direction) const {
        const WindowShape shape = window_shape(kWindowShape);
        return window_scan_ && fused_tuning_.line_streams > 1 - direction &&
               (direction == 0 ? ny_ : nx_) >= fused_tuning_.line_stream_lines &&
               pivots_settle(direction, direction == 0 ? shape.row_chunk : shape.column_chunk,
                             true);
    }

    // Whether LU's pivots on every line of `direction` reach their limit to 2^-24 within `chunk`
    // rows of the wall where they start: window_scan.glsl starts every chunk past the first wall's
    // from the limit. From the wall row b_0 = 1 + F + K (F the line's forward advective transfer,
    // K the diffusive one), u_k = b - a c / u_(k-1) approaches u = (b + sqrt(b^2 - 4 a c)) / 2
    // by a factor of about a c / u^2 a row: fast where the diffusion is weak against the cell's
    // diagonal; where D dt / dh^2 passes about 0.45 to 0.75 (with the flow along the line, chunks
    // of 8 rows), the general windows take the lines. `from_both_walls`: from the last wall's row
    // too (b = 1 + B + K, B the backward transfer), where the solve may start there.
    bool pivots_settle(int direction, int chunk, bool from_both_walls = false) const {
        const double dh = param("dh");
        const double implicit_dt = int(param("scheme")) == 0 ? param("dt") : 0.5 * param("dt");
        const double k = implicit_dt * param("D") / (dh * dh);
        std::vector<double> speeds;  // the lines' velocities along them
        if (scenario_ == "vortex") {
            const int lines = direction == 0 ? ny_ : nx_;
            for (int line = 0; line < lines; ++line)
                speeds.push_back(param("omega") * ((line + 0.5) - 0.5 * lines) * dh);
        } else {
            speeds.push_back(direction == 0 ? param("u")
                                            : (scenario_ == "river" ? 0.0 : param("v")));
        }
        for (double w : speeds) {
            const double forward = implicit_dt * std::max(w, 0.0) / dh + k;
            const double backward = implicit_dt * std::max(-w, 0.0) / dh + k;
            const double b = 1 + forward + backward, ac = forward * backward;
            const double limit = 0.5 * (b + std::sqrt(b * b - 4 * ac));
            for (const double start : {1 + forward, 1 + backward}) {
                double u = start;
                for (int row = 1; row < chunk; ++row) u = b - ac / u;
                if (std::abs(u - limit) > std::ldexp(limit, -24)) return false;
                if (!from_both_walls) break;
            }
        }
        return true;
    }

    // Bounds on what the sweeps along x (direction 0) or y carry per unit of a cell's
    // concentration (advection.comp, face_transfer): the largest transfer forwards and backwards
    // through a face, implicit_dt (w / dh + D / dh^2) for the fastest w each way along the lines,
    // and the largest diagonal excess over 1, implicit_dt (|w| / dh + 2 D / dh^2). Velocities:
    // the river's and free's u or v, one sign each (the river has none across); the vortex's
    // omega times the half height (x) or half width (y) both ways, the farthest a cell centre
    // lies from the centre across the lines. Every face of a line carries the same (the fields
    // are constant along lines), so one line's excess is its two transfers' sum.
    struct LineTransfers {
        double forward = 0, backward = 0, weight = 0;
    };
    LineTransfers line_transfers(int direction) const {
        const double dh = param("dh");
        double ahead = 0, back = 0;  // the fastest flow along the lines each way
        if (scenario_ == "vortex") {
            ahead = back = std::abs(param("omega")) * 0.5 * dh * double(direction == 0 ? ny_ : nx_);
        } else {
            const double w =
                direction == 0 ? param("u") : (scenario_ == "river" ? 0.0 : param("v"));
            ahead = std::max(w, 0.0);
            back = std::max(-w, 0.0);
        }
        return transfers(ahead, back);
    }
    // The transfers of lines whose fastest flow is `ahead` forwards and `back` backwards.
    LineTransfers transfers(double ahead, double back) const {
        const double dh = param("dh");
        const double implicit_dt = int(param("scheme")) == 0 ? param("dt") : 0.5 * param("dt");
        const double k = param("D") / (dh * dh);
        LineTransfers t;
        t.forward = implicit_dt * (ahead / dh + k);
        t.backward = implicit_dt * (back / dh + k);
        t.weight = implicit_dt * (std::max(ahead, back) / dh + 2 * k);
        return t;
    }

  private:
    // An upper bound of the mass the source has injected up to the current step: dt times
    // the rate times the sum of the Gaussian over the lattice, which is at most
    // (sqrt(pi) R + 1)^2 (per axis, a sum of exp(-(x - c)^2 / R^2) over unit steps is at most its
    // integral plus its peak).
    double injected_bound() const {
        if (scenario_ == "free") return 0;
        const double radius = std::max(0.5, param("source_radius") * std::min(nx_, ny_));
        const double per_step = param("dt") * param("source_rate") *
                                std::pow(std::sqrt(std::acos(-1.0)) * radius + 1, 2);
        const double active =
            scenario_ == "vortex"
                ? double(std::min<std::int64_t>(steps_, std::int64_t(param("source_steps"))))
                : double(steps_);
        return per_step * active;
    }

    // Kim & Lee's explicit half across the line, and the vortex's rotating velocity, are
    // compiled in only where the scheme and the scenario have them (advection.comp).
    gl::Defines specialization() const override {
        gl::Defines defines;
        if (int(param("scheme")) != 0) defines.push_back({"EXPLICIT_ACROSS", "1"});
        if (scenario_ == "vortex") defines.push_back({"ROTATION", "1"});
        return defines;
    }

    void set_uniforms(const gl::Program& p) const override {
        const float dh = float(param("dh"));
        const double dt = param("dt");
        const bool implicit_euler = int(param("scheme")) == 0;
        p.set("implicit_dt", float(implicit_euler ? dt : 0.5 * dt));
        p.set("explicit_dt", float(0.5 * dt));  // with EXPLICIT_ACROSS only
        p.set("source_dt", float(0.5 * dt));
        p.set("dh", dh);
        p.set("diffusivity", float(param("D")));
        const bool vortex = scenario_ == "vortex";
        p.set("flow",
              glm::vec2(float(param("u")), scenario_ == "river" ? 0.0f : float(param("v"))));
        p.set("omega", float(param("omega")));
        p.set("rotation_center", glm::vec2(0.5f * nx_ * dh, 0.5f * ny_ * dh));
        const float side = float(std::min(nx_, ny_));
        // river: left of the centre; vortex: near the lower left, inside the rotating disc.
        const glm::vec2 centre =
            vortex ? glm::vec2(0.3f * nx_, 0.3f * ny_) : glm::vec2(0.3f * nx_, 0.5f * ny_);
        p.set("source_center", centre);
        p.set("source_radius", std::max(0.5f, float(param("source_radius")) * side));
        const bool source = scenario_ != "free";
        p.set("source_rate", source ? float(param("source_rate")) : 0.0f);
        p.set("source_steps", vortex ? int(param("source_steps")) : 0x7fffffff);
    }

    gl::Buffer field_, half_;
};

}  // namespace

std::unique_ptr<Simulation> make_advection(const std::string& solver) {
    return std::make_unique<Advection>(solver);
}

}  // namespace adilab::sim::detail
