// The GUI: a viewport on the left and a side panel of tabs on the right.
#define GLFW_INCLUDE_NONE
#include "app/gui/gui.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <filesystem>
#include <iostream>

#include "app/bench/image.hpp"
#include "app/gui/bench_panel.hpp"
#include "app/gui/window.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/objects.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

std::vector<cli::OptionSpec> options() {
    std::vector<cli::OptionSpec> all = {
        {"frames", "N", "run the GUI for N frames, then exit 0 (scripted runs and tests)"},
        {"screenshot", "PATH", "with --frames: save the window after the last frame as PNG"},
    };
    for (cli::OptionSpec& o : bench_tab_options()) all.push_back(std::move(o));
    return all;
}

namespace {

constexpr float kPanelWidth = 380.0f;

void draw_side_panel(float x, float width, float height, BenchTabs& bench_tabs) {
    ImGui::SetNextWindowPos(ImVec2(x, 0));
    ImGui::SetNextWindowSize(ImVec2(width, height));
    ImGui::Begin("adilab", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    if (ImGui::BeginTabBar("tabs")) {
        if (ImGui::BeginTabItem("Simulation")) {
            ImGui::TextWrapped(
                "ADI heat conduction, advection-diffusion and shallow water on the GPU. "
                "This tab will hold the model, scenario, parameters, solver and playback.");
            ImGui::EndTabItem();
        }
        bench_tabs.draw_tab_items();  // Matmul, LU, Power method (app/gui/bench_panel.hpp)
        ImGui::EndTabBar();
    }
    ImGui::End();
}

}  // namespace

int run(const cli::Args& args) {
    const long long frames = args.get_int("frames", 0, 1, 100000000);
    const std::filesystem::path screenshot = args.get("screenshot");
    if (!screenshot.empty() && frames == 0)
        throw cli::UsageError("--screenshot needs --frames N (the frame to capture)");
    if (!screenshot.empty()) bench::check_png_path(screenshot);
    BenchTabs bench_tabs(args);  // checks --bench-tab/--bench-args/--bench-export first

    Window window(1280, 800, "adilab");
    for (long long frame = 1; !window.should_close(); ++frame) {
        window.begin_frame();
        const int width = window.framebuffer_width(), height = window.framebuffer_height();
        const bool minimised = width == 0 || height == 0;
        if (!minimised) {
            const float panel = std::min(kPanelWidth * window.content_scale(), width * 0.5f);
            ImGuiIO& io = ImGui::GetIO();
            draw_side_panel(io.DisplaySize.x - panel / io.DisplayFramebufferScale.x,
                            panel / io.DisplayFramebufferScale.x, io.DisplaySize.y, bench_tabs);
            gl::Framebuffer::bind_default(width, height);
            gl::clear(0.08f, 0.09f, 0.11f, 1.0f);
        }
        window.end_frame();
        if (frames > 0 && frame >= frames && bench_tabs.scripted_run_finished()) {
            if (!screenshot.empty()) {
                auto pixels = gl::read_pixels_rgba(0, 0, width, height);
                bench::write_png(screenshot, width, height, pixels);
                std::cout << "screenshot written to " << screenshot.string() << " (" << width
                          << "x" << height << ")\n";
            }
            break;
        }
        window.present();
    }
    bench_tabs.stop();  // cancel and join the benchmark workers before the window goes
    return bench_tabs.exit_code();
}

}  // namespace adilab::gui
