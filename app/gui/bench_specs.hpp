#pragma once
// What each benchmark tab shows: its title, a line on what it measures, its options labelled in
// words (the few a user needs first, the rest behind "More options"), and what its chart plots.
// The options themselves, their help and defaults come from the benchmark registry
// (Benchmark::options); this adds only the presentation, so that the command line keeps one
// source of truth. No ImGui here: the tests check the labels without a window.
//
// For benchmark authors: a new option appears in its tab without a change here, under "More
// options" with its name for a label; give it a label in words in tab_specs() (a test checks
// that every option of the tabs listed there has one). A new benchmark gets a tab of its own
// with every option shown that way.
#include <string>
#include <vector>

#include "app/bench/benchmark.hpp"
#include "app/cli/args.hpp"
#include "app/gui/chart.hpp"

namespace adilab::gui {

// How a tab shows one option of its benchmark.
struct FieldLabel {
    std::string option;     // the option's name, as on the command line without "--"
    std::string label;      // in words: "Matrix sizes", "Timed runs"
    bool advanced = false;  // under the collapsed "More options" header
    // The empty field's grey text where the option states no default (an example of the form);
    // an option with a default shows it instead.
    std::string hint = {};
    // One value among these: a drop-down, its default marked "(default)".
    std::vector<std::string> one_of = {};
    // A list of names the option does not enumerate itself (OptionSpec::choices): checkboxes.
    std::vector<std::string> choices = {};
};

// An option a tab does not offer, and why (the message of a --bench-args that names it).
struct LeftOut {
    std::string option;
    std::string reason;
};

struct BenchPanelSpec {
    std::string title;      // the tab's title, e.g. "Matmul"
    std::string benchmark;  // the registry name, e.g. "matmul"
    std::string about;      // one line on what it measures and which paper
    ChartSpec chart;
    std::vector<FieldLabel> fields;  // in the order shown; unlisted options: see shown_fields
    std::vector<LeftOut> left_out = {};
};

// The tabs adilab shows: one per registered benchmark, the known ones (Matmul, LU, Power,
// Tridiag, Bandwidth, Sim speed) first with their labels, any other after them as
// panel_spec_for makes it.
std::vector<BenchPanelSpec> tab_specs();
// The spec of one registered benchmark: its entry in tab_specs(), else a generic one (the
// benchmark's summary, every option under its own name; x the first integer column, y median_ms).
BenchPanelSpec panel_spec_for(const std::string& benchmark);

// The fields a tab draws for `options`, in order: the spec's, then any option the spec does not
// list (advanced, labelled by label_from_name), without the left-out ones.
std::vector<FieldLabel> shown_fields(const BenchPanelSpec& spec,
                                     const std::vector<cli::OptionSpec>& options);
// The benchmark's options as the tab's form takes them: with the spec's `choices` added.
std::vector<cli::OptionSpec> form_options(const BenchPanelSpec& spec,
                                          const std::vector<cli::OptionSpec>& options);
// "nnz-per-row" -> "Nnz per row": the label of an option no spec names.
std::string label_from_name(const std::string& option);
// A cli::UsageError when `args` gives an option the spec leaves out, naming it and the reason.
void check_offered(const BenchPanelSpec& spec, const cli::Args& args);

}  // namespace adilab::gui
