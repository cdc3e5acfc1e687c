// Model "heat": dT/dt = c (T_xx + T_yy), Peaceman–Rachford ADI with insulated walls (seed 001
// simulation 1, eq. 3). Kernels: shaders/sim/heat_{rowscan,colscan}.comp (heat_scan.glsl
// has the maths), heat.comp.
//   fused:   where the inverse of the constant matrix decays fast enough (lambda <= ~7, see
//            heat_window_halo): its closed form, truncated below fp32 round-off, no line solve:
//            x by a scan across subgroup lanes (16-byte row loads where nx is a multiple of 4),
//            y with chunk ends joined in shared memory.
//            Two dispatches a step (heat_rowscan.comp, heat_colscan.comp). A direction whose
//            scan shape cannot hold the halo, and every lambda above ~7: the fused line solve of
//            heat.comp. ADILAB_HEAT_WINDOW=0 forces the latter. (All of step(n) in one dispatch
//            with grid barriers between the half steps was measured slower on the H200,
//            2026-11-21: 1024^2 31,000 vs 36,300 steps/s, 4096^2 4,200 vs 5,570: the loop over
//            tiles ran at lower occupancy and with L1-bypassing loads; it was removed.)
//            Rows of 1024..2048 cells (measured rule in resolve_xline): the pair path instead,
//            two dispatches with no warm-up lanes along x and one 8-byte load a cell along y:
//            x by whole rows with the walls exact (heat_linerow.comp: each invocation loads and
//            stores its own 4 cells, the plain PR form r = T + lambda d_yy T, three loads a
//            cell), writing (T*, lambda d_xx T*) per cell; y from those pairs
//            (heat_colpair.comp: the column scan, delta form). ADILAB_HEAT_XLINE=0 never takes
//            it; other values select the whole-row x kernel's shapes and options.
//            (Tried and removed, 2026-11-21: the whole step in one dispatch without redundancy,
//            x work groups then y work groups that waited on counters of the x rows they read,
//            handed out by tickets in start order, T* read `coherent`: on the H200 at 1024^2
//            42,868 steps/s at best (8 y subgroups of 8 rows, x chunks of 4, plain form), 42,553
//            / 42,147 / 39,122 / 30,235 in other shapes, against 45,702 for the two-dispatch
//            staged x kernel with the column scan in the same call; and one llvmpipe run under
//            load gave a wrong field, not diagnosed.)
//            On small grids (<= 256^2 cells, halo <= 16; measured rule in resolve_tile) the
//            whole step in ONE dispatch instead: heat_tile.comp, tiles with a halo, T* in
//            shared memory, the same truncated inverse; the model then ping-pongs its two
//            buffers. ADILAB_HEAT_TILE=0 never takes it, =1 wherever its tile fits.
//   generic: rows kernel (rhs of the increment), Solver::solve with ConstantCoefficients into
//            the output, finish kernel (T + dT, heaters, stability flag), per half step.
#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "sim/model.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/commands.hpp"
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

class Heat final : public AdiModel {
public:
    explicit Heat(const std::string& solver)
        : AdiModel("heat",
                   {{"c", "m^2/s", "thermal diffusivity", 1.0, 1e-9, 1e9},
                    {"dt", "s", "time step (PR ADI is unconditionally stable)", 1.0, 1e-9, 1e9},
                    {"dh", "m", "cell size", 1.0, 1e-9, 1e9},
                    {"initial_temperature", "K", "uniform start value (scenarios without --init)", 0.0, -1e9, 1e9},
                    {"heater_temperature", "K", "temperature the heaters hold (two-heaters)", 1.0, -1e9, 1e9},
                    {"heater_radius", "1", "heater radius, fraction of the domain's smaller side", 0.04, 0.0, 0.5},
                    {"heater_offset", "1", "heater distance from the centre, fraction of the width", 0.2, 0.0, 0.5}},
                   {"two-heaters", "free"}, solver) {}

