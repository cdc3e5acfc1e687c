// `adilab --bench lu`: LU decomposition with partial pivoting (the LU paper, "Blocked LU
// decomposition on the GPU"), every variant of
// solvers/lu on random matrices (or the user's Matrix Market file), with the factor and solve
// residuals of each run and the paper's comparison: blocked versus unblocked (7-9x on Tesla
// C1060/C2075 at n = 1024..4096).
//
// Rows: name, n, block, panel (the one that ran), median_ms, gflops (2/3 n^3 / time),
// factor_residual
// (||PA - LU||_inf / ||A||_inf: exact up to n = 1024, else a 4-probe estimate, see the notes),
// solve_residual (||Ax - b||_inf / (||A||_inf ||x||_inf)), speedup_vs_unblocked, and for
// gpu-blocked its complete tuning (`tuning`, and one lu.FIELD column a field).
#include "solvers/lu/lu.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <random>
#include <set>

#include "app/bench/benchmark.hpp"
#include "app/bench/tuning.hpp"
#include "solvers/common/files.hpp"
#include "solvers/common/matrix_market.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/reference/lu.hpp"

namespace adilab::bench {

namespace {

constexpr int kExactResidualMax = 1024;  // the exact ||PA - LU|| is O(n^3) on the host

struct Problem {
    std::string label;  // "random" or the file name
    int n = 0;
    std::vector<float> matrix;
};

std::vector<float> random_matrix(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (float& v : a) v = dist(rng);
    return a;
}

// What a run at size n allocates on the GPU: the factorisation's buffers (with gpu-blocked's
// scratch at the largest block asked for, 0 for none), the pristine copy of the matrix each run
// starts from, and b and x of the solve.
std::vector<gl::BufferNeed> bench_needs(std::int64_t n, int block) {
    std::vector<gl::BufferNeed> needs = lu::buffer_needs(n, block);
    const std::uint64_t size = std::uint64_t(n);
    needs.push_back(
        {"the bench's pristine copy of the matrix", gl::bytes_of(gl::bytes_of(size, size), 4)});
    needs.push_back({"the right-hand side b", gl::bytes_of(size, 4)});
    needs.push_back({"the solution x", gl::bytes_of(size, 4)});
    return needs;
}

Problem read_mtx(const std::string& path, const gl::DeviceInfo& device, int block) {
    const mm::Matrix m = mm::read(path);
    if (m.rows != m.cols)
        throw files::InputError(path + ": LU needs a square matrix, the file holds " +
                                std::to_string(m.rows) + " x " + std::to_string(m.cols));
    if (m.rows < 1) throw files::InputError(path + ": the matrix is empty");
    // A coordinate file's size line is not bounded by its length: the dense matrix it implies
    // must fit the GPU before it is built on the host (2e9 x 2e9 is 16 EB).
    const std::string problem =
        gl::capacity_problem(bench_needs(m.rows, block), gl::limits_of(device));
    if (!problem.empty()) throw files::InputError(mm::describe_size_line(m) + ": " + problem);
    const std::vector<double> dense = mm::to_dense_row_major(m);
    Problem p{std::filesystem::path(path).filename().string(), static_cast<int>(m.rows), {}};
    p.matrix.reserve(dense.size());
    for (double v : dense) {
        const float f = static_cast<float>(v);
        if (!std::isfinite(f))
            throw Error(path + ": the value " + std::to_string(v) + " does not fit a float32");
        p.matrix.push_back(f);
    }
    return p;
}

struct Job {
    std::string impl;
    int block = 0;  // 0: not blocked
};

// The --tune fields, for --help (a default-constructed Tuning: the device caps come at run time).
std::string lu_tuning_help() {
    lu::Tuning t;
    return describe_tuning("lu", lu::tuning_fields(t));
}

Report run_lu(const cli::Args& args, BenchContext& ctx) {
    // --- Everything checked before any work. ---
    const std::string mtx = args.get("mtx");
    if (args.has("mtx")) cli::check_input_file("mtx", mtx);  // missing: exit 2, as power's --mtx
    if (!mtx.empty() && args.has("sizes"))
        throw cli::UsageError("--mtx and --sizes exclude each other (the file gives the size)");
    const auto sizes = mtx.empty() ? args.get_int_list("sizes", {1024, 2048, 3072, 4096}, 1, 46340)
                                   : std::vector<long long>{};
    const std::vector<std::string> impls = chosen_variants(args, "impl", lu::variants());
    std::vector<long long> blocks = args.get_int_list("block", {32, 64, 128}, 1, 1 << 20);
    for (long long b : blocks) {
        auto ok = lu::supported_blocks();
        if (std::find(ok.begin(), ok.end(), b) == ok.end())
            throw cli::UsageError("--block: " + std::to_string(b) +
                                  " is not supported (use 8, 16, 32, 64 or 128)");
    }
    lu::Tuning tuning = lu::Tuning::defaults(ctx.device);
    apply_tuning(tuning_assignments(args, {"lu"}), "lu", lu::tuning_fields(tuning));
    const int repeats = static_cast<int>(args.get_int("repeats", 5, 1, 1000));
    const long long unblocked_max = args.get_int("unblocked-max", 4096, 0, 46340);
    const long long cpu_max = args.get_int("cpu-max", 1024, 0, 46340);
    const bool residuals = !args.has("no-residuals");

    // Sizes the GPU cannot hold are refused before any work, naming the buffer.
    int largest_block = 0;
    for (const std::string& name : impls)
        if (lu::variants().at(name).blocked)
            for (long long b : blocks) largest_block = std::max(largest_block, static_cast<int>(b));
    for (long long n : sizes) {
        const std::string problem =
            gl::capacity_problem(bench_needs(n, largest_block), gl::limits_of(ctx.device));
        if (!problem.empty())
            throw gl::CapacityError("--sizes " + std::to_string(n) + ": " + problem);
    }

    std::vector<Problem> problems;
    if (!mtx.empty()) problems.push_back(read_mtx(mtx, ctx.device, largest_block));
    for (long long n : sizes) problems.push_back({"random", static_cast<int>(n), {}});

    std::vector<Job> jobs;
    for (const std::string& name : impls) {
        if (lu::variants().at(name).blocked)
            for (long long b : blocks) jobs.push_back({name, static_cast<int>(b)});
        else
            jobs.push_back({name, 0});
    }
    // The unblocked run first at each size: the others' speedups refer to it.
    std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
        return (a.impl == "gpu-unblocked") > (b.impl == "gpu-unblocked");
    });

