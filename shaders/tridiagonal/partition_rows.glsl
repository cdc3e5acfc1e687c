#ifndef PARTITION_ROWS_GLSL
#define PARTITION_ROWS_GLSL
// partition_rows.glsl — the partition method's elimination of M rows held in registers (Laszlo,
// Giles & Appleyard 2016), shared by the one-dispatch line solve (fused_lines.glsl), the split
// solve (split_solve.glsl) and the windows (window_lines.glsl). Macros rather than functions: a
// GLSL function takes arrays of one size, and every use has its own compile-time M (a chunk, a
// lane's reduced rows, a span's or a coarse block's end rows).
//
// PARTITION_FORWARD_ROW(a, c, d, k, ak, bk, ck, dk, pivots_ok): the forward sweep's step at row k
// (a_k x_{k-1} + b_k x_k + c_k x_{k+1} = d_k) of rows held in a, c, d, the rows before it swept:
// rows 0 and 1 scaled to a unit diagonal, and from row 2 on row k in terms of x_0,
// a_k x_0 + x_k + c_k x_{k+1} = d_k. Clears pivots_ok where the pivot is zero or not finite.
// ak .. dk may be a[k] .. d[k] themselves: each is read before its own store. The one-dispatch
// line solve and the split solve sweep as they build each row (so that the compiler issues every
// row's loads at once), the windows after loading their chunk.
#define PARTITION_FORWARD_ROW(a, c, d, k, ak, bk, ck, dk, pivots_ok)      \
    {                                                                     \
        const float p_ = (k) < 2 ? (bk) : (bk) - (ak) * c[(k) - 1];       \
        pivots_ok = pivots_ok && p_ != 0.0 && !isnan(p_) && !isinf(p_);   \
        const float r_ = 1.0 / p_;                                        \
        if ((k) < 2) {                                                    \
            a[k] = (ak) * r_;                                             \
            c[k] = (ck) * r_;                                             \
            d[k] = (dk) * r_;                                             \
        } else {                                                          \
            d[k] = r_ * ((dk) - (ak) * d[(k) - 1]);                       \
            a[k] = -r_ * (ak) * a[(k) - 1];                               \
            c[k] = r_ * (ck);                                             \
        }                                                                 \
    }

// PARTITION_BACKWARD(a, c, d, M): with rows 1 .. M-1 already as a_j x_0 + x_j + c_j x_{j+1} = d_j
// (a forward sweep's result), rewrites rows 1 .. M-2 in terms of x_0 and x_{M-1}
// (a_j x_0 + x_j + c_j x_{M-1} = d_j), and row 0 in terms of its outer neighbour (a_0) and
// x_{M-1} (c_0). With M = 2 nothing changes: row 0 already couples to the last.
#define PARTITION_BACKWARD(a, c, d, M)                         \
    {                                                          \
        for (int j_ = (M) - 3; j_ >= 1; --j_) {                \
            d[j_] -= c[j_] * d[j_ + 1];                        \
            a[j_] -= c[j_] * a[j_ + 1];                        \
            c[j_] = -c[j_] * c[j_ + 1];                        \
        }                                                      \
        if ((M) > 2) {                                         \
            const float r_ = 1.0 / (1.0 - c[0] * a[1]);        \
            d[0] = r_ * (d[0] - c[0] * d[1]);                  \
            a[0] = r_ * a[0];                                  \
            c[0] = -r_ * c[0] * c[1];                          \
        }                                                      \
    }

// PARTITION_UNIT_ROWS(a, c, d, M): rows of unit diagonal, a_j x_{j-1} + x_j + c_j x_{j+1} = d_j,
// eliminated whole: the forward sweep puts rows 2 .. M-1 in terms of x_0, then
// PARTITION_BACKWARD. Row M-1 ends in terms of x_0 and its outer neighbour (c_{M-1}).
#define PARTITION_UNIT_ROWS(a, c, d, M)                        \
    {                                                          \
        for (int j_ = 2; j_ < (M); ++j_) {                     \
            const float r_ = 1.0 / (1.0 - a[j_] * c[j_ - 1]);  \
            d[j_] = r_ * (d[j_] - a[j_] * d[j_ - 1]);          \
            a[j_] = -r_ * a[j_] * a[j_ - 1];                   \
            c[j_] = r_ * c[j_];                                \
        }                                                      \
        PARTITION_BACKWARD(a, c, d, M)                         \
    }
#endif