    const gl::Buffer& field() const override { return field_; }
    std::string kernel() const override {
        if (tile_) return "tile-H" + std::to_string(window_halo_);
        if (!window_[0] && !window_[1]) return solver();
        return "window-H" + std::to_string(window_halo_) +
               (ypair_ ? "+xpair" : xline_ ? "+xline" : "");
    }
    void apply_brush(const Brush& brush) override { dispatch_brush(brush, field_, nullptr); }

protected:
    gl::Buffer& field_buffer() override { return field_; }
    std::vector<std::pair<std::string, gl::Buffer*>> state_buffers() override {
        return {{"T", &field_}};
    }

    void allocate() override {
        field_ = gl::Buffer(cells() * sizeof(float));
        half_ = gl::Buffer(cells() * sizeof(float));
        half_.poison();  // a half step that missed a cell shows up as NaN in the tests
        resolve_programs("sim/heat.comp", 1);
        if (!fused()) rhs_ = gl::Buffer(cells() * sizeof(float));
    }

    void initialize() override {
        field_.fill(float(param("initial_temperature")));
    }

    void step_once() override {
        if (fused() && window_version_ != version_) resolve_window();
        if (fused() && tile_) {
            tile_step();
            return;
        }
        half_step(0, field_, half_);
        half_step(1, half_, field_);
    }

private:
    void set_uniforms(const gl::Program& p) const override {
        const double dh = param("dh");
        const float lambda = float(param("c") * 0.5 * param("dt") / (dh * dh));
        p.set("lambda", lambda);
        const bool heaters = scenario_ == "two-heaters";
        const float side = float(std::min(nx_, ny_));
        const float offset = float(param("heater_offset")) * float(nx_);
        p.set("heater_left", glm::vec2(0.5f * nx_ - offset, 0.5f * ny_));
        p.set("heater_right", glm::vec2(0.5f * nx_ + offset, 0.5f * ny_));
        p.set("heater_radius", heaters ? float(param("heater_radius")) * side : 0.0f);
        p.set("heater_temperature", float(param("heater_temperature")));
        const double rho = heat_window_rho(double(lambda));
        p.set("rho", float(rho));
        p.set("gain", float((1 - rho) / (1 + rho)));
        // The whole-row x kernel's exact walls (heat_linerow.comp): rho^nx, 1 / (1 - rho^(2 nx)),
        // and how far from a wall rho^distance stays above 2^-30 (beyond: below a quarter of
        // x's round-off, left out).
        if (rho > 0) {
            p.set("log2_rho", float(std::log2(rho)));
            p.set("rho_n", float(std::pow(rho, nx_)));
            p.set("wall_scale", float(1 / (1 - std::pow(rho, 2.0 * nx_))));
            p.set("wall_reach", int(std::min<double>(nx_, std::ceil(-30 / std::log2(rho)))));
        } else {
            p.set("log2_rho", -1000.0f);
            p.set("rho_n", 0.0f);
            p.set("wall_scale", 1.0f);
            p.set("wall_reach", 0);
        }
    }

    double kernel_lambda() const {
        const double dh = param("dh");
        return double(float(param("c") * 0.5 * param("dt") / (dh * dh)));  // as the kernels see it
    }