    Report report = make_report("lu", ctx.device);
    record_config(report, args);
    const std::size_t total = problems.size() * jobs.size();
    std::size_t done = 0;
    bool estimated = false;
    std::set<std::string> skipped;
    for (Problem& problem : problems) {
        const int n = problem.n;
        if (problem.matrix.empty())
            problem.matrix = random_matrix(n, 1000u + static_cast<unsigned>(n));
        gl::Buffer original = gl::Buffer::from(problem.matrix);
        std::vector<float> rhs(static_cast<std::size_t>(n));
        {
            std::mt19937 rng(7);
            std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
            for (float& v : rhs) v = dist(rng);
        }
        gl::Buffer b = gl::Buffer::from(rhs), x(rhs.size() * sizeof(float));
        double unblocked_ms = 0;
        for (const Job& job : jobs) {
            ctx.check_cancelled();
            const std::string panel =
                job.block ? lu::panel_that_runs(ctx.device, n, job.block, tuning) : "";
            const std::string what =
                job.impl +
                (job.block ? " block " + std::to_string(job.block) + " panel " + panel : "") +
                ", n = " + std::to_string(n);
            ctx.progress(static_cast<double>(done++) / static_cast<double>(total), what);
            if ((job.impl == "gpu-unblocked" && n > unblocked_max) ||
                (job.impl == "cpu" && n > cpu_max)) {
                skipped.insert(job.impl + " above n = " +
                               std::to_string(job.impl == "cpu" ? cpu_max : unblocked_max));
                continue;
            }
            auto solver = lu::make_solver(job.impl, job.block ? job.block : 64, tuning);
            lu::Factors f = lu::Factors::upload(problem.matrix, n);
            const bool on_gpu = lu::variants().at(job.impl).on_gpu;
            // Slow runs get fewer repeats: the unblocked and CPU baselines at large n.
            const int runs = (!on_gpu || job.impl == "gpu-unblocked") && n >= 2048
                                 ? std::min(repeats, 3)
                                 : repeats;
            std::vector<double> samples;
            gl::GpuTimer timer;
            for (int r = -1; r < runs; ++r) {  // r = -1: warm-up (compiles, allocations)
                ctx.check_cancelled();
                f.load(original);
                gl::memory_barrier(gl::Barrier::all);
                if (on_gpu) {
                    timer.begin();
                    solver->factor(f);
                    timer.end();
                    if (r >= 0) samples.push_back(timer.elapsed_ms());
                } else {
                    gl::finish();
                    const auto start = std::chrono::steady_clock::now();
                    solver->factor(f);
                    gl::finish();
                    const auto end = std::chrono::steady_clock::now();
                    if (r >= 0)
                        samples.push_back(
                            std::chrono::duration<double, std::milli>(end - start).count());
                }
            }
            const double ms = gl::median(samples);
            std::optional<int> singular;
            try {
                singular = lu::singular_column(f);
            } catch (const Error& e) {  // a failed run: said, and the others still measured
                report.notes.push_back(what + ": FAILED: " + e.what());
                continue;
            }
            if (job.impl == "gpu-unblocked") unblocked_ms = ms;

            Row row;
            row.set("name", job.impl).set("n", n);
            if (job.block) {
                lu::Tuning ran = tuning.resolved();
                row.set("block", job.block).set("panel", panel).set("tuning", lu::describe(ran));
                record_tuning(row, "lu", lu::tuning_fields(ran));
            } else {
                row.set("block", Value{}).set("panel", Value{}).set("tuning", Value{});
            }
            row.set("median_ms", ms)
                .set("gflops", 2.0 / 3.0 * double(n) * double(n) * double(n) / (ms * 1e6));
            if (!residuals) {
                row.set("factor_residual", Value{}).set("solve_residual", Value{});
            } else {
                const std::vector<float> lu_values = f.values.read_all<float>();
                const std::vector<int> pivots = f.pivots.read_all<int>();
                row.set("factor_residual",
                        n <= kExactResidualMax
                            ? reference::factor_residual(problem.matrix, lu_values, n, pivots)
                            : reference::factor_residual_estimate(problem.matrix, lu_values, n,
                                                                  pivots));
                estimated = estimated || n > kExactResidualMax;
            }
            if (auto column = singular) {
                row.set("solve_residual", Value{});
                row.set("singular_column", *column);
                report.notes.push_back(job.impl + " n = " + std::to_string(n) +
                                       ": the matrix is singular (zero pivot in column " +
                                       std::to_string(*column) + "); no solve");
            } else if (residuals) {
                x.poison();
                lu::solve(f, b, x);
                row.set("solve_residual",
                        reference::solve_residual(problem.matrix, n, x.read_all<float>(), rhs));
                if (job.impl == "gpu-blocked" || problem.label != "random") {
                    const lu::Determinant d = lu::determinant(f);
                    row.set("det_sign", d.sign).set("log_abs_det", d.log_abs);
                }
            }
            if (unblocked_ms > 0 && job.impl != "gpu-unblocked")
                row.set("speedup_vs_unblocked", unblocked_ms / ms);
            else
                row.set("speedup_vs_unblocked", Value{});
            if (problem.label != "random") row.set("matrix", problem.label);
            report.rows.push_back(row);
        }
    }
    ctx.progress(1.0, "done");
    if (estimated)
        report.notes.push_back("factor_residual above n = " + std::to_string(kExactResidualMax) +
                               " is an estimate: max over 4 random +-1 vectors v of "
                               "||(PA - LU) v||_inf / (||A||_inf ||v||_inf)");
    for (const std::string& s : skipped)
        report.notes.push_back("skipped: " + s + " (see --unblocked-max, --cpu-max)");
    report.notes.push_back(
        "the LU paper (Blocked LU decomposition on the GPU): blocked is 7-9x faster than "
        "unblocked on Tesla C1060/C2075, n = 1024..4096; compare speedup_vs_unblocked");
    report.notes.push_back(
        "panel: what gpu-blocked's panels ran as (registers; lean, the registers panel's "
        "fallback past 64 rows an invocation or by lu.registers_panel=0; columns, the paper's "
        "column-by-column panel where the one-dispatch panel cannot hold the rows)");
    ctx.out << format_table(report.rows, {{"name"},
                                          {"n"},
                                          {"block"},
                                          {"panel"},
                                          {"median_ms", "", 3},
                                          {"gflops", "GFLOP/s", 1},
                                          {"factor_residual", "||PA-LU||/||A||"},
                                          {"solve_residual", "||Ax-b||/(||A||||x||)"},
                                          {"speedup_vs_unblocked", "x unblocked", 2}});
    return report;
}

}  // namespace

Benchmark make_lu_benchmark() {
    return {
        "lu",
        "LU decomposition with partial pivoting (the LU paper): unblocked vs blocked, solve, "
        "residuals",
        {{"sizes", "LIST", "matrix sizes n", cli::Default{"1024,2048,3072,4096"}},
         {"impl", "LIST", "all or names: " + lu::variants().list(), cli::Default{"all"},
          lu::variants().names()},
         {"block", "LIST", "gpu-blocked block sizes: 8, 16, 32, 64, 128",
          cli::Default{"32,64,128"}},
         {"mtx", "FILE",
          "factor this Matrix Market file (real, square) instead of random matrices"},
         {"repeats", "N", "timed runs per measurement, at most 3 for the baselines at n >= 2048",
          cli::Default{"5"}},
         {"unblocked-max", "N", "largest n for gpu-unblocked, which is slow", cli::Default{"4096"}},
         {"cpu-max", "N", "largest n for the cpu variant", cli::Default{"1024"}},
         {"no-residuals", "", "time only: skip the residual checks (they read back n*n floats)"},
         tune_option(lu_tuning_help())},
        run_lu};
}

}  // namespace adilab::bench
