// `adilab --bench power`: the power method's variants (seed 004) on random sparse matrices,
// a Matrix Market file or a PageRank matrix, with the paper's figures: speed-up over the host
// by size (Fig. 12) and by density (Fig. 13), and the per-iteration split (Fig. 14). SpMV rows
// measure the GPU kernel alone (the figure cuSPARSE is compared with).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>

#include "app/bench/benchmark.hpp"
#include "solvers/common/matrix_market.hpp"
#include "solvers/gl/buffer_texture.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/objects.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/power/power.hpp"

namespace adilab::bench {

namespace {

struct MatrixSpec {
    std::string kind;  // "random", "pagerank", "mtx", "mtx-pagerank"
    std::string label;
    std::int64_t rows = 0;
    std::int64_t per_row = 0;  // random only
};

struct PowerConfig {
    std::vector<MatrixSpec> matrices;
    std::vector<std::string> variants;
    power::Options options;
    int repeats = 5;
    int host_repeats = 1;
    bool spmv_sweep = false;
    bool spmv_probe = false;
    bool step3_probe = false;
    std::uint64_t seed = 1;
    std::int32_t band = 0;
    std::string mtx;
    std::string vector_path;  // --vector: where the eigenvector goes
};

std::string variant_list() {
    std::string out;
    for (const auto& n : power::variant_names()) out += (out.empty() ? "" : ",") + n;
    return out;
}

PowerConfig parse(const cli::Args& args, const gl::DeviceInfo& device) {
    PowerConfig c;
    c.options.tol = args.get_double("tol", 1e-10, 0.0, 1e300);
    c.options.max_iter = static_cast<int>(args.get_int("max-iter", 1000, 1, 100000000));
    c.options.check_every = static_cast<int>(args.get_int("check-every", 16, 1, 1000000));
    c.options.no_subgroups = args.has("no-subgroups");
    const std::string layout = args.get("layout", "auto");
    if (layout == "auto")
        c.options.layout = power::Options::Layout::automatic;
    else if (layout == "stream")
        c.options.layout = power::Options::Layout::stream;
    else if (layout == "rows")
        c.options.layout = power::Options::Layout::rows;
    else
        throw cli::UsageError("--layout must be auto, stream or rows, not '" + layout + "'");
    if (args.has("threads-per-row")) {
        const long long t = args.get_int("threads-per-row", 32, 1, 32);
        if ((t & (t - 1)) != 0)
            throw cli::UsageError("--threads-per-row must be a power of two from 1 to 32, not " +
                                  std::to_string(t));
        c.options.threads_per_row = static_cast<int>(t);
    }
    c.options.x_texture = args.has("x-texture");
    c.options.x_storage = args.has("x-storage");
    c.options.x_linear = args.has("x-linear");
    c.options.x_block_gobs = static_cast<int>(args.get_int("x-block-gobs", 0, 0, 32));
    if ((c.options.x_block_gobs & (c.options.x_block_gobs - 1)) != 0)
        throw cli::UsageError("--x-block-gobs must be 0 (automatic) or a power of two up to 32, "
                              "not " + std::to_string(c.options.x_block_gobs));
    c.options.unroll = static_cast<int>(args.get_int("unroll", 8, 0, 16));
    c.options.max_groups = static_cast<int>(args.get_int("max-groups", 8192, 1, 16384));
    c.options.step3_groups = static_cast<int>(args.get_int("step3-groups", 0, 0, 16384));
    c.options.step3_pairs = static_cast<int>(args.get_int("step3-pairs", 1, 1, 8));
    c.options.flag_store_always = args.has("flag-store-always");
    c.options.flag_lag = static_cast<int>(args.get_int("flag-lag", 1, 0, 16));
    c.options.flag_poll = !args.has("flag-fence");
    c.options.no_atomic_max = args.has("no-atomic-max");
    c.options.key_check = args.has("key-check");
    c.options.key_slots =
        static_cast<int>(args.get_int("key-slots", power::Options{}.key_slots, 1, 256));
    c.options.flush_every = static_cast<int>(args.get_int("flush-every", 1, 1, 1000));
    c.options.stream_chunk = static_cast<int>(args.get_int("stream-chunk", 1024, 256, 4096));
    if (c.options.stream_chunk % 256 != 0)
        throw cli::UsageError("--stream-chunk must be a multiple of 256, not " +
                              std::to_string(c.options.stream_chunk));
    c.repeats = static_cast<int>(args.get_int("repeats", 5, 1, 1000));
    c.host_repeats = static_cast<int>(args.get_int("host-repeats", 1, 1, 1000));
    c.spmv_sweep = args.has("spmv-sweep");
    c.spmv_probe = args.has("spmv-probe");
    c.step3_probe = args.has("step3-probe");
    c.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, 1ll << 62));
    c.band = static_cast<std::int32_t>(args.get_int("band", 0, 0, std::numeric_limits<std::int32_t>::max()));

