#pragma once
// `--tune family.field=value`: the benchmarks' way to set a solver family's explicit knobs
// (solvers/common/tuning.hpp). A benchmark lists `tune_option(...)` among its options, takes the
// assignments with `tuning_assignments(args, {families it runs})`, and for each problem it builds
// the family's default `Tuning`, calls `apply_tuning(assignments, family, tuning_fields(t))` and
// records what ran with `record_tuning(row, family, tuning_fields(t))`. A value outside a field's
// range, an unknown field or an unknown family is a cli::UsageError (exit 2) naming it.
//
//   auto tune = tuning_assignments(args, {"lu"});           // validates families and syntax
//   lu::Tuning t = lu::Tuning::defaults(device, n);
//   apply_tuning(tune, "lu", tuning_fields(t));              // validates fields and ranges
//   record_tuning(row, "lu", tuning_fields(t));              // row: "lu.panel_rows" = 64, ...
#include <string>
#include <string_view>
#include <vector>

#include "app/bench/report.hpp"
#include "app/cli/args.hpp"
#include "solvers/common/tuning.hpp"

namespace adilab::bench {

// One family's fields, for the option's help: "  family.field (min..max): help" per line.
std::string describe_tuning(std::string_view family, const std::vector<TuningField>& fields);

// The repeatable `--tune FAMILY.FIELD=VALUE` option; `fields_help` is the concatenation of
// describe_tuning() for the families the benchmark runs (shown under the option by --help).
cli::OptionSpec tune_option(const std::string& fields_help);

// Every `--tune` value given, checked for the `family.field=value` form and for a family among
// `families`; throws cli::UsageError otherwise.
std::vector<std::string> tuning_assignments(const cli::Args& args,
                                            const std::vector<std::string_view>& families);

// Sets each assignment of `family` (others are skipped) on `fields`. Throws cli::UsageError for
// a field not in `fields`, a value that is not an integer, or one outside [min, max]; the message
// names the field and its range.
void apply_tuning(const std::vector<std::string>& assignments, std::string_view family,
                  const std::vector<TuningField>& fields);

// Writes "family.field" = value for every field into the row, so a figure says what ran.
void record_tuning(Row& row, std::string_view family, const std::vector<TuningField>& fields);

}  // namespace adilab::bench
