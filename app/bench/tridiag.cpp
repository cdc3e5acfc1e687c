// `adilab --bench tridiag [--grid 256,1024,2048,4096] [--solver all|name,...] [--repeats N]
//                          [--report f.json|f.csv]`
// For each grid n: n lines of n unknowns, both directions, both coefficient forms, every chosen
// solver of solvers/tridiagonal. Every result is checked against the float64 CPU Thomas in the
// same run (max_rel_error). The systems are random, symmetric and diagonally dominant (as the
// heat and shallow-water systems are), so CG is meaningful too.
//
// Timing: GPU variants are timed with GL_TIME_ELAPSED over a batch of back-to-back solves (one
// query per batch: the per-solve figure is batch time / batch size, so the query's own cost does
// not hide a 10 us solve); min, median and max of the batches are reported, and a row whose
// batches spread more than 10% is re-timed after more warm-up and flagged if it stays so
// (report.hpp: measure_stable). thomas-cpu is timed on the host arithmetic alone (data already
// in host memory, wall clock), as the paper's CPU baseline (Kim & Lee 2005, Fig. 11).
// gb_per_s counts the bytes a solve must move at least: read k, write x, and read a, b, c for
// general coefficients; pct_of_roof is that against the run's bandwidth roof (measure_roof).
// solve_breakdown (GPU variants): GPU time per kernel and solve (dispatch_breakdown).
// Tuning: `--tune tridiag.FIELD=VALUE` (solvers/tridiagonal/tuning.hpp); every row records the
// complete tuning of lu-scan and lu-window.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>

#include "app/bench/benchmark.hpp"
#include "app/bench/tuning.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/reference/tridiagonal.hpp"
#include "solvers/tridiagonal/solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::bench {

