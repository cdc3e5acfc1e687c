// `adilab --bench power`: the power method's variants (the power-method paper, "Power method on
// the GPU") on random sparse matrices,
// a Matrix Market file or a PageRank matrix, with the paper's figures: speed-up over the host
// by size (Fig. 12) and by density (Fig. 13), and the per-iteration split (Fig. 14). SpMV rows
// measure the GPU kernel alone (the figure cuSPARSE is compared with).
#include "solvers/power/power.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

#include "app/bench/benchmark.hpp"
#include "app/bench/tuning.hpp"
#include "solvers/common/clock.hpp"
#include "solvers/common/files.hpp"
#include "solvers/common/matrix_market.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/timer.hpp"

namespace adilab::bench {

namespace {

struct MatrixSpec {
    std::string kind;  // "random", "pagerank", "mtx", "mtx-pagerank"
    std::string label;
    std::int64_t rows = 0;
    std::int64_t per_row = 0;  // random only
};

struct PowerConfig {
    std::vector<MatrixSpec> matrices;
    std::vector<std::string> variants;
    power::Options options;
    int repeats = 5;
    int host_repeats = 1;
    std::uint64_t seed = 1;
    std::int32_t band = 0;
    std::string mtx;
    std::shared_ptr<const mm::Matrix> mtx_matrix;  // --mtx, read and checked by parse()
    std::string vector_path;                       // --vector: where the eigenvector goes
};

// The matrix a --mtx file gives must fit the GPU before it is converted: the rows of a coordinate
// file are not bounded by its length (a 44-byte file may declare 2e9 x 2e9 with one entry, whose
// CSR row pointer alone is 8 GB). Refused as a mistake in the input file (files::InputError,
// exit 2), naming the file, its size line and the buffer that does not fit.
void check_mtx_fits(const mm::Matrix& m, bool pagerank, const gl::Limits& limits) {
    if (m.rows != m.cols)
        throw files::InputError(mm::describe_size_line(m) +
                                ": the power method needs a square "
                                "matrix" +
                                std::string(pagerank ? " (a PageRank graph)" : ""));
    // PageRank adds the teleport node: one more row, and an entry to and from it per page.
    const std::int64_t rows = pagerank ? m.rows + 1 : m.rows;
    const std::int64_t nnz = mm::stored_entries(m) + (pagerank ? 2 * m.rows : 0);
    if (rows >= std::numeric_limits<std::int32_t>::max() ||
        nnz > std::numeric_limits<std::int32_t>::max())
        throw files::InputError(mm::describe_size_line(m) +
                                ": beyond 2^31 - 1 rows or nonzeros "
                                "(32-bit CSR indices)");
    const std::string problem = gl::capacity_problem(power::buffer_needs(rows, nnz), limits);
    if (!problem.empty()) throw files::InputError(mm::describe_size_line(m) + ": " + problem);
}

PowerConfig parse(const cli::Args& args, const gl::DeviceInfo& device) {
    PowerConfig c;
    c.options.tol = args.get_double("tol", 1e-10, 0.0, 1e300);
    c.options.max_iter = static_cast<int>(args.get_int("max-iter", 1000, 1, 100000000));
    const std::string layout = args.get("layout", "auto");
    if (layout == "auto")
        c.options.layout = power::Options::Layout::automatic;
    else if (layout == "stream")
        c.options.layout = power::Options::Layout::stream;
    else if (layout == "rows")
        c.options.layout = power::Options::Layout::rows;
    else
        throw cli::UsageError("--layout must be auto, stream or rows, not '" + layout + "'");
    c.options.tuning = power::Tuning::defaults(device);
    apply_tuning(tuning_assignments(args, {"power"}), "power",
                 power::tuning_fields(c.options.tuning));
    const int tpr = c.options.tuning.threads_per_row;
    if ((tpr & (tpr - 1)) != 0)
        throw cli::UsageError(
            "--tune power.threads_per_row must be 0 or a power of two up to 32, "
            "not " +
            std::to_string(tpr));
    const int gobs = c.options.tuning.x_block_gobs;
    if ((gobs & (gobs - 1)) != 0)
        throw cli::UsageError(
            "--tune power.x_block_gobs must be 0 or a power of two up to 32, "
            "not " +
            std::to_string(gobs));
    if (c.options.tuning.stream_chunk % 256 != 0)
        throw cli::UsageError("--tune power.stream_chunk must be a multiple of 256, not " +
                              std::to_string(c.options.tuning.stream_chunk));
    c.repeats = static_cast<int>(args.get_int("repeats", 5, 1, 1000));
    c.host_repeats = static_cast<int>(args.get_int("host-repeats", 1, 1, 1000));
    c.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 1ll << 62));
    c.band = static_cast<std::int32_t>(
        args.get_int("band", 0, 0, std::numeric_limits<std::int32_t>::max()));

