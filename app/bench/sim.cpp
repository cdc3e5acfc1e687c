// `adilab --bench sim`: simulation throughput, the measure of Kim & Lee 2005 (steps and frames
// per second on 1024^2). For each model / scenario /
// grid / solver: reset, a few untimed steps (compiles, allocations, caches), then `steps` steps
// timed as one GPU interval (GL_TIME_ELAPSED; the wall clock around glFinish where the driver's
// timer reads 0); min, median and max of `repeats` such intervals, re-measured after more
// warm-up and flagged `unstable` when they spread more than 10% (report.hpp: measure_stable).
// No read-back inside the interval. `--tune fused.FIELD=VALUE` sets the fused kernel's shape
// (sim/simulation.hpp: FusedTuning); every row records it.
//
// Rows: name (solver), model, scenario, grid, steps, ms_per_step (= median_ms), steps_per_s,
// cells_per_s, gb_per_s (the least a step moves, ModelInfo::least_fields_per_step, per second)
// and pct_of_roof (that against the run's bandwidth roof), fps_one_step_per_frame (the paper's FPS
// with one step a frame, no drawing), step_breakdown (GPU time per kernel and step, from
// per-dispatch timestamps over 64 steps).
//
// Hook for drawing: measure_simulation() takes an optional per-step `frame` callback. A later
// `--render WxH` option (the viewer's renderer) passes one that draws the field offscreen, so
// the same rows then include the cost of visualisation as the paper's 35 / 17 FPS did.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <ostream>

#include "app/bench/benchmark.hpp"
#include "app/bench/tuning.hpp"
#include "app/bench/ui_hook.hpp"
#include "app/cli/headless.hpp"
#include "app/files/png.hpp"
#include "app/render/sim_view.hpp"
#include "sim/simulation.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/frame_timer.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/tridiagonal/tuning.hpp"

