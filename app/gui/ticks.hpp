#pragma once
// Colour-bar ticks a reader can use: round values (1, 2 or 5 times a power of ten) inside the
// range, printed with just the digits that step needs.
#include <string>
#include <vector>

namespace adilab::gui {

struct Tick {
    double value = 0;
    std::string text;
};

// Ticks inside [lo, hi], about `count` of them (at least two where the range allows). An
// empty or non-finite range gives none.
std::vector<Tick> nice_ticks(double lo, double hi, int count = 5);

}  // namespace adilab::gui
