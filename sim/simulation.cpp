// The Simulation interface's own part: its parameters set from values or from the user's text
// (--set, presets, saved settings), whichever model takes them.
#include "sim/simulation.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "solvers/gl/error.hpp"

namespace adilab::sim {

double parse_param_value(const ParamSpec& spec, const std::string& text) {
    double value = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < spec.choices.size(); ++i)
        if (spec.choices[i] == text) value = double(i);
    if (std::isnan(value)) {
        // The whole text must be one finite number: no trailing characters, no hex, no nan/inf.
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        const double parsed = text.empty() || std::isspace((unsigned char)text[0]) ||
                                      text.find_first_of("xXnN") != std::string::npos
                                  ? 0
                                  : std::strtod(begin, &end);
        const bool number =
            end && end != begin && *end == '\0' && errno == 0 && std::isfinite(parsed);
        if (!number || (!spec.choices.empty() && parsed != std::floor(parsed))) {
            std::string expected = "a number";
            if (!spec.choices.empty()) {
                expected = "one of";
                for (const std::string& c : spec.choices) expected += " " + c;
            }
            throw Error("parameter '" + spec.name + "': '" + text + "' is not " + expected);
        }
        value = parsed;
    }
    if (value < spec.min || value > spec.max) {
        std::ostringstream out;
        out << "parameter '" << spec.name << "' = " << text << " is out of range [" << spec.min
            << ", " << spec.max << "]"
            << (spec.unit.empty() || spec.unit == "1" ? "" : " " + spec.unit);
        throw Error(out.str());
    }
    return value;
}

void Simulation::set_params(std::span<const std::pair<std::string, double>> values) {
    set_params(values, scenario(), nx(), ny());
}

void Simulation::set_param(const std::string& name, double value) {
    const std::pair<std::string, double> one(name, value);
    set_params(std::span(&one, 1));
}

void Simulation::set_params_text(std::span<const std::pair<std::string, std::string>> texts) {
    set_params_text(texts, scenario(), nx(), ny());
}

void Simulation::set_params_text(std::span<const std::pair<std::string, std::string>> texts,
                                 const std::string& scenario, int nx, int ny) {
    std::vector<std::pair<std::string, double>> values;
    for (const auto& [name, text] : texts) {
        double value = 0;  // an unknown name: set_params throws naming it, listing the known ones
        for (const ParamSpec& spec : params())
            if (spec.name == name) value = parse_param_value(spec, text);
        values.emplace_back(name, value);
    }
    set_params(values, scenario, nx, ny);
}

void Simulation::set_param_text(const std::string& name, const std::string& text) {
    const std::pair<std::string, std::string> one(name, text);
    set_params_text(std::span(&one, 1));
}

void Simulation::set_terrain(const std::string& name) {
    throw Error("model '" + model() + "' has no terrain (asked for '" + name + "')");
}

}  // namespace adilab::sim
