// The trailing update of blocked LU (seed 003 §2.3, Fig. 4): A22 -= L21 * U12, a matrix product
// with inner dimension `width` (the block), beyond the paper's one-element-per-thread tiles:
// each work group owns a 128 x 128 tile of A22, each of its 256 threads an 8 x 8 sub-block in
// registers (rows ty*4+{0..3} and 64+ty*4+{0..3}, likewise columns: vec4 reads of shared memory
// that broadcast within a warp). L21 and U12 pass through shared memory KC columns / rows at a
// time, L21 transposed so both are read as vec4 along the tile.
//   A22 = a[r0.., c0..], r0 = c0 = k0 + width;  L21 = a[r0.., k0..];  U12 = a[k0.., c0..]
// `aligned` (n % 4 == 0): the vec4 view `a4` of the same buffer is used for whole vec4s.
// (A version that started the accumulators from A22 and prefetched the next K slice measured
// slower on the H200: 37 ms against 25 ms for the update alone at n = 8192, nb = 64.)
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

void main() {
    const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
    const int t = ty * 16 + tx;
    const int r0 = k0 + width;
    const int tile_row = r0 + int(gl_WorkGroupID.y) * 128;
    const int tile_col = r0 + int(gl_WorkGroupID.x) * 128;

    vec4 acc[16];
    for (int i = 0; i < 16; ++i) acc[i] = vec4(0.0);

    for (int kc = 0; kc < width; kc += KC) {
        // L21 tile: 128 rows x KC; thread t loads row t/2, 8 consecutive k.
        {
            const int r = t >> 1, kk = (t & 1) * 8;
            const int row = tile_row + r;
            for (int h = 0; h < 8; h += 4) {
                const int k = kc + kk + h;
                vec4 v = vec4(0.0);
                if (row < n) {
                    const int base = row * n + k0 + k;
                    if (aligned && k + 3 < width) {
                        v = a4[base >> 2];
                    } else {
                        for (int e = 0; e < 4; ++e) v[e] = k + e < width ? a[base + e] : 0.0;
                    }
                }
                for (int e = 0; e < 4; ++e) lower_t[kk + h + e][r >> 2][r & 3] = v[e];
            }
        }
        // U12 tile: KC rows x 128; thread t loads row t/16 (of KC), 8 consecutive columns.
        {
            const int k = kc + (t >> 4);
            const int c = (t & 15) * 8;
            for (int h = 0; h < 8; h += 4) {
                const int col = tile_col + c + h;
                vec4 v = vec4(0.0);
                if (k < width) {
                    const int base = (k0 + k) * n + col;
                    if (aligned && col + 3 < n) {
                        v = a4[base >> 2];
                    } else {
                        for (int e = 0; e < 4; ++e) v[e] = col + e < n ? a[base + e] : 0.0;
                    }
                }
                upper[t >> 4][(c + h) >> 2] = v;
            }
        }
        barrier();
        for (int k = 0; k < KC; ++k) {
            const vec4 l0 = lower_t[k][ty], l1 = lower_t[k][16 + ty];
            const vec4 u0 = upper[k][tx], u1 = upper[k][16 + tx];
            for (int i = 0; i < 4; ++i) {
                acc[i] += l0[i] * u0;
                acc[4 + i] += l0[i] * u1;
                acc[8 + i] += l1[i] * u0;
                acc[12 + i] += l1[i] * u1;
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
                const vec4 update = acc[half_r * 8 + half_c * 4 + i];
                const int base = row * n + col;
                if (aligned && col + 3 < n) {
                    a4[base >> 2] -= update;
                } else {
                    for (int e = 0; e < 4; ++e)
                        if (col + e < n) a[base + e] -= update[e];
                }
            }
        }
    }
}
