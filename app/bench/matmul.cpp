// `adilab --bench matmul`: C = A * B for square sizes (and optional m x n x l shapes) over the
// matmul registry's variants (the OpenGL matmul paper and Kwon & Lee). Every measurement: min,
// median and max of
// --repeats runs after warm-up, kernel-only (GL_TIME_ELAPSED; GPU variants) and with the host <->
// device transfers (wall clock; what the seeds timed). Each result is checked against float64 dot
// products on sampled entries. Prints the OpenGL matmul paper's Table 1 and Kwon & Lee's Table 1
// layouts.
#include "solvers/matmul/matmul.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <ostream>
#include <sstream>

#include "app/bench/benchmark.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/reference/matmul_reference.hpp"

namespace adilab::bench {

namespace {

using matmul::Shape;
using Clock = std::chrono::steady_clock;

constexpr int kErrorSamples = 512;  // float64 dot products per result (all entries when fewer)

// "MxNxL": three sizes, each strictly parsed (no wrap, no blanks) and quoted when refused.
Shape parse_shape(const std::string& text) {
    const std::vector<std::string> parts = [&] {
        std::vector<std::string> out;
        std::size_t start = 0;
        for (std::size_t x; (x = text.find('x', start)) != std::string::npos; start = x + 1)
            out.push_back(text.substr(start, x - start));
        out.push_back(text.substr(start));
        return out;
    }();
    if (parts.size() != 3)
        throw cli::UsageError("--shapes: '" + text + "' is not MxNxL (e.g. 300x200x100)");
    Shape shape;
    shape.m = static_cast<int>(cli::parse_int_in("shapes", parts[0], 1, 65536));
    shape.n = static_cast<int>(cli::parse_int_in("shapes", parts[1], 1, 65536));
    shape.l = static_cast<int>(cli::parse_int_in("shapes", parts[2], 1, 65536));
    return shape;
}

double wall_ms(const std::function<void()>& work) {
    const auto start = Clock::now();
    work();
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Entry {
    std::string variant;                     // registry name
    std::optional<matmul::GemmTiles> tiles;  // gpu-fast: fixed tiles (--tiles), else automatic
};

Report run_matmul(const cli::Args& args, BenchContext& ctx) {
    // ---- Every option checked before any work. ----
    const auto sizes = args.get_int_list("sizes", {128, 256, 512, 1024, 2048, 4096}, 1, 65536);
    std::vector<Shape> shapes;
    for (long long n : sizes)
        shapes.push_back({static_cast<int>(n), static_cast<int>(n), static_cast<int>(n)});
    for (const std::string& text : args.get_list("shapes", {})) shapes.push_back(parse_shape(text));
    const long long cpu_max = args.get_int("cpu-max", 1024, 0, 65536);
    const int repeats = static_cast<int>(args.get_int("repeats", 10, 1, 10000));
    std::vector<Entry> entries;
    for (const std::string& name : chosen_variants(args, "impl", matmul::variants()))
        entries.push_back({name, std::nullopt});
    for (const std::string& text : args.get_list("tiles", {})) {
        matmul::GemmTiles tiles;
        try {
            tiles = matmul::GemmTiles::parse(text);
        } catch (const Error& e) {
            throw cli::UsageError(std::string("--tiles: ") + e.what());
        }
        matmul::check_tiles(tiles, ctx.device);
        entries.push_back({"gpu-fast", tiles});
    }
    for (const matmul::GemmTiles& tiles : matmul::tuned_tiles())
        matmul::check_tiles(tiles, ctx.device);
    for (const Entry& e : entries) {
        // GPU variants: their own buffers for the host entry plus the kernel-only timing's.
        const matmul::VariantInfo& info = matmul::variants().at(e.variant);
        for (const Shape& s : shapes)
            matmul::check_shape(s, info.uses_gpu, ctx.device, info.on_gpu ? 2 : 1);
    }

    Report report = make_report("matmul", ctx.device);
    record_config(report, args);
    std::vector<std::unique_ptr<matmul::Multiplier>> made;
    for (const Entry& e : entries) made.push_back(matmul::make_multiplier(e.variant, e.tiles));

    const std::size_t steps = shapes.size() * made.size();
    std::size_t step = 0;
    for (const Shape& s : shapes) {
        const std::string shape_text =
            std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.l);
        const auto a = reference::random_matrix(static_cast<std::size_t>(s.m) * s.n, 1000u + s.m);
        const auto b = reference::random_matrix(static_cast<std::size_t>(s.n) * s.l, 2000u + s.l);
        std::vector<float> c(static_cast<std::size_t>(s.m) * s.l);
        double cpu_ijk_ms = NAN;
        for (std::size_t e = 0; e < made.size(); ++e, ++step) {
            matmul::Multiplier& mult = *made[e];
            const matmul::VariantInfo& info = matmul::variants().at(entries[e].variant);
            ctx.check_cancelled();
            ctx.progress(static_cast<double>(step) / steps, mult.name() + " " + shape_text);
            if (info.cpu_baseline && std::max({s.m, s.n, s.l}) > cpu_max) {
                report.notes.push_back(mult.name() + " skipped at " + shape_text +
                                       " (above --cpu-max " + std::to_string(cpu_max) + ")");
                continue;
            }
            Row row;
            row.set("name", mult.name()).set("m", s.m).set("n", s.n).set("l", s.l);
            // Warm-up with transfers (GPU) or the plain run (CPU, cpgpu), wall clock. GPU variants
            // run once untimed first (shader compiles, allocation, cpgpu's calibration). A variant
            // whose warm-up takes over 2 s gets 3 timed runs, not --repeats, so that the bench
            // finishes (e.g. cpu-ijk at N = 1024, anything large on a software renderer); the
            // notes say so.
            if (info.uses_gpu) mult.multiply_host(s, a.data(), b.data(), c.data());
            ctx.check_cancelled();
            std::fill(c.begin(), c.end(), NAN);
            const double first_ms =
                wall_ms([&] { mult.multiply_host(s, a.data(), b.data(), c.data()); });
            int runs = repeats;
            if (first_ms > 2000.0 && repeats > 3) {
                runs = 3;
                report.notes.push_back(mult.name() + " at " + shape_text +
                                       ": 3 timed runs (one takes " +
                                       std::to_string(static_cast<int>(first_ms)) + " ms)");
            }
            Timing kernel;
            if (info.on_gpu) {
                ctx.check_cancelled();
                gl::Buffer ga = gl::Buffer::from(a), gb = gl::Buffer::from(b);
                gl::Buffer gc(c.size() * sizeof(float));
                gc.poison();
                // Clocks up after the CPU baselines; a size whose single run is long (runs <
                // repeats) needs no warm-up runs.
                if (runs == repeats) gl::warm_up([&] { mult.multiply_gpu(s, ga, gb, gc); });
                ctx.check_cancelled();
                gc.poison();
                kernel = measure_stable(
                    [&] {
                        return gl::time_runs([&] { mult.multiply_gpu(s, ga, gb, gc); },
                                             {.warmup = 0, .repeats = runs});
                    },
                    [&] { gl::warm_up([&] { mult.multiply_gpu(s, ga, gb, gc); }); });
            }
            std::vector<double> host_samples;
            for (int r = 0; r < runs; ++r) {
                ctx.check_cancelled();
                std::fill(c.begin(), c.end(), NAN);  // poisoned: an unwritten entry shows as error
                host_samples.push_back(
                    wall_ms([&] { mult.multiply_host(s, a.data(), b.data(), c.data()); }));
            }
            const Timing host = timing_of(host_samples);
            const double host_ms = host.median_ms;
            const Timing timing = info.on_gpu ? kernel : host;
            const double ms = timing.median_ms;
            if (mult.name() == "cpu-ijk") cpu_ijk_ms = host_ms;
            const double error = reference::sampled_scaled_error(a.data(), b.data(), c.data(), s.m,
                                                                 s.n, s.l, kErrorSamples);
            // fp32 dot products of length n: |error| <= gamma_n (|A||B|)_ij (Higham eq. 3.5).
            const double bound = reference::fp32_dot_gamma(s.n);
            set_timing(row, timing);
            row.set("median_ms_with_transfer", host_ms)
                .set("gflops", s.flops() / (ms * 1e6))
                .set("gflops_with_transfer", s.flops() / (host_ms * 1e6))
                .set("speedup_vs_cpu",
                     std::isnan(cpu_ijk_ms) ? Value() : Value(cpu_ijk_ms / host_ms))
                .set("max_rel_error", error)
                .set("error_bound", bound)
                .set("runs", runs);
            if (const std::string config = mult.config(s); !config.empty())
                row.set("tiles", config);
            const matmul::SplitReport split = mult.split();
            if (split.g >= 0) {
                row.set("g", split.g)
                    .set("g_fraction", static_cast<double>(split.g) / s.m)
                    .set("rate_gpu_gflops", split.rates.gpu_gflops)
                    .set("rate_cpu_gflops", split.rates.cpu_gflops)
                    .set("rate_transfer_gb_s", split.rates.transfer_gb_per_s);
            }
            if (!(error <= bound))
                report.notes.push_back(mult.name() + " at " + shape_text + ": error " +
                                       std::to_string(error) + " exceeds the fp32 bound " +
                                       std::to_string(bound));
            report.rows.push_back(row);
        }
    }
    ctx.progress(1.0, "done");
    note_unstable_rows(report);

    ctx.out << format_table(report.rows, {{"name"},
                                          {"m"},
                                          {"n"},
                                          {"l"},
                                          {"min_ms", "min ms", 3},
                                          {"median_ms", "ms", 3},
                                          {"max_ms", "max ms", 3},
                                          {"unstable"},
                                          {"median_ms_with_transfer", "ms+transfer", 3},
                                          {"gflops", "GFLOPS", 1},
                                          {"speedup_vs_cpu", "vs cpu-ijk", 1},
                                          {"max_rel_error", "error", 2},
                                          {"g"}});
    // Table 1 of the OpenGL matmul paper: per N, the paper's GPU shader and its naive CPU loop (ms
    // with transfer).
    auto find = [&](const std::string& name, const Shape& s) -> const Row* {
        for (const Row& r : report.rows)
            if (r.text("name") == name && r.number("m") == s.m && r.number("n") == s.n &&
                r.number("l") == s.l)
                return &r;
        return nullptr;
    };
    std::vector<Row> paper0, paper2;
    for (const Shape& s : shapes) {
        if (s.m != s.n || s.n != s.l) continue;
        const Row* gpu = find("gpu-tiled32", s);
        const Row* cpu = find("cpu-ijk", s);
        if (gpu != nullptr || cpu != nullptr) {
            Row r;
            r.set("N", s.n);
            if (gpu)
                r.set("gpu_ms", gpu->number("median_ms_with_transfer"))
                    .set("gpu_gflops", gpu->number("gflops_with_transfer"))
                    .set("kernel_ms", gpu->number("median_ms"))
                    .set("kernel_gflops", gpu->number("gflops"));
            if (cpu)
                r.set("cpu_ms", cpu->number("median_ms")).set("cpu_gflops", cpu->number("gflops"));
            if (gpu && cpu)
                r.set("speedup", cpu->number("median_ms") / gpu->number("median_ms_with_transfer"));
            paper0.push_back(r);
        }
        Row r2;
        r2.set("N", s.n);
        bool any = false;
        for (auto [name, column] : {std::pair{"cpu-ijk", "CPU1"},
                                    {"cpu-ikj", "CPU2"},
                                    {"gpu-fast", "GPU"},
                                    {"cpgpu", "CPGPU"}}) {
            if (const Row* found = find(name, s)) {
                r2.set(column, found->number("median_ms_with_transfer"));
                if (std::string(name) == "cpgpu") r2.set("g", found->number("g"));
                any = true;
            }
        }
        if (any) paper2.push_back(r2);
    }
    if (!paper0.empty()) {
        ctx.out << "\nTable 1 of the OpenGL matmul paper layout (gpu-tiled32 with transfers vs "
                   "cpu-ijk):\n"
                << format_table(paper0, {{"N"},
                                         {"gpu_ms", "GPU ms", 2},
                                         {"gpu_gflops", "GPU GFLOPS", 2},
                                         {"cpu_ms", "CPU ms", 2},
                                         {"cpu_gflops", "CPU GFLOPS", 2},
                                         {"speedup", "speed-up", 1},
                                         {"kernel_ms", "kernel ms", 3},
                                         {"kernel_gflops", "kernel GFLOPS", 1}});
    }
    if (!paper2.empty()) {
        ctx.out << "\nTable 1 of Kwon & Lee layout (ms; GPU = gpu-fast with transfers):\n"
                << format_table(paper2, {{"N"},
                                         {"CPU1", "", 2},
                                         {"CPU2", "", 2},
                                         {"GPU", "", 2},
                                         {"CPGPU", "", 2},
                                         {"g", "g", 0}});
    }
    return report;
}

}  // namespace

Benchmark make_matmul_benchmark() {
    return {"matmul",
            "C = A*B, fp32: CPU loops, the OpenGL matmul paper's 32x32 shader, a register-blocked "
            "GEMM, CPU+GPU split",
            {{"sizes", "LIST", "square sizes N", cli::Default{"128,256,512,1024,2048,4096"}},
             {"shapes", "LIST", "extra MxNxL shapes, e.g. 300x200x100 (A is MxN, B is NxL)"},
             {"impl", "LIST", "all or names: " + matmul::variants().list(), cli::Default{"all"},
              matmul::variants().names()},
             {"cpu-max", "N", "skip CPU baselines above this size", cli::Default{"1024"}},
             {"repeats", "N", "timed runs per measurement, after warm-up", cli::Default{"10"}},
             {"tiles", "LIST", "extra gpu-fast tile configurations BMxBNxBKxTMxTN to time"}},
            run_matmul};
}

}  // namespace adilab::bench
