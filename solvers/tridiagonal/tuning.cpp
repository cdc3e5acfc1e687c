#include "solvers/tridiagonal/tuning.hpp"

namespace adilab::tridiag {

std::vector<TuningField> tuning_fields(Tuning& t) {
    ScanTuning& s = t.scan;
    WindowTuning& w = t.window;
    PartitionTuning& p = t.partition;
    return {
        {"scan_chunk_x", "lu-scan: unknowns per invocation along x", &s.chunk_x, 1, 64},
        {"scan_chunk_y", "lu-scan: unknowns per invocation along y", &s.chunk_y, 1, 64},
        {"scan_lines", "lu-scan: most lines per work group", &s.lines, 1, 64},
        {"scan_band_rows", "lu-scan: rows per band of the long-y band kernel (0: never)",
         &s.band_rows, 0, 128},
        {"scan_band_cols", "lu-scan: columns per work group of the band kernel", &s.band_cols, 32,
         1024},
        {"scan_band_min_n", "lu-scan: y lines of at least this many unknowns take the bands",
         &s.band_min_n, 1, 1 << 20},
        {"scan_subgroups", "lu-scan: carry scans by subgroup shuffles where available",
         &s.subgroups, 0, 1},
        {"scan_partition_x_min",
         "lu-scan: constant x lines of at least this many unknowns by partition (0: never)",
         &s.partition_x_min, 0, 1 << 20},
        {"window_rows", "lu-window: y rows per invocation of the window kernel", &w.rows, 1, 256},
        {"window_chunks", "lu-window: y warps per work group of the window kernel", &w.chunks, 1,
         32},
        {"window_max", "lu-window: widest decay window taken (else the exact lu-scan)",
         &w.max_window, 1, 256},
        {"window_min_unknowns", "lu-window: smaller grids take the exact lu-scan", &w.min_unknowns,
         0, 1 << 30},
        {"window_x_lines", "lu-window: x lines by the window (0: by lu-scan)", &w.x_lines, 0, 1},
        {"window_rows_x", "lu-window: x unknowns per invocation", &w.rows_x, 1, 64},
        {"window_group_x", "lu-window: x invocations per work group", &w.group_x, 32, 1024},
        {"colscan", "lu-window: y lines by the column scan (0: window kernel / lu-scan)", &w.scan_y,
         0, 1},
        {"colscan_rows", "lu-window: column scan's rows per chunk", &w.scan_rows, 1, 64},
        {"colscan_warps", "lu-window: column scan's chunks per work group", &w.scan_warps, 1, 32},
        {"colscan_max_unknowns", "lu-window: larger grids take the window kernel along y",
         &w.scan_max_unknowns, 0, 1 << 30},
        {"colscan_form", "lu-window: column scan 0 first form, 1 lean, 2 by interior blocks",
         &w.scan_form, 0, 2},
        {"partition_chunk", "partition: unknowns per invocation", &p.chunk, 2, 32},
        {"partition_warps", "partition: chunks per work group along the line", &p.warps, 1, 32},
        {"partition_one_pass_x",
         "partition: x lines of at most this many unknowns in one dispatch (0: three stages)",
         &p.one_pass_x, 0, 8192},
        {"partition_one_pass_y",
         "partition: y lines of at most this many unknowns in one dispatch (0: three stages)",
         &p.one_pass_y, 0, 8192},
        {"partition_one_pass_solve",
         "partition: one-pass lines' reduced solve: 0 by length, 1 subgroup solve, 2 "
         "shared-memory PCR, 3 warp hierarchy",
         &p.one_pass_solve, 0, 3},
        {"partition_one_pass_subgroups",
         "partition: one-pass lines by subgroup shuffles where available", &p.one_pass_subgroups, 0,
         1},
        {"partition_one_pass_chunk",
         "partition: one-pass lines' unknowns per invocation (0: by line length)",
         &p.one_pass_chunk, 0, 32},
        {"partition_one_pass_lines",
         "partition: one-pass lines per work group (0: by line length; cut to 1024 invocations)",
         &p.one_pass_lines, 0, 32},
        {"partition_window_min",
         "partition: general-coefficient lines of at least this many unknowns by the guarded "
         "window first (0: never)",
         &p.window_min, 0, 1 << 20},
        {"partition_window_halo", "partition: the window's rows solved beyond those it stores",
         &p.window_halo, 1, 256},
        {"partition_window_row_chunk",
         "partition: the window's unknowns per invocation along x (a multiple of 4)",
         &p.window_row_chunk, 4, 32},
        {"partition_window_column_chunk", "partition: the window's unknowns per invocation along y",
         &p.window_column_chunk, 2, 32},
        {"partition_window_column_warps",
         "partition: the window's subgroups per work group along y", &p.window_column_warps, 1, 32},
    };
}

}  // namespace adilab::tridiag
