// One step k of LU with partial pivoting (the LU paper, Fig. 2), in one work group:
//   1. pivot search: p = argmax_{i >= k} |a(i,k)| as a parallel reduction (ties: smallest row);
//   2. row interchange k <-> p over the columns [col_begin, col_end);
//   3. scaling: a(i,k) /= a(k,k) for i > k (the column of L).
// The rank-1 update of the rest is rank1_update.comp. gpu-unblocked runs it over all columns;
// gpu-blocked's fallback panel over the panel's columns only (swap_block_row.comp swaps the
// others).
// A zero pivot (the column is all zero from row k down) records k in `first_singular` and
// scales nothing: no division by zero, no NaN.
layout(local_size_x = WG_SIZE) in;

layout(std430, binding = 0) coherent buffer Matrix { float a[]; };
layout(std430, binding = 1) writeonly buffer Pivots { int pivots[]; };
layout(std430, binding = 2) buffer Status { int first_singular; int failed; };

uniform int n;
uniform int k;
uniform int col_begin;
uniform int col_end;

shared float best_abs[WG_SIZE];
shared float best_value[WG_SIZE];
shared int best_row[WG_SIZE];

void main() {
    const int t = int(gl_LocalInvocationID.x);
    float b_abs = -1.0, b_value = 0.0;
    int b_row = n;
    // Rows visited in increasing order, so a strict '>' keeps the smallest row of a tie.
    for (int i = k + t; i < n; i += WG_SIZE) {
        float v = a[i * n + k];
        if (abs(v) > b_abs) {
            b_abs = abs(v);
            b_value = v;
            b_row = i;
        }
    }
    best_abs[t] = b_abs;
    best_value[t] = b_value;
    best_row[t] = b_row;
    barrier();
    for (int s = WG_SIZE / 2; s > 0; s >>= 1) {
        if (t < s) {
            float o = best_abs[t + s];
            int o_row = best_row[t + s];
            if (o > best_abs[t] || (o == best_abs[t] && o_row < best_row[t])) {
                best_abs[t] = o;
                best_value[t] = best_value[t + s];
                best_row[t] = o_row;
            }
        }
        barrier();
    }
    const int p = best_row[0];
    const float pivot = best_value[0];
    if (t == 0) {
        pivots[k] = p;
        if (pivot == 0.0) atomicMin(first_singular, k);
    }
    if (p != k) {
        for (int j = col_begin + t; j < col_end; j += WG_SIZE) {
            float top = a[k * n + j];
            a[k * n + j] = a[p * n + j];
            a[p * n + j] = top;
        }
    }
    memoryBarrierBuffer();
    barrier();
    if (pivot != 0.0) {
        for (int i = k + 1 + t; i < n; i += WG_SIZE) a[i * n + k] = a[i * n + k] / pivot;
    }
}
