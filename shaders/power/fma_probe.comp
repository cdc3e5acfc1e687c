// Whether GLSL's float64 fma() is fused on this driver (solvers/power/power_gpu.cpp
// fma_is_fused): the GLSL spec allows a * b + c with two roundings, and power/divide.glsl
// uses the reciprocal only where it is fused.
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Io { double a, b, c, result; };
void main() { result = fma(a, b, c); }
