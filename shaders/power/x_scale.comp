// x = y / lambda into x's storage buffer: gpu-opt with the deferred scale (step3.comp,
// DEFER_SCALE) never stores x while it iterates, so the eigenvector is formed here once, when
// asked for (never in the per-iteration path), with the quotient the gathers and Step3 form
// (power/divide.glsl), so it is bit for bit the x they used.
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 3) restrict writeonly buffer X { double x[]; };
layout(std430, binding = 4) restrict readonly buffer Y { double y[]; };
uniform uint rows;
uniform double lambda;
uniform double rcp;  // Step2's reciprocal of lambda
#include "power/divide.glsl"

void main() {
    for (uint i = gl_GlobalInvocationID.x; i < rows; i += gl_NumWorkGroups.x * uint(WG_SIZE))
        x[i] = divide_by(y[i], lambda, rcp);
}
