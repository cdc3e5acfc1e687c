#include "app/bench/report.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "solvers/common/files.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::bench {

Row& Row::set(const std::string& key, Value value) {
    for (Field& f : fields_) {
        if (f.key == key) {
            f.value = std::move(value);
            return *this;
        }
    }
    fields_.push_back({key, std::move(value)});
    return *this;
}

const Value* Row::find(const std::string& key) const {
    for (const Field& f : fields_)
        if (f.key == key) return &f.value;
    return nullptr;
}

double Row::number(const std::string& key) const {
    const Value* v = find(key);
    if (v == nullptr) return std::nan("");
    if (auto d = std::get_if<double>(v)) return *d;
    if (auto i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
    return std::nan("");
}

std::string Row::text(const std::string& key) const {
    const Value* v = find(key);
    return v == nullptr ? std::string() : format_value(*v);
}

Report make_report(std::string benchmark, const gl::DeviceInfo& device) {
    Report report;
    report.benchmark = std::move(benchmark);
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
    report.created = stamp;
    report.vendor = device.vendor;
    report.renderer = device.renderer;
    report.gl_version = device.version;
    return report;
}

namespace {

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

std::string number_text(double value) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", value);
    return buf;
}

std::string json_value(const Value& value) {
    struct Visitor {
        std::string operator()(std::monostate) const { return "null"; }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(std::int64_t i) const { return std::to_string(i); }
        // JSON has no NaN or infinity: an unmeasured or failed figure is null.
        std::string operator()(double d) const {
            return std::isfinite(d) ? number_text(d) : "null";
        }
        std::string operator()(const std::string& s) const { return json_string(s); }
    };
    return std::visit(Visitor{}, value);
}

std::string json_object(const std::vector<Field>& fields, const std::string& indent) {
    if (fields.empty()) return "{}";
    std::string out = "{";
    for (std::size_t i = 0; i < fields.size(); ++i) {
        out += (i ? ", " : "") + json_string(fields[i].key) + ": " + json_value(fields[i].value);
    }
    (void)indent;
    return out + "}";
}

std::string csv_cell(const Value& value) {
    std::string text = std::holds_alternative<std::monostate>(value) ? "" : format_value(value);
    if (auto d = std::get_if<double>(&value)) text = std::isfinite(*d) ? number_text(*d) : "";
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

std::string format_value(const Value& value) {
    struct Visitor {
        std::string operator()(std::monostate) const { return "-"; }
        std::string operator()(bool b) const { return b ? "yes" : "no"; }
        std::string operator()(std::int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return std::isfinite(d) ? number_text(d) : "-"; }
        std::string operator()(const std::string& s) const { return s; }
    };
    return std::visit(Visitor{}, value);
}

std::string to_json(const Report& r) {
    std::ostringstream out;
    out << "{\n  \"tool\": \"adilab\",\n  \"version\": " << json_string(ADILAB_VERSION)
        << ",\n  \"benchmark\": " << json_string(r.benchmark)
        << ",\n  \"created\": " << json_string(r.created)
        << ",\n  \"device\": {\"vendor\": " << json_string(r.vendor)
        << ", \"renderer\": " << json_string(r.renderer)
        << ", \"gl_version\": " << json_string(r.gl_version)
        << "},\n  \"config\": " << json_object(r.config, "  ") << ",\n  \"rows\": [";
    for (std::size_t i = 0; i < r.rows.size(); ++i)
        out << (i ? ",\n    " : "\n    ") << json_object(r.rows[i].fields(), "    ");
    out << (r.rows.empty() ? "],\n" : "\n  ],\n") << "  \"notes\": [";
    for (std::size_t i = 0; i < r.notes.size(); ++i)
        out << (i ? ", " : "") << json_string(r.notes[i]);
    out << "]";
    if (!r.failure.empty()) out << ",\n  \"failure\": " << json_string(r.failure);
    out << "\n}\n";
    return out.str();
}

std::string to_csv(const Report& r) {
    std::vector<std::string> header;
    for (const Row& row : r.rows)
        for (const Field& f : row.fields())
            if (std::find(header.begin(), header.end(), f.key) == header.end())
                header.push_back(f.key);
    std::ostringstream out;
    for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << header[i];
    out << "\n";
    for (const Row& row : r.rows) {
        for (std::size_t i = 0; i < header.size(); ++i) {
            const Value* v = row.find(header[i]);
            out << (i ? "," : "") << (v ? csv_cell(*v) : "");
        }
        out << "\n";
    }
    return out.str();
}

void check_report_path(const std::filesystem::path& path) {
    const std::string ext = path.extension().string();
    if (ext != ".json" && ext != ".csv")
        throw Error("report path '" + path.string() + "' must end in .json or .csv");
    files::check_output_path(path, "report");
}

void write_report(const Report& report, const std::filesystem::path& path) {
    check_report_path(path);
    files::write_file_atomically(path,
                                 path.extension() == ".json" ? to_json(report) : to_csv(report));
}

std::string format_table(const std::vector<Row>& rows, const std::vector<Column>& columns) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> widths;
    for (const Column& c : columns) widths.push_back((c.title.empty() ? c.key : c.title).size());
    for (const Row& row : rows) {
        std::vector<std::string> line;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const Value* v = row.find(columns[i].key);
            std::string text = "-";
            if (v != nullptr) {
                if (auto d = std::get_if<double>(v); d && std::isfinite(*d)) {
                    char buf[40];
                    // Small figures keep significant digits; large ones keep the precision.
                    if (*d != 0 && std::fabs(*d) < 0.01)
                        std::snprintf(buf, sizeof buf, "%.3g", *d);
                    else
                        std::snprintf(buf, sizeof buf, "%.*f", columns[i].precision, *d);
                    text = buf;
                } else {
                    text = format_value(*v);
                }
            }
            widths[i] = std::max(widths[i], text.size());
            line.push_back(std::move(text));
        }
        cells.push_back(std::move(line));
    }
    std::ostringstream out;
    auto pad = [](const std::string& s, std::size_t w) {
        return std::string(w - s.size(), ' ') + s;
    };
    for (std::size_t i = 0; i < columns.size(); ++i)
        out << (i ? "  " : "")
            << pad(columns[i].title.empty() ? columns[i].key : columns[i].title, widths[i]);
    out << "\n";
    for (const auto& line : cells) {
        for (std::size_t i = 0; i < line.size(); ++i)
            out << (i ? "  " : "") << pad(line[i], widths[i]);
        out << "\n";
    }
    return out.str();
}

}  // namespace adilab::bench