namespace adilab::bench {

namespace {

UiRunner g_ui_runner = nullptr;

}  // namespace

std::vector<Scene> select_scenes(const std::vector<std::string>& wanted, bool with_free) {
    std::vector<Scene> all;
    for (const sim::ModelInfo& m : sim::models()) {
        auto simulation = sim::make_simulation(m.name);
        for (const std::string& s : simulation->scenarios()) all.push_back({m.name, s, ""});
    }
    std::vector<Scene> out;
    auto add = [&](const Scene& c) {
        for (const Scene& o : out)
            if (o.model == c.model && o.scenario == c.scenario) return;
        out.push_back(c);
    };
    for (const std::string& w : wanted) {
        bool found = false;
        for (const Scene& c : all) {
            const bool whole = with_free || c.scenario != "free";
            const bool match = (w == "all" && whole) || (w == c.model && whole) ||
                               w == c.scenario || w == c.model + "/" + c.scenario;
            if (match) {
                add(c);
                found = true;
            }
        }
        if (!found) {
            std::string names;
            for (const Scene& c : all)
                names += (names.empty() ? "" : ", ") + c.model + "/" + c.scenario;
            throw cli::UsageError("--scenario: unknown '" + w +
                                  "' (all, a model, a scenario or one of: " + names + ")");
        }
    }
    return out;
}

std::vector<Scene> with_terrains(const std::vector<Scene>& scenes, const cli::Args& args) {
    const bool asked = args.has("terrain");
    const std::vector<std::string> terrains = args.get_list("terrain", {"flat"});
    std::vector<Scene> out;
    bool any = false;
    for (const Scene& scene : scenes) {
        const auto probe = sim::make_simulation(scene.model);
        if (probe->terrains().empty()) {
            out.push_back(scene);
            continue;
        }
        any = true;
        for (const std::string& terrain : terrains) {
            try {
                probe->set_terrain(terrain);  // a height map read whole: before any allocation
            } catch (const files::InputError&) {
                throw;  // the file and what is wrong with it named: exit 2
            } catch (const Error& e) {
                throw cli::UsageError(std::string("--terrain: ") + e.what());
            }
            out.push_back({scene.model, scene.scenario, terrain});
        }
    }
    if (asked && !any)
        throw cli::UsageError("--terrain: no selected scenario has a terrain (shallow water has)");
    return out;
}

bool off_flat_bottom(const Scene& scene) {
    return !scene.terrain.empty() && scene.terrain != "flat";
}

std::string scene_name(const Scene& scene) {
    std::string name = scene.model + "/" + scene.scenario;
    if (off_flat_bottom(scene)) name += " on " + scene.terrain;
    return name;
}

bool has_terrain_column(const std::vector<Row>& rows) {
    return std::any_of(rows.begin(), rows.end(),
                       [](const Row& row) { return row.find("terrain") != nullptr; });
}

cli::OptionSpec terrain_option() {
    return {"terrain", "LIST",
            "shallow water's bottoms, comma-separated, each scenario run on each: flat, slope, "
            "island, basin, png or png:FILE; rows off the flat bottom carry a terrain column",
            cli::Default{"flat"}};
}

void set_ui_runner(UiRunner runner) {
    g_ui_runner = runner;
}
UiRunner ui_runner() {
    return g_ui_runner;
}

// Milliseconds per step (min, median and max of `repeats` intervals of `steps` steps each). Where
// `submit_ms` is given it receives the host's wall time per step for issuing the commands
// (median, no waiting for the GPU): a step whose GPU time is no larger is bound by the host.
Timing measure_simulation(sim::Simulation& simulation, int steps, int repeats,
                          const std::function<void(sim::Simulation&)>& frame = {},
                          double* submit_ms = nullptr) {
    std::vector<double> submit;
    auto work = [&] {
        const auto start = std::chrono::steady_clock::now();
        if (!frame) {
            simulation.step(steps);
        } else {
            for (int i = 0; i < steps; ++i) {
                simulation.step(1);
                frame(simulation);
            }
        }
        submit.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    };
    // Untimed: first-use costs, and clocks up after the set-up (gl::warm_up).
    auto warm = [&] { gl::warm_up([&] { simulation.step(std::min(steps, 20)); }); };
    warm();
    Timing timing = measure_stable(
        [&] {
            submit.clear();
            auto samples = gl::time_runs(work, {.warmup = 0, .repeats = repeats});
            for (double& sample : samples) sample /= steps;
            return samples;
        },
        warm);
    if (submit_ms) *submit_ms = gl::median(submit) / steps;
    return timing;
}

namespace {

// Where a step's time goes (dispatch_breakdown over 64 steps), per step.
std::string step_breakdown(sim::Simulation& simulation) {
    return dispatch_breakdown([&](int steps) { simulation.step(steps); }, 64);
}

Report run_sim(const cli::Args& args, BenchContext& ctx) {
    const auto grids = args.get_int_list("grid", {256, 1024, 2048, 4096}, 4, 8192);
    const int steps = int(args.get_int("steps", 500, 1, 1'000'000));
    const int repeats = int(args.get_int("repeats", 3, 1, 100));
    const auto solvers = args.get_list("solver", {"fused"});
    sim::FusedTuning fused;
    apply_tuning(tuning_assignments(args, {"fused"}), "fused", sim::tuning_fields(fused));
    const auto known = sim::solver_names();
    for (const std::string& s : solvers)
        if (std::find(known.begin(), known.end(), s) == known.end()) {
            std::string list;
            for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
            throw cli::UsageError("--solver: unknown '" + s + "' (available: " + list + ")");
        }
    const std::vector<Scene> cases =
        with_terrains(select_scenes(args.get_list("scenario", {"all"}), false), args);
    // --set NAME=VALUE: on every case whose model has the parameter; a name no selected model
    // has, or a value out of its range, is a usage error before any work.
    std::vector<std::pair<std::string, double>> settings;
    for (const std::string& item : args.all("set")) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw cli::UsageError("--set: '" + item + "' is not NAME=VALUE");
        const std::string name = item.substr(0, eq);
        double value = 0;
        bool known_name = false;
        for (const Scene& c : cases) {
            // Held in a local: in a range-for, the temporary returned by make_simulation would
            // be destroyed before the loop reads the span of parameters it owns (ASan found it).
            const auto probe = sim::make_simulation(c.model, "fused");
            for (const sim::ParamSpec& spec : probe->params())
                if (spec.name == name) {
                    known_name = true;
                    try {
                        value = sim::parse_param_value(spec, item.substr(eq + 1));
                    } catch (const Error& e) {
                        throw cli::UsageError(std::string("--set: ") + e.what());
                    }
                }
        }
        if (!known_name)
            throw cli::UsageError("--set: no selected model has a parameter '" + name + "'");
        settings.emplace_back(name, value);
    }
    // --render WxH: every step also draws a frame offscreen with the viewer's renderer.
    int render_w = 0, render_h = 0;
    if (args.has("render")) {
        const std::string text = args.get("render");
        if (text.find_first_of("xX") == std::string::npos)
            throw cli::UsageError("--render expects WxH (e.g. 1920x1080), got '" + text + "'");
        const auto [w, h] = cli::parse_dimensions("render", text, 1, 16384);  // strict, no wrap
        render_w = int(w);
        render_h = int(h);
    }
    const bool ui = args.has("ui");
    if (ui && render_w == 0)
        throw cli::UsageError("--ui needs --render WxH (the frame it draws into)");
    const std::string ui_screenshot = args.get("ui-screenshot");
    if (!ui_screenshot.empty()) {
        if (!ui) throw cli::UsageError("--ui-screenshot needs --ui");
        files::check_png_path(ui_screenshot);
    }
    if (ui && ui_runner() == nullptr)
        throw cli::UsageError("--ui: this build has no GUI to draw (no interface registered)");

