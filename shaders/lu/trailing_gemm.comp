// The trailing update of blocked LU (seed 003 §2.3, Fig. 4): A22 -= L21 * U12, a matrix product
// with inner dimension `width` (the block), beyond the paper's one-element-per-thread tiles:
// each work group owns a 128 x 128 tile of A22, each of its 256 threads an 8 x 8 sub-block in
// registers (rows ty*4+{0..3} and 64+ty*4+{0..3}, likewise columns: vec4 reads of shared memory
// that broadcast within a warp). L21 and U12 pass through shared memory KC columns / rows at a
// time, L21 transposed so both are read as vec4 along the tile.
//   A22 = a[r0.., c0..], r0 = c0 = k0 + width;  L21 = a[r0.., k0..];  U12 = a[k0.., c0..]
// With the inner dimension only nb (<= 64), the tile's own read-modify-write of A22 weighs as
// much as the product: the accumulators start as A22 itself (loaded first, so its latency hides
// behind the first operand loads), and the next KC slice of L21 / U12 is fetched into registers
// while the current one is multiplied.
// `aligned` (n % 4 == 0): the vec4 view `a4` of the same buffer is used for whole vec4s.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) buffer Matrix { float a[]; };
layout(std430, binding = 5) buffer Matrix4 { vec4 a4[]; };

uniform int n;
uniform int k0;
uniform int width;
uniform bool aligned;

const int KC = 16;
shared vec4 lower_t[KC][33];  // [k][row / 4]; 33: one vec4 of padding against bank conflicts
shared vec4 upper[KC][32];    // [k][col / 4]

vec4 load4(int row, int col, int col_end) {
    if (row >= n) return vec4(0.0);
    const int base = row * n + col;
    if (aligned && col + 3 < col_end) return a4[base >> 2];
    vec4 v = vec4(0.0);
    for (int e = 0; e < 4; ++e)
        if (col + e < col_end) v[e] = a[base + e];
    return v;
}

void main() {
    const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
    const int t = ty * 16 + tx;
    const int r0 = k0 + width;
    const int tile_row = r0 + int(gl_WorkGroupID.y) * 128;
    const int tile_col = r0 + int(gl_WorkGroupID.x) * 128;

    // This thread's loads of a KC slice: L21 row t/2, 8 consecutive k; U12 row t/16, 8 columns.
    const int l_row = t >> 1, l_k = (t & 1) * 8;
    const int u_k = t >> 4, u_col = (t & 15) * 8;
    vec4 next_l[2], next_u[2];
    for (int h = 0; h < 2; ++h) {
        next_l[h] = load4(tile_row + l_row, k0 + l_k + 4 * h, k0 + width);
        next_u[h] = u_k < width ? load4(k0 + u_k, tile_col + u_col + 4 * h, n) : vec4(0.0);
    }

    // acc[half_r * 8 + half_c * 4 + i]: row half_r*64 + ty*4 + i, columns half_c*64 + tx*4 + 0..3.
    vec4 acc[16];
    for (int half_r = 0; half_r < 2; ++half_r)
        for (int i = 0; i < 4; ++i)
            for (int half_c = 0; half_c < 2; ++half_c)
                acc[half_r * 8 + half_c * 4 + i] =
                    load4(tile_row + half_r * 64 + ty * 4 + i, tile_col + half_c * 64 + tx * 4, n);

    for (int kc = 0; kc < width; kc += KC) {
        for (int h = 0; h < 2; ++h) {
            for (int e = 0; e < 4; ++e)
                lower_t[l_k + 4 * h + e][l_row >> 2][l_row & 3] = next_l[h][e];
            upper[u_k][(u_col >> 2) + h] = next_u[h];
        }
        barrier();
        if (kc + KC < width) {
            for (int h = 0; h < 2; ++h) {
                const int k = kc + KC + l_k + 4 * h;
                next_l[h] = load4(tile_row + l_row, k0 + k, k0 + width);
                const int ku = kc + KC + u_k;
                next_u[h] = ku < width ? load4(k0 + ku, tile_col + u_col + 4 * h, n) : vec4(0.0);
            }
        }
        for (int k = 0; k < KC; ++k) {
            const vec4 l0 = lower_t[k][ty], l1 = lower_t[k][16 + ty];
            const vec4 u0 = upper[k][tx], u1 = upper[k][16 + tx];
            for (int i = 0; i < 4; ++i) {
                acc[i] -= l0[i] * u0;
                acc[4 + i] -= l0[i] * u1;
                acc[8 + i] -= l1[i] * u0;
                acc[12 + i] -= l1[i] * u1;
            }
        }
        barrier();
    }

    for (int half_r = 0; half_r < 2; ++half_r) {
        for (int i = 0; i < 4; ++i) {
            const int row = tile_row + half_r * 64 + ty * 4 + i;
            if (row >= n) continue;
            for (int half_c = 0; half_c < 2; ++half_c) {
                const int col = tile_col + half_c * 64 + tx * 4;
                const vec4 value = acc[half_r * 8 + half_c * 4 + i];
                const int base = row * n + col;
                if (aligned && col + 3 < n) {
                    a4[base >> 2] = value;
                } else {
                    for (int e = 0; e < 4; ++e)
                        if (col + e < n) a[base + e] = value[e];
                }
            }
        }
    }
}
