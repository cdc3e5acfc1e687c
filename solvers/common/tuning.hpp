#pragma once
// The knobs of a solver family, made explicit. Each family keeps its knobs in a plain `Tuning`
// struct passed to its constructor (defaults derived from the device's limits and the problem
// size, the reason beside each field) and lists them with a `tuning_fields(Tuning&)` function
// returning these descriptors. The benchmarks set them with `--tune family.field=value`
// (app/bench) and every report records `family.field=value` for each field that ran, so a
// figure always says which variant produced it. No environment variable reaches a solver.
#include <string>
#include <vector>

namespace adilab {

struct TuningField {
    std::string name;  // "panel_rows": the part after "family."
    std::string help;  // one line for --help: what it changes and when to touch it
    int* value = nullptr;
    int min = 0, max = 0;  // inclusive; a bool is an int field with range 0..1
};

}  // namespace adilab
