#include "app/bench/tuning.hpp"

#include <algorithm>
#include <optional>

#include "solvers/common/numbers.hpp"

namespace adilab::bench {
namespace {

struct Assignment {
    std::string_view family, field, value;
};

// "family.field=value" -> its three parts; empty family when the form is wrong.
Assignment split_assignment(std::string_view text) {
    const std::size_t dot = text.find('.');
    const std::size_t eq = text.find('=');
    if (dot == std::string_view::npos || eq == std::string_view::npos || dot == 0 || eq < dot + 2 ||
        eq + 1 == text.size())
        return {};
    return {text.substr(0, dot), text.substr(dot + 1, eq - dot - 1), text.substr(eq + 1)};
}

std::string range_text(const TuningField& f) {
    return std::to_string(f.min) + ".." + std::to_string(f.max);
}

}  // namespace

std::string describe_tuning(std::string_view family, const std::vector<TuningField>& fields) {
    std::string out;
    for (const TuningField& f : fields) {
        out += "\n" + std::string(32, ' ') + std::string(family) + "." + f.name + " (" +
               range_text(f) + "): " + f.help;
    }
    return out;
}

cli::OptionSpec tune_option(const std::string& fields_help) {
    return {"tune", "FAMILY.FIELD=VALUE",
            "set a solver knob instead of its default (repeatable; every report row records the "
            "values that ran). Fields:" +
                fields_help,
            /*repeatable=*/true};
}

std::vector<std::string> tuning_assignments(const cli::Args& args,
                                            const std::vector<std::string_view>& families) {
    std::vector<std::string> out;
    for (const std::string& text : args.all("tune")) {
        const Assignment a = split_assignment(text);
        if (a.family.empty())
            throw cli::UsageError("--tune '" + text + "': expected FAMILY.FIELD=VALUE");
        if (std::find(families.begin(), families.end(), a.family) == families.end()) {
            std::string names;
            for (std::string_view f : families)
                names += (names.empty() ? "" : ", ") + std::string(f);
            throw cli::UsageError(
                "--tune '" + text + "': unknown family '" + std::string(a.family) +
                "' (this benchmark tunes: " + (names.empty() ? "nothing" : names) + ")");
        }
        out.push_back(text);
    }
    return out;
}

void apply_tuning(const std::vector<std::string>& assignments, std::string_view family,
                  const std::vector<TuningField>& fields) {
    for (const std::string& text : assignments) {
        const Assignment a = split_assignment(text);
        if (a.family != family) continue;
        auto found = std::find_if(fields.begin(), fields.end(),
                                  [&](const TuningField& f) { return f.name == a.field; });
        if (found == fields.end()) {
            std::string names;
            for (const TuningField& f : fields) names += (names.empty() ? "" : ", ") + f.name;
            throw cli::UsageError("--tune '" + text + "': " + std::string(family) +
                                  " has no field '" + std::string(a.field) + "' (fields: " + names +
                                  ")");
        }
        const std::optional<long long> parsed =
            numbers::to_integer(a.value);  // no wrap, no "12abc"
        if (!parsed)
            throw cli::UsageError("--tune '" + text + "': " + std::string(family) + "." +
                                  found->name + " takes an integer in " + range_text(*found));
        const long long value = *parsed;
        if (value < found->min || value > found->max)
            throw cli::UsageError("--tune '" + text + "': " + std::string(family) + "." +
                                  found->name + " must lie in " + range_text(*found));
        *found->value = static_cast<int>(value);
    }
}

void record_tuning(Row& row, std::string_view family, const std::vector<TuningField>& fields) {
    for (const TuningField& f : fields) row.set(std::string(family) + "." + f.name, *f.value);
}

}  // namespace adilab::bench
