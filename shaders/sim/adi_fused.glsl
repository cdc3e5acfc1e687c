// The fused ADI half step: each line's tridiagonal row is built from the state (the explicit
// half step of the other direction and the implicit coefficients of this one) and solved in the
// same dispatch, so the intermediate right-hand side never goes to memory.
//
// Needs, before the #include: DIRECTION, LINES (lines per work group), GROUP_SIZE, THREADS_PER_LINE (P, a
// power of two), CHUNK (K >= 2, K * P >= line length), and the model's functions
//     void row_system(int line, int pos, out float a, out float b, out float c, out float d);
//     void store(int line, int pos, float x);
//
// Solve: the partition method of Laszlo, Giles & Appleyard (2016), a Thomas / PCR hybrid. Each
// thread owns K consecutive rows of one line in registers and eliminates them to the form
//     a'_k x_first + x_k + c'_k x_last = d'_k,
// except its first and last rows, which couple to the neighbouring chunks' ends. Those 2P rows
// form a reduced tridiagonal system (unit diagonal) solved by parallel cyclic reduction in shared
// memory, then each thread substitutes back. Rows past the line's end are identity rows. No
// pivoting: every model's matrix is diagonally dominant (heat, upwind advection, Kass–Miller).
//
// Thread layout: invocation t works on line t % LINES, chunk t / LINES, so the LINES threads of
// one chunk sit side by side: in the y half step (lines = columns) their loads coalesce; in the
// x half step each thread's K rows are consecutive floats that L1 serves after the first load.
#include "sim/adi_common.glsl"

#pragma optionNV(unroll all)

layout(local_size_x = GROUP_SIZE) in;  // LINES * THREADS_PER_LINE

const int REDUCED = 2 * THREADS_PER_LINE;
// Each line's reduced rows start at line * REDUCED_PITCH: an odd pitch puts the lines in
// different shared-memory banks.
const int REDUCED_PITCH = REDUCED + 1;
shared float reduced_a[LINES * REDUCED_PITCH];
shared float reduced_c[LINES * REDUCED_PITCH];
shared float reduced_d[LINES * REDUCED_PITCH];

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int line_in_group = t % LINES;
    const int chunk = t / LINES;
    const int line = int(gl_WorkGroupID.x) * LINES + line_in_group;
    const bool line_active = line < LINE_COUNT;
    const int first = chunk * CHUNK;
    const int n = LINE_LENGTH;

    // Forward sweep inside the chunk while the rows are built. Rows are built at clamped
    // positions with no branch around them, so that the compiler can issue every row's loads
    // at once instead of one L2 round trip per row; padding rows are replaced afterwards.
    float ca[CHUNK], cc[CHUNK], cd[CHUNK];
    const int safe_line = min(line, LINE_COUNT - 1);
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = first + k;
        float a, b, c, d;
        row_system(safe_line, min(pos, n - 1), a, b, c, d);
        if (pos == 0) a = 0.0;
        if (pos >= n - 1) c = 0.0;
        if (!line_active || pos >= n) {
            a = 0.0;
            b = 1.0;
            d = 0.0;
        }
        if (k < 2) {
            const float r = 1.0 / b;
            ca[k] = a * r;
            cc[k] = c * r;
            cd[k] = d * r;
        } else {
            const float r = 1.0 / (b - a * cc[k - 1]);
            cd[k] = r * (d - a * cd[k - 1]);
            ca[k] = -r * a * ca[k - 1];
            cc[k] = r * c;
        }
    }
    // Backward sweep: rows 1 .. K-2 in terms of the chunk's first and last unknowns.
    for (int k = CHUNK - 3; k >= 1; --k) {
        cd[k] -= cc[k] * cd[k + 1];
        ca[k] -= cc[k] * ca[k + 1];
        cc[k] = -cc[k] * cc[k + 1];
    }
    {
        const float r = 1.0 / (1.0 - cc[0] * ca[1]);
        cd[0] = r * (cd[0] - cc[0] * cd[1]);
        ca[0] = r * ca[0];
        cc[0] = -r * cc[0] * cc[1];
    }

    // Reduced system: unknown 2p is chunk p's first row, 2p + 1 its last.
    const int base = line_in_group * REDUCED_PITCH;
    const int row0 = 2 * chunk;
    reduced_a[base + row0] = ca[0];
    reduced_c[base + row0] = cc[0];
    reduced_d[base + row0] = cd[0];
    reduced_a[base + row0 + 1] = ca[CHUNK - 1];
    reduced_c[base + row0 + 1] = cc[CHUNK - 1];
    reduced_d[base + row0 + 1] = cd[CHUNK - 1];

    // Parallel cyclic reduction, renormalising to a unit diagonal at every level. Here
    // invocation t takes rows r and r + P of line t / P (r = t % P), so that neighbouring
    // invocations touch neighbouring words: no bank conflicts.
    const int pcr_base = (t / THREADS_PER_LINE) * REDUCED_PITCH;
    const int pcr_row = t % THREADS_PER_LINE;
    for (int stride = 1; stride < REDUCED; stride *= 2) {
        memoryBarrierShared();
        barrier();
        float na[2], nc[2], nd[2];
        for (int e = 0; e < 2; ++e) {
            const int i = pcr_row + e * THREADS_PER_LINE;
            const float ai = reduced_a[pcr_base + i], ci = reduced_c[pcr_base + i];
            float am = 0.0, cm = 0.0, dm = 0.0, ap = 0.0, cp = 0.0, dp = 0.0;
            if (i - stride >= 0) {
                am = reduced_a[pcr_base + i - stride];
                cm = reduced_c[pcr_base + i - stride];
                dm = reduced_d[pcr_base + i - stride];
            }
            if (i + stride < REDUCED) {
                ap = reduced_a[pcr_base + i + stride];
                cp = reduced_c[pcr_base + i + stride];
                dp = reduced_d[pcr_base + i + stride];
            }
            const float r = 1.0 / (1.0 - ai * cm - ci * ap);
            na[e] = -r * ai * am;
            nc[e] = -r * ci * cp;
            nd[e] = r * (reduced_d[pcr_base + i] - ai * dm - ci * dp);
        }
        memoryBarrierShared();
        barrier();
        for (int e = 0; e < 2; ++e) {
            const int i = pcr_row + e * THREADS_PER_LINE;
            reduced_a[pcr_base + i] = na[e];
            reduced_c[pcr_base + i] = nc[e];
            reduced_d[pcr_base + i] = nd[e];
        }
    }
    memoryBarrierShared();
    barrier();
    const float x_first = reduced_d[base + row0];
    const float x_last = reduced_d[base + row0 + 1];

    if (!line_active) return;
    for (int k = 0; k < CHUNK; ++k) {
        const int pos = first + k;
        float x;
        if (k == 0)
            x = x_first;
        else if (k == CHUNK - 1)
            x = x_last;
        else
            x = cd[k] - ca[k] * x_first - cc[k] * x_last;
        if (pos < n) store(line, pos, x);
    }
}