    const auto names = args.get_list("variant", {"all"});
    const auto known = power::variant_names();
    for (const auto& name : names) {
        if (name == "all") {
            for (const auto& k : known)
                if (std::find(c.variants.begin(), c.variants.end(), k) == c.variants.end())
                    c.variants.push_back(k);
        } else if (std::find(known.begin(), known.end(), name) == known.end()) {
            throw cli::UsageError("--variant: unknown variant '" + name + "' (known: all," +
                                  variant_list() + ")");
        } else if (std::find(c.variants.begin(), c.variants.end(), name) == c.variants.end()) {
            c.variants.push_back(name);
        }
    }

    c.vector_path = args.get("vector");
    const bool pagerank = args.has("pagerank");
    if (args.has("mtx")) {
        if (args.has("rows") || args.has("nnz-per-row") || args.has("density"))
            throw cli::UsageError("--mtx takes its size from the file: leave out --rows, "
                                  "--nnz-per-row and --density");
        c.mtx = args.get("mtx");
        cli::check_input_file("mtx", c.mtx);
        const std::string label = std::filesystem::path(c.mtx).filename().string();
        c.matrices.push_back({pagerank ? "mtx-pagerank" : "mtx", label, 0, 0});
        return c;
    }
    const auto rows = args.get_int_list("rows", {100000, 200000, 500000, 1000000, 2000000}, 1,
                                        std::numeric_limits<std::int32_t>::max() - 1);
    if (pagerank) {
        if (args.has("nnz-per-row") || args.has("density"))
            throw cli::UsageError("--pagerank makes its own power-law graph: leave out "
                                  "--nnz-per-row and --density");
        for (long long n : rows) c.matrices.push_back({"pagerank", "pagerank", n, 0});
    } else {
        if (args.has("nnz-per-row") && args.has("density"))
            throw cli::UsageError("give --nnz-per-row or --density, not both");
        std::vector<double> densities;
        for (const auto& d : args.get_list("density", {}))
            densities.push_back(cli::parse_double("density", d));
        const auto per_rows = args.get_int_list("nnz-per-row", {10}, 1, 100000);
        for (long long n : rows) {
            if (!densities.empty()) {
                for (double d : densities) {
                    if (!(d > 0.0 && d <= 1.0))
                        throw cli::UsageError("--density must lie in (0, 1], not " + std::to_string(d));
                    const auto p = std::max<long long>(1, std::llround(d * static_cast<double>(n)));
                    c.matrices.push_back({"random", "random", n, p});
                }
            } else {
                for (long long p : per_rows) {
                    if (p > n)
                        throw cli::UsageError("--nnz-per-row " + std::to_string(p) +
                                              " exceeds --rows " + std::to_string(n));
                    c.matrices.push_back({"random", "random", n, p});
                }
            }
        }
    }
    // Sizes the GPU cannot hold are refused before anything is generated.
    for (const auto& m : c.matrices) {
        const std::int64_t nnz = m.kind == "pagerank" ? m.rows * 8 : m.rows * m.per_row;
        if (nnz > std::numeric_limits<std::int32_t>::max())
            throw Error("--rows " + std::to_string(m.rows) + " x " + std::to_string(m.per_row) +
                        " nonzeros per row exceeds 2^31 - 1 nonzeros (32-bit CSR indices)");
        const std::int64_t value_bytes = nnz * 8;
        if (value_bytes > device.max_storage_block_bytes)
            throw Error("--rows " + std::to_string(m.rows) + " with " + std::to_string(nnz) +
                        " nonzeros needs a " + std::to_string(value_bytes >> 20) +
                        " MiB value buffer; this GPU's largest storage block is " +
                        std::to_string(device.max_storage_block_bytes >> 20) + " MiB");
        const std::int64_t total_mib = (nnz * 12 + m.rows * 20) >> 20;
        if (device.available_memory_mib > 0 && total_mib > device.available_memory_mib)
            throw Error("--rows " + std::to_string(m.rows) + " needs about " +
                        std::to_string(total_mib) + " MiB of GPU memory; " +
                        std::to_string(device.available_memory_mib) + " MiB are free");
    }
    return c;
}

void check_vector_option(const PowerConfig& c) {
    if (!c.vector_path.empty() && (c.matrices.size() != 1 || c.variants.size() != 1))
        throw cli::UsageError("--vector writes one eigenvector: give one matrix (one --rows and "
                              "one --nnz-per-row, or --mtx) and one --variant");
    if (!c.vector_path.empty()) {
        const auto folder = std::filesystem::absolute(c.vector_path).parent_path();
        if (!std::filesystem::is_directory(folder))
            throw cli::UsageError("--vector: folder '" + folder.string() + "' does not exist");
    }
}

void write_vector(const std::string& path, const std::vector<double>& x) {
    std::string text;
    text.reserve(x.size() * 24);
    char line[40];
    for (double v : x) {
        std::snprintf(line, sizeof line, "%.17g\n", v);
        text += line;
    }
    write_file_atomically(path, text);
}

