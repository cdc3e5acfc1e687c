// The windowed half steps' construction (AdiModel, sim/model.hpp): the decay bound that picks a
// window's halos, the window kernels' shapes, programs and work groups, and the window bands.
#include <algorithm>
#include <cmath>

#include "sim/model.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim::detail {

double general_window_tail(double weight, double transfer, int halo) {
    const double theta = weight / (1 + weight);
    return weight * (1 + weight) / (1 + theta) * std::pow(transfer / (1 + transfer), halo);
}

int general_window_halo(double weight, double transfer, int most) {
    for (int halo : {8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 224, 256})
        if (halo <= most && general_window_tail(weight, transfer, halo) <= std::ldexp(1.0, -27))
            return halo;
    return 0;
}

void AdiModel::build_window(const std::array<WindowHalo, 2>& halo, const WindowShape& own,
                            const std::string& row_shader, gl::Defines row,
                            const std::string& column_shader, gl::Defines column) {
    window_[0] = window_[1] = nullptr;
    for (const WindowHalo& h : halo)
        if (h.low == 0 || h.high == 0) return;
    if (fused_tuning_.window == 0) return;
    const WindowShape shape = window_shape(own);
    for (int d = 0; d < 2; ++d)
        if (!window_fits(d, halo[d], shape)) return;
    window_[0] = &window_program(0, halo[0], shape, row_shader, std::move(row));
    window_[1] = &window_program(1, halo[1], shape, column_shader, std::move(column));
    window_halo_ = halo;
    window_warps_[0] = shape.row_warps;
    window_warps_[1] = shape.column_warps;
    window_chunk_[0] = shape.row_chunk;
    window_chunk_[1] = shape.column_chunk;
    for (int d = 0; d < 2; ++d)
        window_groups(d, halo[d], shape, d == 0 ? ny_ : nx_, window_groups_[d]);
}

AdiModel::WindowShape AdiModel::window_shape(const WindowShape& own) const {
    const FusedTuning& t = fused_tuning_;
    const auto pick = [](int tuned, int model) { return tuned != 0 ? tuned : model; };
    const WindowShape shape = {pick(t.window_row_chunk, own.row_chunk),
                               pick(t.window_row_warps, own.row_warps),
                               pick(t.window_column_chunk, own.column_chunk),
                               pick(t.window_column_warps, own.column_warps),
                               own.row_span != 0 ? own.row_span : t.window_row_span,
                               own.column_lanes != 0 ? own.column_lanes : t.window_column_lanes};
    if (shape.row_chunk % 4 != 0)
        throw Error("fused.window_row_chunk = " + std::to_string(shape.row_chunk) +
                    ": the x window loads 16 bytes at a time, a multiple of 4 positions");
    const int group = 32 * shape.row_warps;
    if (shape.row_span != 0 && (shape.row_span % 32 != 0 || group % shape.row_span != 0))
        throw Error("fused.window_row_span = " + std::to_string(shape.row_span) +
                    ": an x window is whole subgroups of 32 chunks, a work group of " +
                    std::to_string(group) + " invocations whole windows");
    if (shape.column_lanes != 0 && shape.column_lanes != 16 && shape.column_lanes != 32)
        throw Error("fused.window_column_lanes = " + std::to_string(shape.column_lanes) +
                    ": a y window's work group takes 16 or 32 columns");
    return shape;
}

namespace {
// Warm-up chunks at both ends of a window.
int warm_up_chunks(int low, int high, int chunk) {
    return (low + chunk - 1) / chunk + (high + chunk - 1) / chunk;
}
}  // namespace

// Why the span grows with the halo: a window stores only its chunks past the warm-up, and every
// chunk loads and eliminates its rows, so the loads and eliminations per stored row are the span
// over the chunks it stores. The vortex's bands (128 rows upstream, 17 of 32 chunks warm-up)
// spent half of each window on its warm-up; in windows of 128 chunks their x sweep took 0.057
// and 0.055 ms at 4096^2 against 0.081 and 0.080 (H100). Where the warm-up is already short
// (the river's 4 chunks of 32), a wider window only leaves fewer windows to spread over the
// multiprocessors: 4% slower at 1024^2 (docs/performance.md).
int AdiModel::row_window_chunks(const WindowHalo& halo, const WindowShape& shape) const {
    if (shape.row_span != 0) return shape.row_span;
    const int warm = warm_up_chunks(halo.low, halo.high, shape.row_chunk);
    const int group = 32 * shape.row_warps;
    int span = 32;
    while (4 * warm > span && span < 128 && group % (2 * span) == 0) span *= 2;
    return span;
}

