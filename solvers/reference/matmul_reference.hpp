#pragma once
// Float64 reference for C = A * B (the OpenGL matmul paper's product, Kwon & Lee's C = AB): A is m
// x n, B is n x l, C is m x l, all row-major float32 inputs. Every matmul variant is checked
// against it.
//
// Error measure. An fp32 dot product of length n computed in any order satisfies
//     |c_fl - c| <= gamma_n * sum_k |a_ik| |b_kj|,   gamma_n = n u / (1 - n u),  u = 2^-24
// (Higham, Accuracy and Stability, eq. 3.5). So the error is measured component-wise against
// (|A| |B|)_ij, the quantity the bound scales with; this stays meaningful where c_ij cancels to
// nearly zero, which a plain relative error does not.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace adilab::reference {

struct ProductF64 {
    std::vector<double> c;      // A * B in float64, m x l row-major
    std::vector<double> abs_c;  // |A| * |B|: the scale of each entry's rounding error
};

ProductF64 matmul_f64(const float* a, const float* b, int m, int n, int l);

// max_ij |c_ij - ref_ij| / (|A||B|)_ij (entries with a zero scale compare absolutely). NaN in `c`
// (an unwritten, poisoned entry) gives +infinity.
double max_scaled_error(const float* c, const ProductF64& ref);

// The same measure on `samples` entries picked at random (all of them when m*l <= samples), each
// one a float64 dot product: for benchmark sizes where the full reference would cost minutes.
double sampled_scaled_error(const float* a, const float* b, const float* c, int m, int n, int l,
                            int samples, std::uint64_t seed = 1);

// gamma_n = n u / (1 - n u) with u = 2^-24, the fp32 dot-product growth factor above.
double fp32_dot_gamma(int n);

// Uniform random floats in [-1, 1) from a fixed seed (tests and benchmarks).
std::vector<float> random_matrix(std::size_t count, std::uint64_t seed);

}  // namespace adilab::reference
