#pragma once
// Command-line options. Every option is `--name value`, `--name=value` or a bare `--flag`;
// each mode of adilab (GUI, --info, --bench NAME, --headless) declares the options it takes,
// and anything else is a usage error (exit code 2) naming the option.
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace adilab::cli {

// A mistake on the command line: main() prints it with the usage line and exits 2.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The usage line every usage error prints, in every mode (GUI, --headless, --bench, the GUI's
// --bench-tab): one contract, exit code 2 after the message and this line.
inline constexpr const char* kUsageLine =
    "usage: adilab [GUI options] | --info [--gpu N] | --bench NAME [options] [--report FILE]\n"
    "       | --headless --model M [options]";
// "adilab: <message>", the usage line and the pointer to --help, on `out`; returns 2.
int print_usage_error(std::ostream& out, const std::string& message);
// A file the command line names as input must exist and be readable: else a UsageError quoting
// the option, the path and the operating system's reason.
void check_input_file(std::string_view option, const std::string& path);

// An option's stated default, for OptionSpec's second constructor: a type of its own so that
// `{"repeats", "N", "timed runs", Default{"5"}}` cannot be mistaken for the `repeatable` flag.
struct Default {
    std::string value;
};

struct OptionSpec {
    OptionSpec(std::string name, std::string value_name, std::string help, bool repeatable = false,
               std::vector<std::string> choices = {})
        : name(std::move(name)),
          value_name(std::move(value_name)),
          help(std::move(help)),
          repeatable(repeatable),
          choices(std::move(choices)) {}
    OptionSpec(std::string name, std::string value_name, std::string help, Default default_value,
               std::vector<std::string> choices = {})
        : name(std::move(name)),
          value_name(std::move(value_name)),
          help(std::move(help)),
          repeatable(false),
          choices(std::move(choices)),
          default_value(std::move(default_value.value)) {}
    std::string name;        // without the leading dashes
    std::string value_name;  // empty for a flag
    std::string help;        // without the default, which full_help() adds
    bool repeatable;
    // Optional: the names a comma list may hold (implementations, variants), from the solver's
    // registry. The GUI's benchmark tabs show them as checkboxes instead of a text field. Only a
    // hint for front ends: Args::parse does not check values against it (the benchmark does).
    std::vector<std::string> choices;
    // Optional: what the option means when it is not given, as a user would read it ("16,256",
    // "all", "random, dominant"); empty where there is no one default to state. --help prints it
    // after the help; the GUI's benchmark forms show it in an empty field and check the choices
    // it names. A field of its own, not words inside the help, so that no front end parses prose
    // for it. It describes the fallback the mode passes to Args::get, which is what runs.
    std::string default_value;
};

class Args {
  public:
    // Parses argv[1..] against `known`. Throws UsageError for unknown options, missing values,
    // values given to flags and options given twice that are not repeatable.
    static Args parse(const std::vector<std::string>& tokens, const std::vector<OptionSpec>& known);

    bool has(std::string_view name) const;
    std::string get(std::string_view name, std::string fallback = {}) const;
    const std::vector<std::string>& all(std::string_view name) const;  // repeatable ones
    // Typed getters: a value that does not parse, or lies outside [min, max], is a UsageError
    // naming the option and the value.
    long long get_int(std::string_view name, long long fallback, long long min,
                      long long max) const;
    double get_double(std::string_view name, double fallback, double min, double max) const;
    std::vector<long long> get_int_list(std::string_view name, std::vector<long long> fallback,
                                        long long min, long long max) const;
    std::vector<std::string> get_list(std::string_view name,
                                      std::vector<std::string> fallback) const;
    // Every option given, in order, as name -> value ("" for flags): reports record it.
    const std::vector<std::pair<std::string, std::string>>& given() const { return given_; }

  private:
    std::map<std::string, std::vector<std::string>, std::less<>> values_;
    std::vector<std::pair<std::string, std::string>> given_;
};

// Splits "a,b,c" on commas, dropping empty pieces.
std::vector<std::string> split_list(std::string_view text);
// The strict parsers (solvers/common/numbers.hpp) with a UsageError that names the option and
// quotes the text as given: no wrap-around, no truncation, no Inf or NaN.
long long parse_int(std::string_view option, std::string_view text);
double parse_double(std::string_view option, std::string_view text);
// parse_double, then the value as a float32: one past float's range (it would become Inf) or
// one that underflows to zero is refused quoting the text, not silently changed.
float parse_float(std::string_view option, std::string_view text);
// parse_int, then a range check whose message quotes the text.
long long parse_int_in(std::string_view option, std::string_view text, long long min,
                       long long max);
// "N" (square) or "WxH", each part in [min, max].
std::pair<long long, long long> parse_dimensions(std::string_view option, std::string_view text,
                                                 long long min, long long max);
// The option's help as --help prints it: the text, then "(default X)" when a default is stated.
std::string full_help(const OptionSpec& option);
// One option per line, aligned, for --help.
std::string format_options(const std::vector<OptionSpec>& options);

}  // namespace adilab::cli
