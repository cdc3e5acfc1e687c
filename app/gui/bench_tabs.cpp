// The benchmark tabs and their scripted run: see bench_tabs.hpp.
#include "app/gui/bench_tabs.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

namespace adilab::gui {

std::vector<cli::OptionSpec> bench_tab_options() {
    return {
        {"bench-tab", "NAME",
         "select the tab of benchmark NAME (any registered one) and start its run at start-up; "
         "with --frames N the GUI runs N frames and until the run has ended and been drawn, then "
         "exits 0, or 1 if it failed (2 for a bad option)"},
        {"bench-args", "ARGS",
         "with --bench-tab: the tab's options, as for --bench NAME (e.g. \"--mib 1,2\")"},
        {"bench-export", "FILE",
         "with --bench-tab: export the report (.json or .csv) when the run has ended"},
        {"bench-cancel-after", "SECONDS",
         "with --bench-tab: press the tab's Cancel this long after the run started, and print "
         "how long the run took to stop; a run cancelled so exits 0"},
    };
}

BenchTabs::BenchTabs(const cli::Args& args) {
    for (BenchPanelSpec& spec : tab_specs())
        panels_.push_back(std::make_unique<BenchPanel>(std::move(spec)));
    if (!args.has("bench-tab")) {
        if (args.has("bench-args") || args.has("bench-export") || args.has("bench-cancel-after"))
            throw cli::UsageError(
                "--bench-args, --bench-export and --bench-cancel-after need --bench-tab NAME");
        return;
    }
    const std::string name = args.get("bench-tab");
    if (bench::find_benchmark(name) == nullptr)
        throw cli::UsageError("--bench-tab: unknown benchmark '" + name +
                              "' (available: " + benchmark_names() + ")");
    for (auto& panel : panels_)
        if (panel->spec().benchmark == name) scripted_ = panel.get();
    if (scripted_ == nullptr) {  // a registered benchmark without a tab of its own
        panels_.push_back(std::make_unique<BenchPanel>(panel_spec_for(name)));
        scripted_ = panels_.back().get();
    }
    try {
        scripted_->form()->set(split_command_line(args.get("bench-args")));
        check_offered(scripted_->spec(), scripted_->form()->args());
    } catch (const cli::UsageError& e) {
        throw cli::UsageError(std::string("--bench-args: ") + e.what());
    }
    if (args.has("bench-cancel-after"))
        cancel_after_s_ = args.get_double("bench-cancel-after", 0.0, 0.0, 86400.0);
    scripted_export_ = args.get("bench-export");
    if (!scripted_export_.empty()) bench::check_report_path(scripted_export_);
    select_scripted_ = true;
}

BenchTabs::~BenchTabs() {
    stop();
}

void BenchTabs::stop() {
    // Closing the window waits for no benchmark: every run is asked to stop at once and given
    // half a second together (runs stop within tens of milliseconds at their next dispatch). One
    // still inside a single dispatch that cannot be called back (llvmpipe computes a 1024^2
    // matmul in one dispatch of ~9 s) or a CPU step is left to end on its own thread, and the
    // program exits without it.
    for (auto& panel : panels_) panel->cancel();
    const auto deadline = std::chrono::steady_clock::now() + kStopWithin;
    for (auto& panel : panels_) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (!panel->stop_within(std::max(left, std::chrono::milliseconds(0))))
            std::cerr << "adilab: the " << panel->spec().benchmark
                      << " tab's run is in a step that cannot be interrupted; exiting without "
                         "waiting for it\n";
    }
    if (scripted_ != nullptr && !scripted_finished_) {
        std::cerr << "adilab: the " << scripted_->spec().benchmark
                  << " tab's run did not finish (the window was closed)\n";
        exit_code_ = 1;
        scripted_finished_ = true;
    }
}

