// `adilab --bench bandwidth`: the GPU's memory bandwidth as a GL compute shader sees it (a vec4
// copy). It is the roof for the bandwidth-bound solvers, and a first check that a GPU machine
// runs adilab headless.
#include <algorithm>
#include <ostream>

#include "app/bench/benchmark.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"

namespace adilab::bench {

namespace {

Report run_bandwidth(const cli::Args& args, BenchContext& ctx) {
    const auto sizes = args.get_int_list("mib", {16, 256}, 1, 16384);
    const int repeats = static_cast<int>(args.get_int("repeats", 20, 1, 100000));
    for (long long mib : sizes) {
        const std::uint64_t bytes = std::uint64_t(mib) << 20;
        const gl::BufferNeed needs[] = {{"the copy's source buffer", bytes},
                                        {"the copy's destination buffer", bytes}};
        const std::string problem = gl::capacity_problem(needs, gl::limits_of(ctx.device));
        if (!problem.empty())
            throw gl::CapacityError("--mib " + std::to_string(mib) + ": " + problem);
    }
    Report report = make_report("bandwidth", ctx.device);
    record_config(report, args);
    const gl::Program& copy = gl::compute_program("common/copy_vec4.comp");
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        ctx.check_cancelled();
        ctx.progress(static_cast<double>(s) / sizes.size(), std::to_string(sizes[s]) + " MiB");
        const std::size_t bytes = static_cast<std::size_t>(sizes[s]) << 20;
        gl::Buffer source(bytes), destination(bytes);
        source.fill(1.0f);
        const unsigned count = static_cast<unsigned>(bytes / 16);
        const unsigned groups = std::min<unsigned>((count + 255) / 256, 65535u);
        auto run = [&] {
            copy.use();
            copy.set("count", count);
            source.bind_storage(0);
            destination.bind_storage(1);
            gl::dispatch(groups);
            gl::memory_barrier(gl::Barrier::storage);
        };
        const Timing timing =
            measure_stable([&] { return gl::time_runs(run, {.warmup = 3, .repeats = repeats}); },
                           [&] { gl::warm_up(run); });
        const double ms = timing.median_ms;
        Row row;
        row.set("name", "gl-copy-vec4").set("mib", sizes[s]);
        set_timing(row, timing);
        row.set("gb_per_s", 2.0 * static_cast<double>(bytes) / (ms * 1e6));
        report.rows.push_back(row);
    }
    ctx.progress(1.0, "done");
    note_unstable_rows(report);
    ctx.out << format_table(report.rows, {{"name"},
                                          {"mib"},
                                          {"min_ms", "", 4},
                                          {"median_ms", "", 4},
                                          {"max_ms", "", 4},
                                          {"unstable"},
                                          {"gb_per_s", "GB/s (r+w)", 1}});
    return report;
}

}  // namespace

Benchmark make_bandwidth_benchmark() {
    return {"bandwidth",
            "GPU memory bandwidth seen by a GL compute shader (vec4 copy)",
            {{"mib", "LIST", "buffer sizes in MiB", cli::Default{"16,256"}},
             {"repeats", "N", "timed runs per size", cli::Default{"20"}}},
            run_bandwidth};
}

}  // namespace adilab::bench
