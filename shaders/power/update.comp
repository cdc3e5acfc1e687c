// gpu-full's AXPY-like update: x = y / lambda, and y = |x_new - x_old| for the error reduction
// that follows (the norm gpu-opt avoids). lambda comes from the host, which read it.
layout(local_size_x = WG_SIZE) in;
layout(std430, binding = 3) buffer X { double x[]; };
layout(std430, binding = 4) buffer Y { double y[]; };
uniform uint rows;
uniform double lambda;

void main() {
    for (uint i = gl_GlobalInvocationID.x; i < rows; i += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        double next = y[i] / lambda;
        y[i] = abs(next - x[i]);
        x[i] = next;
    }
}
