#include "app/cli/args.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace adilab::cli {

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
                throw UsageError("option '--" + name + "' needs a value <" + spec->value_name + ">");
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

bool Args::has(std::string_view name) const { return values_.find(name) != values_.end(); }

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
    long long value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty())
        throw UsageError("--" + std::string(option) + ": '" + std::string(text) +
                         "' is not an integer");
    return value;
}

double parse_double(std::string_view option, std::string_view text) {
    std::string copy(text);
    char* end = nullptr;
    double value = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value))
        throw UsageError("--" + std::string(option) + ": '" + copy + "' is not a finite number");
    return value;
}

namespace {
template <class T>
void check_range(std::string_view option, T value, T min, T max) {
    if (value < min || value > max) {
        std::ostringstream msg;
        msg << "--" << option << ": " << value << " is out of range [" << min << ", " << max
            << "]";
        throw UsageError(msg.str());
    }
}
}  // namespace

long long Args::get_int(std::string_view name, long long fallback, long long min,
                        long long max) const {
    if (!has(name)) return fallback;
    long long value = parse_int(name, get(name));
    check_range(name, value, min, max);
    return value;
}

double Args::get_double(std::string_view name, double fallback, double min, double max) const {
    if (!has(name)) return fallback;
    double value = parse_double(name, get(name));
    check_range(name, value, min, max);
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
        long long value = parse_int(name, piece);
        check_range(name, value, min, max);
        out.push_back(value);
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

std::string format_options(const std::vector<OptionSpec>& options) {
    std::ostringstream out;
    for (const OptionSpec& o : options) {
        std::string left = "  --" + o.name;
        if (!o.value_name.empty()) left += " " + o.value_name;
        if (left.size() < 30) left.resize(30, ' ');
        else left += "\n" + std::string(30, ' ');
        out << left << o.help << "\n";
    }
    return out.str();
}

}  // namespace adilab::cli
