// log|det A| and the sign of det A from the factors of P A = L U (det L = 1):
// det A = (-1)^(interchanges) * prod U(k,k). One work group sums log|U(k,k)| in double (the
// logs are float, their sum over n up to 10^4 terms keeps double's precision), counts negative
// diagonal entries, interchanges and zeros.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Matrix { float a[]; };
layout(std430, binding = 1) readonly buffer Pivots { int pivots[]; };
layout(std430, binding = 2) writeonly buffer Result {
    double log_abs;
    int flips;  // negative diagonal entries + interchanges
    int zeros;
};

uniform int n;

shared double sums[256];
shared int flip_counts[256];
shared int zero_counts[256];

void main() {
    const int t = int(gl_LocalInvocationID.x);
    double s = 0.0;
    int f = 0, z = 0;
    for (int k = t; k < n; k += 256) {
        float u = a[k * n + k];
        if (u == 0.0) {
            ++z;
        } else {
            s += double(log(abs(u)));
            if (u < 0.0) ++f;
        }
        if (pivots[k] != k) ++f;
    }
    sums[t] = s;
    flip_counts[t] = f;
    zero_counts[t] = z;
    barrier();
    for (int h = 128; h > 0; h >>= 1) {
        if (t < h) {
            sums[t] += sums[t + h];
            flip_counts[t] += flip_counts[t + h];
            zero_counts[t] += zero_counts[t + h];
        }
        barrier();
    }
    if (t == 0) {
        log_abs = sums[0];
        flips = flip_counts[0];
        zeros = zero_counts[0];
    }
}
