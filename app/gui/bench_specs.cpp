// What each benchmark tab shows: see bench_specs.hpp.
#include "app/gui/bench_specs.hpp"

#include <algorithm>
#include <cctype>

#include "sim/simulation.hpp"

namespace adilab::gui {

namespace {

const FieldLabel kTuning{"tune", "Solver tuning", true, "family.field=value; ..."};

std::vector<BenchPanelSpec> known_specs() {
    return {
        {"Matmul",
         "matmul",
         "Dense fp32 C = A B: the OpenGL matmul paper's 32x32 shader, a register-blocked GEMM, "
         "CPU loops and the CPU+GPU split (Kwon & Lee).",
         {"n", "gflops", {"name"}, true, 2, true, "matrix size N (N x N)", "GFLOP/s"},
         {{"sizes", "Matrix sizes"},
          {"impl", "Implementations"},
          {"repeats", "Timed runs"},
          {"shapes", "Extra shapes", true, "e.g. 300x200x100"},
          {"cpu-max", "CPU loops up to size", true},
          {"tiles", "Extra gpu-fast tiles", true, "e.g. 128x128x8x8x8"}}},
        {"LU",
         "lu",
         "LU with partial pivoting (Kim, Kim & Yu): unblocked and blocked right-looking LU on "
         "the GPU against the CPU, with residuals.",
         {"n",
          "gflops",
          {"name", "block"},
          true,
          2,
          true,
          "matrix size n (n x n)",
          "GFLOP/s (2/3 n^3 flops)"},
         {{"sizes", "Matrix sizes"},
          {"impl", "Implementations"},
          {"block", "Block sizes", false, "", {}, {"8", "16", "32", "64", "128"}},
          {"repeats", "Timed runs"},
          {"mtx", "Matrix Market file", true, "path to a .mtx file"},
          {"unblocked-max", "Unblocked GPU LU up to size", true},
          {"cpu-max", "CPU baseline up to size", true},
          {"no-residuals", "Skip the residual checks", true},
          kTuning}},
        {"Power",
         "power",
         "Power method on sparse CSR matrices in fp64 (Kim & Kim 2011): SpMV, the paper's fused "
         "kernels, Matrix Market input and PageRank.",
         {"rows",
          "speedup_vs_host",
          {"name"},
          true,
          10,
          true,
          "matrix rows",
          "speed-up over host (x)"},
         {{"rows", "Matrix rows"},
          {"nnz-per-row", "Nonzeros per row"},
          {"variant", "Variants"},
          {"pagerank", "PageRank matrix"},
          {"repeats", "Timed solves (GPU)"},
          {"density", "Density (instead)", true, "e.g. 1e-5"},
          {"mtx", "Matrix Market file", true, "path to a .mtx file"},
          {"tol", "Tolerance", true},
          {"max-iter", "Iteration limit", true},
          {"layout", "SpMV layout", true, "", {"auto", "stream", "rows"}},
          {"host-repeats", "Timed solves (host)", true},
          {"seed", "Random seed", true},
          {"band", "Columns near the diagonal", true},
          {"vector", "Save the eigenvector to", true, "path to a text file"},
          kTuning}},
        {"Tridiag",
         "tridiag",
         "Batched tridiagonal solves, n lines of n unknowns (Kim & Lee 2005): cyclic reduction, "
         "scans, CG and the CPU's Thomas, checked against float64.",
         {"grid",
          "median_ms",
          {"name", "direction", "coefficients"},
          true,
          2,
          true,
          "grid size n (n lines of n)",
          "time per batched solve (ms)"},
         {{"grid", "Grid sizes"},
          {"solver", "Solvers"},
          {"direction", "Line direction", false, "", {"x", "y", "both"}},
          {"coefficients", "Coefficients", false, "", {"constant", "general", "both"}},
          {"repeats", "Timed batches"},
          {"warmup-ms", "Warm-up (ms)", true},
          {"constant", "Constant a, b, c", true},
          kTuning}},
        {"Bandwidth",
         "bandwidth",
         "GPU memory bandwidth as a compute shader sees it (vec4 copy): the roof of the "
         "bandwidth-bound solvers.",
         {"mib", "gb_per_s", {"name"}, true, 2, false, "buffer size (MiB)", "GB/s (read + write)"},
         {{"mib", "Buffer sizes (MiB)"}, {"repeats", "Timed runs"}}},
        {"Sim speed",
         "sim",
         "Simulation steps per second of heat, advection-diffusion and shallow water (Kim & Lee "
         "2005, sec. 2), with any GPU line solver.",
         {"grid",
          "steps_per_s",
          {"name", "model", "scenario"},
          true,
          2,
          true,
          "grid size n (n x n)",
          "steps/s"},
         {{"scenario", "Scenarios", false, ""},
          {"grid", "Grid sizes"},
          {"solver", "Solvers", false, "", {}, sim::solver_names()},
          {"terrain", "Shallow-water terrains"},
          {"steps", "Steps per interval"},
          {"repeats", "Timed intervals"},
          {"set", "Model parameters", true, "e.g. dt=0.5; kappa=1"},
          {"render", "Also draw each step at", true, "e.g. 1920x1080"},
          kTuning},
         {{"ui",
           "it draws the GUI's own interface, which a tab cannot do while the GUI runs; "
           "use adilab --bench sim --render WxH --ui"},
          {"ui-screenshot", "it goes with --ui, which a tab does not offer"}}},
    };
}

}  // namespace

std::vector<BenchPanelSpec> tab_specs() {
    std::vector<BenchPanelSpec> specs;
    for (BenchPanelSpec& spec : known_specs())
        if (bench::find_benchmark(spec.benchmark) != nullptr) specs.push_back(std::move(spec));
    for (const bench::Benchmark& b : bench::benchmarks()) {
        const bool known = std::any_of(specs.begin(), specs.end(), [&](const BenchPanelSpec& s) {
            return s.benchmark == b.name;
        });
        if (!known) specs.push_back(panel_spec_for(b.name));
    }
    return specs;
}

BenchPanelSpec panel_spec_for(const std::string& benchmark) {
    for (BenchPanelSpec& spec : known_specs())
        if (spec.benchmark == benchmark) return spec;
    // Unknown to the GUI: the chart's x is picked from the first report (BenchPanel).
    BenchPanelSpec spec{label_from_name(benchmark),
                        benchmark,
                        "",
                        {"", "median_ms", {"name"}, true, 2, true, "", ""},
                        {}};
    if (const bench::Benchmark* b = bench::find_benchmark(benchmark)) {
        spec.about = b->summary;
        // Without a spec, every option is in view: none is known to be the advanced kind.
        for (const cli::OptionSpec& option : b->options)
            spec.fields.push_back(
                {option.name, label_from_name(option.name), option.name == "tune"});
    }
    return spec;
}

std::string label_from_name(const std::string& option) {
    std::string label = option;
    std::replace(label.begin(), label.end(), '-', ' ');
    std::replace(label.begin(), label.end(), '_', ' ');
    if (!label.empty())
        label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
    return label;
}

std::vector<FieldLabel> shown_fields(const BenchPanelSpec& spec,
                                     const std::vector<cli::OptionSpec>& options) {
    auto offered = [&](const std::string& name) {
        return std::none_of(spec.left_out.begin(), spec.left_out.end(),
                            [&](const LeftOut& l) { return l.option == name; });
    };
    auto exists = [&](const std::string& name) {
        return std::any_of(options.begin(), options.end(),
                           [&](const cli::OptionSpec& o) { return o.name == name; });
    };
    std::vector<FieldLabel> shown;
    for (const FieldLabel& field : spec.fields)
        if (exists(field.option) && offered(field.option)) shown.push_back(field);
    for (const cli::OptionSpec& option : options) {
        const bool listed =
            std::any_of(spec.fields.begin(), spec.fields.end(),
                        [&](const FieldLabel& f) { return f.option == option.name; });
        if (!listed && offered(option.name))
            shown.push_back({option.name, label_from_name(option.name), true});
    }
    return shown;
}

std::vector<cli::OptionSpec> form_options(const BenchPanelSpec& spec,
                                          const std::vector<cli::OptionSpec>& options) {
    std::vector<cli::OptionSpec> out = options;
    for (cli::OptionSpec& option : out)
        for (const FieldLabel& field : spec.fields)
            if (field.option == option.name && option.choices.empty() && !field.choices.empty())
                option.choices = field.choices;
    return out;
}

void check_offered(const BenchPanelSpec& spec, const cli::Args& args) {
    for (const LeftOut& l : spec.left_out)
        if (args.has(l.option))
            throw cli::UsageError("--" + l.option + " is not offered in the " + spec.title +
                                  " tab: " + l.reason);
}

}  // namespace adilab::gui