namespace adilab::bench {

Timing timing_of(const std::vector<double>& samples) {
    Timing t;
    if (samples.empty()) return t;
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    t.min_ms = sorted.front();
    t.max_ms = sorted.back();
    t.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    return t;
}

Timing measure_stable(const std::function<std::vector<double>()>& measure,
                      const std::function<void()>& warm_more) {
    Timing t = timing_of(measure());
    if (t.spread() <= kUnstableSpread) return t;
    if (warm_more) warm_more();
    t = timing_of(measure());
    t.unstable = t.spread() > kUnstableSpread;
    return t;
}

void set_timing(Row& row, const Timing& t, const std::string& prefix) {
    row.set(prefix + "min_ms", t.min_ms)
        .set(prefix + "median_ms", t.median_ms)
        .set(prefix + "max_ms", t.max_ms);
    // One flag per row: unstable if any of its timings is.
    const Value* old = row.find("unstable");
    const bool before =
        old != nullptr && std::holds_alternative<bool>(*old) && std::get<bool>(*old);
    row.set("unstable", before || t.unstable);
}

void note_unstable_rows(Report& report) {
    for (const Row& row : report.rows) {
        const Value* flag = row.find("unstable");
        if (flag == nullptr || !std::holds_alternative<bool>(*flag) || !std::get<bool>(*flag))
            continue;
        std::string what;
        for (const Field& f : row.fields()) {
            if (std::holds_alternative<double>(f.value) || std::holds_alternative<bool>(f.value) ||
                f.key.find('.') != std::string::npos || f.key.ends_with("breakdown"))
                continue;
            if (!what.empty()) what += " ";
            what += format_value(f.value);
        }
        char spread[64];
        std::snprintf(spread, sizeof spread, "%.0f%%",
                      100 * (row.number("max_ms") / row.number("min_ms") - 1));
        report.notes.push_back("unstable: " + what + ": repeats spread " + spread +
                               " (max / min - 1) " +
                               "even after more warm-up; its median is not a steady-state figure");
    }
}

}  // namespace adilab::bench
