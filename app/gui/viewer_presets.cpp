// Presets in the viewer: one named on the command line (--preset, before the other options apply),
// one chosen in the panel, and what is set now saved as the user's own (the panel's "Save as
// preset", Ctrl+S). The files themselves are read and written by presets.cpp.
#include <algorithm>

#include "app/cli/args.hpp"
#include "app/gui/viewer.hpp"
#include "solvers/common/files.hpp"

namespace adilab::gui {

std::vector<std::pair<std::string, double>> Viewer::apply_start_preset(const std::string& name,
                                                                       std::string& model,
                                                                       std::string& solver) {
    auto it = std::find_if(presets_.begin(), presets_.end(),
                           [&](const Preset& p) { return p.name == name; });
    if (it == presets_.end()) {
        std::string names;
        for (const Preset& p : presets_) names += (names.empty() ? "" : ", ") + p.name;
        throw cli::UsageError("unknown preset '" + name + "' (available: " +
                              (names.empty() ? "none found under assets/presets" : names) + ")");
    }
    if (!it->problem.empty()) throw files::InputError(it->problem);
    preset_index_ = static_cast<int>(it - presets_.begin());
    model = it->model;
    // A preset that names only the model takes the model's first scenario (apply_start_scenario),
    // not the scenario the settings remember from another model.
    scenario_ = it->scenario;
    if (!it->solver.empty()) solver = it->solver;
    if (it->grid > 0) grid_ = it->grid;
    if (it->steps_per_frame > 0) steps_per_frame_ = it->steps_per_frame;
    if (!it->colormap.empty()) view_.colormap = render::colormap_from_name(it->colormap);
    return it->params;
}

void Viewer::apply_preset(const Preset& p) {
    try {
        if (!p.problem.empty()) throw Error(p.problem);
        make(p.model, p.solver.empty() ? sim_->solver() : p.solver);
        scenario_ = p.scenario;  // none named: the model's first, below
        auto names = sim_->scenarios();
        if (std::find(names.begin(), names.end(), scenario_) == names.end())
            scenario_ = names.front();
        if (p.grid > 0) grid_ = p.grid;
        if (p.steps_per_frame > 0) steps_per_frame_ = p.steps_per_frame;
        if (!p.colormap.empty()) view_.colormap = render::colormap_from_name(p.colormap);
        if (!p.terrain.empty() && !sim_->terrains().empty()) sim_->set_terrain(p.terrain);
        sim_->set_params(p.params, scenario_, grid_, grid_);
        reset();
        fit_view();
        notify("preset " + p.name);
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

void Viewer::choose_preset(int index) {
    preset_index_ = index;
    apply_preset(presets_[static_cast<std::size_t>(index)]);
}

void Viewer::save_as_preset(const std::string& name) {
    try {
        for (const Preset& p : presets_)
            if (!p.user && p.name == name)
                throw Error("'" + name + "' is a shipped preset: choose another name");
        Preset preset;
        preset.name = name;
        preset.model = sim_->model();
        preset.scenario = scenario_;
        preset.solver = sim_->solver();
        preset.terrain = sim_->terrain_name();
        preset.grid = grid_;
        preset.steps_per_frame = steps_per_frame_;
        preset.colormap = render::kColormapNames[static_cast<std::size_t>(view_.colormap)];
        for (const sim::ParamSpec& p : sim_->params())
            preset.params.emplace_back(p.name, sim_->param(p.name));
        const std::filesystem::path path = save_preset(user_presets_folder(), preset);
        presets_ = load_presets(user_presets_folder());
        preset_index_ = -1;
        for (std::size_t k = 0; k < presets_.size(); ++k)
            if (presets_[k].user && presets_[k].name == name) preset_index_ = static_cast<int>(k);
        notify("saved preset '" + name + "' to " + path.string());
    } catch (const std::exception& e) {
        report_error(e.what());
    }
}

}  // namespace adilab::gui