    Report report = make_report("sim", ctx.device);
    const Roof roof = measure_roof(ctx.device);
    report.notes.push_back(roof_note(roof));
    record_config(report, args);
    const std::size_t total = cases.size() * grids.size() * solvers.size();
    std::size_t done = 0;
    for (const Scene& c : cases)
        for (long long n : grids)
            for (const std::string& solver : solvers) {
                ctx.check_cancelled();
                if (!sim::solver_supports(c.model, solver)) {
                    ++done;
                    continue;  // cg on advection: not applicable, no row
                }
                ctx.progress(double(done++) / double(total),
                             scene_name(c) + " " + std::to_string(n) + " " + solver);
                auto simulation = sim::make_simulation(c.model, solver);
                simulation->set_fused_tuning(fused);
                if (!c.terrain.empty()) simulation->set_terrain(c.terrain);
                for (const auto& [name, value] : settings)
                    for (const sim::ParamSpec& spec : simulation->params())
                        if (spec.name == name) simulation->set_param(name, value);
                try {
                    simulation->reset(c.scenario, int(n), int(n));  // checks every buffer first
                } catch (const gl::CapacityError& e) {
                    throw gl::CapacityError("--grid " + std::to_string(n) + " with " + c.model +
                                            " (solver " + solver + "): " + e.what());
                }
                double submit_ms = 0;
                const Timing timing =
                    measure_simulation(*simulation, steps, repeats, {}, &submit_ms);
                const double ms = timing.median_ms;
                const sim::Stats stats = simulation->stats();
                if (!stats.stable)
                    report.notes.push_back(scene_name(c) + " " + std::to_string(n) + " " + solver +
                                           " went unstable: " + stats.instability);
                const std::string breakdown = step_breakdown(*simulation);
                const double cells = double(n) * double(n);
                const double least_bytes =
                    cells * 4.0 * sim::model_info(c.model).least_fields_per_step;
                Row row;
                row.set("name", solver).set("model", c.model).set("scenario", c.scenario);
                if (off_flat_bottom(c)) row.set("terrain", c.terrain);
                row.set("grid", n).set("steps", steps);
                set_timing(row, timing);
                row.set("ms_per_step", ms)
                    .set("host_submit_ms_per_step", submit_ms)
                    .set("steps_per_s", 1000.0 / ms)
                    .set("cells_per_s", cells * 1000.0 / ms)
                    .set("gb_per_s", least_bytes / (ms * 1e6))
                    .set("pct_of_roof", 100.0 * least_bytes / (ms * 1e6) / roof.gb_per_s)
                    .set("roof_gb_per_s", roof.gb_per_s)
                    .set("fps_one_step_per_frame", 1000.0 / ms)
                    .set("stable", stats.stable)
                    .set("kernel", simulation->kernel())
                    .set("step_breakdown", breakdown);
                // The tuning that ran: the fused kernel's, or the tridiagonal family's defaults
                // (a model builds its solver with them); the resolved shape is in the labels of
                // step_breakdown (the kernels' defines).
                if (solver == "fused") {
                    record_tuning(row, "fused", sim::tuning_fields(fused));
                } else {
                    tridiag::Tuning defaults;
                    record_tuning(row, "tridiag", tridiag::tuning_fields(defaults));
                }
                if (render_w > 0) {
                    render::OffscreenView view(*simulation, render_w, render_h);
                    const Timing frame = measure_simulation(
                        *simulation, steps, repeats, [&](sim::Simulation& s) { view.draw(s); });
                    set_timing(row, frame, "frame_");
                    const double frame_ms = frame.median_ms;
                    // Where the drawing's time goes: GPU time per program over a few frames
                    // (timestamps after each dispatch; a blit or clear counts to the next one).
                    std::string breakdown;
                    {
                        constexpr int kProfiled = 16;
                        gl::DispatchProfiler profiler(1, 64 * kProfiled);
                        gl::finish();
                        profiler.begin();
                        for (int f = 0; f < kProfiled; ++f) view.draw(*simulation);
                        profiler.end();
                        gl::finish();
                        for (const auto& phase : profiler.collect()) {
                            char text[256];
                            std::snprintf(text, sizeof text, "%s%s: %.4f ms",
                                          breakdown.empty() ? "" : "; ", phase.label.c_str(),
                                          phase.ms / kProfiled);
                            breakdown += text;
                        }
                    }
                    row.set("render", std::to_string(render_w) + "x" + std::to_string(render_h))
                        .set("draw_breakdown", breakdown)
                        .set("render_3d", view.three_d(*simulation))
                        .set("ms_per_frame_rendered", frame_ms)
                        .set("draw_ms_per_frame", frame_ms - ms)
                        .set("fps_rendered", 1000.0 / frame_ms);
                }
                if (ui) {
                    // The GUI's own frame (its viewer, panels and overlay) on a fresh simulation
                    // of the same case: GPU times per phase from its timer queries, and the
                    // wall-clock frame rate with the CPU's share (ImGui, the viewer) included.
                    const UiRunResult r =
                        ui_runner()({c.model, c.scenario, solver, c.terrain, int(n), render_w,
                                     render_h, steps, ui_screenshot});
                    row.set("ui_frames", r.frames)
                        .set("ui_viewport_width", r.viewport_width)
                        .set("gui_sim_ms", r.sim_ms)
                        .set("gui_draw_ms", r.draw_ms)
                        .set("gui_ui_ms", r.ui_ms)
                        .set("gui_draw_plus_ui_ms", r.draw_ms + r.ui_ms)
                        .set("gui_frame_ms_wall", r.frame_ms)
                        .set("gui_fps_wall", r.fps);
                }
                report.rows.push_back(row);
            }
    ctx.progress(1.0, "done");
    note_unstable_rows(report);
    std::vector<Column> columns = {{"name"},
                                   {"model"},
                                   {"scenario"},
                                   {"grid"},
                                   {"steps"},
                                   {"min_ms", "min ms/step", 5},
                                   {"ms_per_step", "ms/step", 5},
                                   {"max_ms", "max ms/step", 5},
                                   {"unstable"},
                                   {"host_submit_ms_per_step", "host ms/step", 5},
                                   {"steps_per_s", "steps/s", 0},
                                   {"cells_per_s", "cells/s", 0},
                                   {"gb_per_s", "GB/s", 1},
                                   {"pct_of_roof", "% roof", 1},
                                   {"fps_one_step_per_frame", "FPS (1 step/frame)", 0}};
    if (has_terrain_column(report.rows)) columns.insert(columns.begin() + 3, Column("terrain"));
    ctx.out << format_table(report.rows, columns);
    if (render_w > 0)
        ctx.out << format_table(report.rows, {{"name"},
                                              {"model"},
                                              {"scenario"},
                                              {"grid"},
                                              {"render"},
                                              {"draw_ms_per_frame", "draw ms/frame", 4},
                                              {"fps_rendered", "FPS drawn (1 step/frame)", 0}});
    if (ui)
        ctx.out << format_table(report.rows, {{"name"},
                                              {"model"},
                                              {"scenario"},
                                              {"grid"},
                                              {"render"},
                                              {"gui_sim_ms", "GUI sim ms", 4},
                                              {"gui_draw_ms", "GUI draw ms", 4},
                                              {"gui_ui_ms", "GUI ImGui ms", 4},
                                              {"gui_draw_plus_ui_ms", "draw+UI ms", 4},
                                              {"gui_fps_wall", "GUI FPS (wall)", 0}});
    return report;
}

}  // namespace