    c.variants = chosen_variants(args, "variant", power::variants());

    c.vector_path = args.get("vector");
    const bool pagerank = args.has("pagerank");
    if (args.has("mtx")) {
        if (args.has("rows") || args.has("nnz-per-row") || args.has("density"))
            throw cli::UsageError(
                "--mtx takes its size from the file: leave out --rows, "
                "--nnz-per-row and --density");
        c.mtx = args.get("mtx");
        cli::check_input_file("mtx", c.mtx);
        auto matrix =
            std::make_shared<mm::Matrix>(mm::read(c.mtx));  // entries bounded by its length
        check_mtx_fits(*matrix, pagerank, gl::limits_of(device));
        c.mtx_matrix = std::move(matrix);
        const std::string label = std::filesystem::path(c.mtx).filename().string();
        c.matrices.push_back({pagerank ? "mtx-pagerank" : "mtx", label, 0, 0});
        return c;
    }
    const auto rows = args.get_int_list("rows", {100000, 200000, 500000, 1000000, 2000000}, 1,
                                        std::numeric_limits<std::int32_t>::max() - 1);
    if (pagerank) {
        if (args.has("nnz-per-row") || args.has("density"))
            throw cli::UsageError(
                "--pagerank makes its own power-law graph: leave out "
                "--nnz-per-row and --density");
        for (long long n : rows) c.matrices.push_back({"pagerank", "pagerank", n, 0});
    } else {
        if (args.has("nnz-per-row") && args.has("density"))
            throw cli::UsageError("give --nnz-per-row or --density, not both");
        std::vector<double> densities;
        for (const auto& d : args.get_list("density", {}))
            densities.push_back(cli::parse_double("density", d));
        const auto per_rows = args.get_int_list("nnz-per-row", {10}, 1, 100000);
        for (long long n : rows) {
            if (!densities.empty()) {
                for (double d : densities) {
                    if (!(d > 0.0 && d <= 1.0))
                        throw cli::UsageError("--density must lie in (0, 1], not " +
                                              std::to_string(d));
                    const auto p = std::max<long long>(1, std::llround(d * static_cast<double>(n)));
                    c.matrices.push_back({"random", "random", n, p});
                }
            } else {
                for (long long p : per_rows) {
                    if (p > n)
                        throw cli::UsageError("--nnz-per-row " + std::to_string(p) +
                                              " exceeds --rows " + std::to_string(n));
                    c.matrices.push_back({"random", "random", n, p});
                }
            }
        }
    }
    // Sizes the GPU cannot hold are refused before anything is generated.
    for (const auto& m : c.matrices) {
        const std::int64_t nnz = m.kind == "pagerank" ? m.rows * 8 : m.rows * m.per_row;
        if (nnz > std::numeric_limits<std::int32_t>::max())
            throw Error("--rows " + std::to_string(m.rows) + " x " + std::to_string(m.per_row) +
                        " nonzeros per row exceeds 2^31 - 1 nonzeros (32-bit CSR indices)");
        const std::string problem =
            gl::capacity_problem(power::buffer_needs(m.rows, nnz), gl::limits_of(device));
        if (!problem.empty())
            throw gl::CapacityError("--rows " + std::to_string(m.rows) + " with " +
                                    std::to_string(nnz) + " nonzeros: " + problem);
    }
    return c;
}

