#include <algorithm>
#include <vector>

#include "sim/model.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim {

std::span<const ModelInfo> models() {
    static const std::vector<ModelInfo> all = {
        {"heat",
         "heat conduction by ADI line sweeps (implicit Euler or Peaceman–Rachford), insulated "
         "walls",
         "T", "K", 4},
        {"advection", "advection–diffusion by upwind ADI line sweeps in a closed box", "C", "C", 4},
        {"shallow-water", "shallow water waves, Kass & Miller 1990", "h", "m", 9},
    };
    return all;
}

const ModelInfo& model_info(const std::string& name) {
    std::string list;
    for (const ModelInfo& m : models()) {
        if (m.name == name) return m;
        list += (list.empty() ? "" : ", ") + m.name;
    }
    throw Error("unknown model '" + name + "' (available: " + list + ")");
}

std::vector<std::string> solver_names() {
    std::vector<std::string> names = {"fused"};
    for (const tridiag::VariantInfo& v : tridiag::variants())
        if (v.on_gpu) names.push_back(v.name);
    return names;
}

bool solver_supports(const std::string& model, const std::string& solver, std::string* why) {
    if (model == "advection" && solver.starts_with("cg")) {
        if (why)
            *why = "solver '" + solver +
                   "' needs symmetric positive definite lines; advection's "
                   "upwind systems are not symmetric";
        return false;
    }
    return true;
}

std::unique_ptr<Simulation> make_simulation(const std::string& model, const std::string& solver) {
    const auto known = solver_names();
    if (std::find(known.begin(), known.end(), solver) == known.end()) {
        std::string list;
        for (const std::string& s : known) list += (list.empty() ? "" : ", ") + s;
        throw Error("unknown solver '" + solver + "' (available: " + list + ")");
    }
    std::string why;
    if (!solver_supports(model, solver, &why)) throw Error(why);
    std::unique_ptr<Simulation> sim;
    if (model == "heat")
        sim = detail::make_heat(solver);
    else if (model == "advection")
        sim = detail::make_advection(solver);
    else if (model == "shallow-water")
        sim = detail::make_shallow_water(solver);
    else {
        std::string list;
        for (const ModelInfo& m : models()) list += (list.empty() ? "" : ", ") + m.name;
        throw Error("unknown model '" + model + "' (available: " + list + ")");
    }
    sim->reset(sim->scenarios().front(), 256, 256);
    return sim;
}

}  // namespace adilab::sim
