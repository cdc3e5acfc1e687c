#include "app/gui/chart.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace adilab::gui {

namespace {

bool has_value(const bench::Row& row, const std::string& key) {
    const bench::Value* v = row.find(key);
    return v != nullptr && !std::holds_alternative<std::monostate>(*v);
}

std::string series_label(const bench::Row& row, const std::vector<std::string>& keys) {
    std::string label;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (!has_value(row, keys[k])) continue;
        const std::string text = row.text(keys[k]);
        if (!label.empty()) label += ' ';
        // A word names itself ("x", "general"); a bare number would not say what it counts.
        const bool number = !std::holds_alternative<std::string>(*row.find(keys[k]));
        label += k == 0 || !number ? text : keys[k] + "=" + text;
    }
    return label.empty() ? std::string("(unnamed)") : label;
}

double log_base(double value, int base) {
    return base == 2 ? std::log2(value) : std::log10(value);
}

double power_of(int base, double exponent) {
    return base == 2 ? std::exp2(exponent) : std::pow(10.0, exponent);
}

std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks) {
    std::vector<Tick> ticks;
    if (!(hi > lo)) return ticks;
    const double raw = (hi - lo) / std::max(1, max_ticks - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double residual = raw / magnitude;
    const double step = (residual <= 1.0   ? 1.0
                         : residual <= 2.0 ? 2.0
                         : residual <= 5.0 ? 5.0
                                           : 10.0) *
                        magnitude;
    for (double i = std::ceil(lo / step); i * step <= hi + step * 1e-9; i += 1.0) {
        double value = i * step;
        if (std::fabs(value) < step * 1e-9) value = 0.0;  // no "-0"
        ticks.push_back({value, format_tick(value)});
    }
    return ticks;
}

}  // namespace

