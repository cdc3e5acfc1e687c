// `cr-pingpong`: the paper's serial cyclic reduction (odd-even reduction; Kim & Lee 2005, seed
// 001, sec. "GPU mapping") with compute shaders and SSBOs in place of render passes and pbuffers.
// One dispatch per reduction level (shaders/tridiagonal/cr_reduce.comp) and per back-substitution
// level (cr_fill.comp): 2 floor(log2 N) dispatches for all lines of the grid at once. Reduced
// (a, b, c, k) of every level are stored packed level after level (PC_s / PS_s, cr_levels.glsl),
// alternating between two buffers (ping-pong); x is filled level by level the same way.
// Any N >= 1: a level of m equations keeps the floor(m/2) at odd indices and the last one's
// absent right neighbour reads as zero (for N = 2^q - 1 this is exactly the paper's scheme, with
// no padding). The top level's single equation is solved inside the last reduction dispatch.
// fp32, no pivoting (diagonally dominant systems); pivot failures set the check_pivots() flag.
// Limits: scratch of 2 x 20 bytes per unknown (two vec4 level buffers and two x buffers).
#include <algorithm>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

constexpr unsigned kWorkGroupSize = 256;

// Equations stored over all reduced levels of `lines` lines of n unknowns: sum_s floor(n / 2^s),
// at least one per line.
std::size_t packed_words(unsigned n, unsigned lines) {
    std::size_t total = 0;
    for (unsigned m = n / 2; m > 0; m /= 2) total += m;
    return std::max<std::size_t>(total, 1) * lines;
}

class CrPingpongSolver final : public GpuSolver {
  public:
    std::string name() const override { return "cr-pingpong"; }

    std::vector<gl::BufferNeed> scratch_needs(Grid grid) const override {
        const std::size_t words = std::max(packed_words(unsigned(grid.nx), unsigned(grid.ny)),
                                           packed_words(unsigned(grid.ny), unsigned(grid.nx)));
        return needs_for(words);
    }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const LineLayout layout = line_layout(grid, direction);
        // Level sizes PC_s and starts PS_s (s >= 1), generalised to any N.
        std::vector<unsigned> count = {layout.n}, offset = {0};
        unsigned total = 0;
        while (count.back() > 1) {
            offset.push_back(total);
            count.push_back(count.back() / 2);
            total += count.back();
        }
        const std::size_t levels = count.size() - 1;  // reductions R = floor(log2 N)
        const std::size_t words = static_cast<std::size_t>(std::max(total, 1u)) * layout.lines;
        if (levels_[0].size() < words * 16) {
            gl::check_buffers_fit(needs_for(words));  // before any of them is allocated
            for (auto& buffer : levels_) buffer = gl::Buffer(words * 16);
            for (auto& buffer : x_) buffer = gl::Buffer(words * 4);
        }
        const unsigned lines_fastest = direction == Direction::y ? 1u : 0u;
        const gl::Defines base = coefficient_defines(coefficients);
        auto program = [&](const char* path, bool from_input) -> const gl::Program& {
            gl::Defines defines = base;
            defines.push_back({"WG_SIZE", std::to_string(kWorkGroupSize)});
            defines.push_back({"FROM_INPUT", from_input ? "1" : "0"});
            return gl::compute_program(path, defines);
        };
        auto set_level = [&](const gl::Program& p, std::size_t s) {
            // s: the coarse level; s-1 the fine one.
            p.set("packed_total", total);
            p.set("lines_fastest", lines_fastest);
            p.set("count_fine", count[s - 1]);
            p.set("count_coarse", s < count.size() ? count[s] : 0u);
            p.set("offset_fine", s - 1 < offset.size() ? offset[s - 1] : 0u);
            p.set("offset_coarse", s < offset.size() ? offset[s] : 0u);
        };
        auto groups = [&](unsigned per_line) {
            const std::size_t threads = static_cast<std::size_t>(per_line) * layout.lines;
            return static_cast<unsigned>((threads + kWorkGroupSize - 1) / kWorkGroupSize);
        };
        // Reduction, s = 1 .. R: level s-1 (buffer (s-1)%2, or the inputs) -> level s (buffer s%2).
        for (std::size_t s = 1; s <= levels; ++s) {
            const gl::Program& p = program("tridiagonal/cr_reduce.comp", s == 1);
            bind_lines(p, layout, coefficients, rhs, solution);
            set_level(p, s);
            p.set("solve_top", s == levels ? 1u : 0u);
            levels_[(s - 1) % 2].bind_storage(6);
            levels_[s % 2].bind_storage(7);
            x_[s % 2].bind_storage(8);
            dispatch_spread(groups(count[s]));
            gl::memory_barrier(gl::Barrier::storage);
        }
        // Back substitution, s = R .. 1: x of level s-1 from x of level s.
        for (std::size_t s = std::max<std::size_t>(levels, 1); s >= 1; --s) {
            const gl::Program& p = program("tridiagonal/cr_fill.comp", s == 1);
            bind_lines(p, layout, coefficients, rhs, solution);
            set_level(p, s);
            levels_[(s - 1) % 2].bind_storage(6);
            x_[s % 2].bind_storage(8);
            x_[(s - 1) % 2].bind_storage(9);
            dispatch_spread(groups(count[s - 1]));
            gl::memory_barrier(gl::Barrier::storage);
        }
    }

  private:
    // The two level buffers (a, b, c, k of every reduced level: a vec4 an equation) and the two
    // x buffers the ping-pong alternates between.
    static std::vector<gl::BufferNeed> needs_for(std::size_t words) {
        return {{"cr-pingpong's reduction levels, buffer 1 of 2", gl::bytes_of(words, 16)},
                {"cr-pingpong's reduction levels, buffer 2 of 2", gl::bytes_of(words, 16)},
                {"cr-pingpong's level solutions, buffer 1 of 2", gl::bytes_of(words, 4)},
                {"cr-pingpong's level solutions, buffer 2 of 2", gl::bytes_of(words, 4)}};
    }
    gl::Buffer levels_[2];  // packed (a, b, c, k) levels, odd s in [1], even s in [0]
    gl::Buffer x_[2];       // packed x levels, same parity rule
};

}  // namespace

std::unique_ptr<Solver> make_cr_pingpong() {
    return std::make_unique<CrPingpongSolver>();
}

}  // namespace adilab::tridiag
