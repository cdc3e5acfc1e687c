// The benchmark tabs' option fields: see option_form.hpp.
#include "app/gui/option_form.hpp"

#include <algorithm>

namespace adilab::gui {

namespace {

std::string trim(std::string_view text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string_view::npos) return {};
    const auto end = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(begin, end - begin + 1));
}

std::string join(const std::vector<std::string>& items, const char* separator) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
    return out;
}

}  // namespace

std::vector<std::string> split_command_line(std::string_view text) {
    std::vector<std::string> tokens;
    std::string current;
    bool in_token = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (in_token) tokens.push_back(std::move(current));
            current.clear();
            in_token = false;
        } else if (c == '\'' || c == '"') {
            in_token = true;
            const std::size_t close = [&] {
                for (std::size_t k = i + 1; k < text.size(); ++k) {
                    if (c == '"' && text[k] == '\\' && k + 1 < text.size()) {
                        current += text[++k];
                        continue;
                    }
                    if (text[k] == c) return k;
                    current += text[k];
                }
                return std::string_view::npos;
            }();
            if (close == std::string_view::npos)
                throw cli::UsageError(std::string("unterminated ") + c + " quote in '" +
                                      std::string(text) + "'");
            i = close;
        } else {
            in_token = true;
            current += c;
        }
    }
    if (in_token) tokens.push_back(std::move(current));
    return tokens;
}

OptionForm::OptionForm(std::vector<cli::OptionSpec> options) : options_(std::move(options)) {
    for (const cli::OptionSpec& spec : options_) fields_.push_back(Field{spec, {}, false, {}});
    reset();
}

std::vector<bool> OptionForm::default_choice(const Field& field) const {
    const auto& choices = field.spec.choices;
    const std::vector<std::string> named = cli::split_list(field.spec.default_value);
    std::vector<bool> chosen(choices.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        chosen[i] = std::find(named.begin(), named.end(), choices[i]) != named.end();
        any = any || chosen[i];
    }
    // No stated default, "all", or a default that names none of the choices: all of them.
    if (!any) std::fill(chosen.begin(), chosen.end(), true);
    return chosen;
}

void OptionForm::reset() {
    for (Field& field : fields_) {
        field.text.clear();
        field.flag = false;
        field.chosen = default_choice(field);
    }
}

std::vector<std::string> OptionForm::tokens() const {
    std::vector<std::string> out;
    for (const Field& field : fields_) {
        const std::string option = "--" + field.spec.name;
        if (field.spec.value_name.empty()) {
            if (field.flag) out.push_back(option);
        } else if (!field.spec.choices.empty()) {
            std::vector<std::string> names;
            for (std::size_t i = 0; i < field.spec.choices.size(); ++i)
                if (field.chosen[i]) names.push_back(field.spec.choices[i]);
            if (names.empty())
                throw cli::UsageError(option + ": check at least one of " +
                                      join(field.spec.choices, ", "));
            if (field.chosen != default_choice(field)) {
                out.push_back(option);
                out.push_back(join(names, ","));
            }
        } else if (field.spec.repeatable) {
            std::string_view rest = field.text;
            while (!rest.empty()) {
                const auto semicolon = rest.find(';');
                const std::string value = trim(rest.substr(0, semicolon));
                if (!value.empty()) {
                    out.push_back(option);
                    out.push_back(value);
                }
                rest = semicolon == std::string_view::npos ? "" : rest.substr(semicolon + 1);
            }
        } else {
            const std::string value = trim(field.text);
            if (!value.empty()) {
                out.push_back(option);
                out.push_back(value);
            }
        }
    }
    return out;
}

cli::Args OptionForm::args() const {
    return cli::Args::parse(tokens(), options_);
}

void OptionForm::set(const std::vector<std::string>& tokens) {
    const cli::Args args = cli::Args::parse(tokens, options_);
    // Check every choice before changing anything, so a rejected set leaves the form as it was.
    std::vector<Field> next = fields_;
    for (Field& field : next) {
        field.text.clear();
        field.flag = false;
        field.chosen = default_choice(field);
        const std::string& name = field.spec.name;
        if (!args.has(name)) continue;
        if (field.spec.value_name.empty()) {
            field.flag = true;
        } else if (!field.spec.choices.empty()) {
            std::fill(field.chosen.begin(), field.chosen.end(), false);
            for (const std::string& value : cli::split_list(args.get(name))) {
                if (value == "all") {
                    std::fill(field.chosen.begin(), field.chosen.end(), true);
                    continue;
                }
                const auto& choices = field.spec.choices;
                const auto found = std::find(choices.begin(), choices.end(), value);
                if (found == choices.end())
                    throw cli::UsageError("--" + name + ": '" + value + "' is not one of " +
                                          join(choices, ", "));
                field.chosen[found - choices.begin()] = true;
            }
        } else if (field.spec.repeatable) {
            field.text = join(args.all(name), "; ");
        } else {
            field.text = args.get(name);
        }
    }
    fields_ = std::move(next);
}

}  // namespace adilab::gui