std::vector<Series> make_series(const std::vector<bench::Row>& rows, const ChartSpec& spec,
                                int* skipped) {
    std::vector<Series> out;
    int left_out = 0;
    for (const bench::Row& row : rows) {
        const double x = row.number(spec.x_key), y = row.number(spec.y_key);
        if (!std::isfinite(x) || !std::isfinite(y) || (spec.log_x && x <= 0.0) ||
            (spec.log_y && y <= 0.0)) {
            ++left_out;
            continue;
        }
        const std::string label = series_label(row, spec.series_keys);
        auto found =
            std::find_if(out.begin(), out.end(), [&](const Series& s) { return s.label == label; });
        if (found == out.end()) {
            out.push_back({label, {}});
            found = out.end() - 1;
        }
        found->points.push_back({x, y});
    }
    for (Series& s : out)
        std::stable_sort(s.points.begin(), s.points.end(),
                         [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    if (skipped != nullptr) *skipped = left_out;
    return out;
}

std::vector<std::string> numeric_keys(const std::vector<bench::Row>& rows) {
    std::vector<std::string> keys;
    for (const bench::Row& row : rows) {
        for (const bench::Field& field : row.fields()) {
            const bool numeric = std::holds_alternative<double>(field.value) ||
                                 std::holds_alternative<std::int64_t>(field.value);
            if (numeric && std::find(keys.begin(), keys.end(), field.key) == keys.end())
                keys.push_back(field.key);
        }
    }
    return keys;
}

Axis Axis::fit(const std::vector<double>& values, bool log, int base) {
    Axis axis;
    axis.log = log;
    axis.base = base == 2 ? 2 : 10;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (values.empty()) lo = log ? 1.0 : 0.0, hi = log ? 10.0 : 1.0;
    if (log) {
        // Work in exponents: half a power of the base around a single value, then a 5% margin.
        double u_lo = log_base(lo, axis.base), u_hi = log_base(hi, axis.base);
        if (u_hi - u_lo < 1e-9) u_lo -= 0.5, u_hi += 0.5;
        const double margin = 0.05 * (u_hi - u_lo);
        axis.lo = power_of(axis.base, u_lo - margin);
        axis.hi = power_of(axis.base, u_hi + margin);
    } else {
        if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
            const double half = lo == 0.0 ? 1.0 : 0.5 * std::fabs(lo);
            lo -= half, hi += half;
        }
        const double margin = 0.05 * (hi - lo);
        axis.lo = lo - margin;
        axis.hi = hi + margin;
    }
    return axis;
}

double Axis::fraction(double value) const {
    if (log) {
        const double a = log_base(lo, base), b = log_base(hi, base);
        return (log_base(value, base) - a) / (b - a);
    }
    return (value - lo) / (hi - lo);
}

std::vector<Tick> Axis::ticks(int max_ticks) const {
    max_ticks = std::max(2, max_ticks);
    if (!log) return linear_ticks(lo, hi, max_ticks);
    const double eps = 1e-9;
    const int first = static_cast<int>(std::ceil(log_base(lo, base) - eps));
    const int last = static_cast<int>(std::floor(log_base(hi, base) + eps));
    const int count = last - first + 1;
    std::vector<Tick> ticks;
    if (count > 0) {
        // Every k-th power, on multiples of k so that zooming keeps the same ticks.
        const int step = (count + max_ticks - 1) / max_ticks;
        for (int k = first; k <= last; ++k) {
            if (((k % step) + step) % step != 0) continue;
            const double value = power_of(base, k);
            ticks.push_back({value, format_tick(value)});
        }
    }
    if (base == 10 && log_base(hi, 10) - log_base(lo, 10) < 2.0) {
        // Under two decades the powers of ten alone leave the axis nearly bare: add 2x and 5x.
        std::vector<Tick> finer;
        for (int k = first - 1; k <= last; ++k) {
            for (double m : {1.0, 2.0, 5.0}) {
                const double value = m * std::pow(10.0, k);
                if (value >= lo * (1 - eps) && value <= hi * (1 + eps))
                    finer.push_back({value, format_tick(value)});
            }
        }
        if (static_cast<int>(finer.size()) <= max_ticks) ticks = std::move(finer);
    }
    if (ticks.empty()) return linear_ticks(lo, hi, std::min(max_ticks, 3));
    return ticks;
}

std::string format_tick(double value) {
    if (value == 0.0) return "0";
    const double a = std::fabs(value);
    char text[32];
    if (a >= 1e4 && a < 1e15) {
        static const struct {
            double unit;
            const char* suffix;
        } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
        for (const auto& u : units) {
            if (a >= u.unit) {
                std::snprintf(text, sizeof text, "%.3g%s", value / u.unit, u.suffix);
                return text;
            }
        }
    }
    std::snprintf(text, sizeof text, a >= 1e-3 ? "%.4g" : "%.3g", value);
    return text;
}

std::string format_number(double value, int significant) {
    if (!std::isfinite(value)) return "-";
    if (value == 0.0) return "0";
    significant = std::clamp(significant, 1, 17);
    const double a = std::fabs(value);
    char text[48];
    if (a < 1e-3 || a >= 1e6) {
        std::snprintf(text, sizeof text, "%.*g", significant, value);
        return text;
    }
    // Plain: as many decimals as leave `significant` figures, none for numbers that already have
    // that many digits before the point (1493.764 -> "1494", 21909.3 -> "21909").
    const int digits_before = static_cast<int>(std::floor(std::log10(a))) + 1;
    int decimals = std::max(0, significant - digits_before);
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    // Rounding may carry into a new digit (9.9996 -> "10.000"): one decimal fewer then.
    if (decimals > 0 && std::fabs(std::strtod(text, nullptr)) >= std::pow(10.0, digits_before))
        std::snprintf(text, sizeof text, "%.*f", decimals - 1, value);
    return text;
}

std::string format_cell(const bench::Value& value) {
    if (const double* d = std::get_if<double>(&value)) return format_number(*d);
    return bench::format_value(value);
}

std::string axis_title(const std::string& key) {
    static const struct {
        const char* key;
        const char* title;
    } known[] = {
        {"median_ms", "median time (ms)"},
        {"min_ms", "fastest time (ms)"},
        {"max_ms", "slowest time (ms)"},
        {"median_ms_with_transfer", "time with transfers (ms)"},
        {"gflops", "GFLOP/s"},
        {"gflops_with_transfer", "GFLOP/s with transfers"},
        {"gb_per_s", "GB/s"},
        {"mib", "buffer size (MiB)"},
        {"n", "matrix size n"},
        {"m", "rows of A (m)"},
        {"l", "columns of B (l)"},
        {"grid", "grid size n (n x n)"},
        {"rows", "matrix rows"},
        {"nnz", "nonzeros"},
        {"nnz_per_row", "nonzeros per row"},
        {"block", "block size"},
        {"steps", "steps per interval"},
        {"ms_per_step", "time per step (ms)"},
        {"ms_per_iteration", "time per iteration (ms)"},
        {"steps_per_s", "steps/s"},
        {"cells_per_s", "cells/s"},
        {"fps_one_step_per_frame", "frames/s (1 step a frame)"},
        {"fps_rendered", "frames/s drawn"},
        {"iterations", "iterations"},
        {"max_rel_error", "max relative error"},
        {"residual", "residual"},
        {"factor_residual", "factorisation residual"},
        {"solve_residual", "solve residual"},
    };
    for (const auto& k : known)
        if (key == k.key) return k.title;
    if (key.starts_with("speedup_vs_")) return "speed-up vs " + key.substr(11) + " (x)";
    if (key == "speedup") return "speed-up (x)";
    // Unknown: the key with spaces, and the unit its suffix names.
    std::string words = key;
    std::string unit;
    for (const auto& [suffix, name] : {std::pair<std::string, std::string>{"_ms", "ms"},
                                       {"_gflops", "GFLOP/s"},
                                       {"_gb_s", "GB/s"},
                                       {"_per_s", "/s"}}) {
        if (words.size() > suffix.size() && words.ends_with(suffix)) {
            words.resize(words.size() - suffix.size());
            unit = name;
            break;
        }
    }
    std::replace(words.begin(), words.end(), '_', ' ');
    if (unit == "/s") return words + "/s";
    return unit.empty() ? words : words + " (" + unit + ")";
}

bool joined(const ChartPoint& a, const ChartPoint& b) {
    return b.x > a.x;
}

namespace {

// Whether the segment p-q meets the box (Liang-Barsky clipping).
bool segment_meets(const ChartPoint& p, const ChartPoint& q, const Box& box) {
    double t0 = 0.0, t1 = 1.0;
    const double dx = q.x - p.x, dy = q.y - p.y;
    const double edges[4][2] = {
        {-dx, p.x - box.x0}, {dx, box.x1 - p.x}, {-dy, p.y - box.y0}, {dy, box.y1 - p.y}};
    for (const auto& [direction, distance] : edges) {
        if (direction == 0.0) {
            if (distance < 0.0) return false;  // parallel to this edge and outside it
            continue;
        }
        const double t = distance / direction;
        if (direction < 0.0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    return true;
}

}  // namespace

LegendPlace place_legend(const std::vector<std::vector<ChartPoint>>& screen_points, Box plot,
                         double width, double height, double inset, double radius) {
    const LegendPlace corners[] = {LegendPlace::top_left, LegendPlace::top_right,
                                   LegendPlace::bottom_left, LegendPlace::bottom_right};
    for (LegendPlace corner : corners) {
        const bool left = corner == LegendPlace::top_left || corner == LegendPlace::bottom_left;
        const bool top = corner == LegendPlace::top_left || corner == LegendPlace::top_right;
        const double x0 = left ? plot.x0 + inset : plot.x1 - inset - width;
        const double y0 = top ? plot.y0 + inset : plot.y1 - inset - height;
        if (x0 < plot.x0 || y0 < plot.y0 || x0 + width > plot.x1 || y0 + height > plot.y1)
            continue;  // the plot is smaller than the legend
        // The legend's box grown by a marker's radius: a marker touching it counts as covered.
        const Box box{x0 - radius, y0 - radius, x0 + width + radius, y0 + height + radius};
        bool free = true;
        for (const auto& points : screen_points) {
            for (std::size_t k = 0; k < points.size() && free; ++k) {
                const ChartPoint& p = points[k];
                if (p.x >= box.x0 && p.x <= box.x1 && p.y >= box.y0 && p.y <= box.y1) free = false;
                if (k > 0 && joined(points[k - 1], p) && segment_meets(points[k - 1], p, box))
                    free = false;
            }
            if (!free) break;
        }
        if (free) return corner;
    }
    return LegendPlace::below;
}

Rgb series_colour(std::size_t index) {
    static const Rgb palette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                                  {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                                  {188, 189, 34},  {23, 190, 207}};
    return palette[index % (sizeof palette / sizeof palette[0])];
}

void draw_chart(const char* id, const std::vector<Series>& series, const ChartSpec& spec,
                float width, float height) {
    ImGui::PushID(id);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImVec2 size(std::max(width, 40.0f), std::max(height, 40.0f));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim_colour = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float line = ImGui::GetTextLineHeight();
    const std::string x_label = spec.x_label.empty() ? axis_title(spec.x_key) : spec.x_label;
    const std::string y_label = spec.y_label.empty() ? axis_title(spec.y_key) : spec.y_label;

    std::vector<double> xs, ys;
    for (const Series& s : series) {
        for (const ChartPoint& p : s.points) {
            xs.push_back(p.x);
            ys.push_back(p.y);
        }
    }
    if (xs.empty()) {
        ImGui::InvisibleButton("chart", size);
        draw->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y),
                            ImGui::GetColorU32(ImGuiCol_FrameBg));
        const std::string message = "nothing to plot (" + y_label + " against " + x_label + ")";
        const ImVec2 text = ImGui::CalcTextSize(message.c_str());
        draw->AddText(ImVec2(origin.x + (size.x - text.x) / 2, origin.y + (size.y - text.y) / 2),
                      dim_colour, message.c_str());
        ImGui::PopID();
        return;
    }
    const Axis x_axis = Axis::fit(xs, spec.log_x, spec.x_log_base);
    const Axis y_axis = Axis::fit(ys, spec.log_y, 10);

    // Margins: y tick labels on the left, the y title above the plot, x tick labels and the x
    // title below it.
    const float pad = 6.0f;
    const std::vector<Tick> y_ticks =
        y_axis.ticks(std::max(2, static_cast<int>(size.y / (2.5f * line))));
    float label_width = 0.0f;
    for (const Tick& t : y_ticks)
        label_width = std::max(label_width, ImGui::CalcTextSize(t.label.c_str()).x);
    const ImVec2 p0(origin.x + label_width + 2 * pad, origin.y + line + 2 * pad);
    const ImVec2 p1(origin.x + size.x - 2 * pad, origin.y + size.y - 2 * line - 2 * pad);

    // The legend: a list in a corner of the plot that holds no marker and no line, else rows
    // under the chart, outside the plot: the chart grows by their height.
    const float swatch = line * 0.7f;
    const float entry_height = line + 2.0f;
    std::vector<float> entry_widths;
    float legend_width = 0.0f;
    for (const Series& s : series) {
        entry_widths.push_back(swatch + pad + ImGui::CalcTextSize(s.label.c_str()).x);
        legend_width = std::max(legend_width, entry_widths.back());
    }
    const ImVec2 corner_legend(legend_width + 2 * pad,
                               pad + static_cast<float>(series.size()) * entry_height);
    const float marker = 3.5f, lone_marker = 4.5f;
    auto to_screen = [&](const ChartPoint& p) {
        return ChartPoint{p0.x + x_axis.fraction(p.x) * (p1.x - p0.x),
                          p1.y - y_axis.fraction(p.y) * (p1.y - p0.y)};
    };
    auto screen_points = [&] {
        std::vector<std::vector<ChartPoint>> out;
        for (const Series& s : series) {
            out.emplace_back();
            for (const ChartPoint& p : s.points) out.back().push_back(to_screen(p));
        }
        return out;
    };
    const std::vector<std::vector<ChartPoint>> screen = screen_points();
    const LegendPlace place = place_legend(screen, {p0.x, p0.y, p1.x, p1.y}, corner_legend.x,
                                           corner_legend.y, pad, lone_marker + 2.0f);
    // Below: entries side by side, wrapped to the chart's width.
    std::vector<ImVec2> below_at;  // offsets of each entry from the legend's top left
    float below_height = 0.0f;
    if (place == LegendPlace::below) {
        float x = 0.0f, y = 0.0f;
        const float room = size.x - 2 * pad;
        for (float w : entry_widths) {
            if (x > 0.0f && x + w > room) x = 0.0f, y += entry_height;
            below_at.emplace_back(x, y);
            x += w + 3 * pad;
        }
        below_height = y + entry_height + pad;
        size.y += below_height;
    }
    ImGui::InvisibleButton("chart", size);
    const bool hovered = ImGui::IsItemHovered();
    const ImVec2 end(origin.x + size.x, origin.y + size.y);
    draw->AddRectFilled(origin, end, ImGui::GetColorU32(ImGuiCol_FrameBg));
    if (p1.x - p0.x < 20.0f || p1.y - p0.y < 20.0f) {
        ImGui::PopID();
        return;
    }
    auto to_imvec = [](const ChartPoint& p) {
        return ImVec2(static_cast<float>(p.x), static_cast<float>(p.y));
    };

    const ImU32 grid_colour = IM_COL32(255, 255, 255, 28);
    for (const Tick& t : y_ticks) {
        const float y = static_cast<float>(to_screen({x_axis.lo, t.value}).y);
        if (y < p0.y - 0.5f || y > p1.y + 0.5f) continue;
        draw->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), grid_colour);
        const ImVec2 text = ImGui::CalcTextSize(t.label.c_str());
        draw->AddText(ImVec2(p0.x - pad - text.x, y - text.y / 2), dim_colour, t.label.c_str());
    }
    // X tick labels must not overlap: allow as many as the widest label leaves room for.
    float widest = ImGui::CalcTextSize(format_tick(x_axis.hi).c_str()).x + 2 * pad;
    widest = std::max(widest, ImGui::CalcTextSize("0000").x + 2 * pad);
    const std::vector<Tick> x_ticks =
        x_axis.ticks(std::max(2, static_cast<int>((p1.x - p0.x) / widest)));
    for (const Tick& t : x_ticks) {
        const float x = static_cast<float>(to_screen({t.value, y_axis.lo}).x);
        draw->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), grid_colour);
        const ImVec2 text = ImGui::CalcTextSize(t.label.c_str());
        draw->AddText(ImVec2(x - text.x / 2, p1.y + pad / 2), dim_colour, t.label.c_str());
    }
    draw->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Border));
    const std::string y_title = y_label + (spec.log_y ? "  (log scale)" : "");
    draw->AddText(ImVec2(origin.x + pad, origin.y + pad), text_colour, y_title.c_str());
    const std::string x_title = x_label + (spec.log_x ? "  (log scale)" : "");
    const ImVec2 x_text = ImGui::CalcTextSize(x_title.c_str());
    draw->AddText(ImVec2((p0.x + p1.x - x_text.x) / 2, p1.y + line + pad), text_colour,
                  x_title.c_str());

    // Lines where x grows, and markers, clipped to the plot; a point with no line to either
    // neighbour gets a larger marker.
    draw->PushClipRect(p0, p1, true);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    float nearest = 10.0f * 10.0f;  // hover radius of 10 px, squared
    const Series* hover_series = nullptr;
    const ChartPoint* hover_point = nullptr;
    ImVec2 hover_at;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const Rgb c = series_colour(i);
        const ImU32 colour = IM_COL32(c.r, c.g, c.b, 255);
        const std::vector<ChartPoint>& points = screen[i];
        for (std::size_t k = 1; k < points.size(); ++k)
            if (joined(points[k - 1], points[k]))
                draw->AddLine(to_imvec(points[k - 1]), to_imvec(points[k]), colour, 2.0f);
        for (std::size_t k = 0; k < points.size(); ++k) {
            const bool lone = (k == 0 || !joined(points[k - 1], points[k])) &&
                              (k + 1 == points.size() || !joined(points[k], points[k + 1]));
            draw->AddCircleFilled(to_imvec(points[k]), lone ? lone_marker : marker, colour);
            const float dx = static_cast<float>(points[k].x) - mouse.x;
            const float dy = static_cast<float>(points[k].y) - mouse.y;
            if (hovered && dx * dx + dy * dy < nearest) {
                nearest = dx * dx + dy * dy;
                hover_series = &series[i];
                hover_point = &series[i].points[k];
                hover_at = to_imvec(points[k]);
            }
        }
    }
    draw->PopClipRect();

    auto draw_entry = [&](std::size_t i, ImVec2 at) {
        const Rgb c = series_colour(i);
        const ImVec2 s0(at.x, at.y + (line - swatch) / 2);
        draw->AddRectFilled(s0, ImVec2(s0.x + swatch, s0.y + swatch), IM_COL32(c.r, c.g, c.b, 255));
        draw->AddText(ImVec2(s0.x + swatch + pad, at.y), text_colour, series[i].label.c_str());
    };
    if (place == LegendPlace::below) {
        const ImVec2 l0(origin.x + pad, end.y - below_height);
        for (std::size_t i = 0; i < series.size(); ++i)
            draw_entry(i, ImVec2(l0.x + below_at[i].x, l0.y + below_at[i].y));
    } else {
        const bool left = place == LegendPlace::top_left || place == LegendPlace::bottom_left;
        const bool top = place == LegendPlace::top_left || place == LegendPlace::top_right;
        const ImVec2 l0(left ? p0.x + pad : p1.x - pad - corner_legend.x,
                        top ? p0.y + pad : p1.y - pad - corner_legend.y);
        draw->AddRectFilled(l0, ImVec2(l0.x + corner_legend.x, l0.y + corner_legend.y),
                            IM_COL32(20, 22, 28, 210), 3.0f);
        for (std::size_t i = 0; i < series.size(); ++i)
            draw_entry(i,
                       ImVec2(l0.x + pad, l0.y + pad / 2 + static_cast<float>(i) * entry_height));
    }

    if (hover_point != nullptr) {
        draw->AddCircle(hover_at, 6.0f, text_colour, 0, 1.5f);
        ImGui::SetTooltip("%s\n%s: %s\n%s: %s", hover_series->label.c_str(), x_label.c_str(),
                          format_number(hover_point->x, 6).c_str(), y_label.c_str(),
                          format_number(hover_point->y, 6).c_str());
    }
    ImGui::PopID();
}

}  // namespace adilab::gui
