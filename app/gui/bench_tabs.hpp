#pragma once
// The side panel's Benchmarks tab, after the Simulation tab, with a tab per registered benchmark
// inside it (bench_specs.hpp), and the scripted run of one of them (--bench-tab, --bench-args,
// --bench-export, --bench-cancel-after): started at start-up, followed frame by frame, its
// outcome printed and exported, its exit code handed to gui::run.
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "app/cli/args.hpp"
#include "app/gui/bench_panel.hpp"

namespace adilab::gui {

// --bench-tab NAME, --bench-args "...", --bench-export FILE, --bench-cancel-after SECONDS: see
// their help.
std::vector<cli::OptionSpec> bench_tab_options();

class BenchTabs {
  public:
    // Makes the panels and checks the scripted-run options before any window opens: an unknown
    // --bench-tab, --bench-args the benchmark rejects (cli::UsageError) or an --bench-export
    // path that cannot take a report (adilab::Error).
    explicit BenchTabs(const cli::Args& args);
    ~BenchTabs();

    // The "Benchmarks" tab item, a tab per benchmark inside it; call between ImGui::BeginTabBar
    // and EndTabBar.
    void draw_tab_items();
    // Cancels every run and waits for them for at most kStopWithin together (also done by the
    // destructor); a run that has not ended by then is left to end on its own.
    void stop();
    static constexpr std::chrono::milliseconds kStopWithin{500};

    // True when there is no scripted run, or it has ended, its outcome has been drawn in a frame
    // and the report exported: a --frames run may end.
    bool scripted_run_finished() const;
    // 0, or for a scripted run that did not finish well: 2 (usage error), 1 (run failed,
    // cancelled other than by --bench-cancel-after, unfinished, or the export failed). The
    // message went to stderr.
    int exit_code() const { return exit_code_; }

  private:
    void follow_scripted_run();

    std::vector<std::unique_ptr<BenchPanel>> panels_;
    BenchPanel* scripted_ = nullptr;
    std::filesystem::path scripted_export_;
    bool scripted_started_ = false;
    int scripted_frames_drawn_ = 0;       // frames that have drawn the run's outcome
    int scripted_frames_during_run_ = 0;  // frames drawn while the worker ran
    bool scripted_finished_ = false;
    bool select_scripted_ = false;
    std::optional<double> cancel_after_s_;  // --bench-cancel-after
    int exit_code_ = 0;
};

}  // namespace adilab::gui
