// `adilab --bench soak`: a long run of every scenario of every model (issue 16's soak: "20,000
// steps of each scenario at 128^2 with no NaN, no memory growth, volume or mass conserved where
// the scenario has no sources"), in the bench rather than in CI, where it would take minutes.
//
// Per scenario: a fresh simulation, reset to the scenario (a "free" scenario, whose start is
// uniform unless --init gives one, starts from a seeded field in [0.5, 1] so that its total and
// its motion mean something); then --steps steps in chunks of --check-every, reading the stats
// (the whole field, min/max/sum, and the GPU's stability flag) after each chunk only: a step
// itself never reads back. A chunk that ends unstable stops the scenario. The process's resident
// memory (/proc/self/statm) and the GPU's free memory (GL_NVX_gpu_memory_info, where the driver
// has it) are taken after the first chunk (shaders compiled, buffers allocated, the stats'
// read-back done once) and at the end: their difference is the growth.
//
// Rows: name (model/scenario, and " on TERRAIN" off the flat bottom), model, scenario, terrain
// (shallow water off the flat bottom; --terrain runs each scenario on each one named), solver,
// grid, steps (done), stable, first_bad_step, instability, sources, total_start, total_end,
// relative_change, tolerance (sourceless scenarios; "-" elsewhere), rss_kib (after the first
// chunk), rss_growth_kib, gpu_growth_kib ("n/a" without GL_NVX_gpu_memory_info), median_ms (wall ms
// a step, the stats reads included). A scenario that went unstable, or a sourceless total that
// moved past its tolerance, makes the run fail: the report is written, and adilab exits 1 naming
// them.
#include "app/bench/soak.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>

#include "app/bench/benchmark.hpp"
#include "sim/simulation.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::bench {

namespace soak {

// Tolerance of a sourceless total, from the arithmetic (as tests/gl/test_sim_limits.cpp's
// SceneLimits derive theirs): a sweep's fp32 solve is exact for a matrix within 2^-24 of the
// sweep's, whose diagonal is 1 + W, so a step moves each cell by a rounding of up to
// 2^-24 (1 + W) max|field|. Roundings of random sign over the n cells move the total by about
// 2^-24 (1 + W) max|field| sqrt(n) a step; the steps are added up linearly (no cancellation from
// one step to the next is counted on: a bias that repeats every step stays inside). Relative to
// the total n mean|field|: steps 2^-24 (1 + W) (max / mean) / sqrt(n). At the defaults (128^2,
// 20,000 steps, W = 2 for heat, max / mean about 1.3 for a field in [0.5, 1]) that is 3.6e-5.
double total_tolerance(std::int64_t steps, double weight, double largest_over_mean,
                       std::int64_t cells) {
    return double(steps) * std::ldexp(1.0, -24) * (1.0 + weight) * largest_over_mean /
           std::sqrt(double(std::max<std::int64_t>(cells, 1)));
}

std::string verdict(const Outcome& o) {
    if (!o.stable)
        return o.name + " went unstable at step " + std::to_string(o.first_bad_step) + ": " +
               o.instability;
    if (o.sources) return {};
    if (!std::isfinite(o.relative_change) || !(o.relative_change <= o.tolerance)) {
        char text[160];
        std::snprintf(text, sizeof text,
                      " lost its total: it moved by %.3g relative, past the fp32 tolerance %.3g",
                      o.relative_change, o.tolerance);
        return o.name + text;
    }
    return {};
}

std::int64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    long long size = 0, resident = -1;
    if (!(statm >> size >> resident) || resident < 0) return -1;
    return std::int64_t(resident) * std::int64_t(::sysconf(_SC_PAGESIZE));
}

}  // namespace soak