CsrMatrix build(const MatrixSpec& spec, const PowerConfig& c) {
    if (spec.kind == "random")
        return random_csr(static_cast<std::int32_t>(spec.rows),
                          static_cast<std::int32_t>(spec.per_row), c.seed, c.band);
    if (spec.kind == "pagerank") return pagerank_csr(static_cast<std::int32_t>(spec.rows), 0.85, c.seed);
    CsrMatrix a = mm::to_csr(mm::read(c.mtx));
    if (spec.kind == "mtx-pagerank") return pagerank_csr(a, 0.85);
    return a;
}

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

// Compulsory bytes of one CSR SpMV: values and columns (12 B per nonzero), row offsets, x and y
// once each: the convention of the cuSPARSE peer figure.
double compulsory_bytes(const CsrMatrix& a) {
    return static_cast<double>(a.nnz()) * 12.0 + (a.rows + 1.0) * 4.0 + 2.0 * a.rows * 8.0;
}

std::string speedup_tables(const std::vector<Row>& rows, const std::vector<std::string>& variants) {
    // One line per matrix (rows, nnz/row), one column per variant: read down a column for
    // Fig. 12 (by size), across the nnz/row values of one size for Fig. 13 (by density).
    std::vector<Row> table;
    std::map<std::pair<std::string, std::pair<std::int64_t, double>>, std::size_t> where;
    for (const Row& r : rows) {
        if (r.text("kind") != "solve") continue;
        const auto key = std::make_pair(r.text("matrix"),
                                        std::make_pair(static_cast<std::int64_t>(r.number("rows")),
                                                       r.number("nnz_per_row")));
        auto [it, inserted] = where.try_emplace(key, table.size());
        if (inserted) {
            Row t;
            t.set("matrix", r.text("matrix"))
                .set("rows", static_cast<long long>(r.number("rows")))
                .set("nnz_per_row", r.number("nnz_per_row"));
            table.push_back(t);
        }
        const double s = r.number("speedup_vs_host");
        if (!std::isnan(s)) table[it->second].set(r.text("name"), s);
    }
    std::vector<Column> columns = {{"matrix"}, {"rows"}, {"nnz_per_row", "nnz/row", 1}};
    for (const auto& v : variants)
        if (v != "host") columns.push_back({v, v, 1});
    return format_table(table, columns);
}


// ---- --spmv-probe: where does the random-gather SpMV lose time? -------------------------------
// One thread per row (shaders/power/spmv_probe.comp) on the first --rows x --nnz-per-row matrix:
// (a) the same matrix with its columns remapped so that the gathers of x cover fewer bytes
// (a range of x) or the same few sectors spread over a wider span of addresses, which tells
// cache capacity from address translation; (b) kernel variants (unrolled gathers, x as uvec2,
// buffer texture, 2D texture, work-group sizes); (c) x placed inside a larger allocation.
struct ProbeKernel {
    int unroll = 0, x_kind = 0, wg = 256, stride = 0, no_values = 0;
    std::string label() const {
        static const char* kinds[] = {"ssbo", "uvec2", "buftex", "tex2d", "coherent"};
        std::string out = "u";
        out += std::to_string(unroll);
        out += '-';
        out += kinds[x_kind];
        out += "-wg";
        out += std::to_string(wg);
        if (stride) out += "-stride";
        if (no_values) out += "-novalues";
        return out;
    }
};

