#pragma once
// The benchmark registry: `adilab --bench NAME` and the GUI's benchmark tabs look benchmarks up
// here and call the same `run`, which returns the same Report.
//
// To add one: write `Benchmark make_NAME_benchmark();` in app/bench/NAME.cpp and list it in
// registry.cpp.
#include <algorithm>
#include <atomic>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "app/bench/report.hpp"
#include "app/cli/args.hpp"

namespace adilab::bench {

// Thrown by BenchContext::check_cancelled when the user pressed Cancel.
struct Cancelled {};

struct BenchContext {
    const gl::DeviceInfo& device;
    std::ostream& out;  // the printed table and progress lines
    // Called with the fraction done (0..1) and what is being measured; may be empty.
    std::function<void(double, const std::string&)> on_progress;
    const std::atomic<bool>* cancel = nullptr;

    void progress(double fraction, const std::string& what) const {
        if (on_progress) on_progress(fraction, what);
    }
    void check_cancelled() const {
        if (cancel != nullptr && cancel->load()) throw Cancelled{};
    }
};

struct Benchmark {
    std::string name;
    std::string summary;
    std::vector<cli::OptionSpec> options;  // its own options, besides --report and --gpu
    // Validates its options first (throwing cli::UsageError or adilab::Error before any work),
    // then measures. Needs a current GL context.
    std::function<Report(const cli::Args&, BenchContext&)> run;
};

std::span<const Benchmark> benchmarks();
const Benchmark* find_benchmark(std::string_view name);

// Fills report.config with every option the user gave.
void record_config(Report& report, const cli::Args& args);

// The roof every "% of roof" is quoted against: `--bench bandwidth`'s vec4 copy (read + write
// GB/s), measured in the calling run on two buffers of 256 MiB, or of the largest power of two
// the device's storage blocks and free memory hold. tridiag and sim report each row's effective
// bandwidth as a percentage of it, so that the figure and its roof come from the same machine
// state.
// GPU time per program of `run(runs)`, per run, as "label: ms (dispatches per run); ...":
// a timestamp after each dispatch, the time since the previous one charged to its program (so a
// barrier's wait counts to the dispatch before it); labels carry the shader's defines (the
// shape). The timestamps serialise the dispatches, so the parts can add up to more than a run
// timed without them. A diagnostic column, read back once after the runs.
std::string dispatch_breakdown(const std::function<void(int runs)>& run, int runs);

struct Roof {
    double gb_per_s = 0;
    std::uint64_t buffer_bytes = 0;
};
Roof measure_roof(const gl::DeviceInfo& device);
// "roof: the vec4 copy at N MiB, X GB/s (read + write)", the note every report with % of roof
// carries.
std::string roof_note(const Roof& roof);

// A simulation scene a benchmark runs (sim and soak).
struct Scene {
    std::string model, scenario;
    std::string terrain;  // the bottom of a model that has one (with_terrains), else empty
};
// The scenes --scenario names: "all", a model, a scenario or model/scenario, each once, in the
// models' order. "all" and a model name leave out "free" (a uniform start that measures
// nothing) unless `with_free`. An unknown name is a usage error listing every scene.
std::vector<Scene> select_scenes(const std::vector<std::string>& wanted, bool with_free);
// --terrain LIST: every scene of a model with terrains (shallow water) once per terrain named,
// "flat" where the option is absent; other scenes once. Each name is checked now: an unknown one
// is a usage error, a height map that cannot be read an input error, and --terrain with no
// scene of a model with terrains a usage error.
std::vector<Scene> with_terrains(const std::vector<Scene>& scenes, const cli::Args& args);
// Whether the scene runs on a terrain other than the flat bottom: its rows then carry a terrain
// field, and flat rows keep the identity they had before --terrain, so that --compare still
// pairs them with older reports.
bool off_flat_bottom(const Scene& scene);
// A scene in messages: model/scenario, and " on TERRAIN" off the flat bottom.
std::string scene_name(const Scene& scene);
// The option's description, shared by sim and soak.
cli::OptionSpec terrain_option();
// Whether any row ran off the flat bottom: the console tables show a terrain column then.
bool has_terrain_column(const std::vector<Row>& rows);

// The variants a list option names ("--impl cpu,gpu-fast"), from a solver family's registry
// (solvers/common/registry.hpp): `all` (the default) alone stands for every variant in the
// registry's order; names are kept in the order given, once each. An unknown name, or `all`
// among names, is a usage error listing the known ones.
template <class Variants>
std::vector<std::string> chosen_variants(const cli::Args& args, const std::string& option,
                                         const Variants& variants) {
    const std::vector<std::string> asked = args.get_list(option, {"all"});
    if (std::find(asked.begin(), asked.end(), "all") != asked.end()) {
        if (asked.size() > 1)
            throw cli::UsageError("--" + option + ": 'all' cannot be combined with names");
        return variants.names();
    }
    std::vector<std::string> chosen;
    for (const std::string& name : asked) {
        if (variants.find(name) == nullptr)
            throw cli::UsageError("--" + option + ": unknown variant '" + name +
                                  "' (available: all, " + variants.list() + ")");
        if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) chosen.push_back(name);
    }
    return chosen;
}

}  // namespace adilab::bench