// The same for y, where a window's chunks are its work group's invocations over its columns:
// 16 columns give twice the chunks of 32 in a group of the same size.
int AdiModel::column_lanes(const WindowHalo& halo, const WindowShape& shape) const {
    if (shape.column_lanes != 0) return shape.column_lanes;
    const int warm = warm_up_chunks(halo.low, halo.high, shape.column_chunk);
    return 4 * warm > shape.column_warps ? 16 : 32;
}

int AdiModel::column_window_chunks(const WindowHalo& halo, const WindowShape& shape) const {
    return 32 * shape.column_warps / column_lanes(halo, shape);
}

bool AdiModel::window_fits(int direction, const WindowHalo& halo, const WindowShape& shape) const {
    if (direction == 0)
        return warm_up_chunks(halo.low, halo.high, shape.row_chunk) <
               row_window_chunks(halo, shape);
    return warm_up_chunks(halo.low, halo.high, shape.column_chunk) <
           column_window_chunks(halo, shape);
}

const gl::Program& AdiModel::window_program(int direction, const WindowHalo& halo,
                                            const WindowShape& shape, const std::string& shader,
                                            gl::Defines defines) const {
    const int chunk = direction == 0 ? shape.row_chunk : shape.column_chunk;
    const int warps = direction == 0 ? shape.row_warps : shape.column_warps;
    defines.push_back({"CHUNK", std::to_string(chunk)});
    if (direction == 0 && row_window_chunks(halo, shape) != 32)
        defines.push_back({"ROW_WINDOW_CHUNKS", std::to_string(row_window_chunks(halo, shape))});
    if (direction == 1 && column_lanes(halo, shape) != 32)
        defines.push_back({"COLUMN_LANES", std::to_string(column_lanes(halo, shape))});
    defines.push_back({"HALO_LOW", std::to_string(halo.low)});
    defines.push_back({"HALO_HIGH", std::to_string(halo.high)});
    defines.push_back({"WARPS", std::to_string(warps)});
    defines.push_back({"GROUP_SIZE", std::to_string(32 * warps)});
    for (const auto& define : specialization()) defines.push_back(define);
    return gl::compute_program(shader, defines);
}

void AdiModel::window_groups(int direction, const WindowHalo& halo, const WindowShape& shape,
                             int lines, unsigned groups[2]) const {
    if (direction == 0) {
        // x: a window of row_window_chunks consecutive chunks of a row (whole subgroups),
        // numbered row by row. Groups go in rows where one row would pass the device's count
        // (8192^2 takes ~10^5 groups; GL promises 65535 a dimension); the windows past the last
        // store nothing.
        const int span = row_window_chunks(halo, shape);
        const long long segment =
            (span - warm_up_chunks(halo.low, halo.high, shape.row_chunk)) * shape.row_chunk;
        const long long windows = (nx_ + segment - 1) / segment * lines;
        const long long per_group = 32 * shape.row_warps / span;
        const long long row_groups = (windows + per_group - 1) / per_group;
        const long long most = std::max(1, gl::Context::current().info().max_work_group_count[0]);
        groups[1] = unsigned((row_groups + most - 1) / most);
        groups[0] = unsigned((row_groups + groups[1] - 1) / groups[1]);
        return;
    }
    // y: a group takes column_lanes columns and one window of stacked chunks down them.
    const int lanes = column_lanes(halo, shape);
    const int segment = (column_window_chunks(halo, shape) -
                         warm_up_chunks(halo.low, halo.high, shape.column_chunk)) *
                        shape.column_chunk;
    groups[0] = unsigned((lines + lanes - 1) / lanes);
    groups[1] = unsigned((ny_ + segment - 1) / segment);
}

AdiModel::WindowBand AdiModel::window_band(int direction, const WindowHalo& halo, int first,
                                           int count, const WindowShape& own,
                                           const std::string& shader, gl::Defines defines) const {
    WindowBand band;
    band.first = first;
    band.count = count;
    if (halo.low == 0 || halo.high == 0 || fused_tuning_.window == 0) return band;
    const WindowShape shape = window_shape(own);
    if (!window_fits(direction, halo, shape)) return band;
    defines.push_back({"WINDOW_BAND", "1"});
    band.program = &window_program(direction, halo, shape, shader, std::move(defines));
    band.halo = halo;
    window_groups(direction, halo, shape, count, band.groups);
    return band;
}