void run_probe(const PowerConfig& c, BenchContext& ctx, Report& report) {
    const MatrixSpec& spec = c.matrices.front();
    if (spec.kind != "random") throw cli::UsageError("--spmv-probe needs a random matrix");
    const CsrMatrix base = build(spec, c);
    const std::int32_t n = base.rows;
    const std::size_t nnz = base.columns.size();
    gl::Buffer offsets = gl::Buffer::from(base.row_offsets);
    gl::Buffer columns = gl::Buffer::from(base.columns);
    gl::Buffer values = gl::Buffer::from(base.values);
    std::vector<double> xh(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < xh.size(); ++i) xh[i] = 1.0 + 1e-3 * static_cast<double>(i % 977);
    gl::Buffer x = gl::Buffer::from(xh);
    gl::BufferTexture x_texture(x, gl::BufferTextureFormat::rg32ui);
    const int tex_rows = static_cast<int>((xh.size() + 8191) / 8192);
    std::vector<double> padded(static_cast<std::size_t>(tex_rows) * 8192, 0.0);
    std::copy(xh.begin(), xh.end(), padded.begin());
    gl::Texture2D x_image(4096, tex_rows, gl::TextureFormat::rgba32f);
    x_image.upload(padded.data());
    gl::Buffer y(xh.size() * sizeof(double));
    const double bytes = compulsory_bytes(base);

    // Host reference for a check of every kernel on the base pattern (exact: same order).
    std::vector<double> ref;
    csr_multiply(base, xh, ref);

    const gl::Buffer* x_buffer = &x;
    auto time = [&](const ProbeKernel& k, int dispatch_rows_check) {
        const gl::Program& p = gl::compute_program(
            "power/spmv_probe.comp", {{"WG_SIZE", std::to_string(k.wg)},
                                      {"UNROLL", std::to_string(k.unroll)},
                                      {"X_KIND", std::to_string(k.x_kind)},
                                      {"STRIDE_GROUPS", std::to_string(k.stride)},
                                      {"NO_VALUES", std::to_string(k.no_values)}});
        const unsigned groups =
            k.stride ? 8192u : static_cast<unsigned>((n + k.wg - 1) / k.wg);
        auto once = [&] {
            p.use();
            p.set("rows", static_cast<unsigned>(n));
            x_texture.bind(0);
            p.set("x_texture", 0);
            x_image.bind(1);
            p.set("x_image", 1);
            offsets.bind_storage(0);
            columns.bind_storage(1);
            values.bind_storage(2);
            x_buffer->bind_storage(3, 0, xh.size() * sizeof(double));
            y.bind_storage(4);
            gl::dispatch(groups);
            gl::memory_barrier(gl::Barrier::storage);
        };
        double max_error = 0.0;
        if (dispatch_rows_check) {
            y.poison();
            once();
            const auto got = y.read<double>(xh.size());
            for (std::size_t i = 0; i < got.size(); ++i)
                max_error = std::max(max_error, std::abs(got[i] - ref[i]) /
                                                    std::max(1.0, std::abs(ref[i])));
            if (!(max_error <= 1e-12)) max_error = std::numeric_limits<double>::infinity();
        }
        constexpr int batch = 20;
        auto samples = gl::time_runs(
            [&] {
                for (int i = 0; i < batch; ++i) once();
            },
            {.warmup = 2, .repeats = 7});
        return std::make_pair(gl::median(samples) / batch, max_error);
    };
    auto add = [&](const std::string& group, const std::string& name, double ms, double error) {
        Row r;
        r.set("name", name)
            .set("kind", "probe")
            .set("probe", group)
            .set("rows", static_cast<long long>(n))
            .set("nnz", static_cast<long long>(nnz))
            .set("median_ms", ms)
            .set("gb_per_s", bytes / (ms * 1e6))
            .set("max_rel_error", error);
        report.rows.push_back(r);
        ctx.out << group << "  " << name << "  " << ms << " ms  err " << error << std::endl;
    };

    // (b) kernel variants on the uniform pattern, checked against the host.
    std::vector<ProbeKernel> kernels;
    for (int xk : {0, 1, 2, 3})
        for (int u : {0, 4, 8, 16}) kernels.push_back({u, xk, 256, 0});
    for (int wg : {64, 128, 512, 1024}) {
        kernels.push_back({0, 0, wg, 0});
        kernels.push_back({8, 0, wg, 0});
    }
    kernels.push_back({0, 0, 256, 1});
    kernels.push_back({8, 0, 256, 1});
    kernels.push_back({0, 4, 256, 0});
    kernels.push_back({8, 4, 256, 0});
    kernels.push_back({0, 0, 256, 0, 1});
    kernels.push_back({8, 0, 256, 0, 1});
    for (const auto& k : kernels) {
        ctx.check_cancelled();
        auto [ms, err] = time(k, k.no_values ? 0 : 1);
        add("kernel", k.label(), ms, err);
    }
    // (c) x inside a larger allocation (the driver may choose larger pages for it).
    for (std::size_t mib_size : {64u, 512u, 2000u}) {
        gl::Buffer big(mib_size << 20);
        big.copy_from(x, xh.size() * sizeof(double));
        gl::memory_barrier(gl::Barrier::all);
        x_buffer = &big;
        auto [ms, err] = time({0, 0, 256, 0}, 1);
        add("x-alloc", "x-in-" + std::to_string(mib_size) + "MiB", ms, err);
        auto [ms8, err8] = time({8, 0, 256, 0}, 1);
        add("x-alloc", "u8-x-in-" + std::to_string(mib_size) + "MiB", ms8, err8);
        x_buffer = &x;
    }
    // (a) column patterns (no check: remapped columns may repeat within a row).
    auto pattern = [&](const std::string& name, auto&& map) {
        std::vector<std::int32_t> cols(base.columns);
        for (auto& col : cols) col = map(col);
        columns.write(cols);
        gl::memory_barrier(gl::Barrier::all);
        for (const ProbeKernel& k : {ProbeKernel{0, 0, 256, 0}, ProbeKernel{8, 0, 256, 0}}) {
            auto [ms, err] = time(k, 0);
            add("pattern", name + " " + k.label(), ms, err);
        }
    };
    pattern("uniform-" + std::to_string(static_cast<std::int64_t>(n) * 8 >> 10) + "KiB",
            [](std::int32_t col) { return col; });
    for (int div : {2, 4, 8, 16, 64, 256}) {
        const std::int32_t range = n / div;
        pattern("range-" + std::to_string(range * 8 / 1024) + "KiB",
                [range](std::int32_t col) { return col % range; });
    }
    // The same 65536 (or fewer) distinct 32-byte sectors, spread ever wider: constant cache
    // footprint, growing address span (pages touched).
    for (auto [count, spacing] : std::vector<std::pair<int, int>>{
             {65536, 4}, {65536, 16}, {65536, 32}, {16384, 128}, {4096, 512}, {512, 4096}}) {
        if (static_cast<std::int64_t>(count) * spacing > n) continue;
        pattern("sectors-" + std::to_string(count) + "-every-" + std::to_string(spacing * 8) +
                    "B-span-" + std::to_string(static_cast<std::int64_t>(count) * spacing * 8 >> 10) +
                    "KiB",
                [count, spacing](std::int32_t col) { return (col % count) * spacing; });
    }
    columns.write(base.columns);
    {
        const CsrMatrix banded = random_csr(n, static_cast<std::int32_t>(spec.per_row), c.seed, 1000);
        gl::Buffer bo = gl::Buffer::from(banded.row_offsets);
        gl::Buffer bc = gl::Buffer::from(banded.columns);
        gl::Buffer bv = gl::Buffer::from(banded.values);
        std::swap(offsets, bo);
        std::swap(columns, bc);
        std::swap(values, bv);
        gl::memory_barrier(gl::Barrier::all);
        for (const ProbeKernel& k : {ProbeKernel{0, 0, 256, 0}, ProbeKernel{8, 0, 256, 0}}) {
            auto [ms, err] = time(k, 0);
            add("pattern", "band1000 " + k.label(), ms, err);
        }
    }
}

