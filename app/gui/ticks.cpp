#include "app/gui/ticks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace adilab::gui {

std::vector<Tick> nice_ticks(double lo, double hi, int count) {
    std::vector<Tick> ticks;
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo) || count < 2) return ticks;
    const double raw = (hi - lo) / (count - 1);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (double f : {1.0, 2.0, 5.0, 10.0})
        if (f * power >= raw * 0.999) {
            step = f * power;
            break;
        }
    // Digits: those of the step (0.05 -> 2 decimals); very large or small values in exponent
    // form with as many significant digits as the step resolves.
    const double magnitude = std::max(std::abs(lo), std::abs(hi));
    const bool exponent = magnitude >= 1e5 || magnitude < 1e-3;
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
    const int significant =
        std::max(1, static_cast<int>(std::floor(std::log10(magnitude) + 1e-9)) -
                        static_cast<int>(std::floor(std::log10(step) + 1e-9)) + 1);
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1) {
        double value = k * step;
        if (std::abs(value) < 1e-9 * step) value = 0;  // -0 and round-off about zero
        char text[32];
        if (value == 0)
            std::snprintf(text, sizeof text, "0");
        else if (exponent)
            std::snprintf(text, sizeof text, "%.*e", std::min(significant - 1, 6), value);
        else
            std::snprintf(text, sizeof text, "%.*f", decimals, value);
        ticks.push_back({value, text});
        if (ticks.size() > 50) break;
    }
    return ticks;
}

std::vector<Tick> log_ticks(double lo, double hi) {
    std::vector<Tick> ticks;
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo > 0) || !(hi > lo)) return ticks;
    const bool fine = std::log10(hi / lo) < 2;
    for (int k = static_cast<int>(std::floor(std::log10(lo)));
         k <= static_cast<int>(std::ceil(std::log10(hi))); ++k)
        for (double f : {1.0, 2.0, 5.0}) {
            if (f != 1.0 && !fine) continue;
            const double value = f * std::pow(10.0, k);
            if (value < lo * (1 - 1e-9) || value > hi * (1 + 1e-9)) continue;
            char text[32];
            std::snprintf(text, sizeof text, "%g", value);
            ticks.push_back({value, text});
        }
    return ticks;
}

}  // namespace adilab::gui