AdiModel::WindowBand AdiModel::stream_band(int direction, const WindowHalo& halo, int first,
                                           int count, const WindowShape& own,
                                           const std::string& shader, gl::Defines defines,
                                           int sweep_lines) const {
    WindowBand band;
    band.first = first;
    band.count = count;
    band.stream = true;
    if (halo.low == 0 || halo.high == 0 || fused_tuning_.window == 0) return band;
    WindowShape shape = window_shape(own);
    const int chunk = direction == 0 ? shape.row_chunk : shape.column_chunk;
    int warps = direction == 0 ? shape.row_warps : shape.column_warps;
    const int lanes = direction == 0 ? 1 : shape.column_lanes != 0 ? shape.column_lanes : 32;
    // Along x a row takes one subgroup (segments of 256 positions, its barriers a subgroup's)
    // unless tuned: at 4096^2 the sweep took 0.068 ms against 0.081 with two, 0.090 with the x
    // window's four and 0.112 with eight (H200, docs/performance.md). Along y every group is
    // resident at once: the H100's and the H200's 132 multiprocessors hold one group of 1,024
    // invocations each at the stream's 61 registers, so past 128 groups, groups of 512 (two a
    // multiprocessor). A group walks its columns from end to end, so a second wave would start
    // only when the first has walked their whole length.
    if (direction == 0 && fused_tuning_.window_row_warps == 0) warps = 1;
    if (direction == 1 && fused_tuning_.window_column_warps == 0 &&
        (sweep_lines + lanes - 1) / lanes > 128)
        warps = 16;
    if ((halo.high + chunk - 1) / chunk >= 32 * warps / lanes) return band;
    // The windows' program with the stream's subgroups, and its columns a group given (32
    // unless tuned: a stream has no warm-up upstream to pick 16 for).
    (direction == 0 ? shape.row_warps : shape.column_warps) = warps;
    if (direction == 1) shape.column_lanes = lanes;
    defines.push_back({"WINDOW_BAND", "1"});
    band.program = &window_program(direction, halo, shape, shader, std::move(defines));
    band.halo = halo;
    // Groups in rows where one row would pass the device's count (GL promises 65535).
    const long long groups = (count + lanes - 1) / lanes;
    const long long most = std::max(1, gl::Context::current().info().max_work_group_count[0]);
    band.groups[1] = unsigned((groups + most - 1) / most);
    band.groups[0] = unsigned((groups + band.groups[1] - 1) / band.groups[1]);
    return band;
}

void AdiModel::banded_half_step(int direction, const gl::Buffer& in, gl::Buffer& out) {
    for (const WindowBand& band : bands_[direction]) {
        use_program(*band.program);
        bind_sweep(direction, in, out);
        if (direction == 0) in.bind_storage(4);  // the same field as vec4s: 16-byte loads
        bind_flag();
        band.program->set("band_first", band.first);
        band.program->set("band_lines", band.count);
        gl::dispatch(band.groups[0], band.groups[1]);
    }
    gl::memory_barrier(gl::Barrier::storage);
}

namespace {
// A window's halos: "<halo>", or "<low>/<high>" where they differ.
std::string halo_name(int low, int high) {
    std::string name = std::to_string(low);
    if (high != low) name.append("/").append(std::to_string(high));
    return name;
}
}  // namespace

std::string AdiModel::kernel() const {
    if (!bands_[0].empty() || !bands_[1].empty()) {
        // Both sweeps by line streams only: "scan-streams-H"; else the bands, a stream among
        // them named "stream<low>/<high>".
        const auto only_streams = [this](int d) {
            return !bands_[d].empty() &&
                   std::all_of(bands_[d].begin(), bands_[d].end(),
                               [](const WindowBand& band) { return band.stream; });
        };
        const bool streams = only_streams(0) && only_streams(1);
        std::string name = streams        ? "scan-streams-H"
                           : window_scan_ ? "scan-bands-H"
                                          : "window-bands-H";
        for (int d = 0; d < 2; ++d) {
            if (d == 1) name.append(",");
            for (std::size_t i = 0; i < bands_[d].size(); ++i) {
                if (i > 0) name.append("+");
                if (bands_[d][i].stream && !streams) name.append("stream");
                // a band's halos both written, "<low>/<high>"
                name.append(std::to_string(bands_[d][i].halo.low))
                    .append("/")
                    .append(std::to_string(bands_[d][i].halo.high));
            }
        }
        return name;
    }
    if (!window_[0] || !window_[1]) return solver();
    const std::string x = halo_name(window_halo_[0].low, window_halo_[0].high);
    const std::string y = halo_name(window_halo_[1].low, window_halo_[1].high);
    std::string name = window_scan_ ? "scan-H" : "window-H";
    name.append(x);
    if (y != x) name.append(",").append(y);
    return name;
}

}  // namespace adilab::sim::detail
