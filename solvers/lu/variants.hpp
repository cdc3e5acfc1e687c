#pragma once
// Constructors of the variants, for registry.cpp.
#include <memory>

#include "solvers/lu/lu.hpp"

namespace adilab::lu {

std::unique_ptr<Solver> make_cpu_solver();
std::unique_ptr<Solver> make_unblocked_solver();
std::unique_ptr<Solver> make_blocked_solver(int block, const Tuning& tuning);

}  // namespace adilab::lu
