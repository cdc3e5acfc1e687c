#include "app/render/line_sampler.hpp"

#include <algorithm>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/shaders.hpp"

namespace adilab::render {

std::vector<float> LineSampler::sample(const gl::Buffer& field,
                                       std::span<const std::uint32_t> cells) {
    if (cells.empty()) return {};
    if (!std::equal(cells.begin(), cells.end(), uploaded_.begin(), uploaded_.end())) {
        uploaded_.assign(cells.begin(), cells.end());
        if (cells_.size() < cells.size_bytes()) {
            cells_ = gl::Buffer(cells.size_bytes());
            values_ = gl::Buffer(cells.size() * sizeof(float));
        }
        cells_.write(cells);
    }
    const gl::Program& gather = gl::compute_program("render/line_samples.comp");
    gather.use();
    gather.set("count", static_cast<unsigned>(cells.size()));
    field.bind_storage(0);
    cells_.bind_storage(1);
    values_.bind_storage(2);
    gl::dispatch(static_cast<unsigned>((cells.size() + 63) / 64));
    gl::memory_barrier(gl::Barrier::buffer_update);
    return values_.read<float>(cells.size());
}

}  // namespace adilab::render
