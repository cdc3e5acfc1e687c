#ifndef WINDOW_LAYOUT_GLSL
#define WINDOW_LAYOUT_GLSL
// The decay windows' layout, shared by their two solvers (window_lines.glsl: any rows;
// window_scan.glsl: rows of one set a line): which chunk of which line an invocation holds,
// which chunks are warm-up, the wall and identity rows, and the stores. window_lines.glsl's
// header has the contract (the includer's defines and functions) and the reasons.
#ifndef KERNEL_EXIT
#define KERNEL_EXIT()
#endif
#ifndef ROW_WINDOW_CHUNKS
#define ROW_WINDOW_CHUNKS 32
#endif
// Along y, the columns of a work group (32, or 16 for windows twice as long: see window_place).
#ifndef COLUMN_LANES
#define COLUMN_LANES 32
#endif

const int LANES = COLUMN_LANES;

// With WINDOW_BAND the window takes only the lines band_first .. band_first + band_lines - 1
// (band_first a multiple of 32 along y): the simulations' window bands, lines whose flow needs a
// halo of its own (sim/model.hpp, WindowBand).
#ifdef WINDOW_BAND
uniform int band_first;
uniform int band_lines;
#else
const int band_first = 0;
#define band_lines LINE_COUNT
#endif

#pragma optionNV(unroll all)

layout(local_size_x = GROUP_SIZE) in;

// The chunk's rows (positions p0 .. p0 + K - 1 of a line of n) with the couplings past the
// line's ends dropped, and identity rows off the line (a = c = d = 0: their values, never
// stored, stay 0, where rows coupled to the line's last unknown could grow past fp32).
void wall_rows(int p0, int n, inout float a[CHUNK], inout float b[CHUNK], inout float c[CHUNK],
               inout float d[CHUNK]) {
    if (p0 < 1 || p0 + CHUNK >= n) {
        // A chunk at a wall or past it (a branch only the lanes there take).
        for (int k = 0; k < CHUNK; ++k) {
            const int pos = p0 + k;
            if (pos <= 0 || pos >= n) a[k] = 0.0;
            if (pos >= n - 1) c[k] = 0.0;
            if (pos < 0 || pos >= n) {
                b[k] = 1.0;
                d[k] = 0.0;
            }
        }
    }
}

// The local window of a storing chunk: LOW_CHUNKS chunks before it and HIGH_CHUNKS after.
const int LOW_CHUNKS = (HALO_LOW + CHUNK - 1) / CHUNK;
const int HIGH_CHUNKS = (HALO_HIGH + CHUNK - 1) / CHUNK;
#if DIRECTION == 0
const int WINDOW_CHUNKS = ROW_WINDOW_CHUNKS;  // chunks a window
const int CHUNK_STRIDE = 1;                   // invocations from one chunk of a window to the next
#else
const int WINDOW_CHUNKS = GROUP_SIZE / LANES;
const int CHUNK_STRIDE = LANES;
#endif
// The warm-up chunks at a window's start and end, whose values are not stored: none where a
// window holds its whole line (WHOLE_LINES), whose ends are the line's walls.
#ifdef WHOLE_LINES
const bool WHOLE = true;
const int WARM_LOW = 0, WARM_HIGH = 0;
#else
const bool WHOLE = false;
const int WARM_LOW = LOW_CHUNKS, WARM_HIGH = HIGH_CHUNKS;
#endif
const int SEGMENT = (WINDOW_CHUNKS - WARM_LOW - WARM_HIGH) * CHUNK;  // positions stored

// Where invocation t's chunk lies: its line, its first position p0 and its place in the window.
struct WindowPlace {
    int chunk, line, p0;
    bool has_line;
    int segments;         // x: windows a line
    int window_in_group;  // x: the window's number in the work group (at most 4)
};

WindowPlace window_place(int t) {
    const int n = LINE_LENGTH;
    WindowPlace place;
#if DIRECTION == 0
    // Window w of the dispatch (numbered row by row, `segments` a row), chunk t % WINDOW_CHUNKS
    // of it. The work groups take the rows from the last: the y half step before this one stored
    // the last rows last, and what the cache still holds of its output is theirs (the y window
    // then starts at the first rows, which this one stores last).
    place.chunk = t % WINDOW_CHUNKS;
    place.segments = (n + SEGMENT - 1) / SEGMENT;
    const int group = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    const int dispatched = group * (GROUP_SIZE / WINDOW_CHUNKS) + t / WINDOW_CHUNKS;
    place.has_line = dispatched < place.segments * band_lines;
    const int window = max(place.segments * band_lines - 1 - dispatched, 0);
    place.line = band_first + min(window / place.segments, band_lines - 1);
    place.p0 = (window % place.segments) * SEGMENT + (place.chunk - WARM_LOW) * CHUNK;
    place.window_in_group = t / WINDOW_CHUNKS;
#else
    // Work group (x, y): columns LANES x .. LANES x + LANES - 1, window y down them; chunk
    // t / LANES. With 16 lanes a subgroup holds two chunks of the same 16 columns, and a window
    // spans twice the chunks of one of 32: where the halo is long, more of each window stores
    // (the 16 columns' rows still load in whole 32-byte sectors).
    place.chunk = t / LANES;
    place.segments = 1;
    const int column = band_first + int(gl_WorkGroupID.x) * LANES + t % LANES;
    place.has_line = column < band_first + band_lines;
    place.line = min(column, LINE_COUNT - 1);
    place.p0 = int(gl_WorkGroupID.y) * SEGMENT + (place.chunk - WARM_LOW) * CHUNK;
    place.window_in_group = 0;
#endif
    return place;
}

// Whether the chunk stores: past the warm-ups, on a line of the dispatch and not past its end.
// A function of its own, because where it is computed changes what the NVIDIA compiler makes of
// the kernels: the general windows compute it after their barrier (computed with the place,
// before the loads, it cost shallow water's y window 2% at 4096^2 on the H200), the scans before
// their loads (after the last barrier, it cost the river's y window 2.5%): docs/performance.md.
bool window_stores(WindowPlace place) {
    return place.has_line && place.chunk >= WARM_LOW && place.chunk < WINDOW_CHUNKS - WARM_HIGH &&
           place.p0 < LINE_LENGTH;
}

#if DIRECTION == 0
layout(std430, binding = 1) writeonly buffer XOut4 { vec4 x_out4[]; };
#endif

// Stores the chunk's solution x (positions p0 .. of the line, those on it) as store_value and
// store give them.
void store_chunk_values(int line, int p0, float x[CHUNK], vec2 inputs[CHUNK]) {
    const int n = LINE_LENGTH;
#if DIRECTION == 0
    if ((LINE_LENGTH & 3) == 0 && p0 + CHUNK <= n) {
        // 16 bytes a store: with one float a store, each of a subgroup's store instructions
        // writes 4 bytes every CHUNK floats, four times the L2 write requests.
        const int quad = line_index(line, p0) >> 2;
        for (int q = 0; q < CHUNK / 4; ++q) {
            vec4 v;
            for (int e = 0; e < 4; ++e) {
                const int k = 4 * q + e;
                v[e] = store_value(line, p0 + k, x[k], inputs[k]);
            }
            x_out4[quad + q] = v;
        }
        return;
    }
#endif
    for (int k = 0; k < CHUNK; ++k)
        if (p0 + k < n) store(line, p0 + k, x[k], inputs[k]);
}
#endif
