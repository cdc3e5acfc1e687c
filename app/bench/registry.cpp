#include <unistd.h>

#include <algorithm>
#include <vector>

#include "app/bench/benchmark.hpp"

namespace adilab::bench {

Benchmark make_bandwidth_benchmark();
Benchmark make_tridiag_benchmark();
Benchmark make_sim_benchmark();
Benchmark make_matmul_benchmark();
Benchmark make_lu_benchmark();
Benchmark make_power_benchmark();
Benchmark make_strided_benchmark();

std::span<const Benchmark> benchmarks() {
    static const std::vector<Benchmark> all = {
        make_bandwidth_benchmark(), make_tridiag_benchmark(), make_sim_benchmark(),
        make_matmul_benchmark(),    make_lu_benchmark(),      make_power_benchmark(),
        make_strided_benchmark(),
    };
    return all;
}

const Benchmark* find_benchmark(std::string_view name) {
    auto all = benchmarks();
    auto found = std::find_if(all.begin(), all.end(), [&](const Benchmark& b) { return b.name == name; });
    return found == all.end() ? nullptr : &*found;
}

void record_config(Report& report, const cli::Args& args) {
    for (const auto& [name, value] : args.given()) {
        if (value.empty())
            report.config.push_back({name, Value(true)});
        else
            report.config.push_back({name, Value(value)});
    }
    // Tuning overrides read from the environment (ADILAB_LU_*, ADILAB_FUSED_*, ...) change what
    // is measured, so a report says which were set.
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string_view text = *entry;
        const std::size_t eq = text.find('=');
        if (!text.starts_with("ADILAB_") || eq == std::string_view::npos) continue;
        const std::string name(text.substr(0, eq));
        if (name.starts_with("ADILAB_REQUIRE_") || name == "ADILAB_ASSETS") continue;
        report.config.push_back({"env." + name, Value(std::string(text.substr(eq + 1)))});
    }
}

}  // namespace adilab::bench
