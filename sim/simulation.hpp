#pragma once
// The simulation interface (seed 001 §2). A model holds its state in GPU buffers from reset()
// on; step() is a fixed sequence of dispatches with no host read-back. The viewer samples the
// same buffers; stats() is the only read-back and is for diagnostics, reports and tests.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "solvers/gl/objects.hpp"

namespace adilab::sim {

struct ParamSpec {
    std::string name;
    std::string unit;
    std::string help;
    double default_value = 0, min = 0, max = 0;
};

struct Stats {
    double time = 0;       // simulated seconds
    std::int64_t steps = 0;
    float min = 0, max = 0;
    double sum = 0;        // total heat / mass / volume, for conservation checks
    bool stable = true;    // false once a NaN or Inf appeared
};

class Simulation {
public:
    virtual ~Simulation() = default;
    virtual std::string model() const = 0;
    virtual std::vector<std::string> scenarios() const = 0;
    virtual std::span<const ParamSpec> params() const = 0;
    // Throws adilab::Error naming the parameter and its valid range.
    virtual void set_param(const std::string& name, double value) = 0;
    virtual double param(const std::string& name) const = 0;

    virtual void reset(const std::string& scenario, int nx, int ny) = 0;
    virtual void step(int count) = 0;
    virtual int nx() const = 0;
    virtual int ny() const = 0;
    // The drawn field (T, C or h): nx * ny float32, element (i, j) at j * nx + i.
    virtual const gl::Buffer& field() const = 0;
    virtual Stats stats() = 0;
};

}  // namespace adilab::sim
