#pragma once
// A small line chart of benchmark rows, drawn with ImGui's draw list: one series per value of the
// series key (the row's `name`: an implementation or variant), y against x, log or linear axes,
// ticks, axis titles with units, a legend that never covers data, and a tooltip on the nearest
// point.
//
// The geometry (series grouping, axis ranges, tick values and labels, the legend's place) and
// the number formats are plain C++ so that the tests check them without a window; only
// draw_chart touches ImGui.
#include <string>
#include <vector>

#include "app/bench/report.hpp"

namespace adilab::gui {

// What a benchmark tab plots by default. The user may pick other columns in the tab.
struct ChartSpec {
    std::string x_key;  // e.g. "n"
    std::string y_key;  // e.g. "gflops"
    // The series a row belongs to: these fields' values joined, the first and any text bare,
    // numbers as "key=value" (e.g. {"name", "block"} -> "gpu-blocked block=32", {"name",
    // "direction"} -> "lu-scan x"); missing values are left out.
    std::vector<std::string> series_keys = {"name"};
    bool log_x = true;
    int x_log_base = 2;   // sizes that double (128, 256, ...) tick at powers of 2; 10 for decades
    bool log_y = true;    // rates and times span decades: log10 ticks
    std::string x_label;  // defaults to axis_title(x_key)
    std::string y_label;  // defaults to axis_title(y_key)
};

struct ChartPoint {
    double x = 0.0, y = 0.0;
};

struct Series {
    std::string label;
    std::vector<ChartPoint> points;  // sorted by x
};

// Groups rows into series in first-seen order. Rows whose x or y is missing, not a number, or
// not positive on a log axis are left out (a log axis has no place for them); `skipped` counts
// them.
std::vector<Series> make_series(const std::vector<bench::Row>& rows, const ChartSpec& spec,
                                int* skipped = nullptr);

// The fields of `rows` that hold numbers in at least one row, in first-seen order: what the
// x and y choosers offer.
std::vector<std::string> numeric_keys(const std::vector<bench::Row>& rows);

struct Tick {
    double value = 0.0;
    std::string label;
};

// An axis over [lo, hi] in data units. Log axes need lo > 0. `base` is 2 or 10 for log axes.
struct Axis {
    double lo = 0.0, hi = 1.0;
    bool log = false;
    int base = 10;

    // Fits the axis to `values` (at least one; non-positive ones must be removed for a log
    // axis), with a margin so that no point sits on the frame. A single value gets a range
    // around it.
    static Axis fit(const std::vector<double>& values, bool log, int base);
    // Position of `value` along the axis: 0 at lo, 1 at hi.
    double fraction(double value) const;
    // At most `max_ticks` ticks inside [lo, hi]: powers of the base on log axes (thinned to
    // every k-th power when there are too many; 2 and 5 times the powers of ten added when a
    // log10 axis spans less than two decades), 1-2-5 steps on linear ones.
    std::vector<Tick> ticks(int max_ticks) const;
};

// A short tick label: 1024 -> "1024", 131072 -> "131k", 2000000 -> "2M", 0.25 -> "0.25",
// 1e-5 -> "1e-05".
std::string format_tick(double value);

// A measured number for people: `significant` figures, and no more digits than that (a time of
// 1493.764 ms reads "1494", 0.0285143 reads "0.02851", 5.0008371021 reads "5.001"); plain from
// 0.001 up to a million, in exponent form outside it ("8.37e-11", "3.452e+06"). The report and
// its export keep every digit; the table shows them when a cell is hovered.
std::string format_number(double value, int significant = 4);
// A report value as the results table shows it: integers whole, other numbers by
// format_number, yes / no, text as it is, "-" where a row has no value.
std::string format_cell(const bench::Value& value);

// An axis title in words with its unit, for a report column: "median_ms" -> "median time (ms)",
// "gflops" -> "GFLOP/s", "gb_per_s" -> "GB/s", "speedup_vs_host" -> "speed-up vs host (x)";
// a column it does not know reads as its key with spaces, with the unit its suffix names (_ms).
std::string axis_title(const std::string& key);

// Screen rectangles and where a chart's legend goes (plain C++, tested without a window).
struct Box {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels, y down
};
enum class LegendPlace { top_left, top_right, bottom_left, bottom_right, below };
// Whether the chart draws a line from `a` to `b`, consecutive points of one series: only where x
// grows. Points that share an x (one size measured several ways, or a run of a single size) get
// markers alone, never a vertical line that reads as a trend.
bool joined(const ChartPoint& a, const ChartPoint& b);
// The first corner of `plot` (top left, top right, bottom left, bottom right) where a legend of
// `width` x `height` pixels, inset by `inset`, covers no marker (points in pixels, `radius` around
// each) and crosses none of the lines drawn between them; `below` when none is free: the legend
// then goes outside the plot, under it. A legend never hides data.
LegendPlace place_legend(const std::vector<std::vector<ChartPoint>>& screen_points, Box plot,
                         double width, double height, double inset, double radius);

// Draws the chart into a `width` x `height` pixel region at the cursor (ImGui), advancing the
// cursor; taller by the legend's rows where no corner of the plot is free for it. Hovering a
// point shows its series and values.
void draw_chart(const char* id, const std::vector<Series>& series, const ChartSpec& spec,
                float width, float height);

// The colour of the i-th series (the Tableau 10 palette, repeating): the legend, lines and
// markers use it, and the GUI tests look for it in screenshots.
struct Rgb {
    unsigned char r = 0, g = 0, b = 0;
};
Rgb series_colour(std::size_t index);

}  // namespace adilab::gui