    // Picks the windowed kernels for the current parameters and grid (a new lambda can need
    // another HALO, i.e. another program: compiled once, then cached), or none.
    void resolve_window() {
        window_version_ = version_;
        window_[0] = window_[1] = nullptr;
        tile_ = nullptr;
        xline_ = nullptr;
        ypair_ = nullptr;
        const char* env = std::getenv("ADILAB_HEAT_WINDOW");
        if (env && std::string(env) == "0") return;
        int halo = heat_window_halo(kernel_lambda());
        if (halo == 0) return;
        // Timing experiment: ADILAB_HEAT_HALO = a halo between the smallest that meets the
        // bound and the bucket's (never below the bound).
        if (const char* forced = std::getenv("ADILAB_HEAT_HALO")) {
            const int wanted = std::atoi(forced);
            if (wanted < halo && heat_window_tail(kernel_lambda(), wanted) <= std::ldexp(1.0, -26))
                halo = wanted;
        }
        window_halo_ = halo;
        const gl::DeviceInfo& info = gl::Context::current().info();
        if (resolve_tile(info)) return;
        const char* sub = std::getenv("ADILAB_FUSED_SUBGROUPS");
        const bool subgroups =
            info.subgroups && info.subgroup_size == 32 && !(sub && std::string(sub) == "0");
        // Load options (ADILAB_HEAT_OPT; "0" none): 'v' 16-byte loads along rows in the x half
        // step (chunks of 4k, nx = 4k), the default. Measured on the H200 (2026-11-21, one
        // call, two processes each, steps/s): 1024^2 33,962 / 34,763 with 'v' against
        // 32,623 / 34,143 without; 4096^2 5,634 / 5,634 against 5,557 / 5,559 (x kernel 103.2
        // against 105.6 us). Tried in the same call and removed: the cells beside a chunk from
        // the neighbouring lanes by subgroup shuffles instead of loads (x and y): slower per step
        // at 1024^2 (32,088) and much slower at 4096^2 (4,094; y 141 against 81 us), and one
        // device test (291 x 173, default shapes) failed with it, not diagnosed.
        const char* opt = std::getenv("ADILAB_HEAT_OPT");
        const std::string options = opt ? opt : kDefaultOptions;
        window_vec4_ = false;
        // Shapes measured on the H200 (2026-11-21, 1024^2 and 4096^2, see README): x as a scan
        // across subgroup lanes, y with chunk ends joined through shared memory. A direction
        // whose shape cannot hold the halo (only overridden shapes) takes the fused line solve.
        for (int d = 0; d < 2; ++d) {
            int warps = 0, chunk = 0, rows = 1;
            scan_shape(d, warps, chunk, rows);
            const int halo_units = (halo + chunk - 1) / chunk;  // halo lanes / subgroups
            if (d == 0 && 2 * halo_units < 32) {
                gl::Defines scan = {{"CHUNK", std::to_string(chunk)}, {"HALO", std::to_string(halo)},
                                    {"WARPS", std::to_string(warps)},
                                    {"GROUP_SIZE", std::to_string(32 * warps)},
                                    {"X_ROWS", std::to_string(rows)}};
                if (subgroups) scan.push_back({"SUBGROUPS", "1"});
                if (options.find('v') != std::string::npos && chunk % 4 == 0) {
                    scan.push_back({"X_VEC4", "1"});
                    window_vec4_ = true;
                }
                window_[0] = &gl::compute_program("sim/heat_rowscan.comp", scan);
                const long long segment = (32 - 2 * halo_units) * chunk;
                const long long subgroups_needed =
                    (nx_ + segment - 1) / segment * ((ny_ + rows - 1) / rows);
                window_groups_[0][0] = unsigned((subgroups_needed + warps - 1) / warps);
                window_groups_[0][1] = 1;
            }
            if (d == 1 && 2 * halo_units < warps) {
                gl::Defines scan = {{"CHUNK", std::to_string(chunk)}, {"HALO", std::to_string(halo)},
                                    {"WARPS", std::to_string(warps)},
                                    {"GROUP_SIZE", std::to_string(32 * warps)}};
                window_[1] = &gl::compute_program("sim/heat_colscan.comp", scan);
                const int segment = (warps - 2 * halo_units) * chunk;
                window_groups_[1][0] = unsigned((nx_ + 31) / 32);
                window_groups_[1][1] = unsigned((ny_ + segment - 1) / segment);
            }
        }
        if (window_[0] && window_[1]) resolve_xline(info, subgroups);
    }

