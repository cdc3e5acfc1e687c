// The rank-1 update of step k (the LU paper, Fig. 2): a(i,j) -= a(i,k) * a(k,j) for i > k and
// k < j < col_end, after pivot_column.comp has swapped and scaled. One thread per element,
// x along the row so that loads coalesce.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) buffer Matrix { float a[]; };

uniform int n;
uniform int k;
uniform int col_end;

void main() {
    const int j = k + 1 + int(gl_GlobalInvocationID.x);
    const int i = k + 1 + int(gl_GlobalInvocationID.y);
    if (i >= n || j >= col_end) return;
    a[i * n + j] -= a[i * n + k] * a[k * n + j];
}
