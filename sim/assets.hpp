#pragma once
// Where adilab's data files (assets/: terrain height maps, presets) are found at run time: the
// folder the program named (set_assets_override: app/main.cpp passes $ADILAB_ASSETS), else an
// assets/ folder beside the executable or above it (build/adilab finds the source tree's), else
// the source tree's assets/ recorded at build time.
#include <filesystem>
#include <string>

namespace adilab::sim {

// A folder searched before every other (empty: none).
void set_assets_override(std::filesystem::path folder);
// The first candidate folder that holds `relative`; throws adilab::Error naming it if none does.
std::filesystem::path find_asset(const std::string& relative);
// The first candidate assets/ folder that exists, or an empty path.
std::filesystem::path assets_folder();

}  // namespace adilab::sim
