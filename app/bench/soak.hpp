#pragma once
// `adilab --bench soak` (app/bench/soak.cpp): every scenario of every model run for many steps
// (20,000 at 128^2 by default), reporting whether it stayed stable, how far the total of a
// scenario without sources moved, and how much the process's (and, where the driver tells, the
// GPU's) memory grew. The verdict and the tolerance are plain functions, tested without a GPU.
#include <cstdint>
#include <string>

namespace adilab::bench::soak {

// The largest relative change |end - start| / |start| of a sourceless scenario's total that fp32
// round-off explains after `steps` steps of sweeps with implicit weight `weight` on `cells`
// cells, with max|field| / mean|field| = `largest_over_mean` (soak.cpp derives it).
double total_tolerance(std::int64_t steps, double weight, double largest_over_mean,
                       std::int64_t cells);

// What one scenario's run found.
struct Outcome {
    std::string name;                  // "heat/free"
    bool stable = true;                // no NaN, Inf or value past the model's bounds
    std::int64_t first_bad_step = -1;  // the GPU's stability flag: the first bad step, else -1
    std::string instability;           // what was wrong ("T became NaN or infinite")
    bool sources = false;              // the scenario adds or takes away its quantity
    double relative_change = 0;        // of the total, start to end
    double tolerance = 0;              // total_tolerance(...) for this run
};

// "" when the scenario passed; else why, naming it: unstable (with the step and what went
// wrong), or a sourceless total that moved past its tolerance (or is not finite).
std::string verdict(const Outcome& outcome);

// This process's resident memory in bytes (/proc/self/statm: resident pages x the page size),
// -1 where it cannot be read.
std::int64_t resident_bytes();

}  // namespace adilab::bench::soak
