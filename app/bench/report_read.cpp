// Reading a report back (--compare OLD.json) and comparing two reports row by row. The reader
// takes the JSON that to_json writes (objects, arrays, strings, numbers, true/false/null); a
// number without a fraction or exponent reads as an integer, as it was written.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "app/bench/report.hpp"
#include "solvers/common/numbers.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::bench {
namespace {

class JsonReader {
  public:
    JsonReader(std::string text, std::string where)
        : text_(std::move(text)), where_(std::move(where)) {}

    void expect(char c) {
        skip();
        if (pos_ >= text_.size() || text_[pos_] != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }
    bool peek(char c) {
        skip();
        return pos_ < text_.size() && text_[pos_] == c;
    }
    std::string string() {
        expect('"');
        std::string out;
        while (pos_ < text_.size() && text_[pos_] != '"') {
            char c = text_[pos_++];
            if (c == '\\' && pos_ < text_.size()) {
                const char e = text_[pos_++];
                if (e == 'n')
                    c = '\n';
                else if (e == 't')
                    c = '\t';
                else if (e == 'r')
                    c = '\r';
                else if (e == 'u') {
                    // Exactly four hex digits (to_json writes \u00XX for control characters).
                    unsigned code = 0;
                    const char* first = text_.data() + pos_;
                    const char* last = text_.data() + std::min(pos_ + 4, text_.size());
                    const auto [end, error] = std::from_chars(first, last, code, 16);
                    if (error != std::errc() || end != first + 4)
                        fail("a \\u escape without four hex digits");
                    c = char(code);
                    pos_ += 4;
                } else
                    c = e;
            }
            out += c;
        }
        expect('"');
        return out;
    }
    Value value() {
        skip();
        if (peek('"')) return string();
        for (const char* word : {"true", "false", "null"}) {
            if (text_.compare(pos_, std::strlen(word), word) == 0) {
                pos_ += std::strlen(word);
                if (word[0] == 'n') return std::monostate{};
                return word[0] == 't';
            }
        }
        const std::size_t start = pos_;
        while (pos_ < text_.size() && (std::isdigit((unsigned char)text_[pos_]) ||
                                       std::strchr("+-.eE", text_[pos_]) != nullptr))
            ++pos_;
        const std::string number = text_.substr(start, pos_ - start);
        if (number.empty()) fail("expected a value");
        // The strict parsers (solvers/common/numbers.hpp): "1-2" is not read as 1, and an integer
        // past 64 bits or a real past a double is a malformed report, not an unexpected error.
        if (number.find_first_of(".eE") == std::string::npos) {
            if (const auto integer = numbers::to_integer(number)) return std::int64_t(*integer);
            fail("number '" + number + "' is not an integer a report holds");
        }
        if (const auto real = numbers::to_real(number)) return *real;
        fail("number '" + number + "' is not a finite number");
    }
    // Skips any value (objects and arrays included).
    void skip_value() {
        if (peek('{')) {
            object([&](const std::string&) { skip_value(); });
        } else if (peek('[')) {
            array([&] { skip_value(); });
        } else {
            value();
        }
    }
    void object(const std::function<void(const std::string&)>& member) {
        expect('{');
        if (peek('}')) return expect('}');
        do {
            const std::string key = string();
            expect(':');
            member(key);
        } while (peek(',') && (expect(','), true));
        expect('}');
    }
    void array(const std::function<void()>& element) {
        expect('[');
        if (peek(']')) return expect(']');
        do element();
        while (peek(',') && (expect(','), true));
        expect(']');
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(where_ + ": not an adilab report (" + what + " at byte " +
                    std::to_string(pos_) + ")");
    }

  private:
    void skip() {
        while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_])) ++pos_;
    }
    std::string text_, where_;
    std::size_t pos_ = 0;
};

std::vector<Field> fields_of(JsonReader& json) {
    std::vector<Field> fields;
    json.object([&](const std::string& key) { fields.push_back({key, json.value()}); });
    return fields;
}

