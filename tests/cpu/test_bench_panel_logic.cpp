// The benchmark tabs' logic that needs no window: what each tab shows and how it labels it,
// option fields <-> command-line tokens, the chart's series, axes and legend, and the table's
// numbers (app/gui/bench_specs.hpp, option_form.hpp, chart.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "app/gui/bench_specs.hpp"
#include "app/gui/chart.hpp"
#include "app/gui/option_form.hpp"

namespace adilab::gui {
namespace {

using Tokens = std::vector<std::string>;

std::vector<cli::OptionSpec> matmul_like_options() {
    return {
        {"sizes", "LIST", "matrix sizes N", cli::Default{"128,256,512"}},
        {"impl",
         "LIST",
         "implementations",
         cli::Default{"all"},
         {"cpu-ijk", "gpu-tiled32", "gpu-fast"}},
        {"block", "LIST", "block sizes", cli::Default{"32"}, {"8", "16", "32", "64"}},
        {"verify", "", "compare with the CPU"},
        {"mtx", "FILE", "a Matrix Market file"},
        {"set", "K=V", "a parameter", true},
    };
}

TEST(BenchForm, DefaultComesFromTheDefaultFieldNotTheHelpText) {
    // --help prints the stated default after the help.
    EXPECT_EQ(cli::full_help({"mib", "LIST", "buffer sizes in MiB", cli::Default{"16,256"}}),
              "buffer sizes in MiB (default 16,256)");
    EXPECT_EQ(cli::full_help({"mtx", "FILE", "a Matrix Market file"}), "a Matrix Market file");
    // A default written only into the help is prose: the form does not read it, so with no
    // stated default every choice is checked.
    OptionForm form({{"block", "LIST", "block sizes (default: 32)", false, {"16", "32"}}});
    EXPECT_EQ(form.fields()[0].chosen, (std::vector<bool>{true, true}));
}

TEST(BenchForm, SplitsCommandLinesWithQuotes) {
    EXPECT_EQ(split_command_line("  --mib 1,2   --repeats=3 "),
              (Tokens{"--mib", "1,2", "--repeats=3"}));
    EXPECT_EQ(split_command_line("--mtx 'my file.mtx' --name \"a \\\"b\\\"\""),
              (Tokens{"--mtx", "my file.mtx", "--name", "a \"b\""}));
    EXPECT_EQ(split_command_line("--x ''"), (Tokens{"--x", ""}));
    EXPECT_TRUE(split_command_line("   ").empty());
    EXPECT_THROW(split_command_line("--mtx 'open"), cli::UsageError);
}

TEST(BenchForm, FieldsAtTheirDefaultsGiveNoTokens) {
    OptionForm form(matmul_like_options());
    EXPECT_TRUE(form.tokens().empty());
    // The "all" default checks every choice; a default of "32" checks only 32.
    EXPECT_EQ(form.fields()[1].chosen, (std::vector<bool>{true, true, true}));
    EXPECT_EQ(form.fields()[2].chosen, (std::vector<bool>{false, false, true, false}));
}

TEST(BenchForm, FieldsBecomeTheTokensTheCliParses) {
    OptionForm form(matmul_like_options());
    auto& f = form.fields();
    f[0].text = " 64,100 ";
    f[1].chosen = {false, true, true};
    f[2].chosen = {true, false, true, false};
    f[3].flag = true;
    f[4].text = "dir with space/a.mtx";
    f[5].text = "a=1; b=2;";
    EXPECT_EQ(form.tokens(), (Tokens{"--sizes", "64,100", "--impl", "gpu-tiled32,gpu-fast",
                                     "--block", "8,32", "--verify", "--mtx", "dir with space/a.mtx",
                                     "--set", "a=1", "--set", "b=2"}));
    const cli::Args args = form.args();
    EXPECT_EQ(args.get_int_list("sizes", {}, 1, 100000), (std::vector<long long>{64, 100}));
    EXPECT_EQ(args.all("set"), (Tokens{"a=1", "b=2"}));
    EXPECT_TRUE(args.has("verify"));
}

TEST(BenchForm, NothingCheckedIsAUsageErrorNamingTheOption) {
    OptionForm form(matmul_like_options());
    form.fields()[1].chosen = {false, false, false};
    try {
        form.tokens();
        FAIL() << "no implementation checked was accepted";
    } catch (const cli::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--impl"), std::string::npos) << e.what();
    }
}

TEST(BenchForm, SetFromTokensRoundTrips) {
    OptionForm form(matmul_like_options());
    const Tokens given = {"--impl", "gpu-fast", "--sizes=7,33", "--verify",
                          "--set",  "x=1",      "--set",        "y=2"};
    form.set(given);
    EXPECT_EQ(form.fields()[0].text, "7,33");
    EXPECT_EQ(form.fields()[1].chosen, (std::vector<bool>{false, false, true}));
    EXPECT_TRUE(form.fields()[3].flag);
    EXPECT_EQ(form.tokens(), (Tokens{"--sizes", "7,33", "--impl", "gpu-fast", "--verify", "--set",
                                     "x=1", "--set", "y=2"}));
    form.set({"--impl", "all"});  // unnamed fields go back to their defaults
    EXPECT_TRUE(form.tokens().empty());
}

TEST(BenchForm, SetRejectsWhatTheCliRejectsAndLeavesTheFormAlone) {
    OptionForm form(matmul_like_options());
    form.set({"--sizes", "9"});
    EXPECT_THROW(form.set({"--nope", "1"}), cli::UsageError);
    EXPECT_THROW(form.set({"--sizes"}), cli::UsageError);
    try {
        form.set({"--sizes", "1", "--impl", "gpu-slow"});
        FAIL() << "an unknown implementation was accepted";
    } catch (const cli::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("gpu-slow"), std::string::npos) << e.what();
    }
    EXPECT_EQ(form.fields()[0].text, "9");
}

ChartSpec chart_of(std::string x, std::string y, std::vector<std::string> series = {"name"}) {
    ChartSpec spec;
    spec.x_key = std::move(x);
    spec.y_key = std::move(y);
    spec.series_keys = std::move(series);
    return spec;
}

bench::Row row(const std::string& name, long long n, double gflops) {
    bench::Row r;
    r.set("name", name).set("n", n).set("gflops", gflops);
    return r;
}

TEST(Chart, SeriesGroupByNameInFirstSeenOrderSortedByX) {
    std::vector<bench::Row> rows = {row("gpu", 256, 10), row("cpu", 256, 1), row("gpu", 128, 5),
                                    row("cpu", 128, 0.5), row("gpu", 512, 0.0)};
    rows.push_back(bench::Row().set("name", "gpu").set("n", 64));  // no gflops
    ChartSpec spec = chart_of("n", "gflops");
    int skipped = -1;
    const auto series = make_series(rows, spec, &skipped);
    ASSERT_EQ(series.size(), 2u);
    EXPECT_EQ(series[0].label, "gpu");
    EXPECT_EQ(series[1].label, "cpu");
    ASSERT_EQ(series[0].points.size(), 2u);  // 0 GFLOPS has no place on a log axis
    EXPECT_EQ(series[0].points[0].x, 128);
    EXPECT_EQ(series[0].points[1].y, 10);
    EXPECT_EQ(skipped, 2);
    spec.log_y = false;  // on a linear axis 0 is a point
    EXPECT_EQ(make_series(rows, spec)[0].points.size(), 3u);
}

TEST(Chart, SeriesLabelsJoinSeveralKeysAndLeaveMissingOnesOut) {
    std::vector<bench::Row> rows;
    rows.push_back(
        bench::Row().set("name", "gpu-blocked").set("block", 32).set("n", 64).set("gflops", 1.0));
    rows.push_back(bench::Row().set("name", "gpu-unblocked").set("n", 64).set("gflops", 1.0));
    const auto series = make_series(rows, chart_of("n", "gflops", {"name", "block"}));
    ASSERT_EQ(series.size(), 2u);
    EXPECT_EQ(series[0].label, "gpu-blocked block=32");
    EXPECT_EQ(series[1].label, "gpu-unblocked");
    // Words name themselves: "lu-scan x general", not "lu-scan direction=x coefficients=general".
    bench::Row line;
    line.set("name", "lu-scan")
        .set("direction", "x")
        .set("coefficients", "general")
        .set("n", 8)
        .set("gflops", 1.0);
    EXPECT_EQ(make_series({line}, chart_of("n", "gflops", {"name", "direction", "coefficients"}))[0]
                  .label,
              "lu-scan x general");
}

TEST(Chart, NumericKeysAreTheNumberFields) {
    std::vector<bench::Row> rows = {row("a", 1, 2.0)};
    rows[0].set("ok", true);
    EXPECT_EQ(numeric_keys(rows), (Tokens{"n", "gflops"}));
}

std::vector<double> tick_values(const std::vector<Tick>& ticks) {
    std::vector<double> out;
    for (const Tick& t : ticks) out.push_back(t.value);
    return out;
}

TEST(Chart, Log2AxisTicksArePowersOfTwoThinnedToFit) {
    const Axis axis = Axis::fit({128, 4096}, true, 2);
    EXPECT_LT(axis.lo, 128);
    EXPECT_GT(axis.hi, 4096);
    EXPECT_EQ(tick_values(axis.ticks(10)), (std::vector<double>{128, 256, 512, 1024, 2048, 4096}));
    // Three ticks at most: every other power, on even exponents.
    EXPECT_EQ(tick_values(axis.ticks(3)), (std::vector<double>{256, 1024, 4096}));
    EXPECT_NEAR(axis.fraction(axis.lo), 0.0, 1e-12);
    EXPECT_NEAR(axis.fraction(axis.hi), 1.0, 1e-12);
    // 128 and 4096 are 5 octaves apart and the margins are equal: 1024 sits at 3/5 of the data.
    const double f128 = axis.fraction(128), f4096 = axis.fraction(4096);
    EXPECT_NEAR((axis.fraction(1024) - f128) / (f4096 - f128), 0.6, 1e-12);
}

TEST(Chart, Log10AxisAddsTwoAndFiveUnderTwoDecades) {
    EXPECT_EQ(tick_values(Axis::fit({1, 1000}, true, 10).ticks(8)),
              (std::vector<double>{1, 10, 100, 1000}));
    const auto fine = tick_values(Axis::fit({1.5, 60}, true, 10).ticks(8));
    EXPECT_EQ(fine, (std::vector<double>{2, 5, 10, 20, 50}));
    // A single value still gets an axis with a tick or two around it.
    const Axis single = Axis::fit({300}, true, 10);
    EXPECT_LT(single.lo, 300);
    EXPECT_GT(single.hi, 300);
    EXPECT_FALSE(single.ticks(5).empty());
}

TEST(Chart, LinearTicksStepByOneTwoOrFive) {
    const Axis axis = Axis::fit({0.84, 0.89}, false, 10);
    const auto values = tick_values(axis.ticks(7));
    ASSERT_GE(values.size(), 3u);
    const double step = values[1] - values[0];
    EXPECT_NEAR(step, 0.01, 1e-12);
    for (double v : values) {
        EXPECT_GE(v, axis.lo);
        EXPECT_LE(v, axis.hi);
    }
    EXPECT_EQ(tick_values(Axis::fit({-1, 1}, false, 10).ticks(5)), (std::vector<double>{-1, 0, 1}));
}

TEST(Chart, TickLabelsAreShort) {
    EXPECT_EQ(format_tick(1024), "1024");
    EXPECT_EQ(format_tick(131072), "131k");
    EXPECT_EQ(format_tick(2000000), "2M");
    EXPECT_EQ(format_tick(0.25), "0.25");
    EXPECT_EQ(format_tick(1e-5), "1e-05");
    EXPECT_EQ(format_tick(0), "0");
    EXPECT_EQ(format_tick(-3e9), "-3G");
}

TEST(BenchTabs, EveryRegisteredBenchmarkHasATab) {
    const std::vector<BenchPanelSpec> specs = tab_specs();
    for (const bench::Benchmark& b : bench::benchmarks()) {
        const bool found = std::any_of(specs.begin(), specs.end(), [&](const BenchPanelSpec& s) {
            return s.benchmark == b.name;
        });
        EXPECT_TRUE(found) << b.name << " has no tab";
    }
    for (const char* name : {"matmul", "lu", "power", "tridiag", "bandwidth", "sim"})
        EXPECT_TRUE(std::any_of(specs.begin(), specs.end(), [&](const BenchPanelSpec& s) {
            return s.benchmark == name;
        })) << name;
}

// A label a user reads: words, not a flag ("--x-block-gobs"), a metavariable ("N", "L", "LIST")
// or the option's bare name.
void expect_words(const std::string& label, const cli::OptionSpec& option, const std::string& tab) {
    EXPECT_FALSE(label.empty()) << tab << " --" << option.name;
    EXPECT_EQ(label.find("--"), std::string::npos) << tab << ": " << label;
    EXPECT_NE(label, option.value_name) << tab << ": " << label;
    EXPECT_NE(label, option.name) << tab << ": " << label;
    EXPECT_TRUE(std::isupper(static_cast<unsigned char>(label[0]))) << tab << ": " << label;
    EXPECT_TRUE(std::any_of(label.begin() + 1, label.end(),
                            [](unsigned char c) { return std::islower(c) != 0; }))
        << tab << ": " << label << " reads as a placeholder";
}

TEST(BenchTabs, EveryOptionOfTheKnownTabsIsLabelledInWords) {
    // The known tabs name every option of their benchmark: an option added to a benchmark must
    // get a label here too (else it would show under its command-line name).
    for (const BenchPanelSpec& spec : tab_specs()) {
        const bench::Benchmark* b = bench::find_benchmark(spec.benchmark);
        ASSERT_NE(b, nullptr) << spec.benchmark;
        if (spec.fields.empty()) continue;
        const bool known =
            std::any_of(spec.fields.begin(), spec.fields.end(),
                        [](const FieldLabel& f) { return f.label != label_from_name(f.option); });
        if (!known)
            continue;  // a tab made from the registry alone (a benchmark the GUI does not know)
        for (const cli::OptionSpec& option : b->options) {
            const bool listed =
                std::any_of(spec.fields.begin(), spec.fields.end(),
                            [&](const FieldLabel& f) { return f.option == option.name; });
            const bool left_out =
                std::any_of(spec.left_out.begin(), spec.left_out.end(),
                            [&](const LeftOut& l) { return l.option == option.name; });
            EXPECT_TRUE(listed || left_out) << spec.title << " does not label --" << option.name;
        }
        for (const FieldLabel& field : shown_fields(spec, b->options)) {
            const auto option =
                std::find_if(b->options.begin(), b->options.end(),
                             [&](const cli::OptionSpec& o) { return o.name == field.option; });
            ASSERT_NE(option, b->options.end()) << field.option;
            expect_words(field.label, *option, spec.title);
        }
    }
}

TEST(BenchTabs, AFewOptionsUpFrontTheRestFolded) {
    // Results above the fold: at most six fields before "More options"; the tuning knobs and
    // file options behind it.
    for (const BenchPanelSpec& spec : tab_specs()) {
        const bench::Benchmark* b = bench::find_benchmark(spec.benchmark);
        ASSERT_NE(b, nullptr);
        const std::vector<FieldLabel> shown = shown_fields(spec, b->options);
        const auto up_front = std::count_if(shown.begin(), shown.end(),
                                            [](const FieldLabel& f) { return !f.advanced; });
        EXPECT_LE(up_front, 6) << spec.title;
        EXPECT_GE(up_front, 1) << spec.title;
        for (const FieldLabel& f : shown)
            if (f.option == "tune" || f.option == "mtx") {
                EXPECT_TRUE(f.advanced) << spec.title;
            }
    }
    const BenchPanelSpec power = panel_spec_for("power");
    const auto shown = shown_fields(power, bench::find_benchmark("power")->options);
    EXPECT_EQ(shown.front().label, "Matrix rows");
}

TEST(BenchTabs, ListsOfNamesBecomeCheckboxesAndDefaultsAreChecked) {
    // LU's block sizes and the simulation's solvers are lists of names the tab offers as
    // checkboxes; the stated default checks its names only.
    const BenchPanelSpec lu = panel_spec_for("lu");
    OptionForm lu_form(form_options(lu, bench::find_benchmark("lu")->options));
    for (const OptionForm::Field& f : lu_form.fields()) {
        if (f.spec.name != "block") continue;
        EXPECT_EQ(f.spec.choices, (Tokens{"8", "16", "32", "64", "128"}));
        EXPECT_EQ(f.chosen, (std::vector<bool>{false, false, true, true, true}));
    }
    EXPECT_TRUE(lu_form.tokens().empty());
    const BenchPanelSpec sim = panel_spec_for("sim");
    OptionForm sim_form(form_options(sim, bench::find_benchmark("sim")->options));
    for (OptionForm::Field& f : sim_form.fields()) {
        if (f.spec.name != "solver") continue;
        ASSERT_FALSE(f.spec.choices.empty());
        EXPECT_EQ(f.spec.choices[0], "fused");
        EXPECT_TRUE(f.chosen[0]);
        EXPECT_EQ(std::count(f.chosen.begin(), f.chosen.end(), true), 1);
        f.chosen[1] = true;
    }
    const Tokens tokens = sim_form.tokens();
    ASSERT_EQ(tokens.size(), 2u);
    EXPECT_EQ(tokens[0], "--solver");
    EXPECT_EQ(tokens[1].rfind("fused,", 0), 0u) << tokens[1];
}

TEST(BenchTabs, TheSimTabRefusesTheGuiItCannotDraw) {
    // sim --ui draws the GUI's own interface through ImGui, whose context the running GUI owns.
    const BenchPanelSpec sim = panel_spec_for("sim");
    const auto& options = bench::find_benchmark("sim")->options;
    for (const FieldLabel& f : shown_fields(sim, options)) EXPECT_NE(f.option, "ui");
    try {
        check_offered(sim, cli::Args::parse({"--ui", "--render", "64x64"}, options));
        FAIL() << "--ui was offered";
    } catch (const cli::UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--ui is not offered in the Sim speed tab"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(check_offered(sim, cli::Args::parse({"--render", "64x64"}, options)));
}

TEST(BenchTabs, AnUnknownBenchmarkGetsEveryOptionUnderItsName) {
    EXPECT_EQ(label_from_name("nnz-per-row"), "Nnz per row");
    BenchPanelSpec generic{"Soak", "soak", "", {}, {}};
    const std::vector<cli::OptionSpec> options = {{"minutes", "M", "how long"},
                                                  {"tune", "X=Y", "knobs", true}};
    const auto shown = shown_fields(generic, options);
    ASSERT_EQ(shown.size(), 2u);
    EXPECT_EQ(shown[0].label, "Minutes");
    EXPECT_TRUE(shown[1].advanced);
}

TEST(Table, NumbersHaveFourSignificantFigures) {
    EXPECT_EQ(format_number(1493.764), "1494");
    EXPECT_EQ(format_number(0.0285143), "0.02851");
    EXPECT_EQ(format_number(5.0008371021), "5.001");
    EXPECT_EQ(format_number(135.9412), "135.9");
    EXPECT_EQ(format_number(135.9512), "136.0");
    EXPECT_EQ(format_number(21909.3), "21909");
    EXPECT_EQ(format_number(9.99996), "10.00") << "rounding carries into a new digit";
    EXPECT_EQ(format_number(0.001), "0.001000");
    EXPECT_EQ(format_number(8.37e-11), "8.37e-11");
    EXPECT_EQ(format_number(3451882.0), "3.452e+06");
    EXPECT_EQ(format_number(-2.5), "-2.500");
    EXPECT_EQ(format_number(0.0), "0");
    EXPECT_EQ(format_number(NAN), "-");
    EXPECT_EQ(format_number(1.23456789, 6), "1.23457");
    // Integers stay whole, text as it is; the export keeps every digit.
    EXPECT_EQ(format_cell(bench::Value(std::int64_t{4096})), "4096");
    EXPECT_EQ(format_cell(bench::Value(std::string("gpu-fast"))), "gpu-fast");
    EXPECT_EQ(format_cell(bench::Value(true)), "yes");
    EXPECT_EQ(format_cell(bench::Value(0.12345678)), "0.1235");
}

TEST(Chart, AxisTitlesSayTheUnit) {
    EXPECT_EQ(axis_title("median_ms"), "median time (ms)");
    EXPECT_EQ(axis_title("gflops"), "GFLOP/s");
    EXPECT_EQ(axis_title("gb_per_s"), "GB/s");
    EXPECT_EQ(axis_title("speedup_vs_host"), "speed-up vs host (x)");
    EXPECT_EQ(axis_title("spmv_ms"), "spmv (ms)");
    EXPECT_EQ(axis_title("rate_gpu_gflops"), "rate gpu (GFLOP/s)");
    EXPECT_EQ(axis_title("frame_median_ms"), "frame median (ms)");
    EXPECT_EQ(axis_title("g_fraction"), "g fraction");
}

TEST(Chart, PointsThatShareAnXAreNotJoined) {
    // A run of one size: every series is one x; its points get markers, never a vertical line.
    EXPECT_FALSE(joined({256, 1.0}, {256, 5.0}));
    EXPECT_TRUE(joined({256, 1.0}, {512, 5.0}));
}

TEST(Chart, TheLegendTakesAFreeCornerOrGoesBelow) {
    const Box plot{0, 0, 300, 200};
    using Points = std::vector<std::vector<ChartPoint>>;
    // A line rising from bottom left to top right leaves the other two corners free.
    const Points rising = {{{10, 190}, {150, 100}, {290, 10}}};
    EXPECT_EQ(place_legend(rising, plot, 80, 30, 6, 4), LegendPlace::top_left);
    // A flat line along the top crosses both top corners without a marker in either.
    const Points top = {{{10, 20}, {290, 20}}};
    EXPECT_EQ(place_legend(top, plot, 80, 30, 6, 4), LegendPlace::bottom_left);
    // A marker alone blocks its corner.
    const Points corner_point = {{{20, 20}}};
    EXPECT_EQ(place_legend(corner_point, plot, 80, 30, 6, 4), LegendPlace::top_right);
    // Lines along the top and the bottom: no corner is free; the legend goes under the plot.
    const Points both = {{{10, 20}, {290, 20}}, {{10, 185}, {290, 185}}};
    EXPECT_EQ(place_legend(both, plot, 80, 30, 6, 4), LegendPlace::below);
    // A legend wider than the plot has no corner either.
    EXPECT_EQ(place_legend({}, plot, 400, 30, 6, 4), LegendPlace::below);
    // Points at one x are not joined, so no line runs between them through a corner.
    const Points column = {{{150, 10}, {150, 190}}};
    EXPECT_EQ(place_legend(column, plot, 80, 30, 6, 4), LegendPlace::top_left);
}

}  // namespace
}  // namespace adilab::gui
