// x = y / lambda, the correctly rounded quotient, without GLSL's float64 division sequence per
// element where that is slow. DIVIDE_FMA = 1 (the host sets it where fma() is fused, probed
// once with power/fma_probe.comp; NVIDIA's DFMA): GLSL's float64 division is a long dependent
// sequence there (measured on the H200: gpu-opt's Step3, 2M rows, was bound by its 2M
// divisions, and dividing 20M gathered values in the SpMV added 47 us; solvers/power/
// RESULTS.md). Step2 computes r = 1 / lambda once an iteration, refined by one Newton step to
// the nearest double; then q0 = y r is within an ulp of the quotient, the residual
// y - q0 lambda is exact in one fused fma, and q0 + r (y - q0 lambda), rounded once, is the
// correctly rounded quotient y / lambda (Markstein's theorem, for quotients outside the
// subnormal range): the IEEE division the host does, at one multiply and two fmas.
// DIVIDE_FMA = 0 (an fma with two roundings, e.g. llvmpipe, where that trick fails for about a
// third of the quotients): the plain division. Every GPU path that forms x (Step3 in each x
// source, the deferred gathers, the eigenvector) uses this one function.
double divide_by(double y, double lambda, double r) {
#if DIVIDE_FMA
    precise double q = y * r;
    precise double e = fma(-q, lambda, y);
    return fma(e, r, q);
#else
    return y / lambda;
#endif
}
// The nearest double to 1 / lambda: the GLSL quotient (which need not be correctly rounded)
// and one Newton step.
double reciprocal(double lambda) {
    precise double r = 1.0 / lambda;
    precise double e = fma(-lambda, r, 1.0);
    return fma(r, e, r);
}