// The fields that say what a row measured (name, sizes, variants): text and integers, but not
// the tuning ("family.field") nor the timing flags.
// Text that reports a measurement (the sim bench's per-kernel breakdowns, the GUI run's frame
// counts) is not part of a row's identity either.
bool identity_field(const Field& f) {
    if (f.key.find('.') != std::string::npos || f.key == "unstable") return false;
    if (f.key.ends_with("breakdown") || f.key.starts_with("ui_") || f.key.starts_with("gui_"))
        return false;
    return std::holds_alternative<std::string>(f.value) ||
           std::holds_alternative<std::int64_t>(f.value);
}

bool same_identity(const Row& a, const Row& b) {
    for (const Field& f : a.fields()) {
        if (!identity_field(f)) continue;
        const Value* other = b.find(f.key);
        if (other == nullptr || format_value(*other) != format_value(f.value)) return false;
    }
    for (const Field& f : b.fields())
        if (identity_field(f) && a.find(f.key) == nullptr) return false;
    return true;
}

}  // namespace

Report read_report(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw Error("cannot read report '" + path.string() + "'");
    std::stringstream buffer;
    buffer << file.rdbuf();
    // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "'" + a temporary.
    std::string quoted = "'";
    quoted += path.string();
    quoted += "'";
    JsonReader json(buffer.str(), quoted);
    Report report;
    bool tool = false;
    json.object([&](const std::string& key) {
        if (key == "tool") {
            tool = json.string() == "adilab";
        } else if (key == "benchmark") {
            report.benchmark = json.string();
        } else if (key == "created") {
            report.created = json.string();
        } else if (key == "device") {
            for (const Field& f : fields_of(json)) {
                if (f.key == "vendor") report.vendor = format_value(f.value);
                if (f.key == "renderer") report.renderer = format_value(f.value);
                if (f.key == "gl_version") report.gl_version = format_value(f.value);
            }
        } else if (key == "config") {
            report.config = fields_of(json);
        } else if (key == "rows") {
            json.array([&] {
                Row row;
                for (Field& f : fields_of(json)) row.set(f.key, std::move(f.value));
                report.rows.push_back(std::move(row));
            });
        } else if (key == "notes") {
            json.array([&] { report.notes.push_back(json.string()); });
        } else if (key == "failure") {
            report.failure = json.string();
        } else {
            json.skip_value();
        }
    });
    if (!tool || report.benchmark.empty()) json.fail("no \"tool\": \"adilab\" or no benchmark");
    return report;
}

std::string compare_reports(const Report& now, const Report& old) {
    std::ostringstream out;
    out << "compared with the " << old.benchmark << " report of " << old.created << " on "
        << old.renderer << " (ratio: now / then, median_ms; below 1 is faster now)\n";
    if (old.benchmark != now.benchmark) {
        out << "  (a report of another benchmark: no rows to compare)\n";
        return out.str();
    }
    std::vector<Row> lines;
    for (const Row& row : now.rows) {
        std::string what;
        for (const Field& f : row.fields()) {
            if (!identity_field(f)) continue;
            if (!what.empty()) what += " ";
            what += format_value(f.value);
        }
        Row line;
        line.set("row", what).set("now_ms", row.number("median_ms"));
        for (const Row& then : old.rows) {
            if (!same_identity(row, then)) continue;
            line.set("then_ms", then.number("median_ms"))
                .set("ratio", row.number("median_ms") / then.number("median_ms"));
            break;
        }
        if (line.find("ratio") == nullptr) line.set("then_ms", "no match");
        lines.push_back(std::move(line));
    }
    out << format_table(
        lines, {{"row"}, {"then_ms", "then ms", 4}, {"now_ms", "now ms", 4}, {"ratio", "", 3}});
    return out.str();
}

}  // namespace adilab::bench