namespace {

using tridiag::Direction;

// Exact solvers are expected within fp32 rounding of the reference; this flags a broken one in
// the printed notes (cg-1 / cg-2 are approximations by design and are not flagged).
constexpr double kExactLimit = 1e-4;

struct Config {
    int n;
    Direction direction;
    bool constant;
};

std::string describe(const Config& c) {
    return std::to_string(c.n) + "^2 " + (c.direction == Direction::x ? "x" : "y") + " " +
           (c.constant ? "constant" : "general");
}

Report run_tridiag(const cli::Args& args, BenchContext& ctx) {
    // Everything the user typed is checked before any work.
    const auto grids = args.get_int_list("grid", {256, 1024, 2048, 4096}, 1, 8192);
    const auto solvers = chosen_variants(args, "solver", tridiag::variants());
    const int repeats = static_cast<int>(args.get_int("repeats", 15, 1, 10000));
    const double warmup_ms = args.get_double("warmup-ms", gl::kWarmUpMs, 0, 60000);
    tridiag::Tuning tuning;
    apply_tuning(tuning_assignments(args, {"tridiag"}), "tridiag", tridiag::tuning_fields(tuning));
    const std::string direction = args.get("direction", "both");
    if (direction != "both" && direction != "x" && direction != "y")
        throw cli::UsageError("--direction: expected x, y or both, got '" + direction + "'");
    const std::string forms = args.get("coefficients", "both");
    if (forms != "both" && forms != "constant" && forms != "general")
        throw cli::UsageError("--coefficients: expected constant, general or both, got '" + forms +
                              "'");
    // --constant a,b,c: the constant-coefficient systems' interior a, b, c (b also on the end
    // rows) instead of random ones, e.g. an implicit heat step -r, 1 + 2r, -r.
    std::optional<tridiag::ConstantCoefficients> fixed;
    if (args.has("constant")) {
        const auto parts = args.get_list("constant", {});
        std::vector<float> v;  // the solvers' coefficients are float32: strictly parsed to one
        for (const std::string& part : parts) v.push_back(cli::parse_float("constant", part));
        if (v.size() != 3)
            throw cli::UsageError("--constant: expected three numbers a,b,c, got '" +
                                  args.get("constant") + "'");
        fixed = tridiag::ConstantCoefficients{v[0], v[1], v[2], v[1], v[1]};
    }
    std::map<std::string, std::unique_ptr<tridiag::Solver>> instances;
    for (const auto& name : solvers) instances[name] = tridiag::make_solver(name, tuning);
    // Grids the GPU cannot hold are refused before any work, naming the buffer: the problem's
    // (right-hand side k, the checked and the timed solution, general a, b, c; n x n floats
    // each) and every chosen solver's scratch.
    for (long long n : grids) {
        const std::uint64_t field = std::uint64_t(n) * std::uint64_t(n) * sizeof(float);
        std::vector<gl::BufferNeed> needs = {
            {"the right-hand side k", field}, {"the checked solution x", field},
            {"the timed solution", field},    {"the sub-diagonal a", field},
            {"the diagonal b", field},        {"the super-diagonal c", field}};
        for (const auto& [name, solver] : instances)
            for (gl::BufferNeed& scratch : solver->scratch_needs({int(n), int(n)}))
                needs.push_back(std::move(scratch));
        const std::string problem = gl::capacity_problem(needs, gl::limits_of(ctx.device));
        if (!problem.empty())
            throw gl::CapacityError("--grid " + std::to_string(n) + ": " + problem);
    }

    Report report = make_report("tridiag", ctx.device);
    record_config(report, args);
    const Roof roof = measure_roof(ctx.device);
    report.notes.push_back(roof_note(roof));
    std::vector<Config> configs;
    for (long long n : grids)
        for (Direction d : {Direction::x, Direction::y})
            for (bool constant : {true, false}) {
                if (direction != "both" && direction != (d == Direction::x ? "x" : "y")) continue;
                if (forms != "both" && forms != (constant ? "constant" : "general")) continue;
                configs.push_back({int(n), d, constant});
            }
    const double steps = double(configs.size()) * double(solvers.size() + 1);
    double done = 0;
    for (const Config& config : configs) {
        ctx.check_cancelled();
        ctx.progress(done / steps, "reference " + describe(config));
        const int n = config.n;
        const bool along_x = config.direction == Direction::x;
        const auto problem = reference::random_dominant_problem(
            n, n, along_x, 1000u + unsigned(n) + (along_x ? 0u : 1u), 0.5, true);
        const tridiag::ConstantCoefficients constant =
            fixed ? *fixed
                  : tridiag::ConstantCoefficients{
                        float(problem.const_a), float(problem.const_b), float(problem.const_c),
                        float(problem.const_b_first), float(problem.const_b_last)};
        const auto expected =
            config.constant
                ? reference::solve_grid_constant(n, n, along_x, constant.a, constant.b, constant.c,
                                                 constant.b_first, constant.b_last, problem.k)
                : reference::solve_grid_general(n, n, along_x, problem.a, problem.b, problem.c,
                                                problem.k);
        if (config.constant && config.direction == Direction::y &&
            std::find(solvers.begin(), solvers.end(), "lu-window") != solvers.end()) {
            // The decay window lu-window takes here (with the tuning that runs), derived from
            // the coefficients (solvers/tridiagonal/lu_factors.cpp).
            const tridiag::WindowTuning& defaults = tuning.window;
            const auto plan =
                tridiag::lu_window_plan(unsigned(n), constant, unsigned(defaults.max_window));
            std::ostringstream note;
            note << "lu-window " << n << "^2: coefficients a=" << constant.a << " b=" << constant.b
                 << " c=" << constant.c;
            if (plan.usable)
                note << ": window K=" << plan.rows << " rows (" << plan.exact_rows
                     << " needed), truncation bound " << plan.bound;
            else
                note << ": no window <= " << defaults.max_window << " rows";
            const unsigned halo = tridiag::lu_colscan_halo(unsigned(n), constant, defaults);
            if (defaults.scan_y && halo != ~0u &&
                double(n) * double(n) <= double(defaults.scan_max_unknowns))
                note << "; column scan ("
                     << (tridiag::lu_colscan_lean(unsigned(n), constant, defaults) ? "lean"
                                                                                   : "first")
                     << " form), " << halo << "-chunk warm-ups"
                     << (halo == 0 ? " (whole columns: exact)" : "");
            else if (!plan.usable || double(n) * double(n) < double(defaults.min_unknowns))
                note << "; exact path (lu-scan)";
            else
                note << "; window kernel, " << defaults.rows << " rows per invocation";
            report.notes.push_back(note.str());
        }
        const double unknowns = double(n) * double(n);
        const double bytes = unknowns * 4.0 * (config.constant ? 2.0 : 5.0);

        // The CPU baseline, always measured: speedup_vs_thomas needs it.
        tridiag::HostSystem host;
        std::vector<float> host_x(problem.k.size());
        host.k = problem.k.data();
        host.x = host_x.data();
        if (config.constant) {
            host.constant = constant;
        } else {
            host.a = problem.a.data();
            host.b = problem.b.data();
            host.c = problem.c.data();
        }
        std::vector<double> cpu_samples;
        const int cpu_repeats = std::clamp(repeats / 3, 1, 5);
        for (int r = 0; r < cpu_repeats; ++r) {
            ctx.check_cancelled();
            const auto start = std::chrono::steady_clock::now();
            tridiag::thomas_cpu_solve_host({n, n}, config.direction, host);
            cpu_samples.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
        }
        const Timing thomas = timing_of(cpu_samples);
        const double thomas_ms = thomas.median_ms;
        done += 1;

        gl::Buffer k = gl::Buffer::from(problem.k), x(problem.k.size() * sizeof(float));
        // The timed solves write `timed`, which is never read back: only `x` (the checked
        // solve's output) is, so a driver's placement of buffers it sees read back cannot change
        // what is timed (a simulation step never reads its solution back either).
        gl::Buffer timed(problem.k.size() * sizeof(float));
        gl::Buffer a, b, c;
        if (!config.constant) {
            a = gl::Buffer::from(problem.a);
            b = gl::Buffer::from(problem.b);
            c = gl::Buffer::from(problem.c);
        }
        const tridiag::Coefficients coefficients =
            config.constant ? tridiag::Coefficients(constant)
                            : tridiag::Coefficients(tridiag::GeneralCoefficients{&a, &b, &c});
        for (const std::string& name : solvers) {
            ctx.check_cancelled();
            ctx.progress(done / steps, name + " " + describe(config));
            done += 1;
            tridiag::Solver& solver = *instances[name];
            Row row;
            row.set("name", name)
                .set("grid", n)
                .set("direction", along_x ? "x" : "y")
                .set("coefficients", config.constant ? "constant" : "general");
            Timing timing;
            double error = 0;
            std::string failure, breakdown;
            try {
                if (tridiag::variants().at(name).on_gpu) {
                    x.poison();
                    solver.solve({n, n}, config.direction, coefficients, k, x);
                    if (auto f = solver.check_pivots())
                        failure = "pivot failure (line " + std::to_string(f->line) + ")";
                    error = reference::max_relative_error(x.read_all<float>(), expected.x);
                    if (const std::string path = solver.last_path(); !path.empty())
                        row.set("path", path);
                    // Clocks up after the float64 reference (gl::warm_up). Batches of ~2 ms of
                    // work, so that a query's cost does not count; one timed solve sizes the
                    // batch.
                    gl::warm_up(
                        [&] {
                            solver.solve({n, n}, config.direction, coefficients, k, timed);
                        },
                        warmup_ms);
                    const double single_ms = gl::median(gl::time_runs(
                        [&] {
                            solver.solve({n, n}, config.direction, coefficients, k, timed);
                        },
                        {.warmup = 0, .repeats = 1}));
                    const int batch = std::clamp(int(2.0 / std::max(single_ms, 1e-4)), 1, 200);
                    auto batches = [&] {
                        auto samples = gl::time_runs(
                            [&] {
                                for (int i = 0; i < batch; ++i)
                                    solver.solve({n, n}, config.direction, coefficients, k, timed);
                            },
                            {.warmup = 2, .repeats = repeats});
                        for (double& sample : samples) sample /= batch;
                        return samples;
                    };
                    timing = measure_stable(batches, [&] {
                        gl::warm_up(
                            [&] {
                                solver.solve({n, n}, config.direction, coefficients, k, timed);
                            },
                            warmup_ms);
                    });
                    if (auto f = solver.check_pivots(); f && failure.empty())
                        failure = "pivot failure (line " + std::to_string(f->line) + ")";
                    breakdown = dispatch_breakdown(
                        [&](int runs) {
                            for (int i = 0; i < runs; ++i)
                                solver.solve({n, n}, config.direction, coefficients, k, timed);
                        },
                        16);
                } else {
                    // thomas-cpu: the baseline measured above, checked like the others.
                    const int failed =
                        tridiag::thomas_cpu_solve_host({n, n}, config.direction, host);
                    if (failed >= 0)
                        failure = "pivot failure (line " + std::to_string(failed) + ")";
                    error = reference::max_relative_error(host_x, expected.x);
                    timing = thomas;
                }
            } catch (const Error& e) {
                // A solver that refuses this configuration (e.g. cg's line limit) is reported,
                // and the other solvers go on.
                report.notes.push_back(name + " " + describe(config) + ": " + e.what());
                continue;
            }
            if (!failure.empty())
                report.notes.push_back(name + " " + describe(config) + ": " + failure);
            if (error > kExactLimit && name != "cg-1" && name != "cg-2")
                report.notes.push_back(name + " " + describe(config) + ": max_rel_error " +
                                       std::to_string(error) + " above " +
                                       std::to_string(kExactLimit) + " (WRONG)");
            const double ms = timing.median_ms;
            set_timing(row, timing);
            row.set("gb_per_s", bytes / (ms * 1e6))
                .set("pct_of_roof", 100.0 * bytes / (ms * 1e6) / roof.gb_per_s)
                .set("roof_gb_per_s", roof.gb_per_s)
                .set("speedup_vs_thomas", thomas_ms / ms)
                .set("max_rel_error", error);
            if (!breakdown.empty()) row.set("solve_breakdown", breakdown);
            record_tuning(row, "tridiag", tridiag::tuning_fields(tuning));
            report.rows.push_back(row);
        }
    }
    ctx.progress(1.0, "done");
    note_unstable_rows(report);

    // Where cr-pingpong's time goes: 2 floor(log2 N) dependent dispatches, each with a memory
    // barrier. An empty dispatch + barrier, timed the same way, is the floor per level.
    double empty_us = 0;
    {
        const gl::Program& copy = gl::compute_program("common/copy_vec4.comp");
        const int batch = 200;
        const auto samples = gl::time_runs(
            [&] {
                copy.use();
                copy.set("count", 0u);
                for (int i = 0; i < batch; ++i) {
                    gl::dispatch(1);
                    gl::memory_barrier(gl::Barrier::storage);
                }
            },
            {.warmup = 2, .repeats = repeats});
        empty_us = gl::median(samples) / batch * 1e3;
        report.notes.push_back("empty dispatch + storage barrier: " + std::to_string(empty_us) +
                               " us");
    }
    for (const Row& r : report.rows) {
        if (r.text("name") != "cr-pingpong") continue;
        const int n = int(r.number("grid"));
        const int dispatches = n > 1 ? 2 * int(std::floor(std::log2(double(n)))) : 1;
        const double per = r.number("median_ms") * 1e3 / dispatches;
        report.notes.push_back("cr-pingpong " + std::to_string(n) + " " + r.text("direction") +
                               " " + r.text("coefficients") + ": " + std::to_string(dispatches) +
                               " dispatches, " + std::to_string(per) + " us each (" +
                               std::to_string(per / std::max(empty_us, 1e-9)) +
                               " x an empty dispatch)");
    }

    ctx.out << format_table(report.rows, {{"name"},
                                          {"grid"},
                                          {"direction", "dir"},
                                          {"coefficients"},
                                          {"min_ms", "", 4},
                                          {"median_ms", "", 4},
                                          {"max_ms", "", 4},
                                          {"unstable"},
                                          {"gb_per_s", "GB/s", 1},
                                          {"pct_of_roof", "% roof", 1},
                                          {"speedup_vs_thomas", "vs thomas", 1},
                                          {"max_rel_error", "max rel err", 8},
                                          {"path"}});
    // The paper's Fig. 11 (Kim & Lee 2005): cyclic reduction against CG with 1 and 2 iterations and
    // the CPU's Thomas, in milliseconds per batched solve (general coefficients, as the paper's
    // textures carry every coefficient).
    std::vector<Row> figure;
    for (const Config& config : configs) {
        if (config.constant) continue;
        Row line;
        line.set("grid", config.n).set("direction", config.direction == Direction::x ? "x" : "y");
        bool any = false;
        for (const Row& r : report.rows) {
            if (r.number("grid") != config.n || r.text("coefficients") != "general" ||
                r.text("direction") != (config.direction == Direction::x ? "x" : "y"))
                continue;
            for (const char* name :
                 {"cr-pingpong", "cr-shared", "lu-scan", "cg-1", "cg-2", "thomas-cpu"})
                if (r.text("name") == name) {
                    line.set(name, r.number("median_ms"));
                    any = true;
                }
        }
        if (any) figure.push_back(line);
    }
    if (!figure.empty()) {
        ctx.out << "\nFig. 11 of Kim & Lee 2005 (ms per batched solve, general coefficients):\n"
                << format_table(figure, {{"grid"},
                                         {"direction", "dir"},
                                         {"cr-pingpong", "CR (paper)", 4},
                                         {"cr-shared", "CR shared", 4},
                                         {"cg-1", "CG 1 it", 4},
                                         {"cg-2", "CG 2 it", 4},
                                         {"thomas-cpu", "Thomas CPU", 4}});
    }
    return report;
}

}  // namespace

Benchmark make_tridiag_benchmark() {
    tridiag::Tuning defaults;
    return {"tridiag",
            "batched tridiagonal solves (n lines of n unknowns, x and y, constant and general "
            "coefficients) of every solver, checked against float64 Thomas",
            {{"grid", "LIST", "grid sizes n (n x n)", cli::Default{"256,1024,2048,4096"}},
             {"solver", "LIST", "all or names: " + tridiag::variants().list(), cli::Default{"all"},
              tridiag::variants().names()},
             {"repeats", "N", "timed batches per measurement", cli::Default{"15"}},
             {"warmup-ms", "MS", "untimed solves before each measurement, at least",
              cli::Default{"1000"}},
             {"direction", "x|y|both", "line directions", cli::Default{"both"}},
             {"coefficients", "constant|general|both", "coefficient forms", cli::Default{"both"}},
             {"constant", "A,B,C", "constant systems' a, b, c", cli::Default{"random, dominant"}},
             tune_option(describe_tuning("tridiag", tridiag::tuning_fields(defaults)))},
            run_tridiag};
}

}  // namespace adilab::bench
