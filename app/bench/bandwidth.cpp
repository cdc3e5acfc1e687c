// `adilab --bench bandwidth`: the GPU's memory bandwidth as a GL compute shader sees it (a vec4
// copy). It is the roof for the bandwidth-bound solvers, and a first check that a GPU machine
// runs adilab headless.
#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/bench/benchmark.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"

namespace adilab::bench {

namespace {

// One copy of `bytes` from a buffer of ones into another, timed: `repeats` runs after `warm` (the
// bandwidth bench warms up for a second; the roof inside other benches, whose own warm-up
// follows, for a few runs).
Timing time_copy(std::size_t bytes, int repeats, bool warm) {
    const gl::Program& copy = gl::compute_program("common/copy_vec4.comp");
    gl::Buffer source(bytes), destination(bytes);
    source.fill(1.0f);
    const unsigned count = static_cast<unsigned>(bytes / 16);
    // 1024 invocations of 8 vec4s a work group (copy_vec4.comp).
    const unsigned groups = std::min<unsigned>((count + 8191) / 8192, 65535u);
    auto run = [&] {
        copy.use();
        copy.set("count", count);
        source.bind_storage(0);
        destination.bind_storage(1);
        gl::dispatch(groups);
        gl::memory_barrier(gl::Barrier::storage);
    };
    if (!warm) return timing_of(gl::time_runs(run, {.warmup = 3, .repeats = repeats}));
    return measure_stable([&] { return gl::time_runs(run, {.warmup = 3, .repeats = repeats}); },
                          [&] { gl::warm_up(run); });
}

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
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        ctx.check_cancelled();
        ctx.progress(static_cast<double>(s) / sizes.size(), std::to_string(sizes[s]) + " MiB");
        const std::size_t bytes = static_cast<std::size_t>(sizes[s]) << 20;
        const Timing timing = time_copy(bytes, repeats, true);
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

Roof measure_roof(const gl::DeviceInfo& device) {
    // 256 MiB a buffer is far past any GPU's caches; a device that cannot hold two of them
    // (llvmpipe's 128 MiB blocks) gets the largest power of two that fits.
    const gl::Limits limits = gl::limits_of(device);
    std::uint64_t bytes = std::uint64_t(256) << 20;
    while (bytes > (std::uint64_t(1) << 20)) {
        const gl::BufferNeed needs[] = {{"the roof's source buffer", bytes},
                                        {"the roof's destination buffer", bytes}};
        if (gl::capacity_problem(needs, limits).empty()) break;
        bytes /= 2;
    }
    const Timing timing = time_copy(bytes, 10, false);
    return {2.0 * static_cast<double>(bytes) / (timing.median_ms * 1e6), bytes};
}

std::string roof_note(const Roof& roof) {
    std::ostringstream out;
    out << "roof: the vec4 copy of --bench bandwidth at " << (roof.buffer_bytes >> 20) << " MiB, "
        << std::setprecision(4) << roof.gb_per_s
        << " GB/s (read + write), measured in this run; % of roof = a row's GB/s / the roof's";
    return out.str();
}

Benchmark make_bandwidth_benchmark() {
    return {"bandwidth",
            "GPU memory bandwidth seen by a GL compute shader (vec4 copy)",
            {{"mib", "LIST", "buffer sizes in MiB", cli::Default{"16,256"}},
             {"repeats", "N", "timed runs per size", cli::Default{"20"}}},
            run_bandwidth};
}

}  // namespace adilab::bench
