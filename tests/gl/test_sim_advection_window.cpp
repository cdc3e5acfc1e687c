// Advection's windowed sweeps (the `fused` solver's path where the implicit weight allows, sim/
// advection.cpp; shaders/tridiagonal/window_scan.glsl where the pivots settle, window_lines.glsl
// else): first the windows' truncation itself, in float64 on the CPU, on general flux-form lines
// (a velocity of either sign that changes along the line) and on lines of one velocity (the
// scans') against an exact Thomas solve, within the bound sim/model.hpp derives; then the GPU
// model against the float64 stepper on awkward grids for every HALO bucket, both schemes, each
// scenario, both solvers, window shapes, a weight too large for any window (the exact fused line
// solve), and the vortex's bands and line streams (line_stream.glsl: whole lines walked a segment
// at a time).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/model.hpp"
#include "sim/reference.hpp"
#include "sim/simulation.hpp"
#include "tests/support/fields.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::sim {
namespace {

// One line of advection-diffusion rows in flux form: face f (between cells f and f + 1) carries
// dt (max(w_f, 0) + k) out of cell f (forwards) and dt (-min(w_f, 0) + k) out of cell f + 1
// (backwards), so every column sums to 1, as advection.comp's rows do; with the largest
// diagonal excess W and the largest transfer each way, F and B (sim/model.hpp's bound).
struct Line {
    std::vector<double> a, b, c;
    double weight = 0, forward = 0, backward = 0;
};
Line flux_line(const std::vector<double>& w, double k, double dt) {
    const std::size_t n = w.size() + 1;
    Line line;
    line.a.assign(n, 0);
    line.b.assign(n, 1);
    line.c.assign(n, 0);
    for (std::size_t f = 0; f + 1 < n; ++f) {
        const double forward = dt * (std::max(w[f], 0.0) + k);
        const double backward = dt * (-std::min(w[f], 0.0) + k);
        line.b[f] += forward;
        line.a[f + 1] = -forward;
        line.b[f + 1] += backward;
        line.c[f] = -backward;
        line.forward = std::max(line.forward, forward);
        line.backward = std::max(line.backward, backward);
    }
    for (double b : line.b) line.weight = std::max(line.weight, b - 1);
    return line;
}

// Thomas in float64 on rows first .. last of the line (the principal submatrix: couplings to
// rows outside dropped).
std::vector<double> thomas(const Line& line, const std::vector<double>& d, int first, int last) {
    const int m = last - first + 1;
    std::vector<double> cp(m), dp(m), x(m);
    for (int i = 0; i < m; ++i) {
        const int r = first + i;
        const double a = i == 0 ? 0 : line.a[r];
        const double pivot = line.b[r] - (i == 0 ? 0 : a * cp[i - 1]);
        cp[i] = i == m - 1 ? 0 : line.c[r] / pivot;
        dp[i] = (d[r] - (i == 0 ? 0 : a * dp[i - 1])) / pivot;
    }
    x[m - 1] = dp[m - 1];
    for (int i = m - 2; i >= 0; --i) x[i] = dp[i] - cp[i] * x[i + 1];
    return x;
}

// Each unknown from the window of `low` rows before it and `high` after it (cut at the line's
// ends), the worst miss against the exact solve relative to max |x|.
double window_miss(const Line& line, const std::vector<double>& d, int low, int high) {
    const int n = int(d.size());
    const std::vector<double> exact = thomas(line, d, 0, n - 1);
    double scale = 0, miss = 0;
    for (double v : exact) scale = std::max(scale, std::abs(v));
    for (int p = 0; p < n; ++p) {
        const int first = std::max(0, p - low), last = std::min(n - 1, p + high);
        const std::vector<double> x = thomas(line, d, first, last);
        miss = std::max(miss, std::abs(x[p - first] - exact[p]));
    }
    return miss / scale;
}

TEST(SimAdvectionWindow, TruncationIsWithinItsBoundOnGeneralLines) {
    std::mt19937 rng(19);
    std::uniform_real_distribution<double> unit(-1, 1);
    const double budget = std::ldexp(1.0, -26);
    for (double weight : {0.02, 0.3, 0.6, 1.0, 1.5, 1.9}) {
        for (int n : {3, 40, 97, 230}) {
            // Velocities of either sign along the line (converging and diverging faces), one
            // velocity (advection's fields along a line), or one velocity of 20 times the
            // diffusion's transfer (the river: a one-sided inverse); k = 0.1 or 0.05.
            for (int kind = 0; kind < 3; ++kind) {
                const double u0 = unit(rng);
                std::vector<double> w(n - 1);
                for (double& v : w) v = kind == 0 ? unit(rng) : kind == 1 ? u0 : 1.0;
                const double k = kind == 2 ? 0.05 : 0.1;
                // dt so that the largest diagonal excess is `weight` (the rows scale with dt).
                const Line line = flux_line(w, k, weight / flux_line(w, k, 1.0).weight);
                const int low = detail::general_window_halo(line.weight, line.forward);
                const int high = detail::general_window_halo(line.weight, line.backward);
                ASSERT_GT(low * high, 0) << "W " << weight;
                const double tail = detail::general_window_tail(line.weight, line.forward, low) +
                                    detail::general_window_tail(line.weight, line.backward, high);
                EXPECT_LE(tail, budget) << "W " << weight;
                // Each end's bucket is the smallest that meets its half of the budget.
                for (const auto& [halo, transfer] :
                     {std::pair{low, line.forward}, std::pair{high, line.backward}}) {
                    const int smaller = halo == 8 ? 0 : halo == 48 ? 32 : halo - 8;
                    if (smaller > 0) {
                        EXPECT_GT(detail::general_window_tail(line.weight, transfer, smaller),
                                  budget / 2);
                    }
                }
                std::vector<double> d(n);
                for (double& v : d) v = unit(rng);
                // float64 round-off of the two solves is ~1e-15 of max |x| (condition < 1 + 2W).
                EXPECT_LE(window_miss(line, d, low, high), tail + 1e-13)
                    << "W " << weight << " n " << n << " kind " << kind;
                // ...and the bound is not vacuous: 2 rows either side miss by far more, and the
                // river's line needs its long end upstream (the short one there misses).
                if (n >= 40 && weight >= 0.3) {
                    EXPECT_GT(window_miss(line, d, 2, 2), 100 * tail) << "W " << weight;
                    if (kind == 2 && low > high) {
                        EXPECT_GT(window_miss(line, d, high, high), 100 * tail) << "W " << weight;
                    }
                }
            }
        }
    }
    EXPECT_EQ(detail::general_window_halo(2.5, 2.45), 0);  // too slow a decay: the line solve
    EXPECT_EQ(detail::general_window_halo(50.0, 25.0), 0);
}

// The scan windows' truncation (window_scan.glsl) on a line of one velocity, in float64: each
// unknown's forward value summed from `low` rows before it (zero before them), LU's pivots the
// line's own, and the back substitution from `high` rows after it over forward values each
// summed the same way; the worst miss against the exact solve relative to max |x|.
double scan_window_miss(const Line& line, const std::vector<double>& d, int low, int high) {
    const int n = int(d.size());
    const std::vector<double> exact = thomas(line, d, 0, n - 1);
    std::vector<double> pivot(n);
    for (int r = 0; r < n; ++r)
        pivot[r] = line.b[r] - (r == 0 ? 0 : line.a[r] * line.c[r - 1] / pivot[r - 1]);
    const auto forward_value = [&](int p) {  // y_p from max(0, p - low)
        double y = 0;
        for (int r = std::max(0, p - low); r <= p; ++r)
            y = d[r] - (r == 0 ? 0 : line.a[r] / pivot[r - 1]) * y;
        return y;
    };
    double scale = 0, miss = 0;
    for (double v : exact) scale = std::max(scale, std::abs(v));
    for (int p = 0; p < n; ++p) {
        double x = 0;
        for (int r = std::min(n - 1, p + high); r >= p; --r)
            x = (forward_value(r) - (r == n - 1 ? 0 : line.c[r] * x)) / pivot[r];
        miss = std::max(miss, std::abs(x - exact[p]));
    }
    return miss / scale;
}

TEST(SimAdvectionWindow, ScanTruncationIsWithinTheWindowBoundOnUniformLines) {
    // The scan's truncation drops the forward value before the window and the solution after
    // it, where the general windows drop the couplings; its decay per row is below the bound's
    // and so is its prefactor (window_scan.glsl), so general_window_halo's halos hold for it.
    // Lines of one velocity either way, from diffusion alone to a transfer 400 times it.
    std::mt19937 rng(23);
    std::uniform_real_distribution<double> unit(-1, 1);
    for (double weight : {0.02, 0.3, 1.0, 1.9, 6.0, 12.0}) {
        for (double velocity : {0.0, 1.0, -1.0, 20.0, -400.0}) {
            const int n = 300;
            const std::vector<double> w(n - 1, velocity);
            const double k = 0.05;
            const Line line = flux_line(w, k, weight / flux_line(w, k, 1.0).weight);
            const int low = detail::general_window_halo(line.weight, line.forward, 256);
            const int high = detail::general_window_halo(line.weight, line.backward, 256);
            if (low == 0 || high == 0) continue;  // the line solve
            const double tail = detail::general_window_tail(line.weight, line.forward, low) +
                                detail::general_window_tail(line.weight, line.backward, high);
            std::vector<double> d(n);
            for (double& v : d) v = unit(rng);
            EXPECT_LE(scan_window_miss(line, d, low, high), tail + 1e-13)
                << "W " << weight << " velocity " << velocity;
            // Not vacuous: 2 rows either side miss by far more.
            if (weight >= 0.3) {
                EXPECT_GT(scan_window_miss(line, d, 2, 2), 100 * tail) << "W " << weight;
            }
        }
    }
}

// Awkward grids: lines shorter than a halo (5, 6), widths not a multiple of 4 (37, 133, 70, 9:
// the x windows' scalar loads and stores) and one that is (300: 16-byte ones), partial windows
// in both directions, and lines of several windows (300: a window spans 256 positions along x,
// 128 along y, so shorter lines reach both walls and are solved exactly).
const std::pair<int, int> kWindowGrids[] = {{37, 29},  {5, 41},  {70, 6},
                                            {133, 67}, {300, 7}, {9, 300}};

struct Case {
    std::string scenario;
    int scheme = 0;
    double weight = 0;  // the sweeps' implicit weight W, set through dt
    double diffusivity = 0.02;
};

// Whether the model should solve its windows by scans (window_scan.glsl): LU's pivots from the
// wall row b_0 = 1 + F (F the line's forward transfer, advective and diffusive) reach their limit
// to 2^-24 within a chunk's rows on every line of both sweeps, as sim/advection.cpp checks it;
// `from_both_walls`: along that direction (0 x, 1 y) from the last wall's row 1 + B too (B the
// backward transfer), as the line streams need (line_stream.glsl). The x chunk and the y chunk:
// the model's 8 and 10 unless tuned.
bool scans(const Simulation& sim, const std::string& scenario, int nx, int ny,
           const FusedTuning& tuning, int from_both_walls = -1) {
    const double implicit_dt = sim.param("scheme") == 0 ? sim.param("dt") : 0.5 * sim.param("dt");
    const double dh = sim.param("dh"), k = implicit_dt * sim.param("D") / (dh * dh);
    for (int d = 0; d < 2; ++d) {
        const int lines = d == 0 ? ny : nx;
        const int chunk = d == 0
                              ? (tuning.window_row_chunk != 0 ? tuning.window_row_chunk : 8)
                              : (tuning.window_column_chunk != 0 ? tuning.window_column_chunk : 10);
        std::vector<double> speeds;
        if (scenario == "vortex") {
            for (int line = 0; line < lines; ++line)
                speeds.push_back(sim.param("omega") * (line + 0.5 - 0.5 * lines) * dh);
        } else {
            speeds.push_back(d == 0 ? sim.param("u") : scenario == "river" ? 0 : sim.param("v"));
        }
        for (double w : speeds) {
            const double f = implicit_dt * std::max(w, 0.0) / dh + k;
            const double b = implicit_dt * std::max(-w, 0.0) / dh + k;
            const double diagonal = 1 + f + b;
            const double limit = 0.5 * (diagonal + std::sqrt(diagonal * diagonal - 4 * f * b));
            for (const double start : {1 + f, 1 + b}) {
                if (start != 1 + f && from_both_walls != d) continue;
                double u = start;
                for (int row = 1; row < chunk; ++row) u = diagonal - f * b / u;
                if (std::abs(u - limit) > std::ldexp(limit, -24)) return false;
            }
        }
    }
    return true;
}

// The kernel the model should pick for its parameters: each sweep's halos from the largest
// transfer each way along its lines (advection.comp's face_transfer: implicit_dt (w / dh + k)),
// the fastest flow along them each way (a uniform u or v one way; the vortex's omega times the
// half side across the lines both ways), as sim/advection.cpp derives them.
std::string expected_kernel(const Simulation& sim, const std::string& scenario, int nx, int ny,
                            const FusedTuning& tuning) {
    const double implicit_dt = sim.param("scheme") == 0 ? sim.param("dt") : 0.5 * sim.param("dt");
    const double dh = sim.param("dh"), k = sim.param("D") / (dh * dh);
    std::string sweeps[2];
    for (int d = 0; d < 2; ++d) {
        double ahead, back;
        if (scenario == "vortex") {
            ahead = back = std::abs(sim.param("omega")) * 0.5 * dh * (d == 0 ? ny : nx);
        } else {
            const double w = d == 0 ? sim.param("u") : scenario == "river" ? 0 : sim.param("v");
            ahead = std::max(w, 0.0);
            back = std::max(-w, 0.0);
        }
        const double forward = double(float(implicit_dt * (ahead / dh + k)));
        const double backward = double(float(implicit_dt * (back / dh + k)));
        const double weight = double(float(implicit_dt * (std::max(ahead, back) / dh + 2 * k)));
        const int low = detail::general_window_halo(weight, forward);
        const int high = detail::general_window_halo(weight, backward);
        if (low == 0 || high == 0) return "fused";
        sweeps[d] = std::to_string(low) + (low == high ? "" : "/" + std::to_string(high));
    }
    return std::string(scans(sim, scenario, nx, ny, tuning) ? "scan" : "window") + "-H" +
           sweeps[0] + (sweeps[0] == sweeps[1] ? "" : "," + sweeps[1]);
}

// The model on `scenario` against the float64 stepper, 3 steps from a random start in [0, 1];
// returns the largest difference, the kernel the model ran and the one expected_kernel names.
double gpu_vs_reference(const Case& c, int nx, int ny, const FusedTuning& tuning,
                        std::string* kernel, std::string* expected, double omega = 0.004) {
    auto sim = make_simulation("advection", "fused");
    sim->set_fused_tuning(tuning);
    sim->set_param("scheme", c.scheme);
    // Flow as fast along y as along x and little diffusion: the upwind rows' decay is then
    // close to the bound's theta in both sweeps, so a warm-up shorter than the halo shows.
    sim->set_param("u", 0.7);
    sim->set_param("v", -0.7);
    sim->set_param("omega", omega);
    sim->set_param("D", c.diffusivity);
    sim->set_param("source_radius", 0.1);
    sim->set_param("source_steps", 2);
    sim->reset(c.scenario, nx, ny);
    // dt from W: the model's weight is linear in dt.
    sim->set_param("dt", c.weight / sim->sweep_weight() * sim->param("dt"));
    const std::vector<float> start = test::random_field(nx, ny, 0, 1, unsigned(nx * 131 + ny));
    sim->set_field(start);
    const reference::AdvectionSetup setup = test::advection_setup(*sim, c.scenario, nx, ny);
    std::vector<double> ref(start.begin(), start.end());
    for (int s = 1; s <= 3; ++s) reference::advection_step(setup, s, ref);
    sim->step(3);
    *kernel = sim->kernel();
    *expected = expected_kernel(*sim, c.scenario, nx, ny, tuning);
    EXPECT_TRUE(sim->stats().stable);
    return test::max_abs_diff(sim->read_field(), ref);
}

TEST(SimAdvectionWindow, MatchesTheFloat64ReferenceForEveryHaloAndTheFallback) {
    ADILAB_NEED_GL();
    // Every halo bucket (8 .. 48: the free scene's upstream ends, its downstream ones take 8)
    // and a weight for none; each scenario and the paper's scheme at W 0.6; the scans
    // (window_scan.glsl) wherever the pivots settle within a chunk, and the general windows
    // (window_lines.glsl) where a diffusion of about a cell a sweep keeps them from it (D 5:
    // 1.0 forwards of which 0.88 diffusive at W 1.9). kStepTolerance: the steps' fp32
    // round-off (tests/support/fields.hpp); the truncation adds 2^-26 of an increment a sweep.
    std::vector<Case> cases;
    for (double weight : {0.05, 0.3, 0.6, 1.0, 1.5, 2.5}) cases.push_back({"free", 0, weight});
    cases.push_back({"free", 1, 0.6});
    cases.push_back({"river", 0, 0.6});
    cases.push_back({"vortex", 0, 0.6});
    cases.push_back({"free", 0, 1.9, 5.0});
    cases.push_back({"river", 1, 1.9, 5.0});
    for (const Case& c : cases) {
        for (auto [nx, ny] : kWindowGrids) {
            std::string kernel, expected;
            const double error = gpu_vs_reference(c, nx, ny, {}, &kernel, &expected);
            EXPECT_EQ(kernel, expected) << c.scenario << " W " << c.weight;
            // Both solvers are seen: the scans at the model's D, the general windows at D 5.
            if (kernel != "fused") {
                EXPECT_EQ(kernel.rfind(c.diffusivity > 1 ? "window-" : "scan-", 0), 0u) << kernel;
            }
            EXPECT_LE(error, test::kStepTolerance)
                << c.scenario << " scheme " << c.scheme << " W " << c.weight << " " << nx << "x"
                << ny << " " << kernel;
        }
    }
}

TEST(SimAdvectionWindow, EveryWindowShapeMatches) {
    ADILAB_NEED_GL();
    // Chunks and subgroups other than the defaults: x chunks of 4 and 12 (3 of 16 bytes),
    // 1 and 3 subgroups a group; y chunks of 5 and 8 rows, 3 and 16 subgroups. The last shape's
    // warm-up (chunks of 2 rows: a halo of 8 rows takes 4 subgroups, of 4) leaves nothing to
    // store: the exact line solve.
    struct Shape {
        int row_chunk, row_warps, column_chunk, column_warps;
        bool windowed;
    };
    for (const Shape& s : {Shape{4, 3, 5, 16, true}, Shape{12, 1, 8, 8, true},
                           Shape{16, 2, 24, 3, true}, Shape{8, 4, 2, 4, false}}) {
        FusedTuning tuning;
        tuning.window_row_chunk = s.row_chunk;
        tuning.window_row_warps = s.row_warps;
        tuning.window_column_chunk = s.column_chunk;
        tuning.window_column_warps = s.column_warps;
        for (const Case& c : {Case{"river", 0, 0.6}, Case{"free", 1, 0.6}}) {
            for (auto [nx, ny] : {std::pair{37, 29}, std::pair{300, 7}, std::pair{9, 300}}) {
                std::string kernel, expected;
                const double error = gpu_vs_reference(c, nx, ny, tuning, &kernel, &expected);
                EXPECT_EQ(kernel, s.windowed ? expected : "fused");
                EXPECT_LE(error, test::kStepTolerance)
                    << c.scenario << " shape " << s.row_chunk << "x" << s.row_warps << " / "
                    << s.column_chunk << "x" << s.column_warps << " " << nx << "x" << ny;
            }
        }
    }
    // The switch: windows off takes the exact line solve at any weight.
    FusedTuning off;
    off.window = 0;
    std::string kernel, expected;
    EXPECT_LE(gpu_vs_reference({"river", 0, 0.6}, 37, 29, off, &kernel, &expected),
              test::kStepTolerance);
    EXPECT_EQ(kernel, "fused");
    EXPECT_NE(expected, "fused");
}

TEST(SimAdvectionWindow, EveryWindowSpanMatches) {
    ADILAB_NEED_GL();
    // x windows of 32, 64 and 128 chunks (whole subgroups of a work group of 4) and y windows of
    // 32 or 16 columns (32 or 64 chunks down them), tuned and by the halo (0): the free scene at
    // W 1.5 (48 rows upstream, 8 downstream: 7 chunks of warm-up along x, 6 along y) on lines of
    // 456 and 968, which windows of 64 and 128 chunks along x store whole and windows of 32 in 3
    // and 5 (along y 2 and 4 windows of 64 chunks, 2 and 4 of 32): a kernel laid out for one span
    // and dispatched for another leaves positions unsolved, while the same solves give each
    // stored position the same value in any span. And the vortex with Peaceman-Rachford at W 6,
    // by line streams: 128 rows upstream and 24 downstream along x, 96 and 16 along y (its groups
    // of the tuned columns). Spans that are not whole subgroups of the work group, and lanes
    // other than 16 and 32, are refused.
    struct Span {
        int row_span, column_lanes;
    };
    for (const Span& span : {Span{0, 0}, Span{32, 32}, Span{64, 16}, Span{128, 32}}) {
        FusedTuning tuning;
        tuning.window_row_span = span.row_span;
        tuning.window_column_lanes = span.column_lanes;
        tuning.line_stream_lines = 0;  // the vortex below by streams on its 64 x 128
        for (auto [nx, ny] :
             {std::pair{456, 40}, std::pair{968, 24}, std::pair{40, 456}, std::pair{24, 968}}) {
            std::string kernel, expected;
            const double error =
                gpu_vs_reference({"free", 0, 1.5}, nx, ny, tuning, &kernel, &expected);
            EXPECT_EQ(kernel, expected);
            EXPECT_LE(error, test::kStepTolerance) << "spans " << span.row_span << " / "
                                                   << span.column_lanes << " " << nx << "x" << ny;
        }
        // As VortexBandsMatchTheFloat64Reference: its tolerance at W 6.
        std::string kernel, symmetric;
        const double error =
            gpu_vs_reference({"vortex", 1, 6}, 64, 128, tuning, &kernel, &symmetric);
        EXPECT_EQ(kernel, "scan-streams-H128/24,96/16");
        EXPECT_LE(error, test::kStepTolerance * (1 + 6) / (1 + 2.5))
            << "spans " << span.row_span << " / " << span.column_lanes;
    }
    for (auto [span, warps, lanes] :
         {std::tuple{48, 4, 0}, std::tuple{96, 4, 0}, std::tuple{64, 1, 0}, std::tuple{0, 4, 8}}) {
        FusedTuning tuning;
        tuning.window_row_span = span;
        tuning.window_row_warps = warps;
        tuning.window_column_lanes = lanes;
        auto sim = make_simulation("advection", "fused");
        sim->set_fused_tuning(tuning);
        sim->reset("free", 64, 64);
        EXPECT_THROW(sim->step(1), Error) << "span " << span << ", " << warps << ", " << lanes;
    }
}

// The window bands the vortex should take where no one window holds (sim/advection.cpp,
// build_vortex_bands), as the model derives them: per sweep, its lines split where the flow turns
// ((lines + 1) / 2 below), each half in runs from the split out (one where 128 rows upstream hold
// for the outermost line, else one per 128 rows of its halo, split at multiples of 32 lines),
// each run with its outermost line's halos, at most 256 upstream; a sweep in line streams with the
// outermost line's halos instead (along y one for each half where the split is not a multiple of
// the group's 32 columns), where the scans run, the pivots settle from both walls and the tuning
// allows it (line_streams: y from 1, x from 2; at least line_stream_lines lines in the sweep);
// "fused" (the line solve) where they do not hold.
std::string expected_band_kernel(const Simulation& sim, int nx, int ny,
                                 const FusedTuning& tuning = {}) {
    const double implicit_dt = sim.param("scheme") == 0 ? sim.param("dt") : 0.5 * sim.param("dt");
    const double dh = sim.param("dh"), k = sim.param("D") / (dh * dh);
    const bool scan = scans(sim, "vortex", nx, ny, tuning);
    const bool streams[2] = {scan && tuning.line_streams >= 2 && ny >= tuning.line_stream_lines &&
                                 scans(sim, "vortex", nx, ny, tuning, 0),
                             scan && tuning.line_streams >= 1 && nx >= tuning.line_stream_lines &&
                                 scans(sim, "vortex", nx, ny, tuning, 1)};
    std::string name = streams[0] && streams[1] ? "scan-streams-H"
                       : scan                   ? "scan-bands-H"
                                                : "window-bands-H";
    for (int d = 0; d < 2; ++d) {
        const int lines = d == 0 ? ny : nx, split = (lines + 1) / 2;
        const int lower = split, upper = lines - split;
        // A band's outermost line `reach` lines from the split lies reach - 1/2 cells from the
        // centre, reach on an odd count (the upper half's).
        const double offset = lines % 2 == 0 ? 0.5 : 0.0;
        const auto halos = [&](int reach) {
            const double speed = std::abs(sim.param("omega")) * (reach - offset) * dh;
            const double weight = double(float(implicit_dt * (speed / dh + 2 * k)));
            return std::pair{detail::general_window_halo(
                                 weight, double(float(implicit_dt * (speed / dh + k))), 256),
                             detail::general_window_halo(weight, double(float(implicit_dt * k)))};
        };
        const auto [outer_up, outer_down] = halos(lower);
        if (outer_up == 0 || outer_down == 0) return "fused";
        if (streams[d]) {  // the outermost's halos, over every line or each half
            const int lanes = tuning.window_column_lanes != 0 ? tuning.window_column_lanes : 32;
            const std::string stream = std::string(streams[0] && streams[1] ? "" : "stream") +
                                       std::to_string(outer_up) + "/" + std::to_string(outer_down);
            name += (d == 0 ? "" : ",") + stream;
            if (d == 1 && split % lanes != 0) name += "+" + stream;
            continue;
        }
        const int runs = (outer_up + 127) / 128;
        std::vector<int> reach;
        for (int r = 1; r <= runs; ++r) {
            const int end = r == runs ? lower : (lower * r / runs + 16) / 32 * 32;
            if (reach.empty() || end > reach.back()) reach.push_back(end);
        }
        // The lower half's lines flow forwards along x, backwards along y (omega > 0), and the
        // other way round where omega < 0.
        const bool lower_forwards = (d == 0) == (sim.param("omega") > 0);
        name += d == 0 ? "" : ",";
        int inner = 0;
        for (std::size_t i = 0; i < reach.size(); ++i) {
            const auto [up, down] = halos(reach[i]);
            const std::string forwards = std::to_string(up) + "/" + std::to_string(down);
            const std::string backwards = std::to_string(down) + "/" + std::to_string(up);
            name += (i == 0 ? "" : "+") + (lower_forwards ? forwards : backwards);
            if (std::min(reach[i], upper) > inner)  // the upper half is a line shorter
                name += "+" + (lower_forwards ? backwards : forwards);
            inner = reach[i];
        }
    }
    return name;
}

// The vortex with the parameters gpu_vs_reference sets, on nx x ny at weight W: what
// expected_band_kernel reads.
std::unique_ptr<Simulation> vortex_as_run(int scheme, double weight, int nx, int ny, double omega) {
    auto sim = make_simulation("advection", "fused");
    sim->set_param("scheme", scheme);
    sim->set_param("omega", omega);
    sim->set_param("D", 0.02);
    sim->reset("vortex", nx, ny);
    sim->set_param("dt", weight / sim->sweep_weight() * sim->param("dt"));
    return sim;
}

TEST(SimAdvectionWindow, VortexBandsMatchTheFloat64Reference) {
    ADILAB_NEED_GL();
    // The vortex past the weights any one window holds for: each half of a sweep's lines by a
    // window with its long halo upstream, on square and oblong grids, with either scheme, on grids
    // whose columns do not halve into groups of 32 (the upper half's bands off the 128-byte
    // lines) and of odd sizes (the line at the centre with the lower half); past what 128 rows
    // hold for (W 9 to 12), each half in runs of lines with halos of their own; past what 256
    // rows upstream hold for, the line solve. Tolerance: kStepTolerance, the steps' fp32 round-off
    // up to W 2.5, grown with the solves' backward error 2^-24 (1 + W) (at W 12 and 25 the exact
    // line solve alone, windows off, misses the float64 steps by 2.6e-5 and 3.1e-5); the truncation
    // adds 2^-26 of an increment a sweep.
    struct BandCase {
        int scheme;
        double weight;
        int nx, ny;
        bool bands;
        double omega = 0.004;  // negative: the rotation the other way, the bands' halos mirrored
    };
    // The bands solve by scans where the pivots settle within a chunk, else as general lines: W
    // 10 on 128^2 (a diffusive transfer of 0.5 a sweep: some lines' pivots do not settle).
    std::set<std::string> solvers;
    for (const BandCase& c :
         {BandCase{0, 3.5, 64, 64, true}, BandCase{0, 4, 128, 192, true},
          BandCase{0, 4, 192, 64, true}, BandCase{1, 6, 64, 128, true},
          BandCase{0, 4, 128, 64, true, -0.004}, BandCase{0, 10, 128, 128, true},
          BandCase{0, 9, 256, 192, true}, BandCase{0, 12, 256, 256, true},
          BandCase{0, 3.5, 96, 64, true}, BandCase{0, 4, 99, 75, true},
          BandCase{0, 9, 161, 129, true, -0.004}, BandCase{0, 25, 256, 256, false}}) {
        std::string kernel, symmetric;
        const double error = gpu_vs_reference({"vortex", c.scheme, c.weight}, c.nx, c.ny, {},
                                              &kernel, &symmetric, c.omega);
        EXPECT_EQ(symmetric, "fused") << "W " << c.weight;  // no one window holds
        const auto sim = vortex_as_run(c.scheme, c.weight, c.nx, c.ny, c.omega);
        EXPECT_EQ(kernel, expected_band_kernel(*sim, c.nx, c.ny)) << "W " << c.weight;
        EXPECT_EQ(kernel.find("-bands-H") != std::string::npos ||
                      kernel.find("-streams-H") != std::string::npos,
                  c.bands)
            << kernel;
        solvers.insert(kernel.substr(0, kernel.find('-')));
        EXPECT_LE(error, test::kStepTolerance * (1 + c.weight) / (1 + 2.5))
            << "W " << c.weight << " " << c.nx << "x" << c.ny << " " << kernel;
    }
    EXPECT_EQ(solvers, (std::set<std::string>{"fused", "scan", "window"}));
}

TEST(SimAdvectionWindow, VortexLineStreamsMatchTheFloat64Reference) {
    ADILAB_NEED_GL();
    // The vortex's sweeps by line streams (line_stream.glsl) where they take window bands and
    // the pivots settle: each work group walks its lines (a row, or 32 columns) from the end
    // their flow comes from (both ways round: omega of either sign), a segment at a time, the
    // forward value carried exactly between segments. Along y, segments of the model's shape (31
    // chunks of 10 rows stored) on columns of 640 and 700 rows, three of them; of chunks of 6 rows
    // in groups of 8 chunks (5 stored: the halo downstream takes 16 rows) on 256, nine; of 8 rows
    // in 8 chunks (Peaceman-Rachford) on 128, three; of 10 rows in 16 chunks on 250 and in 8 on
    // 98, two. Along x, segments of chunks of 8 in one subgroup (the model's shape and the tuned
    // one: 30 or 31 stored, by the halo downstream) on rows of 64 to 512, up to three of them.
    // Halos upstream of 16 to 224 positions, some longer than a segment stores (the stream folds
    // in the entry instead of the rows before it). On 100 and 97 columns, whose halves are not
    // whole groups of 32, a stream for each half; 97 x 99, odd both ways. Tolerance: as
    // VortexBandsMatchTheFloat64Reference's, at each weight (the Peaceman-Rachford case on its
    // grid: at W 6 the fp32 round-off of the steps grows with the lines).
    struct StreamCase {
        int scheme;
        double weight;
        int nx, ny;
        double omega;
        int chunk, warps;          // the y shape (0: the model's)
        int row_chunk, row_warps;  // the x shape (0: the model's)
    };
    for (const StreamCase& c : {StreamCase{0, 2.5, 64, 700, 0.004, 0, 0, 0, 0},
                                StreamCase{0, 3, 128, 640, -0.004, 0, 0, 8, 1},
                                StreamCase{0, 4, 128, 256, 0.004, 6, 8, 8, 1},
                                StreamCase{0, 4, 512, 128, 0.004, 0, 0, 8, 1},
                                StreamCase{1, 6, 64, 128, -0.004, 8, 8, 0, 0},
                                StreamCase{0, 9, 64, 250, 0.004, 10, 16, 0, 0},
                                StreamCase{0, 3.5, 64, 98, -0.004, 10, 8, 0, 0},
                                StreamCase{0, 4, 100, 130, 0.004, 0, 0, 0, 0},
                                StreamCase{0, 3, 97, 99, -0.004, 0, 0, 8, 1}}) {
        FusedTuning tuning;
        tuning.line_stream_lines = 0;  // streams on these small grids too
        tuning.window_column_chunk = c.chunk;
        tuning.window_column_warps = c.warps;
        tuning.window_row_chunk = c.row_chunk;
        tuning.window_row_warps = c.row_warps;
        std::string kernel, symmetric;
        const double error = gpu_vs_reference({"vortex", c.scheme, c.weight}, c.nx, c.ny, tuning,
                                              &kernel, &symmetric, c.omega);
        EXPECT_EQ(kernel.rfind("scan-streams-H", 0), 0u) << kernel << " " << c.nx << "x" << c.ny;
        const auto sim = vortex_as_run(c.scheme, c.weight, c.nx, c.ny, c.omega);
        EXPECT_EQ(kernel, expected_band_kernel(*sim, c.nx, c.ny, tuning));
        EXPECT_LE(error, test::kStepTolerance * (1 + c.weight) / (1 + 2.5))
            << "W " << c.weight << " " << c.nx << "x" << c.ny << " " << kernel;
        // The same with the streams off: the bands' windows.
        tuning.line_streams = 0;
        const double banded = gpu_vs_reference({"vortex", c.scheme, c.weight}, c.nx, c.ny, tuning,
                                               &kernel, &symmetric, c.omega);
        EXPECT_EQ(kernel, expected_band_kernel(*sim, c.nx, c.ny, tuning));
        EXPECT_LE(banded, test::kStepTolerance * (1 + c.weight) / (1 + 2.5)) << kernel;
    }
    // Untuned, a sweep streams only on 2048 lines or more (line_stream_lines): on 64 x 2048 the
    // x sweep's 2048 rows by a stream beside the y sweep's bands over its 64 columns.
    std::string kernel, symmetric;
    const double error =
        gpu_vs_reference({"vortex", 0, 4}, 64, 2048, {}, &kernel, &symmetric, 0.004);
    const auto sim = vortex_as_run(0, 4, 64, 2048, 0.004);
    EXPECT_EQ(kernel, expected_band_kernel(*sim, 64, 2048));
    EXPECT_EQ(kernel.rfind("scan-bands-Hstream", 0), 0u) << kernel;
    EXPECT_LE(error, test::kStepTolerance * (1 + 4) / (1 + 2.5)) << kernel;
}

}  // namespace
}  // namespace adilab::sim