void check_vector_option(const PowerConfig& c) {
    if (!c.vector_path.empty() && (c.matrices.size() != 1 || c.variants.size() != 1))
        throw cli::UsageError(
            "--vector writes one eigenvector: give one matrix (one --rows and "
            "one --nnz-per-row, or --mtx) and one --variant");
    if (!c.vector_path.empty()) {
        const auto folder = std::filesystem::absolute(c.vector_path).parent_path();
        if (!std::filesystem::is_directory(folder))
            throw cli::UsageError("--vector: folder '" + folder.string() + "' does not exist");
    }
}

void write_vector(const std::string& path, const std::vector<double>& x) {
    std::string text;
    text.reserve(x.size() * 24);
    char line[40];
    for (double v : x) {
        std::snprintf(line, sizeof line, "%.17g\n", v);
        text += line;
    }
    files::write_file_atomically(path, text);
}

CsrMatrix build(const MatrixSpec& spec, const PowerConfig& c) {
    if (spec.kind == "random")
        return random_csr(static_cast<std::int32_t>(spec.rows),
                          static_cast<std::int32_t>(spec.per_row), c.seed, c.band);
    if (spec.kind == "pagerank")
        return pagerank_csr(static_cast<std::int32_t>(spec.rows), 0.85, c.seed);
    CsrMatrix a = mm::to_csr(*c.mtx_matrix);
    if (spec.kind == "mtx-pagerank") return pagerank_csr(a, 0.85);
    return a;
}

// Compulsory bytes of one CSR SpMV: values and columns (12 B per nonzero), row offsets, x and y
// once each: the convention of the cuSPARSE peer figure.
double compulsory_bytes(const CsrMatrix& a) {
    return static_cast<double>(a.nnz()) * 12.0 + (a.rows + 1.0) * 4.0 + 2.0 * a.rows * 8.0;
}

std::string speedup_tables(const std::vector<Row>& rows, const std::vector<std::string>& variants) {
    // One line per matrix (rows, nnz/row), one column per variant: read down a column for
    // Fig. 12 (by size), across the nnz/row values of one size for Fig. 13 (by density).
    std::vector<Row> table;
    std::map<std::pair<std::string, std::pair<std::int64_t, double>>, std::size_t> where;
    for (const Row& r : rows) {
        if (r.text("kind") != "solve") continue;
        const auto key = std::make_pair(
            r.text("matrix"),
            std::make_pair(static_cast<std::int64_t>(r.number("rows")), r.number("nnz_per_row")));
        auto [it, inserted] = where.try_emplace(key, table.size());
        if (inserted) {
            Row t;
            t.set("matrix", r.text("matrix"))
                .set("rows", static_cast<long long>(r.number("rows")))
                .set("nnz_per_row", r.number("nnz_per_row"));
            table.push_back(t);
        }
        const double s = r.number("speedup_vs_host");
        if (!std::isnan(s)) table[it->second].set(r.text("name"), s);
    }
    std::vector<Column> columns = {{"matrix"}, {"rows"}, {"nnz_per_row", "nnz/row", 1}};
    for (const auto& v : variants)
        if (v != "host") columns.push_back({v, v, 1});
    return format_table(table, columns);
}

