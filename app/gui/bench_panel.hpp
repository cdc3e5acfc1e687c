#pragma once
// The GUI's benchmark tabs (Matmul, LU, Power method): one generic panel over the benchmark
// registry (app/bench/benchmark.hpp). A tab shows its benchmark's options as fields, turns them
// into the same `--name value` tokens that `adilab --bench NAME` parses (so the same validation
// and messages), runs Benchmark::run on a worker thread with its own headless GL context, and
// shows the Report it returns: progress, Cancel, a table, a chart and CSV/JSON export.
//
// Three layers, the first two free of ImGui so that the tests drive them without a window:
//  - OptionForm: the fields and the tokens they stand for;
//  - BenchRunner: one run on a worker thread (progress, cancel, result or error);
//  - BenchPanel / BenchTabs: the ImGui tab, and the tabs plus the scripted-run options.
//
// For benchmark authors: the tab reads everything from Benchmark::options. Give an option its
// cli::Default{"X"} and the empty field shows it (--help prints it too); give a name-list option
// (--impl, --variant) its `choices` and the tab shows checkboxes instead of a text field, with
// the ones its default names checked.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "app/bench/benchmark.hpp"
#include "app/cli/args.hpp"
#include "app/gui/chart.hpp"

namespace adilab::gui {

// ---- the option fields ------------------------------------------------------------------------

// Splits a command line into tokens on blanks, honouring '...' and "..." quotes (no escapes
// inside single quotes; \" and \\ inside double quotes). An unterminated quote is a UsageError.
std::vector<std::string> split_command_line(std::string_view text);

class OptionForm {
public:
    struct Field {
        cli::OptionSpec spec;  // its default_value is shown greyed in an empty field
        // A value option without choices: the text; empty means "the benchmark's default".
        // A repeatable option holds its values separated by ';'.
        std::string text;
        bool flag = false;          // a flag (spec.value_name empty)
        std::vector<bool> chosen;   // an option with choices: one per spec.choices entry
    };

    explicit OptionForm(std::vector<cli::OptionSpec> options);

    std::vector<Field>& fields() { return fields_; }
    const std::vector<Field>& fields() const { return fields_; }
    const std::vector<cli::OptionSpec>& options() const { return options_; }

    // The tokens for every field that differs from its default, in the options' order. Throws
    // cli::UsageError when an option with choices has none checked.
    std::vector<std::string> tokens() const;
    // tokens() through cli::Args::parse, as `adilab --bench` would parse them.
    cli::Args args() const;
    // Sets every field from `tokens` (fields not named go back to their defaults). Throws
    // cli::UsageError for what Args::parse rejects and for a name that is not among an option's
    // choices ("all" checks every choice).
    void set(const std::vector<std::string>& tokens);
    void reset();  // every field back to its default

private:
    std::vector<bool> default_choice(const Field& field) const;
    std::vector<cli::OptionSpec> options_;
    std::vector<Field> fields_;
};

// ---- one run on a worker thread ---------------------------------------------------------------

class BenchRunner {
public:
    enum class State { idle, running, done, cancelled, failed };

    struct Status {
        State state = State::idle;
        double fraction = 0.0;  // from BenchContext::on_progress
        std::string what;       // what is being measured
        std::string error;      // failed: the message
        bool usage_error = false;  // failed with cli::UsageError (bad option), not a run error
        double seconds = 0.0;      // since start (running) or the run's length (ended)
        bool has_report = false;   // done: a report waits in take_report()
    };

    BenchRunner() = default;
    ~BenchRunner();  // cancels a run and joins the worker
    BenchRunner(const BenchRunner&) = delete;
    BenchRunner& operator=(const BenchRunner&) = delete;

    // Starts `benchmark.run(args, ...)` on a worker thread that makes its own headless GL context
    // (gl::HeadlessContext::create(device)), so the calling thread's context stays untouched.
    // The benchmark is copied. Must not be called while running().
    void start(const bench::Benchmark& benchmark, cli::Args args, int device = -1);
    // Asks the run to stop: the benchmark throws bench::Cancelled at its next check_cancelled().
    void cancel();
    // cancel(), then waits for the worker to end.
    void stop();
    bool running() const;
    Status status() const;
    // The report of the run that ended in State::done, once.
    std::optional<bench::Report> take_report();
    // What the benchmark printed (its table and notes), so far.
    std::string log() const;

private:
    void work(bench::Benchmark benchmark, cli::Args args, int device);
    class LogBuffer;

