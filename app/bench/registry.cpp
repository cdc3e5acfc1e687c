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
Benchmark make_soak_benchmark();

std::span<const Benchmark> benchmarks() {
    static const std::vector<Benchmark> all = {
        make_bandwidth_benchmark(), make_tridiag_benchmark(), make_sim_benchmark(),
        make_matmul_benchmark(),    make_lu_benchmark(),      make_power_benchmark(),
        make_soak_benchmark(),
    };
    return all;
}

const Benchmark* find_benchmark(std::string_view name) {
    auto all = benchmarks();
    auto found =
        std::find_if(all.begin(), all.end(), [&](const Benchmark& b) { return b.name == name; });
    return found == all.end() ? nullptr : &*found;
}

void record_config(Report& report, const cli::Args& args) {
    for (const auto& [name, value] : args.given()) {
        if (value.empty())
            report.config.push_back({name, Value(true)});
        else
            report.config.push_back({name, Value(value)});
    }
}

}  // namespace adilab::bench
