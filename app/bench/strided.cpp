// `adilab --bench strided [--grid 1024,4096] [--repeats N]`: why do column (y) solves move so
// few bytes per second? (issue 3: every y layout of the tridiagonal solvers ran at 60-170 GB/s
// on a 4096^2 grid, x at ~700.) Copies an n x n float field with the y solvers' access pattern
// (shaders/common/strided_copy.comp: 32 adjacent columns per warp, each invocation walking a
// chunk of rows) and varies one thing at a time: the row stride (n, or padded to n + 32 floats),
// the rows per invocation (whole columns = n / 32 warps only, down to 16 rows), the order in
// which work groups cover the grid, chunk starts off powers of two; the same loads read as an x
// solve reads them (contiguous) are the reference. No solver: a probe, nothing is checked but the
// copy itself (one read-back per pattern).
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "app/bench/benchmark.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"

namespace adilab::bench {

namespace {

struct Pattern {
    std::string name;
    unsigned cols, chunks, rows;  // columns and chunks per work group, rows per invocation
    unsigned order;               // 0: groups sweep the rows' column blocks first; 1: columns
    bool contiguous;              // the x pattern instead
    unsigned pad;                 // floats added to the row stride
    unsigned row_offset;          // rows shifted down (chunk starts off powers of two)
};

std::vector<Pattern> patterns(unsigned n) {
    std::vector<Pattern> all = {
        {"x-contiguous", 32, 8, 32, 0, true, 0, 0},
        {"y-whole-column", 32, 1, n, 0, false, 0, 0},
        {"y-whole-column", 32, 1, n, 0, false, 32, 0},
        {"y-whole-column-256", 256, 1, n, 0, false, 0, 0},
    };
    for (unsigned rows : {16u, 32u, 64u, 256u}) {
        for (unsigned pad : {0u, 32u}) {
            all.push_back({"y-chunks-rowsweep", 32, 8, rows, 0, false, pad, 0});
            all.push_back({"y-chunks-colsweep", 32, 8, rows, 1, false, pad, 0});
        }
    }
    all.push_back({"y-chunks-rowsweep-offset", 32, 8, 32, 0, false, 0, 5});
    all.push_back({"y-chunks-rows24", 32, 8, 24, 0, false, 0, 0});
    all.push_back({"y-wide-rowsweep", 256, 1, 32, 0, false, 0, 0});
    all.push_back({"y-wide-rowsweep", 256, 1, 32, 0, false, 32, 0});
    all.push_back({"y-wide-colsweep", 256, 1, 32, 1, false, 0, 0});
    all.push_back({"y-64cols", 64, 4, 32, 0, false, 0, 0});
    all.push_back({"y-64cols", 64, 4, 32, 0, false, 64, 0});
    // Padding off a multiple of 128 bytes: rows start unaligned to 128 bytes.
    all.push_back({"y-chunks-rowsweep-pad1", 32, 8, 32, 0, false, 1, 0});
    all.push_back({"y-chunks-rowsweep-pad8", 32, 8, 32, 0, false, 8, 0});
    all.push_back({"y-chunks-rowsweep-pad256", 32, 8, 32, 0, false, 256, 0});
    return all;
}

Report run_strided(const cli::Args& args, BenchContext& ctx) {
    const auto grids = args.get_int_list("grid", {1024, 4096}, 256, 8192);
    const int repeats = static_cast<int>(args.get_int("repeats", 15, 1, 10000));
    for (long long n : grids)
        if (n % 256 != 0)
            throw cli::UsageError("--grid " + std::to_string(n) + ": must be a multiple of 256");
    Report report = make_report("strided", ctx.device);
    record_config(report, args);
    for (std::size_t g = 0; g < grids.size(); ++g) {
        const unsigned n = unsigned(grids[g]);
        const auto list = patterns(n);
        const std::size_t max_stride = n + 256;
        gl::Buffer source(std::size_t(n) * max_stride * sizeof(float));
        gl::Buffer destination(std::size_t(n) * max_stride * sizeof(float));
        {
            std::vector<float> values(std::size_t(n) * max_stride);
            for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i % 9973);
            source.write(values);
        }
        for (std::size_t p = 0; p < list.size(); ++p) {
            ctx.check_cancelled();
            const Pattern& pattern = list[p];
            ctx.progress((g + double(p) / list.size()) / grids.size(),
                         std::to_string(n) + " " + pattern.name);
            const unsigned rows = std::min(pattern.rows, n);
            const gl::Program& program = gl::compute_program(
                "common/strided_copy.comp",
                {{"COLS", std::to_string(pattern.cols)},
                 {"CHUNKS", std::to_string(pattern.chunks)},
                 {"ROWS", std::to_string(rows)},
                 {"ORDER", std::to_string(pattern.order)},
                 {"CONTIGUOUS", pattern.contiguous ? "1" : "0"},
                 {"WG_SIZE", std::to_string(pattern.cols * pattern.chunks)}});
            const unsigned stride = n + pattern.pad;
            const unsigned groups =
                (n / pattern.cols) * ((n + rows * pattern.chunks - 1) / (rows * pattern.chunks));
            auto copy = [&] {
                program.use();
                program.set("n", n);
                program.set("stride_in", stride);
                program.set("stride_out", stride);
                program.set("row_offset", pattern.row_offset);
                source.bind_storage(0);
                destination.bind_storage(1);
                const unsigned gx = std::min(groups, 65535u);
                gl::dispatch(gx, (groups + gx - 1) / gx);
                gl::memory_barrier(gl::Barrier::storage);
            };
            destination.poison();
            copy();
            // The copy is checked on one row in the middle (a probe must copy what it claims).
            const unsigned row = n / 2 + 1;
            const std::size_t first =
                pattern.contiguous ? std::size_t(row) * n : std::size_t(row) * stride;
            const auto got = destination.read<float>(n, first);
            for (unsigned i = 0; i < n; ++i)
                if (got[i] != float((first + i) % 9973))
                    throw Error("strided probe " + pattern.name + " copied a wrong value");
            // ~2 ms batches on the H200 (one query each); small grids are for tests.
            const int batch = n >= 4096 ? 20 : (n >= 1024 ? 100 : 5);
            const auto samples = gl::time_runs(
                [&] {
                    for (int i = 0; i < batch; ++i) copy();
                },
                {.warmup = 2, .repeats = repeats});
            const double ms = gl::median(samples) / batch;
            const double bytes = 2.0 * double(n) * double(n) * sizeof(float);
            Row r;
            r.set("name", pattern.name)
                .set("grid", int(n))
                .set("stride", int(stride))
                .set("rows", int(rows))
                .set("cols", int(pattern.cols))
                .set("median_ms", ms)
                .set("gb_per_s", bytes / (ms * 1e6));
            report.rows.push_back(r);
        }
    }
    ctx.progress(1.0, "done");
    ctx.out << format_table(report.rows, {{"name"},
                                          {"grid"},
                                          {"stride"},
                                          {"rows"},
                                          {"cols"},
                                          {"median_ms", "", 4},
                                          {"gb_per_s", "GB/s (r+w)", 1}});
    return report;
}

}  // namespace

Benchmark make_strided_benchmark() {
    return {"strided",
            "probe: a field copied with the y solvers' access pattern (strides, chunks, order)",
            {{"grid", "LIST", "field sides n (multiples of 256), default 1024,4096"},
             {"repeats", "N", "timed batches per pattern (default 15)"}},
            run_strided};
}

}  // namespace adilab::bench