    mutable std::mutex mutex_;
    std::thread worker_;
    std::atomic<bool> cancel_{false};
    Status status_;
    std::optional<bench::Report> report_;
    std::string log_;
    std::chrono::steady_clock::time_point started_;
};

// ---- the ImGui tab ----------------------------------------------------------------------------

struct BenchPanelSpec {
    std::string title;      // the tab's title, e.g. "Matmul"
    std::string benchmark;  // the registry name, e.g. "matmul"
    std::string about;      // one line on what it measures and which paper
    ChartSpec chart;
};

// The tabs adilab shows (Matmul, LU, Power method), and a spec for any other registered
// benchmark (the scripted runs may open one): x the first integer field, y median_ms.
std::vector<BenchPanelSpec> default_panel_specs();
BenchPanelSpec panel_spec_for(const std::string& benchmark);

class BenchPanel {
public:
    explicit BenchPanel(BenchPanelSpec spec);
    ~BenchPanel();  // stops a run (cancel, join)

    const BenchPanelSpec& spec() const { return spec_; }
    // Null when the benchmark is not in this build's registry; the tab then says so.
    const bench::Benchmark* benchmark() const { return benchmark_; }
    OptionForm* form() { return form_ ? &*form_ : nullptr; }

    // The tab's content; call inside BeginTabItem/EndTabItem (or any ImGui window).
    void draw();

    // What the Run button does: builds the args from the fields and starts the worker. A bad
    // form is shown in the panel (and returned) instead of starting; returns "" when started.
    std::string start();
    void cancel() { runner_.cancel(); }
    void stop() { runner_.stop(); }
    bool running() const { return runner_.running(); }
    // Picks up the end of a run (report or error); draw() calls it every frame.
    void poll();
    // The outcome of the last run, after poll() has seen it end.
    BenchRunner::State last_state() const { return last_state_; }
    const std::string& error() const { return error_; }
    bool error_is_usage() const { return error_is_usage_; }
    const std::optional<bench::Report>& report() const { return report_; }
    // Writes the report (JSON or CSV by extension) through bench::write_report. Returns "" or
    // the error, which the panel also shows.
    std::string export_report(const std::filesystem::path& path);

private:
    void draw_options();
    void draw_run_controls();
    void draw_results();
    void draw_table();
    void draw_chart_controls();
    void rebuild_series();

    BenchPanelSpec spec_;
    const bench::Benchmark* benchmark_ = nullptr;
    std::optional<OptionForm> form_;
    BenchRunner runner_;

    BenchRunner::State last_state_ = BenchRunner::State::idle;
    std::string error_;
    bool error_is_usage_ = false;
    std::optional<bench::Report> report_;
    std::string log_;
    ChartSpec chart_;  // the spec's, as the user changed it
    std::vector<Series> series_;
    int skipped_points_ = 0;
    std::string export_path_;
    std::string export_message_;
    bool export_failed_ = false;
    bool pop_out_ = false;  // results in their own resizable window
};

// ---- the tabs and scripted runs ---------------------------------------------------------------

// --bench-tab NAME, --bench-args "...", --bench-export FILE: see their help.
std::vector<cli::OptionSpec> bench_tab_options();

class BenchTabs {
public:
    // Makes the panels and checks the scripted-run options before any window opens: an unknown
    // --bench-tab, --bench-args the benchmark rejects (cli::UsageError) or an --bench-export
    // path that cannot take a report (adilab::Error).
    explicit BenchTabs(const cli::Args& args);
    ~BenchTabs();

    // One BeginTabItem per panel; call between ImGui::BeginTabBar and EndTabBar.
    void draw_tab_items();
    // Cancels and joins every run (also done by the destructor).
    void stop();

    // True when there is no scripted run, or it has ended, its outcome has been drawn in a frame
    // and the report exported: a --frames run may end.
    bool scripted_run_finished() const;
    // 0, or for a scripted run that did not finish well: 2 (usage error), 1 (run failed,
    // cancelled, unfinished, or the export failed). The message went to stderr.
    int exit_code() const { return exit_code_; }

private:
    void follow_scripted_run();

    std::vector<std::unique_ptr<BenchPanel>> panels_;
    BenchPanel* scripted_ = nullptr;
    std::filesystem::path scripted_export_;
    bool scripted_started_ = false;
    int scripted_frames_drawn_ = 0;  // frames that have drawn the run's outcome
    int scripted_frames_during_run_ = 0;  // frames drawn while the worker ran
    bool scripted_finished_ = false;
    bool select_scripted_ = false;
    int exit_code_ = 0;
};

}  // namespace adilab::gui
