#include "app/gui/phases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace adilab::gui {

namespace {

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

std::string program_path(const std::string& label) {
    std::string path = label.substr(0, label.find(' '));
    if (path.starts_with("shaders/")) path = path.substr(8);
    return path;
}

void add(std::vector<PhaseTime>& out, const std::string& name,
         const gl::DispatchProfiler::Phase& p) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const PhaseTime& t) { return t.name == name; });
    if (it == out.end())
        out.push_back({name, p.ms, p.dispatches});
    else
        it->ms += p.ms, it->dispatches += p.dispatches;
}

}  // namespace

bool phases_valid(std::span<const gl::DispatchProfiler::Phase> phases) {
    return std::all_of(phases.begin(), phases.end(), [](const gl::DispatchProfiler::Phase& p) {
        return std::isfinite(p.ms) && p.ms >= 0 && p.ms < 60000;
    });
}

bool is_simulation_program(const std::string& label) {
    const std::string path = program_path(label);
    return path.starts_with("sim/") || path.starts_with("tridiagonal/");
}

std::vector<PhaseTime> named_phases(std::span<const gl::DispatchProfiler::Phase> phases) {
    std::vector<PhaseTime> out;
    for (const auto& p : phases) {
        if (!is_simulation_program(p.label)) continue;
        const std::string path = program_path(p.label);
        std::string name = "other";
        if (path == "sim/brush.comp")
            name = "brush";
        else if (path.starts_with("tridiagonal/"))
            name = "line solves";
        else if (path == "sim/heat_tile.comp")
            name = "whole step";
        else if (contains(p.label, "DIRECTION=0") || contains(path, "rowscan") ||
                 contains(path, "linerow"))
            name = "x sweep";
        else if (contains(p.label, "DIRECTION=1") || contains(path, "colscan") ||
                 contains(path, "colpair"))
            name = "y sweep";
        add(out, name, p);
    }
    return out;
}

std::vector<PhaseTime> shader_phases(std::span<const gl::DispatchProfiler::Phase> phases) {
    std::vector<PhaseTime> out;
    for (const auto& p : phases) {
        if (!is_simulation_program(p.label)) continue;
        const std::string path = program_path(p.label);
        std::string name = path.substr(path.rfind('/') + 1);
        std::istringstream defines(p.label.substr(std::min(p.label.size(), p.label.find(' '))));
        // Appended piece by piece: `" " + token.substr(...)` trips GCC 12's -Wrestrict, a
        // known false positive of its inlined std::string concatenation.
        for (std::string token; defines >> token;) {
            if (token.starts_with("DIRECTION=")) {
                name += ' ';
                name += token;
            } else if (token.starts_with("KERNEL_")) {
                name += ' ';
                name += token.substr(0, token.find('='));  // KERNEL_FUSED=1: a flag
            }
        }
        add(out, name, p);
    }
    return out;
}

double FrameBreakdown::parts_ms() const {
    double sum = draw_ms + ui_ms;
    for (const auto& p : phases)
        if (is_simulation_program(p.label)) sum += p.ms;
    return sum;
}

std::string describe(const FrameBreakdown& b) {
    std::string text = "frame " + std::to_string(b.frame) + " (" +
                       (b.gpu_phases && b.gpu_draw   ? "GPU"
                        : b.gpu_phases || b.gpu_draw ? "GPU and CPU clock"
                                                     : "CPU clock") +
                       "):";
    char item[96];
    for (const PhaseTime& p : named_phases(b.phases)) {
        std::snprintf(item, sizeof item, " %s %.3f ms,", p.name.c_str(), p.ms);
        text += item;
    }
    std::snprintf(item, sizeof item, " draw %.3f ms, UI %.3f ms, other %.3f ms = %.3f ms",
                  b.draw_ms, b.ui_ms, b.other_ms(), b.frame_ms);
    return text + item;
}

}  // namespace adilab::gui