    // The whole-row x kernel (heat_linerow.comp: exact walls, no warm-up lanes) in place of the
    // row scan, and with it the pair y kernel (heat_colpair.comp), by the measured rule or
    // ADILAB_HEAT_XLINE: "0" never; "1" wherever it fits (default shape); "chunk[,lines[,options]]"
    // that shape wherever it fits (chunk a power of two 1..32, lines rows a work group; options:
    // 'p' the plain PR form, 'd' each invocation's own chunk (chunk 4, nx = 4k), 'e' the pair
    // output for heat_colpair.comp (with 'd'), 'l' the walls by shuffles, 's' the shared-memory
    // scan even where subgroups exist, 'n' no 16-byte loads; a shape without options takes
    // none of them).
    //
    // The rule, measured on the H200 (2026-11-21, two-heaters, default parameters: halo 16,
    // steps/s, --steps 1000; the main binary's two-dispatch path in the same call):
    //  - 1024^2, default (4,1,pdel: x 13.1 us + y 12.3 us timestamped) 52,941 / 52,900 / 52,910
    //    against 35,934 / 35,903 / 35,922 (x 17.5 + y 16.8 us); without 'l' 52,244; 2 rows a
    //    group 51,861; the delta form (4,1,del) 52,022; without the pairs (4,1,pd, y by the
    //    column scan: 16.4 us) 46,555; staged (4,1,p) 45,204; pair y in 8x8 52,268, 16x4
    //    50,803, 32x4 48,487, 32x8 46,680 subgroups x rows.
    //  - Staged shapes in the call before (delta form): chunk 4 43,616, 8 40,400, 16 31,949,
    //    32 21,677; 2 rows of chunk 8 40,440; plain chunk 4 45,702; without 16-byte loads
    //    (chunk 16) 23,998.
    //  - 2048^2: 17,519 against 15,921. 4096^2: 4,822 against 5,599 (the x kernel 132.8 us
    //    against the row scan's 103.5), so not above 2048. 256^2 takes the tile step; sizes
    //    between 256 and 1024 are not measured and keep the row scan.
    void resolve_xline(const gl::DeviceInfo& info, bool subgroups) {
        const char* env = std::getenv("ADILAB_HEAT_XLINE");
        const std::string choice = env ? env : "";
        if (choice == "0") return;
        if (choice.empty() && !(nx_ >= kXlineMinNx && nx_ <= kXlineMaxNx)) return;
        int chunk = kXlineChunk, lines = 1;
        std::string options = kXlineOptions;
        if (!choice.empty() && choice != "1") {
            int c = 0, l = 1, used = 0;
            char text[16] = {};
            const int n = std::sscanf(choice.c_str(), "%d,%d,%15s%n", &c, &l, text, &used);
            if (n >= 1 && c >= 1 && c <= 32 && (c & (c - 1)) == 0) chunk = c;
            if (n >= 2 && l >= 1 && l <= 64) lines = l;
            options = n >= 3 ? text : "";
        }
        const int chunks = int(std::bit_ceil(unsigned((nx_ + chunk - 1) / chunk)));
        lines = std::min(lines, std::max(1, 1024 / chunks));
        const int group = lines * chunks;
        if (group > 1024) return;
        const long long staged = (long long)lines * chunks * chunk;
        const bool use_subgroups = subgroups && options.find('s') == std::string::npos;
        const auto has = [&](char o) { return options.find(o) != std::string::npos; };
        xline_vec4_ = nx_ % 4 == 0 && chunk % 4 == 0 && !has('n');
        // 'd': each invocation loads and stores its own chunk (chunks of 4, 16-byte rows); 'e':
        // and writes (T*, lambda d_xx T*) for the pair y kernel; 'l': the walls' two values by
        // subgroup shuffles where rho^nx is negligible and the wall chunks sit in the first /
        // last chunk's subgroup (heat_linerow.glsl, LONG_LINE).
        const bool direct = has('d') && chunk == 4 && xline_vec4_;
        const bool pair = has('e') && direct;
        const double rho = heat_window_rho(kernel_lambda());
        const int reach = int(std::min<double>(nx_, std::ceil(-30 / std::log2(rho))));
        const bool long_line = has('l') && use_subgroups && chunks >= 32 &&
                               std::pow(rho, nx_) < std::ldexp(1.0, -30) &&
                               (reach - 1) / chunk < 32 &&
                               ((nx_ - 1) / chunk) / 32 == (std::max(0, nx_ - reach) / chunk) / 32;
        const long long shared_bytes = (direct ? 8LL * group : 4 * (staged + staged / 32 + 1)) +
                                       8 * lines + (use_subgroups ? 8LL * group : 16LL * group);
        if (shared_bytes > info.max_shared_memory_bytes) return;
        gl::Defines defines = {{"CHUNK", std::to_string(chunk)},
                               {"CHUNKS", std::to_string(chunks)},
                               {"LINES", std::to_string(lines)},
                               {"GROUP_SIZE", std::to_string(group)},
                               {"HALO", std::to_string(window_halo_)}};
        if (use_subgroups) defines.push_back({"SUBGROUPS", "1"});
        if (has('p')) defines.push_back({"FORM_PLAIN", "1"});
        if (xline_vec4_) defines.push_back({"X_VEC4", "1"});
        if (direct) defines.push_back({"X_DIRECT", "1"});
        if (pair) defines.push_back({"X_PAIR", "1"});
        if (long_line) defines.push_back({"LONG_LINE", "1"});
        // The pair path's y kernel: the column scan's shape, pairs in.
        ypair_ = nullptr;
        if (pair) {
            int warps = 0, ychunk = 0, rows = 1;
            scan_shape(1, warps, ychunk, rows);
            ypair_ = &gl::compute_program("sim/heat_colpair.comp",
                                          {{"CHUNK", std::to_string(ychunk)},
                                           {"HALO", std::to_string(window_halo_)},
                                           {"WARPS", std::to_string(warps)},
                                           {"GROUP_SIZE", std::to_string(32 * warps)}});
            if (pairs_.size() < cells() * 2 * sizeof(float)) {
                pairs_ = gl::Buffer(cells() * 2 * sizeof(float));
                pairs_.poison();  // a cell the x kernel missed shows up as NaN
            }
        }
        xline_ = &gl::compute_program("sim/heat_linerow.comp", defines);
        xline_groups_ = unsigned((ny_ + lines - 1) / lines);
    }


