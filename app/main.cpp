// adilab: real-time ADI simulations on the GPU and a bench for GPU linear algebra.
//
//   adilab                               the GUI
//   adilab --info                        the headless GL device and its limits
//   adilab --bench NAME [options]        a headless benchmark, optionally --report FILE
//   adilab --headless --model M [...]    a scripted simulation run (app/cli/headless.hpp)
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "app/bench/benchmark.hpp"
#include "app/bench/ui_hook.hpp"
#include "app/cli/args.hpp"
#include "app/cli/headless.hpp"
#include "app/gui/bench_runner.hpp"
#include "app/gui/gui.hpp"
#include "app/gui/headless_ui.hpp"
#include "sim/assets.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab {
namespace {

constexpr const char* kUsage = cli::kUsageLine;

std::vector<cli::OptionSpec> common_options() {
    return {
        {"help", "", "show this help and exit"},
        {"version", "", "print the version and exit"},
        {"info", "", "print the headless GL device, its version and limits, and exit"},
        {"bench", "NAME", "run a headless benchmark (list below)"},
        {"gpu", "N", "EGL device for headless runs (default: first hardware device, else Mesa)"},
    };
}

std::vector<cli::OptionSpec> bench_common_options() {
    return {{"report", "FILE", "write the results as JSON or CSV (by extension)"},
            {"compare", "OLD.json",
             "print each row's median beside the matching row of a saved "
             "JSON report, with the ratio now / then"}};
}

std::vector<cli::OptionSpec> concat(std::vector<cli::OptionSpec> a,
                                    const std::vector<cli::OptionSpec>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

void print_help() {
    std::cout << "adilab " << ADILAB_VERSION
              << " - real-time ADI simulations on the GPU and a bench for GPU linear algebra\n\n"
              << kUsage << "\n\nGeneral options:\n"
              << cli::format_options(common_options()) << "\nGUI options:\n"
              << cli::format_options(gui::options()) << "\nScripted runs (--headless):\n"
              << cli::format_options(cli::headless_options()) << "\nBenchmarks (--bench NAME):\n";
    for (const bench::Benchmark& b : bench::benchmarks()) {
        std::cout << "\n  " << b.name << ": " << b.summary << "\n"
                  << cli::format_options(concat(b.options, bench_common_options()));
    }
    std::cout
        << "\nExit codes: 0 success, 1 a run failed (message on stderr), 2 bad command line.\n";
}

int run_info(const cli::Args& args) {
    const int gpu = static_cast<int>(args.get_int("gpu", -1, 0, 64));
    std::cout << "EGL devices:\n";
    for (const std::string& line : gl::HeadlessContext::list_devices())
        std::cout << "  " << line << "\n";
    auto context = gl::HeadlessContext::create(gpu);
    std::cout << gl::describe(context->info());
    return 0;
}

int run_bench(const std::string& name, const cli::Args& args) {
    const bench::Benchmark* benchmark = bench::find_benchmark(name);
    std::filesystem::path report_path = args.get("report");
    if (args.has("report") && report_path.empty())
        throw cli::UsageError("--report: empty path (give FILE.json or FILE.csv)");
    if (!report_path.empty()) bench::check_report_path(report_path);  // before any work
    std::optional<bench::Report> old;
    if (args.has("compare")) {
        try {
            old = bench::read_report(args.get("compare"));
        } catch (const Error& e) {
            throw cli::UsageError(std::string("--compare: ") + e.what());
        }
    }
    auto context = gl::HeadlessContext::create(static_cast<int>(args.get_int("gpu", -1, 0, 64)));
    const gl::DeviceInfo& device = context->info();
    std::cout << "adilab --bench " << name << " on " << device.renderer << " (" << device.version
              << ")\n";
    bench::BenchContext ctx{device, std::cout, {}, nullptr};
    bench::Report report = benchmark->run(args, ctx);
    for (const std::string& note : report.notes) std::cout << "note: " << note << "\n";
    if (old) std::cout << "\n" << bench::compare_reports(report, *old);
    if (!report_path.empty()) {
        bench::write_report(report, report_path);
        std::cout << "report written to " << report_path.string() << "\n";
    }
    if (!report.failure.empty()) {  // measured, and what it found is a defect (--bench soak)
        std::cerr << "adilab: error: " << report.failure << "\n";
        return 1;
    }
    return 0;
}

int run(int argc, char** argv) {
    std::vector<std::string> tokens(argv + 1, argv + argc);
    // The mode decides which options are valid: find --bench NAME first.
    std::vector<cli::OptionSpec> known = concat(common_options(), gui::options());
    std::string bench_name;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i] == "--bench" && i + 1 < tokens.size()) bench_name = tokens[i + 1];
        if (tokens[i].starts_with("--bench=")) bench_name = tokens[i].substr(8);
    }
    if (!bench_name.empty()) {
        const bench::Benchmark* b = bench::find_benchmark(bench_name);
        if (b == nullptr) {
            std::string names;
            for (const auto& each : bench::benchmarks())
                names += (names.empty() ? "" : ", ") + each.name;
            throw cli::UsageError("unknown benchmark '" + bench_name + "' (available: " + names +
                                  ")");
        }
        known = concat(concat(common_options(), b->options), bench_common_options());
    } else if (std::find(tokens.begin(), tokens.end(), "--headless") != tokens.end()) {
        known = concat(common_options(), cli::headless_options());
    }
    cli::Args args = cli::Args::parse(tokens, known);
    if (args.has("help")) {
        print_help();
        return 0;
    }
    if (args.has("version")) {
        std::cout << "adilab " << ADILAB_VERSION << "\n";
        return 0;
    }
    if (args.has("info")) return run_info(args);
    // The GUI's interface, for `--bench sim --render WxH --ui` (app/bench/ui_hook.hpp).
    bench::set_ui_runner(&gui::run_headless_ui);
    if (!bench_name.empty()) return run_bench(bench_name, args);
    if (args.has("headless")) return cli::run_headless(args);
    if (args.has("gpu")) throw cli::UsageError("--gpu applies to headless runs (--info, --bench)");
    const int code = gui::run(args);
    if (gui::BenchRunner::left_running() > 0) {
        // A benchmark tab's run was still inside a step that cannot be interrupted when the
        // window closed (app/gui/bench_tabs.cpp): the GUI has closed all of its own; end here
        // rather than run static destructors under that thread.
        std::cout.flush();
        std::cerr.flush();
        std::_Exit(code);
    }
    return code;
}

}  // namespace
}  // namespace adilab

int main(int argc, char** argv) {
    // The one environment variable below the command line: where the data files are, for a
    // build run from outside its tree (sim/assets.hpp).
    if (const char* assets = std::getenv("ADILAB_ASSETS"); assets != nullptr && *assets)
        adilab::sim::set_assets_override(assets);
    // A file-size limit (ulimit -f) must make write() fail with EFBIG, which the writers turn
    // into "cannot write '<path>': File too large" and exit 1; by default SIGXFSZ would kill the
    // process, leaving a partial file and no message.
    std::signal(SIGXFSZ, SIG_IGN);
    try {
        return adilab::run(argc, argv);
    } catch (const adilab::cli::UsageError& e) {
        return adilab::cli::print_usage_error(std::cerr, e.what());
    } catch (const adilab::files::InputError& e) {
        // A file named on the command line holds something wrong: a mistake in the input, as
        // a wrong value is (app/cli/args.hpp).
        return adilab::cli::print_usage_error(std::cerr, e.what());
    } catch (const adilab::Error& e) {
        std::cerr << "adilab: error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "adilab: unexpected error: " << e.what() << "\n";
        return 1;
    }
}
