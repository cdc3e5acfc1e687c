#pragma once
// Factories of the variants listed in registry.cpp (one .cpp per variant).
#include <memory>

#include "solvers/tridiagonal/solver.hpp"

namespace adilab::tridiag {

std::unique_ptr<Solver> make_cr_shared();
std::unique_ptr<Solver> make_cr_pingpong();

}  // namespace adilab::tridiag