    // The one-dispatch step (heat_tile.comp) for window_halo_; returns whether it is used.
    // ADILAB_HEAT_TILE: "0" never (the two-dispatch kernels); unset: by the measured rule below;
    // "1" wherever a default shape's tile fits in shared memory; "tx,ty,sx,sy[,group]" that
    // shape wherever it fits (tile, segments a T* row / a tile column, invocations a group;
    // default group: enough for every segment at once).
    //
    // The rule, measured on the H200 (2026-11-21, one call, two-heaters, steps/s; the two-
    // dispatch path in the same call): halo 16 (default parameters), 256^2: tile 32x32 split
    // 6x8 52,787 (64x32 7x8 44,227; 32x16 4x8 46,445) against 48,648; 1024^2: best tile 19,450
    // (64x32 7x8; 32x32 6x8 14,403) against 35,910; 2048^2 6,284 against 16,561; 4096^2 1,700
    // against 5,597. Halo 24 (dt = 3), 1024^2: tile 11,973 against 33,804. So by default the
    // tile is taken only for halo <= 16 on grids of at most 256^2 cells, where one dispatch's
    // latency beats two; above, its redundant halo work costs more than the dispatch it saves.
    bool resolve_tile(const gl::DeviceInfo& info) {
        const char* env = std::getenv("ADILAB_HEAT_TILE");
        const std::string choice = env ? env : "";
        if (choice == "0") return false;
        const int h = window_halo_;
        if (choice.empty() && (h > kTileMaxHalo || cells() > kTileMaxCells)) return false;
        // Shared memory of a shape: T^n around the tile and T*, rows padded to odd pitches.
        auto floats = [h](int tx, int ty) {
            return (long long)(ty + 2 * h + 4) * ((tx + 2 * h + 4) | 1) +
                   (long long)(ty + 2 * h + 2) * ((tx + 2) | 1);
        };
        auto fits = [&](int tx, int ty) {
            return floats(tx, ty) * 4 <= info.max_shared_memory_bytes;
        };
        int tx = 0, ty = 0, sx = 0, sy = 0, group = 0;
        if (!choice.empty() && choice != "1") {
            int a = 0, b = 0, c = 0, d = 0, e = 0;
            const int n = std::sscanf(choice.c_str(), "%d,%d,%d,%d,%d", &a, &b, &c, &d, &e);
            if (n >= 4 && a >= 1 && b >= 1 && c >= 1 && d >= 1 && c <= a + 2 && d <= b) {
                tx = a, ty = b, sx = c, sy = d;
                if (n == 5 && e >= 32 && e <= 1024 && e % 32 == 0) group = e;
            }
        }
        if (tx == 0) {
            // The first default shape whose tile fits (the first at halo <= 16 on the H200's
            // 48 KiB and on llvmpipe's 32 KiB; the second at halo 24 on llvmpipe).
            for (const TileShape& shape : kTileShapes)
                if (fits(shape.x, shape.y)) {
                    tx = shape.x, ty = shape.y, sx = shape.split_x, sy = shape.split_y;
                    break;
                }
        }
        if (tx == 0 || !fits(tx, ty)) return false;
        if (group == 0) {
            const int items = std::max((ty + 2 * h + 2) * sx, tx * sy);
            group = std::min(1024, (items + 31) / 32 * 32);
        }
        tile_ = &gl::compute_program(
            "sim/heat_tile.comp",
            {{"TILE_X", std::to_string(tx)}, {"TILE_Y", std::to_string(ty)},
             {"HALO", std::to_string(h)}, {"SPLIT_X", std::to_string(sx)},
             {"SPLIT_Y", std::to_string(sy)}, {"GROUP_SIZE", std::to_string(group)}});
        tile_groups_[0] = unsigned((nx_ + tx - 1) / tx);
        tile_groups_[1] = unsigned((ny_ + ty - 1) / ty);
        return true;
    }

