#pragma once
// The GUI entry point; the only part of adilab that includes GLFW and Dear ImGui is app/gui.
#include <vector>

#include "app/cli/args.hpp"

namespace adilab::gui {

// The options the GUI mode accepts (besides --gpu, which only headless modes use).
std::vector<cli::OptionSpec> options();
// Opens the window and runs until it is closed, or for --frames N frames. Returns the exit code.
// Throws adilab::Error when no window can be opened (no display) or the GL context is too old.
int run(const cli::Args& args);

}  // namespace adilab::gui
