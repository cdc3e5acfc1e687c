#include "app/cli/headless.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "sim/simulation.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::cli {

namespace {

// Steps between two reads of the GPU stability flag: a run stops within this many steps of
// going unstable, and the read-back costs nothing measurable.
constexpr long long kCheckEvery = 500;

std::string list_of(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

std::vector<OptionSpec> headless_options() {
    return {
        {"headless", "", "run a simulation without a window (scripted run)"},
        {"model", "M", "heat, advection or shallow-water"},
        {"scenario", "S", "the model's scenario (default: its first; see --list-params)"},
        {"grid", "N|NXxNY", "grid size in cells (default 256)"},
        {"steps", "K", "time steps to run (default 100)"},
        {"solver", "NAME", "fused (default) or a GPU tridiagonal variant"},
        {"terrain", "T", "shallow water: flat, slope, island, basin, png or png:FILE"},
        {"set", "NAME=VALUE", "set a parameter (repeatable)", true},
        {"init", "FILE", "initial field from a float32 .npy of shape (ny, nx)"},
        {"export", "FILE", "write the final field as float32 .npy (ny, nx)"},
        {"save-state", "FILE", "write the full state at the end"},
        {"load-state", "FILE", "continue from a saved state (its grid and scenario)"},
        {"list-params", "", "list the model's parameters, scenarios and solvers, then exit"},
    };
}

int run_headless(const Args& args) {
    // Everything that can be checked without a GPU, first.
    if (!args.has("model")) {
        std::string names;
        for (const sim::ModelInfo& m : sim::models()) names += (names.empty() ? "" : ", ") + m.name;
        throw UsageError("--headless needs --model (one of: " + names + ")");
    }
    const std::string model = args.get("model");
    bool known_model = false;
    for (const sim::ModelInfo& m : sim::models()) known_model |= m.name == model;
    if (!known_model) {
        std::string names;
        for (const sim::ModelInfo& m : sim::models()) names += (names.empty() ? "" : ", ") + m.name;
        throw UsageError("unknown model '" + model + "' (available: " + names + ")");
    }
    // Range-checked as long long before the narrowing: "4294967360" must not become 64.
    const auto [grid_x, grid_y] = parse_dimensions("grid", args.get("grid", "256"), 4, 8192);
    const int nx = int(grid_x), ny = int(grid_y);
    const long long steps = args.get_int("steps", 100, 0, 2'000'000'000LL);
    // Values are checked against their parameter (a number, or a scheme's name) once the model
    // exists; a bad one is a command-line error (exit 2).
    std::vector<std::pair<std::string, std::string>> settings;
    for (const std::string& item : args.all("set")) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--set: '" + item + "' is not NAME=VALUE");
        settings.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    // An input file that is not there is a mistake on the command line (2); an output that
    // cannot be written is a failed run (1), found before the work rather than after it.
    for (const char* option : {"init", "load-state"})
        if (args.has(option)) check_input_file(option, args.get(option));
    for (const char* option : {"export", "save-state"})
        if (args.has(option)) {
            if (args.get(option).empty())
                throw UsageError("--" + std::string(option) + ": empty path");
            files::check_output_path(args.get(option), "--" + std::string(option) + " file");
        }

    auto context = gl::HeadlessContext::create(static_cast<int>(args.get_int("gpu", -1, 0, 64)));
    const std::string solver = args.get("solver", "fused");
    const std::vector<std::string> solvers = sim::solver_names();
    if (std::find(solvers.begin(), solvers.end(), solver) == solvers.end())
        throw UsageError("unknown solver '" + solver + "' (available: " + list_of(solvers) + ")");
    std::string why;
    if (!sim::solver_supports(model, solver, &why)) throw UsageError(why);
    std::unique_ptr<sim::Simulation> simulation = sim::make_simulation(model, solver);
    sim::Simulation& s = *simulation;

    if (args.has("list-params")) {
        std::cout << "model " << model << "\nscenarios: " << list_of(s.scenarios())
                  << "\nsolvers: " << list_of(sim::solver_names()) << "\n";
        if (!s.terrains().empty())
            std::cout << "terrains: " << list_of(s.terrains()) << ", png:FILE\n";
        std::cout << "parameters:\n";
        for (const sim::ParamSpec& p : s.params()) {
            if (!p.choices.empty()) {
                std::cout << "  " << std::left << std::setw(22) << p.name << std::setw(9) << ""
                          << " default " << std::setw(8) << p.choices[std::size_t(p.default_value)]
                          << " one of " << list_of(p.choices) << "  " << p.help << "\n";
                continue;
            }
            std::cout << "  " << std::left << std::setw(22) << p.name << std::setw(9) << p.unit
                      << " default " << std::setw(8) << p.default_value << " range [" << p.min
                      << ", " << p.max << "]  " << p.help << "\n";
        }
        return 0;
    }

    // --set against the run's scenario and grid (a state file's, once it is read).
    const std::string scenario = args.get("scenario", s.scenarios().front());
    try {
        if (!args.has("load-state")) s.set_params_text(settings, scenario, nx, ny);
    } catch (const Error& e) {
        throw UsageError(std::string("--set: ") + e.what());
    }
    try {
        if (args.has("terrain")) s.set_terrain(args.get("terrain"));
        if (args.has("load-state")) {
            if (args.has("scenario") || args.has("grid") || args.has("init"))
                throw UsageError(
                    "--load-state takes the grid, scenario and field from the state file");
            s.load_state(args.get("load-state"));
            try {
                s.set_params_text(settings);  // --set wins over the state's values
            } catch (const Error& e) {
                throw UsageError(std::string("--set: ") + e.what());
            }
        } else {
            s.reset(scenario, nx, ny);
        }
    } catch (const gl::CapacityError& e) {
        // A grid the GPU cannot hold is a failed run (exit 1), named with the grid.
        throw Error((args.has("load-state")
                         ? "the state's grid"
                         : "--grid " + std::to_string(nx) + "x" + std::to_string(ny)) +
                    " with " + model + ": " + e.what());
    } catch (const files::InputError&) {
        throw;  // a bad --load-state or png: terrain: exit 2 with the file and field named
    } catch (const Error& e) {
        throw UsageError(e.what());  // unknown scenario / parameter / terrain, out of range
    }
    if (args.has("init")) {
        const sim::NpyArray init = sim::read_npy(args.get("init"));
        if (init.nx != s.nx() || init.ny != s.ny())
            throw UsageError("--init: '" + args.get("init") + "' has shape (" +
                             std::to_string(init.ny) + ", " + std::to_string(init.nx) +
                             ") but the grid is (" + std::to_string(s.ny()) + ", " +
                             std::to_string(s.nx()) + ")");
        s.set_field(init.values);
    }

    const auto start = std::chrono::steady_clock::now();
    for (long long done = 0; done < steps;) {
        const long long chunk = std::min(kCheckEvery, steps - done);
        s.step(int(chunk));
        done += chunk;
        const sim::Stats st = s.stats();
        if (!st.stable) throw Error(model + " went unstable: " + st.instability);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const sim::Stats st = s.stats();
    if (!st.stable) throw Error(model + " went unstable: " + st.instability);
    if (args.has("export")) sim::write_npy(args.get("export"), s.nx(), s.ny(), s.read_field());
    if (args.has("save-state")) s.save_state(args.get("save-state"));
    std::ostringstream line;
    line << std::setprecision(9) << model << " " << s.scenario() << " solver=" << s.solver()
         << " grid=" << s.nx() << "x" << s.ny() << " steps=" << st.steps << " time=" << st.time
         << " min=" << st.min << " max=" << st.max << " sum=" << st.sum
         << " wall_s=" << std::setprecision(4) << seconds << "\n";
    std::cout << line.str();
    return 0;
}

}  // namespace adilab::cli