// ---- --step3-probe: what does gpu-opt's Step3 spend its time on? ------------------------------
// Variants of Step3 (shaders/power/step3_probe.comp) on vectors of the first --rows size: what
// it loads and stores (texture, storage buffers), the flag, the division, where lambda comes
// from, pairs per thread and work groups. Each is timed twice: 20 dispatches (each followed by
// the production barrier) under one timer query, and one dispatch per query (what an
// iteration pays, as the Fig. 14 split measures it).
struct Step3Probe {
    std::string name;
    int kind = 0, flag = 1, div = 1, control = 1, pairs = 1;
    unsigned groups = 2048;  // 0: one pair per thread
    int gob = 0;             // the texture in the GOB texel map (power/x_image.glsl)
    double bytes_per_pair() const {
        static const double per_kind[] = {48, 48, 32, 48, 32, 32, 32, 48};
        return per_kind[kind];
    }
};

void run_step3_probe(const PowerConfig& c, BenchContext& ctx, Report& report) {
    const std::int64_t n = c.matrices.front().rows;
    const auto pairs = static_cast<unsigned>((n + 1) / 2);
    std::vector<double> yh(2 * static_cast<std::size_t>(pairs));
    for (std::size_t i = 0; i < yh.size(); ++i) yh[i] = 1.0 + 1e-3 * static_cast<double>(i % 977);
    gl::Buffer y = gl::Buffer::from(yh);
    gl::Buffer z = gl::Buffer::from(yh);
    gl::Buffer control = gl::Buffer::from(std::vector<double>{3.0, 0.0});
    // 4096 texels wide, whole 16-GOB block rows (128 rows) for the GOB map.
    const int tex_rows = static_cast<int>((pairs + 4096 * 128 - 1) / (4096 * 128) * 128);
    gl::Texture2D image(4096, tex_rows, gl::TextureFormat::rgba32f);
    std::vector<Step3Probe> probes = {
        {"production (texture load+store, div, flag)", 0, 1, 1, 1, 1, 2048},
        {"multiply instead of divide", 0, 1, 0, 1, 1, 2048},
        {"no flag", 0, 0, 1, 1, 1, 2048},
        {"lambda from a uniform", 0, 1, 1, 0, 1, 2048},
        {"no flag, multiply, uniform", 0, 0, 0, 0, 1, 2048},
        {"1024 groups", 0, 1, 1, 1, 1, 1024},
        {"4096 groups", 0, 1, 1, 1, 1, 4096},
        {"8192 groups", 0, 1, 1, 1, 1, 8192},
        {"one pair a thread", 0, 1, 1, 1, 1, 0},
        {"4 pairs a pass", 0, 1, 1, 1, 4, 512},
        {"old from a buffer, store to texture", 1, 1, 1, 1, 1, 2048},
        {"texture load only", 2, 1, 1, 1, 1, 2048},
        {"storage buffers load+store", 3, 1, 1, 1, 1, 2048},
        {"two storage buffers read (deferred)", 4, 1, 1, 1, 1, 2048},
        {"copy y to a buffer", 5, 0, 0, 0, 1, 2048},
        {"copy, one pair a thread", 5, 0, 0, 0, 1, 0},
        {"copy y into the texture", 6, 0, 0, 0, 1, 1024},
        {"production shape (1024 groups, 2 pairs a pass)", 0, 1, 1, 1, 2, 1024},
        {"GOB map: production shape", 0, 1, 1, 1, 2, 1024, 1},
        {"GOB map: 1 pair a pass, 1024 groups", 0, 1, 1, 1, 1, 1024, 1},
        {"GOB map: 4 pairs a pass, 512 groups", 0, 1, 1, 1, 4, 512, 1},
        {"GOB map: one pair a thread", 0, 1, 1, 1, 1, 0, 1},
        {"GOB map: texture load only", 2, 1, 1, 1, 2, 1024, 1},
        {"GOB map: copy y into the texture", 6, 0, 0, 0, 1, 1024, 1},
        {"GOB map: old x by texelFetch", 7, 1, 1, 1, 2, 1024, 1},
    };
    for (const Step3Probe& k : probes) {
        ctx.check_cancelled();
        const gl::Program& p = gl::compute_program(
            "power/step3_probe.comp", {{"KIND", std::to_string(k.kind)},
                                       {"FLAG", std::to_string(k.flag)},
                                       {"DIV", std::to_string(k.div)},
                                       {"CONTROL", std::to_string(k.control)},
                                       {"PAIRS", std::to_string(k.pairs)},
                                       {"GOB", std::to_string(k.gob)}});
        const unsigned groups = k.groups ? k.groups : (pairs + 255) / 256;
        auto once = [&] {
            p.use();
            p.set("pairs", pairs);
            p.set("tol", 0.0);
            p.set("lambda_uniform", 3.0);
            y.bind_storage(4);
            z.bind_storage(7);
            control.bind_storage(6);
            image.bind_image(0, true);
            image.bind(1);  // KIND 7 samples the texture it stores into
            p.set("x_sampled", 1);
            gl::dispatch(groups);
            gl::memory_barrier(gl::Barrier::storage | gl::Barrier::texture_fetch |
                               gl::Barrier::image_access);
        };
        constexpr int batch = 20;
        const double batched = gl::median(gl::time_runs(
                                    [&] {
                                        for (int i = 0; i < batch; ++i) once();
                                    },
                                    {.warmup = 2, .repeats = 7})) /
                                batch;
        const double single = gl::median(gl::time_runs(once, {.warmup = 3, .repeats = 31}));
        const double bytes = k.bytes_per_pair() * pairs;
        Row r;
        r.set("name", k.name)
            .set("kind", "step3-probe")
            .set("rows", static_cast<long long>(n))
            .set("groups", static_cast<long long>(groups))
            .set("median_ms", batched)
            .set("single_dispatch_ms", single)
            .set("gb_per_s", bytes / (batched * 1e6));
        report.rows.push_back(r);
        ctx.out << "step3-probe  " << k.name << "  batched " << batched << " ms ("
                << bytes / (batched * 1e6) << " GB/s)  single " << single << " ms" << std::endl;
    }
}

