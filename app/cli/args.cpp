#include "app/cli/args.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "solvers/common/numbers.hpp"

namespace adilab::cli {

int print_usage_error(std::ostream& out, const std::string& message) {
    out << "adilab: " << message << "\n"
        << kUsageLine << "\nTry 'adilab --help' for every option.\n";
    return 2;
}

void check_input_file(std::string_view option, const std::string& path) {
    const std::string prefix = "--" + std::string(option) + ": ";
    if (path.empty()) throw UsageError(prefix + "empty path");
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw UsageError(prefix + "'" + path + "' is a folder, not a file");
    if (::access(path.c_str(), R_OK) != 0) {
        if (errno == ENOENT) throw UsageError(prefix + "no such file '" + path + "'");
        throw UsageError(prefix + "cannot read '" + path + "': " + std::strerror(errno));
    }
}

Args Args::parse(const std::vector<std::string>& tokens, const std::vector<OptionSpec>& known) {
    Args args;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& token = tokens[i];
        if (!token.starts_with("--") || token.size() == 2)
            throw UsageError("unexpected argument '" + token + "' (options start with --)");
        std::string name = token.substr(2);
        std::string value;
        bool inline_value = false;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            inline_value = true;
        }
        auto spec = std::find_if(known.begin(), known.end(),
                                 [&](const OptionSpec& s) { return s.name == name; });
        if (spec == known.end()) throw UsageError("unknown option '--" + name + "'");
        if (spec->value_name.empty()) {
            if (inline_value) throw UsageError("option '--" + name + "' takes no value");
        } else if (!inline_value) {
            if (i + 1 >= tokens.size())
                throw UsageError("option '--" + name + "' needs a value <" + spec->value_name +
                                 ">");
            value = tokens[++i];
        }
        auto& slot = args.values_[name];
        if (!slot.empty() && !spec->repeatable)
            throw UsageError("option '--" + name + "' is given more than once");
        slot.push_back(value);
        args.given_.emplace_back(name, value);
    }
    return args;
}

bool Args::has(std::string_view name) const {
    return values_.find(name) != values_.end();
}

std::string Args::get(std::string_view name, std::string fallback) const {
    auto found = values_.find(name);
    return found == values_.end() ? fallback : found->second.back();
}

const std::vector<std::string>& Args::all(std::string_view name) const {
    static const std::vector<std::string> none;
    auto found = values_.find(name);
    return found == values_.end() ? none : found->second;
}

long long parse_int(std::string_view option, std::string_view text) {
    if (auto value = numbers::to_integer(text)) return *value;
    const bool digits =
        !text.empty() && text.find_first_not_of("+-0123456789") == std::string_view::npos;
    throw UsageError("--" + std::string(option) + ": '" + std::string(text) + "' is not " +
                     (digits ? "an integer adilab can hold (too large)" : "an integer"));
}

double parse_double(std::string_view option, std::string_view text) {
    if (auto value = numbers::to_real(text)) return *value;
    throw UsageError("--" + std::string(option) + ": '" + std::string(text) +
                     "' is not a finite number");
}

float parse_float(std::string_view option, std::string_view text) {
    const double value = parse_double(option, text);
    const float narrowed = static_cast<float>(value);
    if (!std::isfinite(narrowed) || (narrowed == 0.0f && value != 0.0))
        throw UsageError(
            "--" + std::string(option) + ": '" + std::string(text) +
            "' is outside what a float32 holds (about 1.2e-38 to 3.4e38 in magnitude)");
    return narrowed;
}

namespace {
// The message quotes the user's own text, not the number it became.
template <class T>
void check_range(std::string_view option, std::string_view text, T value, T min, T max) {
    if (value < min || value > max) {
        std::ostringstream msg;
        msg << "--" << option << ": '" << text << "' is out of range [" << min << ", " << max
            << "]";
        throw UsageError(msg.str());
    }
}
}  // namespace

long long parse_int_in(std::string_view option, std::string_view text, long long min,
                       long long max) {
    const long long value = parse_int(option, text);
    check_range(option, text, value, min, max);
    return value;
}

std::pair<long long, long long> parse_dimensions(std::string_view option, std::string_view text,
                                                 long long min, long long max) {
    const auto x = text.find_first_of("xX");
    if (x == std::string_view::npos) {
        const long long n = parse_int_in(option, text, min, max);
        return {n, n};
    }
    if (text.find_first_of("xX", x + 1) != std::string_view::npos)
        throw UsageError("--" + std::string(option) + ": '" + std::string(text) +
                         "' is not N or WxH");
    return {parse_int_in(option, text.substr(0, x), min, max),
            parse_int_in(option, text.substr(x + 1), min, max)};
}

long long Args::get_int(std::string_view name, long long fallback, long long min,
                        long long max) const {
    if (!has(name)) return fallback;
    return parse_int_in(name, get(name), min, max);
}

double Args::get_double(std::string_view name, double fallback, double min, double max) const {
    if (!has(name)) return fallback;
    const std::string text = get(name);
    double value = parse_double(name, text);
    check_range(name, text, value, min, max);
    return value;
}

std::vector<std::string> split_list(std::string_view text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(',', start);
        if (end == std::string_view::npos) end = text.size();
        if (end > start) out.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

std::vector<long long> Args::get_int_list(std::string_view name, std::vector<long long> fallback,
                                          long long min, long long max) const {
    if (!has(name)) return fallback;
    std::vector<long long> out;
    for (const std::string& piece : split_list(get(name))) {
        out.push_back(parse_int_in(name, piece, min, max));
    }
    if (out.empty()) throw UsageError("--" + std::string(name) + ": the list is empty");
    return out;
}

std::vector<std::string> Args::get_list(std::string_view name,
                                        std::vector<std::string> fallback) const {
    if (!has(name)) return fallback;
    auto out = split_list(get(name));
    if (out.empty()) throw UsageError("--" + std::string(name) + ": the list is empty");
    return out;
}

std::string full_help(const OptionSpec& option) {
    if (option.default_value.empty()) return option.help;
    return option.help + " (default " + option.default_value + ")";
}

std::string format_options(const std::vector<OptionSpec>& options) {
    std::ostringstream out;
    for (const OptionSpec& o : options) {
        std::string left = "  --" + o.name;
        if (!o.value_name.empty()) left += " " + o.value_name;
        if (left.size() < 30)
            left.resize(30, ' ');
        else
            left += "\n" + std::string(30, ' ');
        out << left << full_help(o) << "\n";
    }
    return out.str();
}

}  // namespace adilab::cli
