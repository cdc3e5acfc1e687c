#pragma once
// Constructors of the variants, for registry.cpp.
#include <cstdint>
#include <memory>
#include <vector>

#include "solvers/lu/lu.hpp"

namespace adilab::lu {

std::unique_ptr<Solver> make_cpu_solver();
std::unique_ptr<Solver> make_unblocked_solver();
std::unique_ptr<Solver> make_blocked_solver(int block, const Tuning& tuning);
// gpu-blocked's scratch for an n x n matrix in blocks of `block` (lu::buffer_needs).
std::vector<gl::BufferNeed> blocked_scratch_needs(std::int64_t n, int block);

}  // namespace adilab::lu
