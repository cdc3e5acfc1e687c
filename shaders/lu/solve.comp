// Solves A x = b with the packed factors of P A = L U, in one work group (x holds b on entry):
//   1. the row interchanges, in order (one invocation: they are a sequence);
//   2. forward substitution L y = P b, L unit lower triangular;
//   3. back substitution U x = y.
// Both substitutions go by blocks of 32 rows: the part of each row left of (right of) the block
// is a dot product with the x already known, one team of 32 invocations per row, rows read
// along their length so loads coalesce; then the 32 x 32 triangle is swept column by column
// from shared memory. 2 barriers per row of the triangle, instead of a reduction per row.
// The host checks the status first: a singular U is never divided by.
layout(local_size_x = 1024) in;

layout(std430, binding = 0) readonly buffer Matrix { float a[]; };
layout(std430, binding = 1) readonly buffer Pivots { int pivots[]; };
layout(std430, binding = 2) coherent buffer Vector { float x[]; };

uniform int n;

shared float partial[1024];
shared float block[32 * 33];
shared float y[32];

// Sums partial[team * 32 .. team * 32 + 31] into partial[team * 32] for all 32 teams.
void reduce_teams(int lane) {
    for (int s = 16; s > 0; s >>= 1) {
        barrier();
        if (lane < s) partial[gl_LocalInvocationID.x] += partial[gl_LocalInvocationID.x + s];
    }
    barrier();
}

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int team = t >> 5, lane = t & 31;
    if (t == 0) {
        for (int k = 0; k < n; ++k) {
            int p = pivots[k];
            if (p != k) {
                float v = x[k];
                x[k] = x[p];
                x[p] = v;
            }
        }
    }
    memoryBarrierBuffer();
    barrier();

    // Forward: rows i0 .. i0+31.
    for (int i0 = 0; i0 < n; i0 += 32) {
        const int rows = min(32, n - i0);
        const int row = i0 + team;
        float s = 0.0;
        if (team < rows)
            for (int j = lane; j < i0; j += 32) s += a[row * n + j] * x[j];
        partial[t] = s;
        {
            const int r = t >> 5, c = t & 31;  // the diagonal block, one element per invocation
            block[r * 33 + c] = (r < rows && c < rows) ? a[(i0 + r) * n + i0 + c] : 0.0;
        }
        reduce_teams(lane);
        if (t < rows) y[t] = x[i0 + t] - partial[t * 32];
        for (int c = 0; c < rows; ++c) {
            barrier();
            if (t > c && t < rows) y[t] -= block[t * 33 + c] * y[c];
        }
        barrier();
        if (t < rows) x[i0 + t] = y[t];
        memoryBarrierBuffer();
        barrier();
    }

    // Back: blocks from the bottom.
    for (int i1 = n; i1 > 0; i1 -= 32) {
        const int i0 = max(i1 - 32, 0);
        const int rows = i1 - i0;
        const int row = i0 + team;
        float s = 0.0;
        if (team < rows)
            for (int j = i1 + lane; j < n; j += 32) s += a[row * n + j] * x[j];
        partial[t] = s;
        {
            const int r = t >> 5, c = t & 31;
            block[r * 33 + c] = (r < rows && c < rows) ? a[(i0 + r) * n + i0 + c] : 0.0;
        }
        reduce_teams(lane);
        if (t < rows) y[t] = x[i0 + t] - partial[t * 32];
        for (int c = rows - 1; c >= 0; --c) {
            barrier();
            if (t == c) y[c] = y[c] / block[c * 33 + c];
            barrier();
            if (t < c) y[t] -= block[t * 33 + c] * y[c];
        }
        barrier();
        if (t < rows) x[i0 + t] = y[t];
        memoryBarrierBuffer();
        barrier();
    }
}
