// Diagnostic variants of the float64 CSR SpMV, one thread per row (`--bench power --spmv-probe`):
// they exist to find out where the random-gather SpMV loses time on a GPU, not to be used by a
// solver (shaders/power/spmv.comp is the production kernel). Results in solvers/power/RESULTS.md.
// UNROLL = 0: the plain loop (the production kernel's rows-tpr1 body).
// UNROLL = R: the row's column indices and values are loaded R at a time into registers first,
//   then all R gathers of x are issued, then the R products are added (left to right), so that
//   R independent gathers are in flight per thread whatever the compiler does with the loop.
// X_KIND = 0: x as double[] in a storage buffer; 1: as uvec2[] (packDouble2x32); 2: through a
//   GL_RG32UI buffer texture; 3: through a 2D RGBA32F texture (two doubles per texel, bits only).
//   4: a coherent (L1-bypassing) storage buffer.
// NO_VALUES = 1: every value read as 1.0 (no value stream: gathers and column stream only).
// STRIDE_GROUPS = 1: work groups stride over the rows (production); 0: one row per thread.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) restrict readonly buffer RowOffsets { int row_offsets[]; };
layout(std430, binding = 1) restrict readonly buffer Columns { int columns[]; };
layout(std430, binding = 2) restrict readonly buffer Values { double values[]; };
#if X_KIND == 0
layout(std430, binding = 3) restrict readonly buffer X { double x[]; };
double x_at(int i) { return x[i]; }
#elif X_KIND == 1
layout(std430, binding = 3) restrict readonly buffer X { uvec2 x[]; };
double x_at(int i) { return packDouble2x32(x[i]); }
#elif X_KIND == 4
layout(std430, binding = 3) coherent buffer X { double x[]; };
double x_at(int i) { return x[i]; }
#elif X_KIND == 2
uniform usamplerBuffer x_texture;
double x_at(int i) { return packDouble2x32(texelFetch(x_texture, i).xy); }
#else
uniform sampler2D x_image;
double x_at(int i) {
    vec4 t = texelFetch(x_image, ivec2((i >> 1) & 4095, i >> 13), 0);
    return packDouble2x32((i & 1) == 0 ? floatBitsToUint(t.xy) : floatBitsToUint(t.zw));
}
#endif
layout(std430, binding = 4) restrict writeonly buffer Y { double y[]; };

uniform uint rows;
#if NO_VALUES
#define VALUE(k) 1.0
#else
#define VALUE(k) values[k]
#endif

double row_sum(int begin, int end) {
    double sum = 0.0;
#if UNROLL == 0
    for (int k = begin; k < end; ++k) sum += VALUE(k) * x_at(columns[k]);
#else
    for (int k = begin; k < end; k += UNROLL) {
        int c[UNROLL];
        double v[UNROLL];
        double g[UNROLL];
        for (int u = 0; u < UNROLL; ++u) {
            bool inside = k + u < end;
            c[u] = inside ? columns[k + u] : -1;
            v[u] = inside ? VALUE(k + u) : 0.0;
        }
        for (int u = 0; u < UNROLL; ++u) g[u] = c[u] >= 0 ? x_at(c[u]) : 0.0;
        for (int u = 0; u < UNROLL; ++u) sum += v[u] * g[u];
    }
#endif
    return sum;
}

void main() {
#if STRIDE_GROUPS
    for (uint row = gl_GlobalInvocationID.x; row < rows;
         row += gl_NumWorkGroups.x * uint(WG_SIZE)) {
        y[row] = row_sum(row_offsets[row], row_offsets[row + 1u]);
    }
#else
    uint row = gl_GlobalInvocationID.x;
    if (row < rows) y[row] = row_sum(row_offsets[row], row_offsets[row + 1u]);
#endif
}
