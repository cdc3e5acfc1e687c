// The viewer's files: the state file (save, and load with the simulation made to match it), the
// field as .npy, FPS recordings and the screenshots' names. Failures go to the status line with
// the operating system's reason. Videos and screenshots at a chosen size: viewer_video.cpp; the
// cross-section's CSV: viewer_cross_section.cpp.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "app/files/paths.hpp"
#include "app/gui/viewer.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {

// The model, solver and grid a state file holds: its text lines before the first buffer
// (sim/model.cpp writes them), so that the viewer can make the matching simulation first.
struct StateHeader {
    std::string model, solver;
};
StateHeader read_state_header(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(files::with_reason(
            "cannot read state file '" + files::absolute_text(path) + "'", path, false));
    StateHeader header;
    std::string line;
    std::getline(in, line);
    if (line != "ADILAB-STATE 1")
        throw Error("'" + files::absolute_text(path) + "' is not an adilab state file");
    while (std::getline(in, line) && !line.starts_with("buffer ")) {
        std::istringstream fields(line);
        std::string key;
        fields >> key;
        if (key == "model") fields >> header.model;
        if (key == "solver") fields >> header.solver;
    }
    if (header.model.empty())
        throw Error("state file '" + files::absolute_text(path) + "' names no model");
    return header;
}

// The solver to load a state of `model` with: the file's when this build has it and it can run
// the model, else the running one where it can, else the first.
std::string solver_for_state(const StateHeader& header, const std::string& running) {
    const auto solvers = sim::solver_names();
    if (std::find(solvers.begin(), solvers.end(), header.solver) != solvers.end() &&
        sim::solver_supports(header.model, header.solver))
        return header.solver;
    if (!sim::solver_supports(header.model, running)) return solvers.front();
    return running;
}

}  // namespace

void Viewer::save_state() {
    try {
        sim_->save_state(files_.state_path);
        notify("saved " + files::absolute_text(files_.state_path));
    } catch (const std::exception& e) {
        report_error(files::with_reason(e.what(), files_.state_path, true));
    }
}

void Viewer::load_state(const std::filesystem::path& path) {
    files_.state_path = path.string();
    // A state of another model, grid, scenario or terrain: the simulation is made to match the
    // file first (on a copy, so that a failed load leaves the running one as it was), then the
    // panel follows it: model, scenario, grid, solver and terrain all read from the result.
    try {
        const StateHeader header = read_state_header(files_.state_path);
        auto next = sim::make_simulation(header.model, solver_for_state(header, sim_->solver()));
        next->load_state(files_.state_path);
        sim_ = std::move(next);
        scenario_ = sim_->scenario();
        grid_ = sim_->nx();
        preset_index_ = -1;
        run_until_.reset();
        measure_new_field();
        step_budget_.settle();
        set_reference();
        fit_height();
        fit_view();
        char detail[160];
        std::snprintf(detail, sizeof detail, ": %s, %s, %d x %d, step %lld, t = %.4g s",
                      sim_->model().c_str(), scenario_.c_str(), sim_->nx(), sim_->ny(),
                      static_cast<long long>(stats_.steps), stats_.time);
        notify("loaded " + files::absolute_text(files_.state_path) + detail);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::export_field() {
    try {
        sim::write_npy(files_.npy_path, sim_->nx(), sim_->ny(), sim_->read_field());
        notify("exported " + files::absolute_text(files_.npy_path));
    } catch (const std::exception& e) {
        report_error(files::with_reason(e.what(), files_.npy_path, true));
    }
}

void Viewer::toggle_recording() {
    try {
        if (recorder_.active())
            stop_recording();
        else
            start_recording(files_.reports_folder, files_.record_seconds);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::start_recording(const std::filesystem::path& folder, double seconds) {
    RecordingInfo info;
    info.renderer = renderer_name_;
    info.gl_version = gl_version_;
    info.model = sim_->model();
    info.scenario = scenario_;
    info.solver = sim_->solver();
    info.grid = grid_;
    info.steps_per_frame = steps_per_frame_;
    info.timing = gpu_timers_ ? "sim_ms and render_ms: GPU timer queries"
                              : "sim_ms and render_ms: CPU time issuing the work (this driver's "
                                "GPU timer reads 0)";
    recorder_.start(folder, info, seconds);
    // The timers' frame tags restart with the recording's frame numbers.
    notify("recording to " + recorder_.csv_path().string());
}

std::filesystem::path Viewer::stop_recording() {
    if (!recorder_.active()) return {};
    // The last frames' GPU times: one wait at the end of the recording, not per frame.
    for (const auto& s : sim_timer_.collect_all())
        if (gpu_timers_) recorder_.set_sim_ms(s.frame - record_offset_, s.ms);
    for (const auto& s : render_timer_.collect_all())
        if (gpu_timers_) recorder_.set_render_ms(s.frame - record_offset_, s.ms);
    auto path = recorder_.stop();
    notify("recorded " + path.string() + " and " + recorder_.json_path().filename().string());
    return path;
}

std::filesystem::path Viewer::next_screenshot_path() {
    std::filesystem::path folder = files_.screenshots_folder;
    std::filesystem::create_directories(folder);
    return folder / (timestamped_name("adilab") + ".png");
}

}  // namespace adilab::gui