    // One whole step in one dispatch: field_ -> half_, then the two swap (the output is the new
    // state; every holder of field() sees it, since they keep the Buffer, not its name).
    void tile_step() {
        const gl::Program& program = *tile_;
        use_program(program);
        field_.bind_storage(0);
        half_.bind_storage(1);
        bind_flag();
        gl::dispatch(tile_groups_[0], tile_groups_[1]);
        gl::memory_barrier(gl::Barrier::storage);
        std::swap(field_, half_);
    }

    // The scan kernel's shape for direction d: subgroups a work group and positions an
    // invocation. Defaults: the fastest of the H200 sweep (x: 8 subgroups of chunks of 4, y: 16
    // subgroups of chunks of 8, at 1024^2 and at 4096^2); ADILAB_HEAT_ROWSCAN (x) and
    // ADILAB_HEAT_COLSCAN (y) = "warps,chunk" override; x also "warps,chunk,rows" (rows a
    // subgroup, each row's loads reused as the next one's "above": measured no faster on the
    // H200, 2026-11-21: 1024^2 8,4,2 32,294 / 34,317 steps/s, 4096^2 x kernel 103.5 us against
    // 103.2 with one row; 8,4,4 and 4,8,2 slower). Also measured again in that call (with the
    // shuffled neighbours): x 8,8 / 4,8,2 and y 32,8 / 16,16 / 8,16 all slower than the defaults.
    static void scan_shape(int d, int& warps, int& chunk, int& rows) {
        warps = d == 0 ? 8 : 16;
        chunk = d == 0 ? 4 : 8;
        rows = 1;
        const char* env = std::getenv(d == 0 ? "ADILAB_HEAT_ROWSCAN" : "ADILAB_HEAT_COLSCAN");
        if (!env) return;
        int w = 0, c = 0, r = 1;
        const int n = std::sscanf(env, "%d,%d,%d", &w, &c, &r);
        if (n >= 2 && w >= 1 && w <= 32 && c >= 1 && c <= 32 && r >= 1 && r <= 64) {
            warps = w;
            chunk = c;
            if (d == 0 && n == 3) rows = r;
        }
    }

