#pragma once
// The field along a line of cells, for the viewer's cross-section plot: a gather on the GPU into
// a buffer of one float per cell, then that small buffer read back. The field itself never
// leaves the GPU; the caller decides how often (the viewer: when the line or the field changed,
// at most ten times a second).
#include <cstdint>
#include <span>
#include <vector>

#include "solvers/gl/objects.hpp"

namespace adilab::render {

class LineSampler {
  public:
    // field[cells[k]] for every k, read back now (waits for the GPU's work so far). The cell
    // indices (j * nx + i) are uploaded only when they changed.
    std::vector<float> sample(const gl::Buffer& field, std::span<const std::uint32_t> cells);

  private:
    gl::Buffer cells_, values_;
    std::vector<std::uint32_t> uploaded_;
};

}  // namespace adilab::render