Report run_power(const cli::Args& args, BenchContext& ctx) {
    const PowerConfig c = parse(args, ctx.device);
    check_vector_option(c);
    Report report = make_report("power", ctx.device);
    record_config(report, args);
    report.config.push_back({"tuning", Value(power::describe(c.options.tuning))});
    report.notes.push_back(
        "median_ms: wall-clock median of whole solves (host timed host-repeats times, GPU "
        "variants after one warm-up solve); ms_per_iteration = median_ms / iterations; "
        "spmv/max/newx_stop: medians of 10 non-converging iterations (GPU timer queries for "
        "gpu-opt, wall clock after glFinish for the variants with host round trips); "
        "speedup_vs_host = host median_ms / variant median_ms on the same matrix.");
    const std::size_t steps = c.matrices.size() * (c.variants.size() + 1);
    std::size_t step = 0;
    for (const MatrixSpec& spec : c.matrices) {
        ctx.check_cancelled();
        ctx.progress(static_cast<double>(step) / steps,
                     "building " + spec.label + " " + std::to_string(spec.rows) + " rows");
        const CsrMatrix a = build(spec, c);
        const double per_row = a.rows ? static_cast<double>(a.nnz()) / a.rows : 0.0;
        double host_ms = std::nan("");
        bool spmv_done = false;
        for (const std::string& name : c.variants) {
            ctx.check_cancelled();
            ++step;
            ctx.progress(static_cast<double>(step) / steps,
                         name + " on " + spec.label + " " + std::to_string(a.rows) + " rows");
            auto variant = power::make_variant(name);
            variant->prepare(a, c.options);
            const int repeats = variant->on_gpu() ? c.repeats : c.host_repeats;
            if (variant->on_gpu()) {
                // Compiles and caches, and clocks up after the host variant (gl::warm_up).
                gl::warm_up([&] { variant->solve({}, c.options); }, gl::kWarmUpMs, 1);
            }
            std::vector<double> samples;
            power::Result result;
            for (int r = 0; r < repeats; ++r) {
                ctx.check_cancelled();
                if (variant->on_gpu()) gl::finish();
                auto t0 = std::chrono::steady_clock::now();
                result = variant->solve({}, c.options);
                samples.push_back(ms_since(t0));
            }
            const double ms = gl::median(samples);
            if (name == "host") host_ms = ms;
            const std::vector<double> x = variant->eigenvector();
            if (!c.vector_path.empty()) write_vector(c.vector_path, x);
            const power::PhaseTimes phases = variant->phase_times(c.options, 10);
            Row row;
            row.set("name", name)
                .set("kind", "solve")
                .set("matrix", spec.label)
                .set("rows", static_cast<long long>(a.rows))
                .set("nnz", static_cast<long long>(a.nnz()))
                .set("nnz_per_row", per_row)
                .set("spmv", variant->spmv_layout())
                .set("kernels", variant->kernels().empty() ? Value() : Value(variant->kernels()))
                .set("iterations", result.iterations)
                .set("queued", result.queued)  // gpu-opt: iterations queued, frozen included
                .set("converged", result.converged)
                .set("breakdown", result.breakdown)
                .set("lambda", result.lambda)
                .set("residual", power::residual(a, result.lambda, x))
                .set("ms_per_iteration", ms / std::max(1, result.iterations))
                .set("median_ms", ms)
                .set("speedup_vs_host", std::isnan(host_ms) ? Value() : Value(host_ms / ms))
                .set("spmv_ms", phases.spmv_ms)
                .set("max_ms", phases.max_ms)
                .set("newx_stop_ms", phases.newx_stop_ms);
            if (variant->on_gpu()) {
                power::Tuning ran = c.options.tuning;
                row.set("tuning", power::describe(ran));
                record_tuning(row, "power", power::tuning_fields(ran));
            }
            report.rows.push_back(row);
            if (!result.converged)
                report.notes.push_back(name + " on " + spec.label + " " + std::to_string(a.rows) +
                                       " rows did not converge in " +
                                       std::to_string(result.iterations) + " iterations" +
                                       (result.breakdown ? " (breakdown: A x = 0)" : ""));
            // The SpMV kernel alone, once per matrix, on the first GPU variant's buffers other
            // than gpu-naive's (whose x is uploaded every iteration, which the driver may answer
            // by moving it: measured 3x slower SpMVs on the H200) unless it is the only one.
            const bool others =
                std::any_of(c.variants.begin(), c.variants.end(),
                            [](const auto& v) { return v != "host" && v != "gpu-naive"; });
            if (variant->on_gpu() && !spmv_done && (name != "gpu-naive" || !others)) {
                spmv_done = true;
                {
                    ctx.check_cancelled();
                    const double spmv_ms = power::time_spmv(*variant, std::max(5, c.repeats));
                    Row s;
                    s.set("name", "spmv")
                        .set("spmv", variant->spmv_layout())
                        .set("kind", "spmv")
                        .set("matrix", spec.label)
                        .set("rows", static_cast<long long>(a.rows))
                        .set("nnz", static_cast<long long>(a.nnz()))
                        .set("nnz_per_row", per_row)
                        .set("median_ms", spmv_ms)
                        .set("gb_per_s", compulsory_bytes(a) / (spmv_ms * 1e6));
                    report.rows.push_back(s);
                }
            }
        }
        // Speed-ups need the host time, which may come after a GPU variant in --variant order.
        for (Row& r : report.rows)
            if (r.text("kind") == "solve" && r.text("matrix") == spec.label &&
                r.number("rows") == a.rows && r.number("nnz_per_row") == per_row &&
                !std::isnan(host_ms))
                r.set("speedup_vs_host", host_ms / r.number("median_ms"));
    }
    ctx.progress(1.0, "done");
    std::vector<Row> solves, spmvs;
    for (const Row& r : report.rows) (r.text("kind") == "solve" ? solves : spmvs).push_back(r);
    ctx.out << format_table(solves, {{"name"},
                                     {"matrix"},
                                     {"rows"},
                                     {"nnz"},
                                     {"spmv"},
                                     {"iterations", "iters"},
                                     {"converged"},
                                     {"lambda", "", 10},
                                     {"residual", "", 2},
                                     {"ms_per_iteration", "ms/it", 4},
                                     {"median_ms", "", 3},
                                     {"speedup_vs_host", "speed-up", 2},
                                     {"spmv_ms", "", 4},
                                     {"max_ms", "", 4},
                                     {"newx_stop_ms", "newx+stop ms", 4}});
    if (!spmvs.empty()) {
        ctx.out << "\nSpMV alone (float64, ms per product; GB/s of compulsory traffic):\n";
        ctx.out << format_table(spmvs, {{"name"},
                                        {"matrix"},
                                        {"rows"},
                                        {"nnz"},
                                        {"median_ms", "ms", 4},
                                        {"gb_per_s", "GB/s", 1}});
    }
    if (std::find(c.variants.begin(), c.variants.end(), "host") != c.variants.end()) {
        ctx.out << "\nSpeed-up over host (Fig. 12: down a column, by size; Fig. 13: across "
                   "nnz/row, by density):\n";
        ctx.out << speedup_tables(report.rows, c.variants);
    }
    return report;
}

}  // namespace

