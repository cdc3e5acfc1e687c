#include "app/gui/chart.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

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
        label += k == 0 ? text : keys[k] + "=" + text;
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
    const double step =
        (residual <= 1.0 ? 1.0 : residual <= 2.0 ? 2.0 : residual <= 5.0 ? 5.0 : 10.0) * magnitude;
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
        auto found = std::find_if(out.begin(), out.end(),
                                  [&](const Series& s) { return s.label == label; });
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

Rgb series_colour(std::size_t index) {
    static const Rgb palette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                  {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                                  {188, 189, 34},  {23, 190, 207}};
    return palette[index % (sizeof palette / sizeof palette[0])];
}

void draw_chart(const char* id, const std::vector<Series>& series, const ChartSpec& spec,
                float width, float height) {
    ImGui::PushID(id);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 size(std::max(width, 40.0f), std::max(height, 40.0f));
    ImGui::InvisibleButton("chart", size);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 end(origin.x + size.x, origin.y + size.y);
    draw->AddRectFilled(origin, end, ImGui::GetColorU32(ImGuiCol_FrameBg));
    const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim_colour = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float line = ImGui::GetTextLineHeight();
    const std::string x_label = spec.x_label.empty() ? spec.x_key : spec.x_label;
    const std::string y_label = spec.y_label.empty() ? spec.y_key : spec.y_label;

    std::vector<double> xs, ys;
    for (const Series& s : series) {
        for (const ChartPoint& p : s.points) {
            xs.push_back(p.x);
            ys.push_back(p.y);
        }
    }
    if (xs.empty()) {
        const std::string message = "nothing to plot (" + y_label + " against " + x_label + ")";
        const ImVec2 text = ImGui::CalcTextSize(message.c_str());
        draw->AddText(ImVec2(origin.x + (size.x - text.x) / 2, origin.y + (size.y - text.y) / 2),
                      dim_colour, message.c_str());
        ImGui::PopID();
        return;
    }
    const Axis x_axis = Axis::fit(xs, spec.log_x, spec.x_log_base);
    const Axis y_axis = Axis::fit(ys, spec.log_y, 10);

    // Margins: y tick labels on the left, the y label above the plot, x tick labels and the x
    // label below it.
    const float pad = 6.0f;
    const std::vector<Tick> y_ticks = y_axis.ticks(std::max(2, static_cast<int>(size.y / (2.5f * line))));
    float label_width = 0.0f;
    for (const Tick& t : y_ticks) label_width = std::max(label_width, ImGui::CalcTextSize(t.label.c_str()).x);
    const ImVec2 p0(origin.x + label_width + 2 * pad, origin.y + line + 2 * pad);
    const ImVec2 p1(end.x - 2 * pad, end.y - 2 * line - 2 * pad);
    if (p1.x - p0.x < 20.0f || p1.y - p0.y < 20.0f) {
        ImGui::PopID();
        return;
    }
    auto to_screen = [&](const ChartPoint& p) {
        return ImVec2(p0.x + static_cast<float>(x_axis.fraction(p.x)) * (p1.x - p0.x),
                      p1.y - static_cast<float>(y_axis.fraction(p.y)) * (p1.y - p0.y));
    };

    const ImU32 grid_colour = IM_COL32(255, 255, 255, 28);
    for (const Tick& t : y_ticks) {
        const float y = to_screen({x_axis.lo, t.value}).y;
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
        const float x = to_screen({t.value, y_axis.lo}).x;
        draw->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), grid_colour);
        const ImVec2 text = ImGui::CalcTextSize(t.label.c_str());
        draw->AddText(ImVec2(x - text.x / 2, p1.y + pad / 2), dim_colour, t.label.c_str());
    }
    draw->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Border));
    const std::string y_title = y_label + (spec.log_y ? "  (log)" : "");
    draw->AddText(ImVec2(origin.x + pad, origin.y + pad), text_colour, y_title.c_str());
    const std::string x_title =
        x_label + (!spec.log_x ? "" : x_axis.base == 2 ? "  (log2)" : "  (log)");
    const ImVec2 x_text = ImGui::CalcTextSize(x_title.c_str());
    draw->AddText(ImVec2((p0.x + p1.x - x_text.x) / 2, p1.y + line + pad), text_colour,
                  x_title.c_str());

    // Lines and markers, clipped to the plot.
    draw->PushClipRect(p0, p1, true);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    float nearest = 10.0f * 10.0f;  // hover radius of 10 px, squared
    const Series* hover_series = nullptr;
    const ChartPoint* hover_point = nullptr;
    ImVec2 hover_at;
    std::vector<ImVec2> screen;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const Rgb c = series_colour(i);
        const ImU32 colour = IM_COL32(c.r, c.g, c.b, 255);
        screen.clear();
        for (const ChartPoint& p : series[i].points) screen.push_back(to_screen(p));
        if (screen.size() > 1)
            draw->AddPolyline(screen.data(), static_cast<int>(screen.size()), colour, 0, 2.0f);
        for (std::size_t k = 0; k < screen.size(); ++k) {
            draw->AddCircleFilled(screen[k], 3.5f, colour);
            const float dx = screen[k].x - mouse.x, dy = screen[k].y - mouse.y;
            if (hovered && dx * dx + dy * dy < nearest) {
                nearest = dx * dx + dy * dy;
                hover_series = &series[i];
                hover_point = &series[i].points[k];
                hover_at = screen[k];
            }
        }
    }
    draw->PopClipRect();

    // Legend in the corner of the plot that hides the fewest points.
    float legend_width = 0.0f;
    for (const Series& s : series)
        legend_width = std::max(legend_width, ImGui::CalcTextSize(s.label.c_str()).x);
    const float swatch = line * 0.7f;
    const ImVec2 legend_size(swatch + 3 * pad + legend_width,
                             pad + static_cast<float>(series.size()) * (line + 2.0f));
    ImVec2 l0(p0.x + pad, p0.y + pad);
    int least_hidden = -1;
    for (int corner = 0; corner < 4; ++corner) {
        const ImVec2 c0(corner % 2 == 0 ? p0.x + pad : p1.x - pad - legend_size.x,
                        corner < 2 ? p0.y + pad : p1.y - pad - legend_size.y);
        int hidden = 0;
        for (const Series& s : series) {
            for (const ChartPoint& p : s.points) {
                const ImVec2 q = to_screen(p);
                hidden += q.x >= c0.x - 4 && q.x <= c0.x + legend_size.x + 4 && q.y >= c0.y - 4 &&
                          q.y <= c0.y + legend_size.y + 4;
            }
        }
        if (least_hidden < 0 || hidden < least_hidden) least_hidden = hidden, l0 = c0;
    }
    const ImVec2 l1(l0.x + legend_size.x, l0.y + legend_size.y);
    draw->AddRectFilled(l0, l1, IM_COL32(20, 22, 28, 210), 3.0f);
    for (std::size_t i = 0; i < series.size(); ++i) {
        const Rgb c = series_colour(i);
        const float y = l0.y + pad / 2 + static_cast<float>(i) * (line + 2.0f);
        const ImVec2 s0(l0.x + pad, y + (line - swatch) / 2);
        draw->AddRectFilled(s0, ImVec2(s0.x + swatch, s0.y + swatch), IM_COL32(c.r, c.g, c.b, 255));
        draw->AddText(ImVec2(s0.x + swatch + pad, y), text_colour, series[i].label.c_str());
    }

    if (hover_point != nullptr) {
        draw->AddCircle(hover_at, 6.0f, text_colour, 0, 1.5f);
        ImGui::SetTooltip("%s\n%s: %s\n%s: %s", hover_series->label.c_str(), x_label.c_str(),
                          format_tick(hover_point->x).c_str(), y_label.c_str(),
                          format_tick(hover_point->y).c_str());
    }
    ImGui::PopID();
}

}  // namespace adilab::gui