void BenchTabs::draw_tab_items() {
    // One "Benchmarks" tab beside "Simulation", holding a tab per benchmark: six titles and more
    // do not fit one row of a 400-pixel panel beside the simulation's.
    const bool open = ImGui::BeginTabItem("Benchmarks", nullptr,
                                          select_scripted_ ? ImGuiTabItemFlags_SetSelected : 0);
    const bool bar = open && ImGui::BeginTabBar("benchmarks", ImGuiTabBarFlags_FittingPolicyScroll);
    for (auto& panel : panels_) {
        const bool select = select_scripted_ && panel.get() == scripted_;
        if (bar && ImGui::BeginTabItem(panel->spec().title.c_str(), nullptr,
                                       select ? ImGuiTabItemFlags_SetSelected : 0)) {
            panel->draw();
            // Selected tabs open a frame after they are asked to, the inner one once the outer
            // is open: ask until the scripted tab is drawn.
            if (panel.get() == scripted_) select_scripted_ = false;
            if (panel.get() == scripted_ && scripted_started_ &&
                panel->last_state() != BenchRunner::State::running)
                ++scripted_frames_drawn_;
            ImGui::EndTabItem();
        } else {
            panel->poll();  // a hidden tab's run still ends and keeps its report
        }
    }
    if (bar) ImGui::EndTabBar();
    if (open) ImGui::EndTabItem();
    if (scripted_ != nullptr && scripted_->running()) ++scripted_frames_during_run_;
    follow_scripted_run();
}

void BenchTabs::follow_scripted_run() {
    if (scripted_ == nullptr || scripted_finished_) return;
    const std::string name = scripted_->spec().benchmark;
    if (!scripted_started_) {
        scripted_started_ = true;
        scripted_->start();  // a bad form ends the run at once, as failed
        return;
    }
    // --bench-cancel-after: the Cancel button's own call, once the run has been going that long.
    if (cancel_after_s_ && scripted_->running() && !scripted_->status().cancel_requested &&
        scripted_->status().seconds >= *cancel_after_s_) {
        std::cout << "adilab: pressing Cancel in the " << name << " tab after "
                  << scripted_->status().seconds << " s: " << scripted_->status().what << "\n";
        scripted_->cancel();
    }
    // Three frames: a new table measures its columns in its first frame, fits them in the next,
    // and shows its scroll bar (a table wider than the panel) in the third.
    if (scripted_->last_state() == BenchRunner::State::running || scripted_frames_drawn_ < 3)
        return;
    scripted_finished_ = true;
    switch (scripted_->last_state()) {
        case BenchRunner::State::done: {
            std::cout << "adilab: the " << name
                      << " tab's run is done: " << scripted_->report()->rows.size()
                      << " rows (the GUI drew " << scripted_frames_during_run_
                      << " frames during the run)\n";
            if (!scripted_export_.empty()) {
                const std::string error = scripted_->export_report(scripted_export_);
                if (!error.empty()) {
                    std::cerr << "adilab: error: " << error << "\n";
                    exit_code_ = 1;
                } else {
                    std::cout << "report written to " << scripted_export_.string() << "\n";
                }
            }
            break;
        }
        case BenchRunner::State::failed:
            // A usage error prints the usage line as in every other mode (app/cli/args.hpp).
            if (scripted_->error_is_usage())
                exit_code_ = cli::print_usage_error(
                    std::cerr,
                    "the " + name + " tab's run failed: usage error: " + scripted_->error());
            else {
                std::cerr << "adilab: the " << name
                          << " tab's run failed: error: " << scripted_->error() << "\n";
                exit_code_ = 1;
            }
            break;
        default: {
            char stopped[64];
            std::snprintf(stopped, sizeof stopped, "%.2f", scripted_->stop_seconds());
            (cancel_after_s_ ? std::cout : std::cerr)
                << "adilab: the " << name << " tab's run was cancelled: it stopped " << stopped
                << " s after Cancel (" << scripted_->frames_drawn_cancelling()
                << " frames drawn while cancelling)\n";
            exit_code_ = cancel_after_s_ ? 0 : 1;
            break;
        }
    }
}

bool BenchTabs::scripted_run_finished() const {
    return scripted_ == nullptr || scripted_finished_;
}

}  // namespace adilab::gui
