#pragma once
// The explicit knobs of the tridiagonal family (`--tune tridiag.FIELD=VALUE` in the benchmarks):
// lu-scan's chunk and work-group shape, and lu-window's choice between its column scan, its
// decay-window kernel and the exact lu-scan. Each solver still checks every value against the
// device when it builds a kernel (work-group size, shared memory, subgroup support), so a
// default here is a preference, never a promise the device must keep. docs/performance.md has
// the measurements behind the defaults.
#include <vector>

#include "solvers/common/tuning.hpp"

namespace adilab::tridiag {

// lu-scan (lu_scan.cpp): per-line Thomas recurrences as chunked scans.
struct ScanTuning {
    // Unknowns per invocation. Along x a row is staged in shared memory and the chunk only sets
    // the scan's depth; along y each chunk's loads are strided, and longer chunks keep more of
    // them in flight per invocation.
    int chunk_x = 16;
    int chunk_y = 32;
    // At most this many lines per work group (both directions); the solver halves it until the
    // group fits 1024 invocations and the device's shared memory.
    int lines = 8;
    // The three-pass band kernel (lu_bands.comp) for y lines of at least band_min_n unknowns:
    // rows per band (0: never) and columns per work group. Below 4096 unknowns the field stays
    // in the L2 cache and the one-pass kernel has nothing to gain from row-ordered reads.
    int band_rows = 32;
    int band_cols = 256;
    int band_min_n = 4096;
    // 1: the carry scans use subgroup shuffles where the GPU has GL_KHR_shader_subgroup (fewer
    // barriers); 0: shared memory everywhere.
    int subgroups = 1;
    // Constant x lines of at least this many unknowns go to partition's one pass (0: never): it
    // holds whole lines in a work group, where the scan stages row segments through shared memory.
    int partition_x_min = 4096;
};

// lu-window (lu_window.cpp): constant, dominant coefficients solved inside a decay window.
struct WindowTuning {
    // y window kernel: rows per invocation and warps (chunks of 32 columns) per work group. ROWS
    // + 2K values live in registers per invocation, so rows stay small.
    int rows = 16;
    int chunks = 16;
    // Widest decay window K taken; wider (weakly dominant) lines go to the exact lu-scan, as
    // the window's register cost grows with K.
    int max_window = 32;
    // Grids of fewer unknowns take the exact path (x lines, and y lines the column scan does not
    // take): while the field fits in the L2 cache the exact scan is as fast and has no window.
    int min_unknowns = (1 << 22) + 1;
    // 1: x lines by the window too (a shared tile per row segment), 0: by lu-scan (which hands
    // long ones to partition's one pass: faster at 4096 and 8192 unknowns, and exact).
    int x_lines = 0;
    int rows_x = 16;   // x: unknowns per invocation
    int group_x = 32;  // x: invocations per work group (rounded down to a multiple of 32)
    // y lines by the column scan (lu_colscan*.comp) on grids of at most scan_max_unknowns: 32
    // columns per warp, chunks of scan_rows rows, scan_warps chunks down the same columns per
    // work group (more when the warm-up needs them), joined exactly in shared memory. Larger
    // grids take the window kernel along y, which reads fewer rows twice.
    int scan_y = 1;
    int scan_rows = 8;
    int scan_warps = 8;
    int scan_max_unknowns = 2048 * 2048;
    // The column scan's form: 0 the first (lu_colscan.comp: factors from the table everywhere),
    // 1 the lean one (lu_colscan_lean.comp: interior groups take the converged factors as
    // uniforms), 2 the lean one where at least half the row blocks are interior, else the
    // first: small grids, where most blocks reach an end of the column, are faster in the first.
    int scan_form = 2;
};

// partition (partition.cpp, shaders/tridiagonal/split_solve.glsl): general coefficients, any
// line length, in three dispatches.
struct PartitionTuning {
    int chunk = 8;  // unknowns per invocation (registers: about 3 floats each)
    int warps = 4;  // chunks per work group along the line (32 lines side by side each)
    // Lines of at most this many unknowns take one dispatch (partition_lines.comp,
    // shaders/tridiagonal/fused_lines.glsl: whole lines to a work group, so at most 8192), along
    // x and along y; longer lines, and 0, the three stages.
    int one_pass_x = 8192;
    int one_pass_y = 2048;
    // The one-pass lines' reduced solve: 0 by line length, 1 subgroup solve, 2 shared-memory
    // PCR, 3 warp hierarchy (x lines); and 1: subgroup shuffles where the device has them (0:
    // shared memory instead).
    int one_pass_solve = 0;
    int one_pass_subgroups = 1;
    // The one-pass lines' unknowns per invocation and lines per work group (0: by line length,
    // partition.cpp's one_pass_shape; lines are cut to 1024 invocations a group).
    int one_pass_chunk = 0;
    int one_pass_lines = 0;
    // General coefficients on lines of at least window_min unknowns: the guarded window
    // (partition_window.comp, shaders/tridiagonal/window_lines.glsl), whose work groups solve
    // their lines exactly themselves where they find its bound broken (0: never).
    // The window's halo (rows solved on either side of those stored), its unknowns per
    // invocation along x (a multiple of 4) and along y, and its subgroups a work group along y
    // (cut to what the shared memory holds). Along y, chunks of 12: a window of 32 subgroups
    // then stores 288 rows, so that 1024 rows take 4 work groups a column group (6 in chunks of
    // 8) and the dispatch one wave on the H100 and the H200 at 1024^2; faster at every size on
    // both (docs/performance.md).
    int window_min = 1024;
    int window_halo = 40;
    int window_row_chunk = 8;
    int window_column_chunk = 12;
    int window_column_warps = 32;
    // x lines of at most this many unknowns (0: none) in windows that hold their whole line, one
    // work group's (up to 1024 chunks): no warm-up rows, each row read once.
    int window_whole_x = 8192;
};

struct Tuning {
    ScanTuning scan;
    WindowTuning window;
    PartitionTuning partition;
};

// Every field, as "scan_chunk_x", "window_rows", ... with its range.
std::vector<TuningField> tuning_fields(Tuning& tuning);

}  // namespace adilab::tridiag
