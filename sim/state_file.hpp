#pragma once
// The state file (AdiModel::save_state / load_state): a text header, then raw buffers.
//   ADILAB-STATE 1 / model M / solver S / scenario S / terrain T / grid NX NY / steps N /
//   time HEX / param NAME HEX (each) / buffer NAME BYTES, then BYTES raw bytes and a newline /
//   end
// read_state_file() checks everything the file alone can tell before it allocates: the version,
// each line's shape, numbers parsed strictly (steps >= 0, a finite clock >= 0, finite
// parameters, a grid within the models' limits), required lines present and none twice, and
// every buffer's declared size against the bytes the file really has left, so a 60-byte file
// claiming "buffer T 3000000000" fails at once. What needs the model (its name, scenario,
// parameter ranges, buffer sizes) is checked by load_state against this struct. Every problem
// throws files::InputError naming the file and the field.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace adilab::sim {

struct StateFile {
    std::string model, solver, scenario, terrain;
    int nx = 0, ny = 0;
    std::int64_t steps = 0;
    double time = 0;
    std::vector<std::pair<std::string, double>> params;
    std::map<std::string, std::vector<char>> buffers;
};

StateFile read_state_file(const std::filesystem::path& path, int min_grid, int max_grid);

}  // namespace adilab::sim