Benchmark make_sim_benchmark() {
    sim::FusedTuning defaults;
    return {
        "sim",
        "simulation steps per second: heat, advection, shallow water (Kim & Lee 2005, sec. 2)",
        {{"scenario", "LIST", "all, a model, a scenario, or model/scenario, comma-separated",
          cli::Default{"all"}},
         {"grid", "LIST", "square grid sizes", cli::Default{"256,1024,2048,4096"}},
         {"steps", "N", "steps per timed interval", cli::Default{"500"}},
         {"repeats", "N", "timed intervals: min, median and max are reported", cli::Default{"3"}},
         {"solver", "LIST", "fused and/or GPU tridiagonal variants", cli::Default{"fused"}},
         terrain_option(),
         {"set", "NAME=VALUE", "set a parameter on every case whose model has it (repeatable)",
          true},
         {"render", "WxH",
          "also draw every step offscreen at WxH with the viewer's renderer "
          "(3-D water): FPS with visualisation"},
         {"ui", "",
          "with --render: also run the GUI's frame offscreen (its viewer, side panel "
          "and overlay through ImGui) and report its GPU times of drawing and UI"},
         {"ui-screenshot", "PNG",
          "with --ui: save the GUI's last offscreen frame (the last "
          "case's) as PNG"},
         tune_option(describe_tuning("fused", sim::tuning_fields(defaults)))},
        run_sim};
}

}  // namespace adilab::bench
