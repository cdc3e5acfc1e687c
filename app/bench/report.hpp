#pragma once
// Benchmark reports, shared by every `adilab --bench` and the GUI's benchmark tabs.
//
// JSON: {"tool":"adilab","version":…,"benchmark":…,"created":ISO-8601,
//        "device":{"vendor","renderer","gl_version"},"config":{every option used},
//        "rows":[{…}], "notes":[…]}
// CSV: one header line (the union of the rows' fields, in first-seen order), then one line per
// row. Every row has a `name` (what was measured) and `median_ms`.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "solvers/gl/context.hpp"

namespace adilab::bench {

// A cell: empty (written null / blank), flag, integer, number or text.
using Value = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

struct Field {
    std::string key;
    Value value;
};

class Row {
  public:
    Row& set(const std::string& key, Value value);
    Row& set(const std::string& key, int value) { return set(key, Value(std::int64_t{value})); }
    Row& set(const std::string& key, long value) { return set(key, Value(std::int64_t{value})); }
    Row& set(const std::string& key, long long value) {
        return set(key, Value(static_cast<std::int64_t>(value)));
    }
    Row& set(const std::string& key, double value) { return set(key, Value(value)); }
    Row& set(const std::string& key, bool value) { return set(key, Value(value)); }
    Row& set(const std::string& key, const char* value) {
        return set(key, Value(std::string(value)));
    }
    Row& set(const std::string& key, const std::string& value) { return set(key, Value(value)); }
    const Value* find(const std::string& key) const;
    double number(const std::string& key) const;  // NaN if missing or not a number
    std::string text(const std::string& key) const;
    const std::vector<Field>& fields() const { return fields_; }

  private:
    std::vector<Field> fields_;
};

struct Report {
    std::string benchmark;
    std::string created;  // ISO-8601 UTC, set by make_report
    std::string vendor, renderer, gl_version;
    std::vector<Field> config;
    std::vector<Row> rows;
    std::vector<std::string> notes;
    // Non-empty when the run measured what it set out to and found a defect (a soak scenario
    // that went unstable or lost its total): the report is still printed and written, and
    // `adilab --bench` then exits 1 with this message. JSON writes it as "failure".
    std::string failure;
};

// A report stamped with the time and the device of the current context.
Report make_report(std::string benchmark, const gl::DeviceInfo& device);

std::string format_value(const Value& value);  // as a table cell
std::string to_json(const Report& report);
std::string to_csv(const Report& report);

// Throws adilab::Error naming the problem when `path` cannot take a report: its extension is not
// .json or .csv, or its folder does not exist or is not writable (files::check_output_path).
// Called before any work starts.
void check_report_path(const std::filesystem::path& path);
// Writes the report, JSON or CSV by extension, through a temporary file renamed into place, so a
// failed write never leaves half a report.
void write_report(const Report& report, const std::filesystem::path& path);

// A plain-text table of `columns` of `rows`, right-aligned, for the terminal.
struct Column {
    Column(std::string key, std::string title = {}, int precision = 3)
        : key(std::move(key)), title(std::move(title)), precision(precision) {}
    std::string key;
    std::string title;  // defaults to key
    int precision;      // digits after the point for numbers
};
std::string format_table(const std::vector<Row>& rows, const std::vector<Column>& columns);

}  // namespace adilab::bench

namespace adilab::bench {

// The repeats of one row: min, median and max (ms). A spread (max / min - 1) above
// kUnstableSpread means the device was not in one steady state during the repeats (clocks
// ramping, another process): the row is measured again after more warm-up, and flagged if it
// stays that wide.
inline constexpr double kUnstableSpread = 0.10;
struct Timing {
    double min_ms = 0, median_ms = 0, max_ms = 0;
    bool unstable = false;
    double spread() const { return min_ms > 0 ? max_ms / min_ms - 1 : 0; }
};
Timing timing_of(const std::vector<double>& samples_ms);
// `measure` returns one set of repeats (ms); if their spread exceeds kUnstableSpread,
// `warm_more` runs and the repeats are taken once more, and the row is flagged unstable if the
// second set is still wider than that. Every bench times its rows through this.
Timing measure_stable(const std::function<std::vector<double>()>& measure,
                      const std::function<void()>& warm_more);
// Writes min_ms, median_ms, max_ms and unstable into the row (with `prefix` before each key,
// e.g. "spmv_" for a row that times several things).
void set_timing(Row& row, const Timing& timing, const std::string& prefix = "");
// A note for every row whose `unstable` flag is set (called once the rows are complete).
void note_unstable_rows(Report& report);

// --compare OLD.json: a report written by to_json, read back. Throws adilab::Error naming the
// file and the problem.
Report read_report(const std::filesystem::path& path);
// Each row of `now` beside the matching row of `old` (same benchmark; same name and the same
// text and integer fields, i.e. sizes and variants; tuning and timing fields are not compared):
// old and new median_ms and their ratio new / old, as clpeak's --compare prints. Rows without a
// match say so.
std::string compare_reports(const Report& now, const Report& old);

}  // namespace adilab::bench