Report run_power(const cli::Args& args, BenchContext& ctx) {
    const PowerConfig c = parse(args, ctx.device);
    check_vector_option(c);
    Report report = make_report("power", ctx.device);
    record_config(report, args);
    if (c.step3_probe) {
        run_step3_probe(c, ctx, report);
        return report;
    }
    if (c.spmv_probe) {
        run_probe(c, ctx, report);
        return report;
    }
    report.notes.push_back(
        "median_ms: wall-clock median of whole solves (host timed host-repeats times, GPU "
        "variants after one warm-up solve); ms_per_iteration = median_ms / iterations; "
        "spmv/max/newx_stop: medians of 10 non-converging iterations (GPU timer queries for "
        "gpu-opt, wall clock after glFinish for the variants with host round trips); "
        "speedup_vs_host = host median_ms / variant median_ms on the same matrix.");
    const std::size_t steps = c.matrices.size() * (c.variants.size() + 1);
    std::size_t step = 0;
    for (const MatrixSpec& spec : c.matrices) {
        ctx.check_cancelled();
        ctx.progress(static_cast<double>(step) / steps, "building " + spec.label + " " +
                                                            std::to_string(spec.rows) + " rows");
        const CsrMatrix a = build(spec, c);
        const double per_row = a.rows ? static_cast<double>(a.nnz()) / a.rows : 0.0;
        double host_ms = std::nan("");
        bool spmv_done = false;
        for (const std::string& name : c.variants) {
            ctx.check_cancelled();
            ++step;
            ctx.progress(static_cast<double>(step) / steps,
                         name + " on " + spec.label + " " + std::to_string(a.rows) + " rows");
            auto variant = power::make_variant(name);
            variant->prepare(a, c.options);
            const int repeats = variant->on_gpu() ? c.repeats : c.host_repeats;
            if (variant->on_gpu()) {
                // Compiles and caches, and clocks up after the host variant (gl::warm_up).
                gl::warm_up([&] { variant->solve({}, c.options); }, gl::kWarmUpMs, 1);
            }
            std::vector<double> samples;
            power::Result result;
            for (int r = 0; r < repeats; ++r) {
                ctx.check_cancelled();
                if (variant->on_gpu()) gl::finish();
                auto t0 = std::chrono::steady_clock::now();
                result = variant->solve({}, c.options);
                samples.push_back(ms_since(t0));
            }
            const double ms = gl::median(samples);
            if (name == "host") host_ms = ms;
            const std::vector<double> x = variant->eigenvector();
            if (!c.vector_path.empty()) write_vector(c.vector_path, x);
            const power::PhaseTimes phases = variant->phase_times(c.options, 10);
            Row row;
            row.set("name", name)
                .set("kind", "solve")
                .set("matrix", spec.label)
                .set("rows", static_cast<long long>(a.rows))
                .set("nnz", static_cast<long long>(a.nnz()))
                .set("nnz_per_row", per_row)
                .set("spmv", variant->spmv_layout())
                .set("iterations", result.iterations)
                .set("queued", result.queued)  // gpu-opt: iterations queued, frozen included
                .set("converged", result.converged)
                .set("breakdown", result.breakdown)
                .set("lambda", result.lambda)
                .set("residual", power::residual(a, result.lambda, x))
                .set("ms_per_iteration", ms / std::max(1, result.iterations))
                .set("median_ms", ms)
                .set("speedup_vs_host", std::isnan(host_ms) ? Value() : Value(host_ms / ms))
                .set("spmv_ms", phases.spmv_ms)
                .set("max_ms", phases.max_ms)
                .set("newx_stop_ms", phases.newx_stop_ms);
            report.rows.push_back(row);
            if (!result.converged)
                report.notes.push_back(name + " on " + spec.label + " " + std::to_string(a.rows) +
                                       " rows did not converge in " +
                                       std::to_string(result.iterations) + " iterations" +
                                       (result.breakdown ? " (breakdown: A x = 0)" : ""));
            // The SpMV kernel alone, once per matrix, on the first GPU variant's buffers other
            // than gpu-naive's (whose x is uploaded every iteration, which the driver may answer
            // by moving it: measured 3x slower SpMVs on the H200) unless it is the only one.
            const bool others = std::any_of(c.variants.begin(), c.variants.end(), [](const auto& v) {
                return v != "host" && v != "gpu-naive";
            });
            if (variant->on_gpu() && !spmv_done && (name != "gpu-naive" || !others)) {
                spmv_done = true;
                using Layout = power::Options::Layout;
                std::vector<std::pair<std::string, power::Options>> layouts = {
                    {"spmv", c.options}};
                if (c.spmv_sweep) {
                    layouts.clear();
                    for (int chunk : {256, 512, 1024, 2048, 4096}) {
                        if ((chunk + 256) * 8 > ctx.device.max_shared_memory_bytes) continue;
                        power::Options o = c.options;
                        o.layout = Layout::stream;
                        o.stream_chunk = chunk;
                        layouts.push_back({"spmv-stream" + std::to_string(chunk), o});
                    }
                    for (int tpr : {1, 2, 4, 8, 32}) {
                        power::Options o = c.options;
                        o.layout = Layout::rows;
                        o.threads_per_row = tpr;
                        layouts.push_back({"spmv-rows-tpr" + std::to_string(tpr), o});
                    }
                    // One thread per row: plain loop or unrolled gathers, x from the 2D texture,
                    // the storage buffer or the buffer texture.
                    for (int unroll : {0, 4, 8}) {
                        for (int source = 0; source < 3; ++source) {
                            power::Options o = c.options;
                            o.layout = Layout::rows;
                            o.threads_per_row = 1;
                            o.unroll = unroll;
                            o.x_texture = source == 2;
                            o.x_storage = source == 1;
                            layouts.push_back({"spmv-rows-tpr1-u" + std::to_string(unroll) +
                                                   (source == 0   ? "-ximage"
                                                    : source == 1 ? "-xssbo"
                                                                  : "-xtex"),
                                               o});
                        }
                    }
                }
                for (const auto& [label, o] : layouts) {
                    ctx.check_cancelled();
                    const double spmv_ms = power::time_spmv(*variant, o, std::max(5, c.repeats));
                    Row s;
                    s.set("name", label)
                        .set("kind", "spmv")
                        .set("matrix", spec.label)
                        .set("rows", static_cast<long long>(a.rows))
                        .set("nnz", static_cast<long long>(a.nnz()))
                        .set("nnz_per_row", per_row)
                        .set("median_ms", spmv_ms)
                        .set("gb_per_s", compulsory_bytes(a) / (spmv_ms * 1e6));
                    report.rows.push_back(s);
                }
            }
        }
        // Speed-ups need the host time, which may come after a GPU variant in --variant order.
        for (Row& r : report.rows)
            if (r.text("kind") == "solve" && r.text("matrix") == spec.label &&
                r.number("rows") == a.rows && r.number("nnz_per_row") == per_row &&
                !std::isnan(host_ms))
                r.set("speedup_vs_host", host_ms / r.number("median_ms"));
    }
    ctx.progress(1.0, "done");
    std::vector<Row> solves, spmvs;
    for (const Row& r : report.rows) (r.text("kind") == "solve" ? solves : spmvs).push_back(r);
    ctx.out << format_table(solves, {{"name"}, {"matrix"}, {"rows"}, {"nnz"}, {"spmv"},
                                     {"iterations", "iters"}, {"converged"}, {"lambda", "", 10},
                                     {"residual", "", 2}, {"ms_per_iteration", "ms/it", 4},
                                     {"median_ms", "", 3}, {"speedup_vs_host", "speed-up", 2},
                                     {"spmv_ms", "", 4}, {"max_ms", "", 4},
                                     {"newx_stop_ms", "newx+stop ms", 4}});
    if (!spmvs.empty()) {
        ctx.out << "\nSpMV alone (float64, ms per product; GB/s of compulsory traffic):\n";
        ctx.out << format_table(spmvs, {{"name"}, {"matrix"}, {"rows"}, {"nnz"},
                                        {"median_ms", "ms", 4}, {"gb_per_s", "GB/s", 1}});
    }
    if (std::find(c.variants.begin(), c.variants.end(), "host") != c.variants.end()) {
        ctx.out << "\nSpeed-up over host (Fig. 12: down a column, by size; Fig. 13: across "
                   "nnz/row, by density):\n";
        ctx.out << speedup_tables(report.rows, c.variants);
    }
    return report;
}

}  // namespace

