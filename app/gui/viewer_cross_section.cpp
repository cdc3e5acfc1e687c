// The cross-section: a line dragged across the field (Ctrl+drag in the viewport, viewer_input.cpp),
// the field along it read from the GPU when the line or the field changed (at most ten times a
// second; the plot is drawn in viewer_overlay.cpp), and the plotted values saved as CSV.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/files/paths.hpp"
#include "app/gui/viewer.hpp"
#include "solvers/common/files.hpp"

namespace adilab::gui {

namespace {

// The cross-section's plot follows a drag or a running field at up to 10 reads a second: a
// gather of at most 4096 floats and their read-back, which waits for the GPU's queue.
constexpr double kLineReadInterval_s = 0.1;
constexpr int kMaxLineSamples = 4096;

}  // namespace

std::vector<glm::ivec2> cells_along(glm::vec2 from, glm::vec2 to, int nx, int ny) {
    // One sample per cell along the longer side (the line crosses that many columns or rows),
    // each at its point's cell: a plot of the values the cells hold, no interpolation.
    const glm::vec2 d = to - from;
    const int n =
        std::clamp(static_cast<int>(std::ceil(std::max(std::abs(d.x), std::abs(d.y)))) + 1, 2,
                   kMaxLineSamples);
    std::vector<glm::ivec2> cells;
    cells.reserve(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        const glm::vec2 p = from + d * (float(k) / float(n - 1));
        cells.emplace_back(std::clamp(static_cast<int>(std::floor(p.x)), 0, nx - 1),
                           std::clamp(static_cast<int>(std::floor(p.y)), 0, ny - 1));
    }
    return cells;
}

void Viewer::begin_cross_section(glm::vec2 cell) {
    cross_section_ = CrossSection{};
    cross_section_->from = cell;
    cross_section_->to = cell;
    line_dragging_ = true;
    resample_cross_section();
}

void Viewer::move_cross_section_end(glm::vec2 cell) {
    if (!cross_section_ || cell == cross_section_->to) return;
    cross_section_->to = cell;
    resample_cross_section();
}

void Viewer::clear_cross_section() {
    cross_section_.reset();
    line_dragging_ = false;
}

void Viewer::resample_cross_section() {
    CrossSection& line = *cross_section_;
    line.cells = cells_along(line.from, line.to, sim_->nx(), sim_->ny());
    const glm::vec2 span = glm::vec2(line.cells.back() - line.cells.front());
    line.length_m = double(glm::length(span)) * sim_->param("dh");
    line_changed_ = true;
}

void Viewer::read_cross_section(double frame_ms) {
    since_line_read_s_ += frame_ms / 1000.0;
    if (!cross_section_ || !(line_changed_ || field_changed_) ||
        since_line_read_s_ < kLineReadInterval_s)
        return;
    CrossSection& line = *cross_section_;
    std::vector<std::uint32_t> indices;
    indices.reserve(line.cells.size());
    for (const glm::ivec2& c : line.cells)
        indices.push_back(static_cast<std::uint32_t>(c.y) * static_cast<std::uint32_t>(sim_->nx()) +
                          static_cast<std::uint32_t>(c.x));
    line.values = line_sampler_.sample(sim_->field(), indices);
    line_changed_ = field_changed_ = false;
    since_line_read_s_ = 0;
}

void Viewer::save_cross_section() {
    if (!cross_section_ || cross_section_->values.empty()) {
        report_error("no cross-section to save: Ctrl+drag across the field first");
        return;
    }
    // The plotted values exactly: nine significant digits give a float back bit for bit.
    const CrossSection& line = *cross_section_;
    std::string csv = "distance_m,i,j,value\n";
    char row[96];
    for (std::size_t k = 0; k < line.values.size() && k < line.cells.size(); ++k) {
        std::snprintf(row, sizeof row, "%.9g,%d,%d,%.9g\n", line.distance_m(k), line.cells[k].x,
                      line.cells[k].y, double(line.values[k]));
        csv += row;
    }
    try {
        files::write_file_atomically(files_.line_csv_path, csv);
        notify("cross-section " + files::absolute_text(files_.line_csv_path) + " (" +
               std::to_string(line.values.size()) + " cells, " + model_info().field_name +
               " at step " + std::to_string(stats_.steps) + ")");
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

}  // namespace adilab::gui
