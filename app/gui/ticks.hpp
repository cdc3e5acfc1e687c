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
// For a log scale: the powers of ten in [lo, hi] (0 < lo < hi), and 2 and 5 times them where
// the range spans less than two decades.
std::vector<Tick> log_ticks(double lo, double hi);

}  // namespace adilab::gui
