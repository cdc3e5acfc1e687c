#pragma once
// Strict number parsing, one way for every reader: the command line (app/cli), the state file
// (sim), presets and Matrix Market files. The whole text must be the number: no leading or
// trailing blanks, no trailing letters ("12abc"), nothing that wraps ("4294967360" is not read
// as 64) or is cut short, and no Inf or NaN. A value outside the type's range is refused rather
// than clamped, so a message can quote the user's own text.
#include <optional>
#include <string_view>

namespace adilab::numbers {

// A base-10 integer with an optional sign, within long long.
std::optional<long long> to_integer(std::string_view text);
// A finite real in any form strtod reads (decimal, exponent, hexadecimal "0x1.8p+3"); overflow
// and underflow to zero or a denormal (ERANGE) are refused.
std::optional<double> to_real(std::string_view text);

}  // namespace adilab::numbers
