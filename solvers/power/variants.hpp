#pragma once
// Factories of the variants listed in registry.cpp: host in power.cpp, the GPU ones in
// power_gpu.cpp.
#include <memory>

#include "solvers/power/power.hpp"

namespace adilab::power {

std::unique_ptr<Variant> make_host();
std::unique_ptr<Variant> make_gpu_naive();
std::unique_ptr<Variant> make_gpu_full();
// gpu-opt, and with `async` gpu-opt-async.
std::unique_ptr<Variant> make_gpu_opt(bool async);

}  // namespace adilab::power
