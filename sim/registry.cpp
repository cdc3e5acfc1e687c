#include "sim/simulation.hpp"