Benchmark make_power_benchmark() {
    return {"power",
            "power method (seed 004): host, gpu-naive, gpu-full, gpu-opt, gpu-opt-async; fp64 CSR",
            {{"rows", "LIST", "matrix sizes (default 100000,200000,500000,1000000,2000000)"},
             {"nnz-per-row", "LIST", "nonzeros per row of the random matrices (default 10)"},
             {"density", "LIST", "instead of --nnz-per-row: fractions of a full row, e.g. 1e-5"},
             {"variant", "LIST", "all or names: " + variant_list() + " (default all)", false,
              power::variant_names()},
             {"mtx", "FILE", "a Matrix Market file instead of random matrices"},
             {"pagerank", "", "the PageRank matrix (damping 0.85) of a random power-law graph "
                              "with --rows pages, or of the --mtx graph"},
             {"tol", "T", "stop when max |x_new - x| < T (default 1e-10; 0 never stops)"},
             {"max-iter", "K", "at most K iterations (default 1000)"},
             {"check-every", "K", "gpu-opt-async reads the flag every K iterations (default 16)"},
             {"layout", "L", "GPU SpMV layout: auto (default), stream (CSR-stream) or rows"},
             {"threads-per-row", "N", "rows layout: threads per row, 1,2,4,8,16,32 (default from nnz/row)"},
             {"stream-chunk", "N", "stream layout: nonzeros per pass, multiple of 256 (default 1024)"},
             {"x-texture", "", "SpMV gathers x through a buffer texture"},
             {"x-storage", "", "SpMV gathers x from its storage buffer (default: a 2D texture)"},
             {"x-linear", "", "x's 2D texture in the old row-major texel map (default: whole "
                              "512-byte GOBs per 32 pairs)"},
             {"x-block-gobs", "B", "GOB map: GOBs per block column, 1,2,4,8,16,32 (0: automatic, "
                                   "16 where the texture is tall enough)"},
             {"unroll", "N", "rows layout, 1 thread per row: gathers in flight, 0..16 (default 8)"},
             {"max-groups", "N", "SpMV work groups at most, 1..16384 (default 8192)"},
             {"step3-groups", "N", "gpu-opt Step3 work groups at most, 0..16384 (0: 1024)"},
             {"step3-pairs", "N", "gpu-opt Step3 texels a thread loads per pass, 1..8 (default 1)"},
             {"flag-store-always", "", "gpu-opt Step3 stores the flag without reading it first"},
             {"flag-lag", "K", "gpu-opt: K >= 1 = read iteration k-K+1's books (mapped memory) "
                               "after queueing k (default 1), 0 = drain after every iteration; "
                               "0..16"},
             {"flag-fence", "", "gpu-opt, lag >= 1: wait on a fence for the books instead of "
                                "polling their stamp word (the default)"},
             {"no-atomic-max", "", "gpu-opt: keep Step2 where 64-bit atomics would replace it"},
             {"key-check", "", "gpu-opt without Step2: read the key before each group's atomic"},
             {"key-slots", "S",
              "gpu-opt without Step2: the groups' atomicMax spread over S slots (8; 1 = one key)"},
             {"flush-every", "N", "gpu-opt, lag >= 1: glFlush every N queued iterations (1)"},
             {"spmv-sweep", "", "time the SpMV kernel in every layout (stream chunks, rows tpr)"},
             {"spmv-probe", "", "diagnostic SpMV variants and column patterns on the first matrix"},
             {"step3-probe", "", "diagnostic variants of gpu-opt's Step3 on vectors of the first "
                                 "--rows size"},
             {"no-subgroups", "", "shared-memory reductions even where subgroups exist"},
             {"repeats", "N", "timed solves per GPU variant (default 5)"},
             {"host-repeats", "N", "timed solves for host (default 1)"},
             {"seed", "S", "random matrix seed (default 1)"},
             {"vector", "FILE", "write the eigenvector (one value per line; one matrix and one "
                                "variant)"},
             {"band", "W", "random columns within W of the diagonal (local gathers; default 0: "
                           "anywhere)"}},
            run_power};
}

}  // namespace adilab::bench
