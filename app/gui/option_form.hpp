#pragma once
// A benchmark tab's options as form fields (app/gui/bench_panel.hpp draws them), turned into the
// same `--name value` tokens that `adilab --bench NAME` parses, so that the tab and the command
// line share one validation and one set of messages. No ImGui here: the tests drive the form
// without a window.
//
// For benchmark authors: the form reads everything from Benchmark::options. Give an option its
// cli::Default{"X"} and the empty field shows it (--help prints it too); give a name-list option
// (--impl, --variant) its `choices` and the tab shows checkboxes instead of a text field, with
// the ones its default names checked.
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/args.hpp"

namespace adilab::gui {

// Splits a command line into tokens on blanks, honouring '...' and "..." quotes (no escapes
// inside single quotes; \" and \\ inside double quotes). An unterminated quote is a UsageError.
std::vector<std::string> split_command_line(std::string_view text);

class OptionForm {
  public:
    struct Field {
        cli::OptionSpec spec;  // its default_value is shown greyed in an empty field
        // A value option without choices: the text; empty means "the benchmark's default".
        // A repeatable option holds its values separated by ';'.
        std::string text;
        bool flag = false;         // a flag (spec.value_name empty)
        std::vector<bool> chosen;  // an option with choices: one per spec.choices entry
    };

    explicit OptionForm(std::vector<cli::OptionSpec> options);

    std::vector<Field>& fields() { return fields_; }
    const std::vector<Field>& fields() const { return fields_; }
    const std::vector<cli::OptionSpec>& options() const { return options_; }

    // The tokens for every field that differs from its default, in the options' order. Throws
    // cli::UsageError when an option with choices has none checked.
    std::vector<std::string> tokens() const;
    // tokens() through cli::Args::parse, as `adilab --bench` would parse them.
    cli::Args args() const;
    // Sets every field from `tokens` (fields not named go back to their defaults). Throws
    // cli::UsageError for what Args::parse rejects and for a name that is not among an option's
    // choices ("all" checks every choice).
    void set(const std::vector<std::string>& tokens);
    void reset();  // every field back to its default

  private:
    std::vector<bool> default_choice(const Field& field) const;
    std::vector<cli::OptionSpec> options_;
    std::vector<Field> fields_;
};

}  // namespace adilab::gui
