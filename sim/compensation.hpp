#pragma once
// Shallow water's height compensation c as the GPU stores it (shaders/sim/shallow_water.comp,
// "The compensation in storage"): binary16 scaled by 2^24, two cells a 32-bit word, (x, 2j) in its
// low half and (x, 2j + 1) in its high half, word j nx + x. The host meets it where the total
// volume is summed and where a state file, which keeps c as one float a cell, is saved or loaded.
#include <cstdint>
#include <vector>

namespace adilab::sim {

// The words a grid's compensation takes (a last row of odd ny fills half of its words).
std::uint64_t compensation_words(int nx, int ny);

// binary16 bits of x (round to nearest, ties to even; past the largest finite value, 65504, the
// largest, as the shader clamps) and the value of binary16 bits (finite ones).
std::uint16_t half_bits(float x);
float half_value(std::uint16_t bits);

// The grid's c, a float a cell in row order, from the words, and back.
std::vector<float> decode_compensation(const std::vector<std::uint32_t>& words, int nx, int ny);
std::vector<std::uint32_t> encode_compensation(const std::vector<float>& c, int nx, int ny);

// The same on raw bytes, as a buffer and a state file hold them: the words' bytes to the
// floats' (a state file's c), and back.
std::vector<char> compensation_file_bytes(const std::vector<char>& words, int nx, int ny);
std::vector<char> compensation_buffer_bytes(const std::vector<char>& floats, int nx, int ny);

}  // namespace adilab::sim