    void half_step(int direction, const gl::Buffer& in, gl::Buffer& out) {
        if (fused() && direction == 1 && ypair_) {
            const gl::Program& program = *ypair_;
            use_program(program);
            pairs_.bind_storage(0);
            out.bind_storage(1);
            bind_flag();
            gl::dispatch(window_groups_[1][0], window_groups_[1][1]);
            gl::memory_barrier(gl::Barrier::storage);
            return;
        }
        if (fused() && direction == 0 && xline_) {
            const gl::Program& program = *xline_;
            use_program(program);
            in.bind_storage(0);
            gl::Buffer& written = ypair_ ? pairs_ : out;  // the pair path: (T*, e) per cell
            written.bind_storage(1);
            if (xline_vec4_) {
                in.bind_storage(4);
                written.bind_storage(5);
            }
            bind_flag();
            gl::dispatch(xline_groups_);
            gl::memory_barrier(gl::Barrier::storage);
            return;
        }
        if (fused() && window_[direction]) {
            const gl::Program& program = *window_[direction];
            use_program(program);
            in.bind_storage(0);
            if (direction == 0 && window_vec4_) in.bind_storage(4);
            out.bind_storage(1);
            bind_flag();
            gl::dispatch(window_groups_[direction][0], window_groups_[direction][1]);
            gl::memory_barrier(gl::Barrier::storage);
            return;
        }
        if (fused()) {
            use_fused(direction);
            in.bind_storage(0);
            out.bind_storage(1);
            bind_flag();
            gl::dispatch(fused_groups_[direction]);
            gl::memory_barrier(gl::Barrier::storage);
            return;
        }
        const gl::Program& rows = *rows_[direction];
        rows.use();
        set_grid_uniforms(rows);
        set_uniforms(rows);
        in.bind_storage(0);
        rhs_.bind_storage(3);
        gl::dispatch(cell_groups());
        gl::memory_barrier(gl::Barrier::storage);
        const double dh = param("dh");
        const float lambda = float(param("c") * 0.5 * param("dt") / (dh * dh));
        tridiag::ConstantCoefficients k{-lambda, 1 + 2 * lambda, -lambda, 1 + lambda, 1 + lambda};
        solver_ref().solve({nx_, ny_}, direction == 0 ? tridiag::Direction::x : tridiag::Direction::y,
                           k, rhs_, out);
        gl::memory_barrier(gl::Barrier::storage);
        const gl::Program& finish = *finish_[direction];
        finish.use();
        set_grid_uniforms(finish);
        set_uniforms(finish);
        in.bind_storage(0);
        out.bind_storage(1);
        bind_flag();
        gl::dispatch(cell_groups());
        gl::memory_barrier(gl::Barrier::storage);
    }

    gl::Buffer field_, half_, rhs_;
    // The windowed kernels per direction (null: the fused line solve) and their groups (along,
    // across), for the parameters and grid of window_version_.
    const gl::Program* window_[2] = {};
    unsigned window_groups_[2][2] = {};
    std::uint64_t window_version_ = 0;
    int window_halo_ = 0;
    bool window_vec4_ = false;  // the x kernel also reads its input as vec4 (binding 4)
    const gl::Program* tile_ = nullptr;  // the one-dispatch step, or null
    const gl::Program* xline_ = nullptr;  // the whole-row x kernel in place of window_[0], or null
    unsigned xline_groups_ = 0;
    const gl::Program* ypair_ = nullptr;  // the pair path's y kernel (heat_colpair.comp), or null
    gl::Buffer pairs_;  // the pair path's (T*, lambda d_xx T*) per cell
    bool xline_vec4_ = false;  // it also reads and writes vec4s (bindings 4, 5)
    unsigned tile_groups_[2] = {};
    // The tile's default shapes, the first that fits taken (ADILAB_HEAT_TILE overrides): 32x32
    // split 6x8 was the fastest at 256^2 in the H200 sweep (see resolve_tile).
    struct TileShape {
        int x, y, split_x, split_y;
    };
    static constexpr TileShape kTileShapes[] = {{32, 32, 6, 8}, {32, 16, 4, 8}};
    // The measured rule's limits (resolve_tile).
    static constexpr int kTileMaxHalo = 16;
    static constexpr std::size_t kTileMaxCells = 256 * 256;
    static constexpr const char* kDefaultOptions = "v";
    // The whole-row x kernel's rule and default chunk (resolve_xline).
    static constexpr int kXlineMinNx = 1024;
    static constexpr int kXlineMaxNx = 2048;
    static constexpr int kXlineChunk = 4;
    static constexpr const char* kXlineOptions = "pdel";
};

}  // namespace

std::unique_ptr<Simulation> make_heat(const std::string& solver) {
    return std::make_unique<Heat>(solver);
}

}  // namespace adilab::sim::detail
