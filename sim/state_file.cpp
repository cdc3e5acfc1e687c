#include "sim/state_file.hpp"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "solvers/common/files.hpp"
#include "solvers/common/numbers.hpp"

namespace adilab::sim {

StateFile read_state_file(const std::filesystem::path& path, int min_grid, int max_grid) {
    const std::uintmax_t length = files::file_length(path, "state file");
    std::ifstream file(path, std::ios::binary);
    if (!file) throw files::InputError("cannot read state file '" + path.string() + "'");
    auto fail = [&](const std::string& why) {
        throw files::InputError("state file '" + path.string() + "': " + why);
    };
    std::string line;
    std::getline(file, line);
    if (line.starts_with("ADILAB-STATE ") && line != "ADILAB-STATE 1")
        fail("version '" + line.substr(13) + "' is not 1 (written by another adilab)");
    if (line != "ADILAB-STATE 1") fail("not an adilab state file");
    StateFile state;
    std::set<std::string> seen;
    bool ended = false;
    // Lines are short; a longer one is binary garbage, not a header line.
    constexpr std::size_t kMaxLine = 4096;
    while (std::getline(file, line)) {
        if (line.size() > kMaxLine) fail("a header line longer than 4096 bytes");
        std::istringstream in(line);
        std::vector<std::string> words;
        for (std::string word; in >> word;) words.push_back(word);
        if (words.empty()) fail("an empty line in the header");
        const std::string& key = words.front();
        auto expect = [&](std::size_t count) {
            if (words.size() != count + 1)
                fail("'" + key + "' line '" + line + "' should hold " + std::to_string(count) +
                     " value" + (count == 1 ? "" : "s"));
        };
        if (key != "param" && key != "buffer" && !seen.insert(key).second)
            fail("the '" + key + "' line appears twice");
        if (key == "end") {
            ended = true;
            break;
        } else if (key == "model") {
            expect(1);
            state.model = words[1];
        } else if (key == "solver") {
            expect(1);
            state.solver = words[1];
        } else if (key == "scenario") {
            expect(1);
            state.scenario = words[1];
        } else if (key == "terrain") {
            expect(1);
            state.terrain = words[1];
        } else if (key == "grid") {
            expect(2);
            const auto nx = numbers::to_integer(words[1]), ny = numbers::to_integer(words[2]);
            if (!nx || !ny || *nx < min_grid || *ny < min_grid || *nx > max_grid || *ny > max_grid)
                fail("grid '" + words[1] + " " + words[2] + "' is not two sizes in " +
                     std::to_string(min_grid) + " .. " + std::to_string(max_grid));
            state.nx = int(*nx);
            state.ny = int(*ny);
        } else if (key == "steps") {
            expect(1);
            const auto steps = numbers::to_integer(words[1]);
            if (!steps || *steps < 0) fail("steps '" + words[1] + "' is not a count >= 0");
            state.steps = *steps;
        } else if (key == "time") {
            expect(1);
            const auto time = numbers::to_real(words[1]);
            if (!time || *time < 0) fail("time '" + words[1] + "' is not a finite time >= 0");
            state.time = *time;
        } else if (key == "param") {
            expect(2);
            const auto value = numbers::to_real(words[2]);
            if (!value) fail("param " + words[1] + " '" + words[2] + "' is not a finite number");
            for (const auto& [name, ignored] : state.params)
                if (name == words[1]) fail("param " + words[1] + " appears twice");
            state.params.emplace_back(words[1], *value);
        } else if (key == "buffer") {
            expect(2);
            const auto bytes = numbers::to_integer(words[2]);
            if (!bytes || *bytes < 0)
                fail("buffer " + words[1] + " size '" + words[2] + "' is not a byte count");
            if (state.buffers.count(words[1])) fail("buffer " + words[1] + " appears twice");
            // Checked against what the file really holds before anything is allocated.
            const std::streamoff at = file.tellg();
            const std::uintmax_t left = at < 0 ? 0 : length - std::uintmax_t(at);
            if (std::uintmax_t(*bytes) > left)
                fail("buffer " + words[1] + " declares " + words[2] +
                     " bytes but the file has only " + std::to_string(left) + " left");
            std::vector<char> data(static_cast<std::size_t>(*bytes));
            file.read(data.data(), std::streamsize(data.size()));
            if (!file || file.get() != '\n') fail("truncated buffer '" + words[1] + "'");
            state.buffers[words[1]] = std::move(data);
        } else {
            fail("unexpected line '" + line.substr(0, 80) + "'");
        }
    }
    if (!ended) fail("truncated: no 'end' line");
    for (const char* key : {"model", "scenario", "grid", "steps", "time"})
        if (!seen.count(key)) fail("no '" + std::string(key) + "' line");
    return state;
}

}  // namespace adilab::sim
