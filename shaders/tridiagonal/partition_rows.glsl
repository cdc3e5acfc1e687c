#ifndef PARTITION_ROWS_GLSL
#define PARTITION_ROWS_GLSL
// partition_rows.glsl — the partition method's elimination of M rows held in registers (Laszlo,
// Giles & Appleyard 2016), shared by the one-dispatch line solve (fused_lines.glsl) and the split
// solve (split_solve.glsl). Macros rather than functions: a GLSL function takes arrays of one
// size, and every use has its own compile-time M (a chunk, a lane's reduced rows, a span's or a
// coarse block's end rows).
//
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
