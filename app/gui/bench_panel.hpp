#pragma once
// The GUI's benchmark tabs, one per registered benchmark: one generic panel over the benchmark
// registry (app/bench/benchmark.hpp). A tab shows its benchmark's options as fields labelled in
// words, turns them into the same `--name value` tokens that `adilab --bench NAME` parses (so
// the same validation and messages), runs Benchmark::run on a worker thread with its own
// headless GL context, and shows the Report it returns: progress, Cancel, a chart, a table and
// CSV/JSON export.
//
// Four layers, the first three free of ImGui so that the tests drive them without a window:
//  - BenchPanelSpec (bench_specs.hpp): what a tab shows, its labels and its chart;
//  - OptionForm (option_form.hpp): the fields and the tokens they stand for;
//  - BenchRunner (bench_runner.hpp): one run on a worker thread (progress, cancel, result or
//    error);
//  - BenchPanel (here): the ImGui tab; BenchTabs (bench_tabs.hpp): the tabs and the scripted-run
//    options.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/bench/benchmark.hpp"
#include "app/gui/bench_runner.hpp"
#include "app/gui/bench_specs.hpp"
#include "app/gui/chart.hpp"
#include "app/gui/option_form.hpp"

namespace adilab::gui {

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
    bool stop_within(std::chrono::milliseconds limit) { return runner_.stop_within(limit); }
    bool running() const { return runner_.running(); }
    // Picks up the end of a run (report or error); draw() calls it every frame.
    void poll();
    // The outcome of the last run, after poll() has seen it end.
    BenchRunner::State last_state() const { return last_state_; }
    // The run's status now (progress, whether Cancel was pressed, how long it has taken).
    BenchRunner::Status status() const { return runner_.status(); }
    // A cancelled run: seconds from the Cancel press to its end, and the frames drawn meanwhile
    // (each showed "cancelling...").
    double stop_seconds() const { return stop_seconds_; }
    int frames_drawn_cancelling() const { return frames_drawn_cancelling_; }
    const std::string& error() const { return error_; }
    bool error_is_usage() const { return error_is_usage_; }
    const std::optional<bench::Report>& report() const { return report_; }
    // Writes the report (JSON or CSV by extension) through bench::write_report. Returns "" or
    // the error, which the panel also shows.
    std::string export_report(const std::filesystem::path& path);

  private:
    void draw_fields(bool advanced);
    void draw_options();
    void draw_run_controls();
    void draw_results();
    void draw_table();
    void draw_chart_controls();
    void rebuild_series();

    BenchPanelSpec spec_;
    const bench::Benchmark* benchmark_ = nullptr;
    std::optional<OptionForm> form_;
    std::vector<FieldLabel> shown_;  // the form's fields as the tab labels and orders them
    BenchRunner runner_;

    BenchRunner::State last_state_ = BenchRunner::State::idle;
    std::string error_;
    bool error_is_usage_ = false;
    double stop_seconds_ = 0.0;
    int frames_drawn_cancelling_ = 0;
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

// The registry's benchmark names, comma-separated, for messages that list what exists.
std::string benchmark_names();

}  // namespace adilab::gui