namespace {

// A seeded field in [0.5, 1] (splitmix64): the start of a "free" scenario.
std::vector<float> seeded_field(int nx, int ny, std::uint64_t seed) {
    std::vector<float> field(std::size_t(nx) * std::size_t(ny));
    std::uint64_t state = seed;
    for (float& v : field) {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        v = 0.5f + 0.5f * float(double(z >> 11) * 0x1.0p-53);
    }
    return field;
}

Report run_soak(const cli::Args& args, BenchContext& ctx) {
    // --- Everything checked before any work. ---
    const long long steps = args.get_int("steps", 20000, 1, 2'000'000'000LL);
    const auto [grid_x, grid_y] = cli::parse_dimensions("grid", args.get("grid", "128"), 4, 8192);
    const int nx = int(grid_x), ny = int(grid_y);
    const long long check_every = args.get_int("check-every", 2000, 1, 1'000'000'000LL);
    const std::string solver = args.get("solver", "fused");
    const auto names = sim::solver_names();
    if (std::find(names.begin(), names.end(), solver) == names.end()) {
        std::string known;
        for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
        throw cli::UsageError("--solver: unknown '" + solver + "' (available: " + known + ")");
    }
    const std::vector<Scene> cases =
        with_terrains(select_scenes(args.get_list("scenario", {"all"}), true), args);

    Report report = make_report("soak", ctx.device);
    record_config(report, args);
    report.notes.push_back(
        "tolerance (sourceless scenarios): steps 2^-24 (1 + W) (max|field| / mean|field|) / "
        "sqrt(cells), the fp32 round-off of sweeps with diagonal 1 + W (app/bench/soak.cpp "
        "derives it); max / mean is the largest seen at any check");
    report.notes.push_back(
        "free scenarios start from a seeded field in [0.5, 1] (their own "
        "start is uniform); the others from their own start");
    const bool gpu_memory = gl::free_memory_bytes() >= 0;
    if (!gpu_memory)
        report.notes.push_back("gpu_growth_kib: n/a, the driver has no GL_NVX_gpu_memory_info");
    std::vector<std::string> failures;
    std::size_t done = 0;
    for (const Scene& c : cases) {
        ctx.check_cancelled();
        const std::string name = scene_name(c);
        if (!sim::solver_supports(c.model, solver)) {
            report.notes.push_back(name + " skipped: solver " + solver + " does not step " +
                                   c.model);
            ++done;
            continue;
        }
        auto simulation = sim::make_simulation(c.model, solver);
        if (!c.terrain.empty()) simulation->set_terrain(c.terrain);
        try {
            simulation->reset(c.scenario, nx, ny);  // the buffers checked against the GPU first
        } catch (const gl::CapacityError& e) {
            throw gl::CapacityError("--grid " + std::to_string(nx) + "x" + std::to_string(ny) +
                                    " with " + c.model + ": " + e.what());
        }
        if (c.scenario == "free") simulation->set_field(seeded_field(nx, ny, 1000 + done));
        const std::int64_t cells = std::int64_t(nx) * ny;
        const sim::Stats start = simulation->stats();
        double largest_over_mean = 0;
        auto note_spread = [&](const sim::Stats& s) {
            const double mean = std::abs(s.sum) / double(cells);
            const double largest = std::max(std::abs(double(s.min)), std::abs(double(s.max)));
            if (mean > 0) largest_over_mean = std::max(largest_over_mean, largest / mean);
        };
        note_spread(start);

        std::int64_t rss_base = -1, gpu_base = -1;
        long long run = 0;
        sim::Stats last = start;
        const auto began = std::chrono::steady_clock::now();
        while (run < steps) {
            ctx.check_cancelled();
            ctx.progress((double(done) + double(run) / double(steps)) / double(cases.size()),
                         name + " step " + std::to_string(run));
            const long long chunk = std::min(check_every, steps - run);
            simulation->step(int(chunk));
            run += chunk;
            last = simulation->stats();  // the only read-back: every --check-every steps
            note_spread(last);
            if (rss_base < 0) {  // after the first chunk: programs, buffers and the read-back made
                gl::finish();
                rss_base = soak::resident_bytes();
                gpu_base = gl::free_memory_bytes();
            }
            if (!last.stable) break;
        }
        gl::finish();
        const double wall_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began)
                .count();
        const std::int64_t rss_end = soak::resident_bytes();
        const std::int64_t gpu_end = gl::free_memory_bytes();

        soak::Outcome outcome;
        outcome.name = name;
        outcome.stable = last.stable;
        outcome.first_bad_step = last.first_bad_step;
        outcome.instability = last.instability;
        outcome.sources = simulation->has_sources(c.scenario);
        outcome.relative_change = std::abs(last.sum - start.sum) / std::abs(start.sum);
        outcome.tolerance =
            soak::total_tolerance(run, simulation->sweep_weight(), largest_over_mean, cells);
        const std::string failure = soak::verdict(outcome);
        if (!failure.empty()) failures.push_back(failure);

        Row row;
        row.set("name", name).set("model", c.model).set("scenario", c.scenario);
        if (off_flat_bottom(c)) row.set("terrain", c.terrain);
        row.set("solver", solver)
            .set("grid", std::to_string(nx) + "x" + std::to_string(ny))
            .set("steps", run)
            .set("stable", last.stable)
            .set("first_bad_step", std::int64_t(last.first_bad_step))
            .set("instability", last.instability)
            .set("sources", outcome.sources)
            .set("total_start", start.sum)
            .set("total_end", last.sum);
        if (outcome.sources) {
            row.set("relative_change", Value()).set("tolerance", Value());
        } else {
            row.set("relative_change", outcome.relative_change).set("tolerance", outcome.tolerance);
        }
        row.set("conserved", outcome.sources ? "n/a (sources)" : failure.empty() ? "yes" : "no");
        row.set("rss_kib",
                rss_base >= 0 ? Value(std::int64_t(rss_base / 1024)) : Value(std::string("n/a")));
        row.set("rss_growth_kib", rss_base >= 0 && rss_end >= 0
                                      ? Value(std::int64_t((rss_end - rss_base) / 1024))
                                      : Value(std::string("n/a")));
        // Growth is what the free memory lost.
        row.set("gpu_growth_kib", gpu_base >= 0 && gpu_end >= 0
                                      ? Value(std::int64_t((gpu_base - gpu_end) / 1024))
                                      : Value(std::string("n/a")));
        row.set("median_ms", wall_ms / double(std::max(run, 1LL)));
        report.rows.push_back(row);
        ++done;
    }
    ctx.progress(1.0, "done");
    std::vector<Column> columns = {{"model"},
                                   {"scenario"},
                                   {"steps"},
                                   {"stable"},
                                   {"first_bad_step", "first bad"},
                                   {"sources"},
                                   {"relative_change", "total moved"},
                                   {"tolerance"},
                                   {"conserved"},
                                   {"rss_growth_kib", "RSS growth KiB"},
                                   {"gpu_growth_kib", "GPU growth KiB"},
                                   {"median_ms", "ms/step", 4}};
    if (has_terrain_column(report.rows)) columns.insert(columns.begin() + 2, Column("terrain"));
    ctx.out << format_table(report.rows, columns);
    if (!failures.empty()) {
        std::string text = "soak: " + std::to_string(failures.size()) + " of " +
                           std::to_string(report.rows.size()) + " scenarios failed: ";
        for (std::size_t i = 0; i < failures.size(); ++i) text += (i ? "; " : "") + failures[i];
        report.failure = text;
        report.notes.push_back(text);
    }
    return report;
}

}  // namespace

Benchmark make_soak_benchmark() {
    return {"soak",
            "long runs of every scenario: stability, the total of sourceless scenarios, memory "
            "growth (exit 1 when a scenario goes unstable or loses its total)",
            {{"steps", "N", "steps of each scenario (default 20000)"},
             {"grid", "N|WxH", "grid of every run (default 128)"},
             {"check-every", "N",
              "steps between two reads of the stats, the only read-backs "
              "(default 2000)"},
             {"solver", "NAME", "line solver: fused (default) or a GPU tridiagonal variant"},
             {"scenario", "LIST", "all (default), a model, a scenario or model/scenario"},
             terrain_option()},
            run_soak};
}

}  // namespace adilab::bench