namespace {
// The --tune fields, for --help (a default-constructed Tuning: the device caps come at run time).
std::string power_tuning_help() {
    power::Tuning t;
    return describe_tuning("power", power::tuning_fields(t));
}
}  // namespace

Benchmark make_power_benchmark() {
    return {"power",
            "power method (the power-method paper): " + power::variants().list() + "; fp64 CSR",
            {{"rows", "LIST", "matrix sizes", cli::Default{"100000,200000,500000,1000000,2000000"}},
             {"nnz-per-row", "LIST", "nonzeros per row of the random matrices", cli::Default{"10"}},
             {"density", "LIST", "instead of --nnz-per-row: fractions of a full row, e.g. 1e-5"},
             {"variant", "LIST", "all or names: " + power::variants().list(), cli::Default{"all"},
              power::variants().names()},
             {"mtx", "FILE", "a Matrix Market file instead of random matrices"},
             {"pagerank", "",
              "the PageRank matrix (damping 0.85) of a random power-law graph "
              "with --rows pages, or of the --mtx graph"},
             {"tol", "T", "stop when max |x_new - x| < T; 0 never stops", cli::Default{"1e-10"}},
             {"max-iter", "K", "at most K iterations", cli::Default{"1000"}},
             {"layout", "L",
              "GPU SpMV layout: auto (rows, or stream where a row is far longer "
              "than the mean: PageRank), stream (CSR-stream) or rows",
              cli::Default{"auto"}},
             {"repeats", "N", "timed solves per GPU variant", cli::Default{"5"}},
             {"host-repeats", "N", "timed solves for host", cli::Default{"1"}},
             {"seed", "S", "random matrix seed", cli::Default{"1"}},
             {"vector", "FILE",
              "write the eigenvector (one value per line; one matrix and one "
              "variant)"},
             {"band", "W", "random columns within W of the diagonal (local gathers; 0: anywhere)",
              cli::Default{"0"}},
             tune_option(power_tuning_help())},
            run_power};
}

}  // namespace adilab::bench
