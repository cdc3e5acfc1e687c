#pragma once
// `adilab --headless`: a scripted simulation run without a window (users' scripts and our
// end-to-end checks).
//
//   adilab --headless --model M [--scenario S] [--grid N|NXxNY] [--steps K] [--solver NAME]
//          [--terrain T] [--set name=value ...] [--init in.npy] [--export out.npy]
//          [--save-state FILE] [--load-state FILE] [--list-params]
#include <vector>

#include "app/cli/args.hpp"

namespace adilab::cli {

std::vector<OptionSpec> headless_options();
// Runs it; bad input throws UsageError (exit 2), a failed or unstable run adilab::Error (exit 1).
int run_headless(const Args& args);

}  // namespace adilab::cli
