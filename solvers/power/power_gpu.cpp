// The GPU variants of the power method (the power-method paper), float64 (GLSL double) throughout.
//
// gpu-naive (G-NAIVE): only y = A x runs on the GPU; x goes up and y comes down every
//   iteration, lambda, the scaling and the stop test run on the host. Bound by PCIe traffic.
// gpu-full (G-FULL): SpMV, a two-stage max-magnitude reduction, the update
//   (x = y / lambda, |x_new - x_old|) and a two-stage error reduction are separate kernels;
//   the host reads lambda and the error every iteration (two round trips).
// gpu-opt (G-OPT): Step1 = SpMV fused with the first reduction stage (spmv.comp, FUSE_MAX),
//   Step2 = the rest of the reduction in one work group (step2.comp), Step3 = scale and set
//   a not-converged flag without any norm (step3.comp). The host reads the books after every
//   iteration: by default (Tuning::flag_lag = 1) a stamped copy of them in mapped memory,
//   polled (or behind a fence: flag_poll = false), while the next work is already queued (the
//   GPU never waits for the host; the extra iterations queued past the stop are frozen out,
//   so results are unchanged); with flag_lag = 0 the control block, draining the queue, as
//   the paper's loop.
//   Where GL_NV_shader_atomic_int64 exists (and Tuning::atomic_max is 1), Step2 goes:
//   Step1's groups atomicMax a 64-bit key that orders as maxmag (power/control.glsl) into one
//   of two slot sets by iteration parity (Tuning::key_slots slots a set, 128 bytes apart,
//   group g into slot g % S: power/key_slots.glsl), and Step3 decodes lambda from their max and
//   keeps the books Step2 kept (two dispatches an iteration; lambda, x and iterations bit for
//   bit the same).
// gpu-opt-async: the same kernels; the host reads the control block every check_every
//   iterations only. Step2 records the iteration whose Step3 left the flag clear and every
//   kernel returns at once from then on, so lambda, x and the iteration count are exactly
//   gpu-opt's; the price is up to check_every - 1 queued no-op iterations (three empty
//   dispatches each).
// x for the SpMV: by default gathered from a 2D texture (power/x_image.glsl) that a mirror
//   kernel fills after any change of x outside gpu-opt: random gathers from it took half the
//   time of gathers from the storage buffer (docs/performance.md). gpu-opt's
//   Step3 then keeps x in the texture only (reads the old x there, writes the new x there); the
//   storage buffer is filled back from it when the eigenvector is asked for. Pairs of rows sit
//   in the texture so that 32 consecutive pairs fill one whole 512-byte GOB of the driver's
//   block-linear layout: Step3 streams whole GOBs.
// Limits: n and nnz below 2^31; each array must fit one shader storage block (checked against
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE before upload) and all of them the GPU memory the driver
// reports. In the stream layout the parts of a long row that cover whole chunks are added up by
// the work group as a tree, but the chunks of one block of rows are still walked by one work
// group in turn, so a row with millions of entries (PageRank's teleport row) is serial work for
// that group; in the rows layout it is serial work for one cluster's gathers.
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "solvers/common/clock.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/readback.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/power/power.hpp"
#include "solvers/power/variants.hpp"

namespace adilab::power {

namespace {

constexpr unsigned kWorkGroup = 256;
// Work groups stride over the rows: enough groups to fill an H100/H200 twice over, few enough
// that Step2's single work group reads only a handful of partial results per thread.
constexpr unsigned kMaxGroups = 2048;       // element-wise kernels
constexpr unsigned kMaxSpmvGroups = 16384;  // the most Tuning::max_groups may ask for
constexpr unsigned kReduceGroups = 1024;
constexpr unsigned kStep2WorkGroup = 1024;  // Step2 reads up to max_groups partials
constexpr int kXImageWidth = 4096;          // texels (pairs of doubles) per row of x's texture

// Host mirror of shaders/power/control.glsl (std430).
struct ControlBlock {
    double lambda = 0.0;
    std::uint32_t iteration = 0;
    std::uint32_t not_converged = 1;
    std::uint32_t converged_at = 0;
    std::uint32_t breakdown_at = 0;
    // ATOMIC_MAX only (the other kernels declare the 24 bytes above): Step1's max keys and
    // Step3's flags by iteration parity.
    std::uint64_t key[2] = {0, 0};
    std::uint32_t flag[2] = {1, 1};
    std::uint32_t lock = 0, pad = 0;  // ATOMIC_MAX = 2 (emulated max) only
};
static_assert(sizeof(ControlBlock) == 56);

unsigned groups_for(std::size_t items, std::size_t per_group, unsigned cap) {
    const std::size_t groups = (items + per_group - 1) / per_group;
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(groups, cap)));
}

class GpuVariant : public Variant {
  public:
    bool on_gpu() const override { return true; }
    std::string spmv_layout() const override {
        if (!spmv_config_.x_image) return spmv_config_.label();
        return spmv_config_.label() + "-gob" + std::to_string(1 << x_block_log2_);
    }

    void prepare(const CsrMatrix& a, const Options& options) override {
        check_problem(a, {});
        const auto& info = gl::Context::current().info();
        if (!info.fp64)
            throw Error(
                "the power method runs in float64 and this GPU has no GLSL double "
                "(ARB_gpu_shader_fp64)");
        const std::size_t n = static_cast<std::size_t>(a.rows);
        const std::size_t nnz = static_cast<std::size_t>(a.nnz());
        gl::check_buffers_fit(buffer_needs(a.rows, a.nnz()));  // before any is allocated
        a_ = &a;
        rows_ = static_cast<unsigned>(n);
        offsets_ = gl::Buffer::from(a.row_offsets);
        columns_ = nnz ? gl::Buffer::from(a.columns) : gl::Buffer(4);
        values_ = nnz ? gl::Buffer::from(a.values) : gl::Buffer(8);
        x_ = gl::Buffer(n * sizeof(double));
        // The default start (all ones) is kept on the GPU and copied into x for every solve:
        // re-uploading x from the host each solve measured slower later SpMVs on the H200 (the
        // driver appears to move often-uploaded buffers), and costs a PCIe transfer besides.
        ones_ = gl::Buffer::from(std::vector<double>(n, 1.0));
        // The 2D texture x is gathered from (power/x_image.glsl): two doubles a texel, 4096
        // texels a row. Made whenever it fits, so that every layout can be timed with it.
        // The GOB map (default) fills whole GOBs (32 texels, 4 x 8) and columns of
        // 2^x_block_log2_ GOBs, 1024 columns a block row: its height is a multiple of
        // 8 << x_block_log2_ rows; the automatic block is 16 GOBs (128 rows), or the fewest
        // GOB rows the texture needs rounded up to a power of two (no 8 MB texture for n = 1).
        const std::int64_t pairs = (static_cast<std::int64_t>(n) + 1) / 2;
        const int bg = options.tuning.x_block_gobs;
        if (bg < 0 || bg > 32 || (bg & (bg - 1)) != 0)
            throw Error("x_block_gobs must be 0 (automatic) or a power of two up to 32, not " +
                        std::to_string(bg));
        const std::int64_t gobs = (pairs + 31) / 32, gob_rows = (gobs + 1023) / 1024;
        x_block_log2_ = 0;
        while ((bg > 0 && (1 << x_block_log2_) < bg) ||
               (bg == 0 && x_block_log2_ < 4 && (std::int64_t{1} << x_block_log2_) < gob_rows))
            ++x_block_log2_;
        const std::int64_t block_rows = (gob_rows + (1 << x_block_log2_) - 1) >> x_block_log2_;
        const std::int64_t image_rows = block_rows * (8 << x_block_log2_);
        x_image_fits_ = image_rows <= info.max_texture_size;
        x_image_ = x_image_fits_ ? gl::Texture2D(kXImageWidth, static_cast<int>(image_rows),
                                                 gl::TextureFormat::rgba32f)
                                 : gl::Texture2D();
        spmv_config_ = resolve(a, options, info);
        y_ = gl::Buffer(n * sizeof(double));
        partials_ = gl::Buffer(kMaxSpmvGroups * sizeof(double));
        control_ = gl::Buffer(sizeof(ControlBlock));
        // NaN-filled until written, so an element a kernel forgets shows in every result.
        y_.poison();
        partials_.poison();
        spmv_groups_ = spmv_groups(spmv_config_);
        vector_groups_ = groups_for(n, kWorkGroup, kMaxGroups);
        spmv_ = &gl::compute_program("power/spmv.comp", spmv_defines(spmv_config_, false));
        mirror_ = &gl::compute_program("power/x_mirror.comp", defines());
        unmirror_ = &gl::compute_program("power/x_unmirror.comp", defines());
        prepared(options);
    }

    std::vector<double> eigenvector() override {
        unmirror_x();
        return x_.read<double>(rows_);
    }

    // Times the SpMV kernel alone (no fusion) in the variant's layout: a --bench row.
    double time_spmv(int repeats) {
        gl::memory_barrier(gl::Barrier::all);
        const gl::Program& program = *spmv_;
        const unsigned groups = spmv_groups_;
        reset_x();
        // Many products under one timer query: the per-dispatch launch cost is part of the
        // figure, as it is in an iteration, but the query's own cost is not.
        constexpr int kBatch = 20;
        auto samples = gl::time_runs(
            [&] {
                for (int i = 0; i < kBatch; ++i) dispatch_spmv(program, groups);
            },
            {.warmup = 2, .repeats = repeats});
        return gl::median(samples) / kBatch;
    }

  protected:
    struct SpmvConfig {
        bool stream = true;
        int tpr = 1;       // rows layout
        int chunk = 1024;  // stream layout
        unsigned max_groups = kMaxGroups;
        bool x_image = false;
        int unroll = 0;  // rows layout with tpr 1: gathers in flight per thread
        bool subgroups = false;
        std::string label() const {
            std::string out =
                stream ? "stream" + std::to_string(chunk) : "rows-tpr" + std::to_string(tpr);
            if (unroll > 0) out += "-u" + std::to_string(unroll);
            if (x_image) out += "-ximage";
            return out;
        }
    };

    SpmvConfig resolve(const CsrMatrix& a, const Options& options,
                       const gl::DeviceInfo& info) const {
        SpmvConfig c;
        const Tuning& t = options.tuning;
        Options::Layout layout =
            options.layout == Options::Layout::automatic ? choose_layout(a) : options.layout;
        c.stream = layout == Options::Layout::stream;
        c.tpr =
            c.stream ? 1 : (t.threads_per_row > 0 ? t.threads_per_row : choose_threads_per_row(a));
        if (c.tpr > 32 || (c.tpr & (c.tpr - 1)) != 0)
            throw Error("threads per row must be a power of two from 1 to 32, not " +
                        std::to_string(c.tpr));
        c.chunk = t.stream_chunk;
        if (t.max_groups < 1 || t.max_groups > static_cast<int>(kMaxSpmvGroups))
            throw Error("max_groups must lie in 1.." + std::to_string(kMaxSpmvGroups));
        c.max_groups = static_cast<unsigned>(t.max_groups);
        c.x_image = t.x_image != 0 && x_image_fits_;
        if (t.unroll < 0 || t.unroll > 16)
            throw Error("unroll must lie in 0..16, not " + std::to_string(t.unroll));
        c.unroll = c.tpr == 1 && !c.stream ? t.unroll : 0;
        if (c.chunk < static_cast<int>(kWorkGroup) || c.chunk % kWorkGroup != 0 || c.chunk > 4096)
            throw Error("the stream chunk must be a multiple of 256 up to 4096, not " +
                        std::to_string(c.chunk));
        const int shared_bytes = (c.chunk + static_cast<int>(kWorkGroup)) * 8;
        if (c.stream && shared_bytes > info.max_shared_memory_bytes)
            throw Error("a stream chunk of " + std::to_string(c.chunk) + " nonzeros needs " +
                        std::to_string(shared_bytes) + " bytes of shared memory; this GPU has " +
                        std::to_string(info.max_shared_memory_bytes));
        // Shuffles need the cluster inside one subgroup, and group_maxmag needs at most
        // subgroup-size subgroups per work group.
        c.subgroups =
            info.subgroups && info.subgroup_size >= c.tpr &&
            info.subgroup_size * info.subgroup_size >= static_cast<int>(kStep2WorkGroup) &&
            t.subgroups != 0;
        return c;
    }
    unsigned spmv_groups(const SpmvConfig& c) const {
        return groups_for(rows_, c.stream ? kWorkGroup : kWorkGroup / static_cast<unsigned>(c.tpr),
                          c.max_groups);
    }
    gl::Defines spmv_defines(const SpmvConfig& c, bool fuse) const {
        return {{"WG_SIZE", std::to_string(kWorkGroup)},
                {"TPR", std::to_string(c.tpr)},
                {"USE_SUBGROUPS", c.subgroups ? "1" : "0"},
                {"FUSE_MAX", fuse ? "1" : "0"},
                {"STREAM", c.stream ? "1" : "0"},
                {"CHUNK", std::to_string(c.chunk)},
                {"X_IMAGE", c.x_image ? "1" : "0"},
                {"UNROLL", std::to_string(c.unroll)},
                {"ATOMIC_MAX", fuse ? std::to_string(atomic_max_) : "0"},
                {"KEY_SLOTS", fuse && atomic_max_ ? std::to_string(key_slots_) : "1"},
                {"X_BLOCK_LOG2", std::to_string(x_block_log2_)}};
    }
    // The reduction kernels (one value per thread, TPR 1).
    gl::Defines defines(unsigned work_group = kWorkGroup) const {
        SpmvConfig c = spmv_config_;
        c.tpr = 1;
        c.stream = false;
        gl::Defines d = spmv_defines(c, false);
        d[0].second = std::to_string(work_group);
        return d;
    }
    virtual void prepared(const Options&) {}

    void load_start(std::span<const double> start) {
        check_problem(*a_, start);
        if (start.empty()) {
            reset_x();
        } else {
            x_.write(start);
            x_in_image_only_ = false;
            mirror_x();
        }
    }

    void reset_x() {
        x_.copy_from(ones_, ones_.size());  // ordered after earlier shader writes (copy_from)
        x_in_image_only_ = false;
        gl::memory_barrier(gl::Barrier::storage);
        mirror_x();
    }

    // Copies x into the SpMV's 2D texture after x changed other than through Step3 (which
    // writes both). One dispatch; never in gpu-opt's per-iteration path.
    void mirror_x() {
        if (x_image_.id() == 0 || !spmv_config_.x_image) return;
        gl::memory_barrier(gl::Barrier::storage | gl::Barrier::buffer_update);
        mirror_->use();
        mirror_->set("rows", rows_);
        x_.bind_storage(3);
        x_image_.bind_image(0, true);
        gl::dispatch(groups_for((rows_ + 1u) / 2u, kWorkGroup, kMaxGroups));
        // Sampled by the SpMV, loaded as an image by gpu-opt's Step3.
        gl::memory_barrier(gl::Barrier::texture_fetch | gl::Barrier::image_access |
                           gl::Barrier::storage);
    }

    // gpu-opt's Step3 keeps x only in the texture (x_in_image_only_): copy it back into the
    // storage buffer once, before anything reads x_ from the host. One dispatch, per request.
    void unmirror_x() {
        if (!x_in_image_only_) return;
        gl::memory_barrier(gl::Barrier::storage | gl::Barrier::texture_fetch);
        unmirror_->use();
        unmirror_->set("rows", rows_);
        x_image_.bind(1);
        unmirror_->set("x_image", 1);
        x_.bind_storage(3);
        gl::dispatch(groups_for(rows_, kWorkGroup, kMaxGroups));
        gl::memory_barrier(gl::Barrier::storage | gl::Barrier::buffer_update);
        x_in_image_only_ = false;
    }

    void dispatch_spmv(const gl::Program& program, unsigned groups) {
        program.use();
        program.set("rows", rows_);
        if (x_image_.id() != 0) {
            x_image_.bind(1);
            program.set("x_image", 1);
        }
        offsets_.bind_storage(0);
        columns_.bind_storage(1);
        values_.bind_storage(2);
        x_.bind_storage(3);
        y_.bind_storage(4);
        gl::dispatch(groups);
        gl::memory_barrier(gl::Barrier::storage);
    }

    const CsrMatrix* a_ = nullptr;
    unsigned rows_ = 0;
    SpmvConfig spmv_config_;
    gl::Buffer offsets_, columns_, values_, x_, y_, partials_, control_, ones_;
    gl::Texture2D x_image_;
    bool x_image_fits_ = false;
    bool x_in_image_only_ = false;  // x_ is stale: the current x is in x_image_ only
    int x_block_log2_ = 0;          // x_image_'s GOBs a block column, log2
    int atomic_max_ = 0;      // gpu-opt without Step2: 1 atomics, 2 emulated (GpuOpt::prepared)
    unsigned key_slots_ = 1;  // ATOMIC_MAX: slots of Step1's max key (power/key_slots.glsl)
    unsigned spmv_groups_ = 1, vector_groups_ = 1;
    const gl::Program* spmv_ = nullptr;
    const gl::Program* mirror_ = nullptr;
    const gl::Program* unmirror_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
class GpuNaive final : public GpuVariant {
  public:
    std::string name() const override { return "gpu-naive"; }

    Result solve(std::span<const double> start, const Options& options) override {
        load_start(start);
        x_host_ = start.empty() ? std::vector<double>(rows_, 1.0)
                                : std::vector<double>(start.begin(), start.end());
        Result r;
        std::vector<double> y;
        for (int k = 0; k < options.max_iter; ++k) {
            product(y);
            ++r.iterations;
            const double lambda = max_magnitude(y);
            if (lambda == 0.0 || !std::isfinite(lambda)) {
                r.lambda = 0.0;
                r.breakdown = true;
                return r;
            }
            r.lambda = lambda;
            r.error = update(y, lambda);
            if (r.error < options.tol) {
                r.converged = true;
                return r;
            }
        }
        return r;
    }
    std::vector<double> eigenvector() override { return x_host_; }

    PhaseTimes phase_times(const Options&, int iterations) override {
        x_host_.assign(rows_, 1.0);
        std::vector<double> y, spmv, max, newx;
        for (int k = 0; k < iterations; ++k) {
            gl::finish();
            auto t0 = std::chrono::steady_clock::now();
            product(y);
            spmv.push_back(ms_since(t0));
            auto t1 = std::chrono::steady_clock::now();
            double lambda = max_magnitude(y);
            max.push_back(ms_since(t1));
            auto t2 = std::chrono::steady_clock::now();
            update(y, lambda == 0.0 ? 1.0 : lambda);
            newx.push_back(ms_since(t2));
        }
        return {gl::median(spmv), gl::median(max), gl::median(newx)};
    }

  private:
    void product(std::vector<double>& y) {
        x_.write(x_host_);
        mirror_x();
        dispatch_spmv(*spmv_, spmv_groups_);
        gl::memory_barrier(gl::Barrier::buffer_update);
        y = y_.read<double>(rows_);
    }
    double update(const std::vector<double>& y, double lambda) {
        double error = 0.0;
        for (std::size_t i = 0; i < y.size(); ++i) {
            const double next = y[i] / lambda;
            const double d = std::abs(next - x_host_[i]);
            if (!(d <= error)) error = d;
            x_host_[i] = next;
        }
        return error;
    }
    std::vector<double> x_host_;
};

// ---------------------------------------------------------------------------------------------
class GpuFull final : public GpuVariant {
  public:
    std::string name() const override { return "gpu-full"; }

    Result solve(std::span<const double> start, const Options& options) override {
        load_start(start);
        Result r;
        for (int k = 0; k < options.max_iter; ++k) {
            dispatch_spmv(*spmv_, spmv_groups_);
            ++r.iterations;
            const double lambda = reduce_y();
            if (lambda == 0.0 || !std::isfinite(lambda)) {
                r.lambda = 0.0;
                r.breakdown = true;
                return r;
            }
            r.lambda = lambda;
            dispatch_update(lambda);
            r.error = reduce_y();
            if (r.error < options.tol) {
                r.converged = true;
                return r;
            }
        }
        return r;
    }

    PhaseTimes phase_times(const Options&, int iterations) override {
        reset_x();
        std::vector<double> spmv, max, newx;
        for (int k = 0; k < iterations; ++k) {
            gl::finish();
            auto t0 = std::chrono::steady_clock::now();
            dispatch_spmv(*spmv_, spmv_groups_);
            gl::finish();
            spmv.push_back(ms_since(t0));
            auto t1 = std::chrono::steady_clock::now();
            double lambda = reduce_y();
            max.push_back(ms_since(t1));
            auto t2 = std::chrono::steady_clock::now();
            dispatch_update(lambda == 0.0 ? 1.0 : lambda);
            reduce_y();
            newx.push_back(ms_since(t2));
        }
        return {gl::median(spmv), gl::median(max), gl::median(newx)};
    }

  protected:
    void prepared(const Options&) override {
        reduce_ = &gl::compute_program("power/reduce_maxmag.comp", defines());
        update_ = &gl::compute_program("power/update.comp", defines());
        scalar_ = gl::Buffer(sizeof(double));
    }

  private:
    // maxmag over y in two stages; the host reads the result (a round trip, as G-FULL has).
    double reduce_y() {
        const unsigned groups = groups_for(rows_, kWorkGroup, kReduceGroups);
        reduce_->use();
        reduce_->set("count", rows_);
        y_.bind_storage(0);
        partials_.bind_storage(1);
        gl::dispatch(groups);
        gl::memory_barrier(gl::Barrier::storage);
        reduce_->set("count", groups);
        partials_.bind_storage(0);
        scalar_.bind_storage(1);
        gl::dispatch(1);
        gl::memory_barrier(gl::Barrier::buffer_update);
        return scalar_.read<double>(1)[0];
    }
    void dispatch_update(double lambda) {
        update_->use();
        update_->set("rows", rows_);
        update_->set("lambda", lambda);
        x_.bind_storage(3);
        y_.bind_storage(4);
        gl::dispatch(vector_groups_);
        gl::memory_barrier(gl::Barrier::storage);
        mirror_x();
    }
    const gl::Program* reduce_ = nullptr;
    const gl::Program* update_ = nullptr;
    gl::Buffer scalar_;
};

// ---------------------------------------------------------------------------------------------
class GpuOpt final : public GpuVariant {
  public:
    explicit GpuOpt(bool async) : async_(async) {}
    std::string name() const override { return async_ ? "gpu-opt-async" : "gpu-opt"; }
    std::string kernels() const override {
        if (atomic_max_ == 0) return "step1+step2+step3";
        return std::string("step1+step3") + (atomic_max_ == 2 ? " (emulated max)" : "");
    }

    Result solve(std::span<const double> start, const Options& options) override {
        load_start(start);
        control_.write(std::vector<ControlBlock>{ControlBlock{}});
        if (key_slots_ > 1) key_slots_buffer_.zero();  // the slot sets of j = 1 and 2
        queued_ = 0;
        int issued = 0;  // iterations queued (Result::queued)
        const Tuning& t = options.tuning;
        const int check_every = async_ ? std::max(1, t.check_every) : 1;
        if (!async_ && t.flag_lag > 0) {
            // The host reads iteration k - L + 1's books (Step2 of j records whether j - 1
            // converged) after Step2 and Step3 of k and Step1 of k + 1 are queued, so the GPU
            // never waits for the host. Step2 freezes everything once converged, so the queued
            // work is harmless (it costs up to L frozen iterations at the end); the iteration
            // it reports is gpu-opt's, and lambda and x are bit for bit the same. Polling the
            // stamp word rather than waiting on a fence saves the fence and its client-mapped
            // barrier every iteration (docs/performance.md).
            const int lag = t.flag_lag;
            const int flush_every = std::max(1, t.flush_every);
            const bool poll = t.flag_poll && books_.peek() != nullptr;
            books_.forget();
            const std::uint32_t first_stamp = stamp_;
            step1();
            for (int k = 0; k < options.max_iter; ++k) {
                ++issued;
                if (atomic_max_) {
                    step3(options.tol, &books_);  // Step3 keeps the books (no Step2)
                } else {
                    step2(false, &books_);
                }
                if (!poll) books_.fence();
                if (!atomic_max_) step3(options.tol);
                if (k + 1 < options.max_iter) step1();
                if ((k + 1) % flush_every == 0) gl::flush();
                const int target = k - (lag - 1);  // the iteration whose books we read now
                if (target < 0) continue;
                const std::uint32_t word =
                    poll ? poll_books((first_stamp + static_cast<std::uint32_t>(target)) &
                                      kStampMask)
                         : static_cast<const Books*>(books_.wait(static_cast<std::size_t>(lag - 1)))
                               ->stamp;
                if (word & 1u) break;  // frozen: converged or broken down
            }
            books_.forget();
        } else {
            for (int k = 0; k < options.max_iter; ++k) {
                ++issued;
                step1();
                if (!atomic_max_) step2(false);
                step3(options.tol);
                if ((k + 1) % check_every == 0 && k + 1 < options.max_iter) {
                    const ControlBlock c = read_control();
                    const bool clear = atomic_max_ ? !c.flag[c.iteration & 1u] : !c.not_converged;
                    if (c.converged_at || c.breakdown_at || (c.iteration > 0 && clear)) break;
                }
            }
        }
        // Records whether the last queued iteration converged.
        if (atomic_max_)
            step3(0.0, nullptr, true);
        else
            step2(true);
        if (options.poison_x && x_in_image_only_) x_.poison();  // tests (Options::poison_x)
        const ControlBlock c = read_control();
        Result r;
        r.converged = c.converged_at != 0;
        r.breakdown = c.breakdown_at != 0;
        r.iterations = static_cast<int>(r.converged   ? c.converged_at
                                        : r.breakdown ? c.breakdown_at
                                                      : c.iteration);
        r.lambda = r.breakdown ? 0.0 : c.lambda;
        r.error = std::numeric_limits<double>::quiet_NaN();  // G-OPT computes no norm
        r.queued = issued;
        return r;
    }

    PhaseTimes phase_times(const Options&, int iterations) override {
        reset_x();
        control_.write(std::vector<ControlBlock>{ControlBlock{}});
        if (key_slots_ > 1) key_slots_buffer_.zero();  // the slot sets of j = 1 and 2
        queued_ = 0;
        gl::GpuTimer t1, t2, t3;
        std::vector<double> spmv, max, newx;
        for (int k = 0; k < iterations; ++k) {
            // tol = 0: the flag is always raised, so nothing freezes while we time.
            t1.begin();
            step1();
            t1.end();
            t2.begin();
            if (!atomic_max_) step2(false);  // ATOMIC_MAX: no Step2 (an empty query)
            t2.end();
            t3.begin();
            step3(0.0);
            t3.end();
            spmv.push_back(t1.elapsed_ms());
            max.push_back(t2.elapsed_ms());
            newx.push_back(t3.elapsed_ms());
        }
        return {gl::median(spmv), gl::median(max), gl::median(newx)};
    }

  protected:
    void prepared(const Options& options) override {
        const auto& info = gl::Context::current().info();
        const Tuning& t = options.tuning;
        atomic_max_ = !t.atomic_max                        ? 0
                      : info.atomic_int64                  ? 1
                      : t.emulate_atomic_max && info.int64 ? 2
                                                           : 0;
        if (t.key_slots < 1 || t.key_slots > static_cast<int>(kWorkGroup))
            throw Error("key_slots must lie in 1.." + std::to_string(kWorkGroup) + ", not " +
                        std::to_string(t.key_slots));
        key_slots_ = atomic_max_ ? static_cast<unsigned>(t.key_slots) : 1u;
        if (key_slots_ > 1 && key_slots_buffer_.size() < 2u * key_slots_ * 128u)
            key_slots_buffer_ = gl::Buffer(2u * key_slots_ * 128u);  // 128 bytes a slot
        step1_ = &gl::compute_program("power/spmv.comp", spmv_defines(spmv_config_, true));
        gl::Defines d2 = defines(kStep2WorkGroup);
        d2.push_back({"BOOKS", "0"});
        step2_ = &gl::compute_program("power/step2.comp", d2);
        d2.back() = {"BOOKS", "1"};
        step2_books_ = &gl::compute_program("power/step2.comp", d2);
        if (t.step3_groups < 1 || t.step3_groups > static_cast<int>(kMaxSpmvGroups))
            throw Error("step3_groups must lie in 1.." + std::to_string(kMaxSpmvGroups));
        gl::Defines d3 = defines();
        for (auto& [name, value] : d3)
            if (name == "ATOMIC_MAX")
                value = std::to_string(atomic_max_);
            else if (name == "KEY_SLOTS")
                value = std::to_string(key_slots_);
        d3.push_back({"BOOKS", "0"});
        step3_ = &gl::compute_program("power/step3.comp", d3);
        d3.back() = {"BOOKS", "1"};
        step3_books_ = atomic_max_ ? &gl::compute_program("power/step3.comp", d3) : nullptr;
        step3_groups_ = groups_for(spmv_config_.x_image ? (rows_ + 1u) / 2u : rows_, kWorkGroup,
                                   static_cast<unsigned>(t.step3_groups));
        if (t.flag_lag < 0 || t.flag_lag > 16)
            throw Error("flag_lag must lie in 0..16, not " + std::to_string(t.flag_lag));
        if (!async_ && books_.bytes() == 0) books_ = gl::Readback(sizeof(Books));
    }

  private:
    void step1() {
        (key_slots_ > 1 ? key_slots_buffer_ : partials_).bind_storage(5);
        control_.bind_storage(6);
        // ATOMIC_MAX: the key slot of iteration queued_ + 1 (the uniform is optimised away,
        // and ignored, in the Step2 build).
        if (atomic_max_) {
            step1_->use();
            step1_->set("iteration", queued_ + 1u);
        }
        dispatch_spmv(*step1_, spmv_groups_);
    }
    void step2(bool finalize, const gl::Readback* books = nullptr) {
        const gl::Program& program = books ? *step2_books_ : *step2_;
        program.use();
        if (books) {
            program.set("stamp", stamp_);
            stamp_ = (stamp_ + 1u) & kStampMask;
        }
        program.set("partial_count", spmv_groups_);
        program.set("finalize", finalize ? 1u : 0u);
        if (books) books->bind_storage(7);
        partials_.bind_storage(5);
        control_.bind_storage(6);
        gl::dispatch(1);
        gl::memory_barrier(gl::Barrier::storage);
    }
    // ATOMIC_MAX: Step3 of iteration queued_ + 1 also keeps the books (with `books`, copied
    // into it with the next stamp); finalize = only the convergence check of the last
    // iteration, one work group.
    void step3(double tol, gl::Readback* books = nullptr, bool finalize = false) {
        const gl::Program& program = books && step3_books_ ? *step3_books_ : *step3_;
        program.use();
        program.set("rows", rows_);
        program.set("tol", tol);
        if (atomic_max_) {
            program.set("iteration", queued_ + 1u);
            program.set("finalize", finalize ? 1u : 0u);
            if (books) {
                books->bind_storage(7);
                program.set("stamp", stamp_);
                stamp_ = (stamp_ + 1u) & kStampMask;
            }
            if (!finalize) ++queued_;
        }
        x_.bind_storage(3);
        y_.bind_storage(4);
        control_.bind_storage(6);
        if (key_slots_ > 1) key_slots_buffer_.bind_storage(5);
        if (spmv_config_.x_image) {
            // Step3 reads and writes x in the texture only (step3.comp).
            x_image_.bind_image(0, true);
            x_in_image_only_ = true;
        }
        gl::dispatch(finalize ? 1u : step3_groups_);
        // The next SpMV samples the texture, the next Step3 loads it as an image.
        gl::memory_barrier(spmv_config_.x_image
                               ? gl::Barrier::storage | gl::Barrier::texture_fetch |
                                     gl::Barrier::image_access
                               : gl::Barrier::storage);
    }
    ControlBlock read_control() {
        gl::memory_barrier(gl::Barrier::buffer_update);
        ControlBlock c;
        control_.download(0, sizeof c, &c);
        return c;
    }
    // Host mirror of step2.comp's Books (BOOKS = 1).
    struct Books {
        std::uint32_t iteration = 0, not_converged = 0, converged_at = 0, breakdown_at = 0;
        std::uint32_t stamp = 0;  // (stamp << 1) | frozen, stored last
    };
    static constexpr std::uint32_t kStampMask = 0x7fffffffu;
    // Spins on Step2's stamp word until the Step2 stamped `want` (or a later one) has stored
    // it; returns the word. Stamps grow by one per Step2 from solve to solve, so an older
    // solve's word never passes for this one's (compared modulo 2^31). Should the word not
    // show up (a driver that keeps the store from the host until a fence), it drains after
    // 100 ms: slow, never wrong.
    std::uint32_t poll_books(std::uint32_t want) {
        auto word = [&] { return static_cast<const volatile Books*>(books_.peek())->stamp; };
        auto reached = [&](std::uint32_t w) {
            return (((w >> 1) - want) & kStampMask) < (1u << 30);  // w's stamp >= want
        };
        std::uint32_t w = word();
        if (reached(w)) return w;
        gl::flush();  // so that the Step2 we wait for is on its way
        const auto start = std::chrono::steady_clock::now();
        for (unsigned spins = 1;; ++spins) {
            w = word();
            if (reached(w)) return w;
            if (spins % 4096 == 0 && ms_since(start) > 100.0) break;
        }
        w = static_cast<const Books*>(books_.drain())->stamp;
        if (!reached(w))
            throw Error("gpu-opt: Step2's books never reached the host (stamp " +
                        std::to_string(w >> 1) + ", expected " + std::to_string(want) + ")");
        return w;
    }
    std::uint32_t stamp_ = 1;  // the next Step2 (with books)'s stamp
    bool async_;
    unsigned step3_groups_ = 1;
    gl::Readback books_;  // one is enough: the host reads k's before it queues Step2 of k + 1
    gl::Buffer key_slots_buffer_;  // KEY_SLOTS > 1: two sets of key_slots_ slots, 128 bytes each
    const gl::Program* step1_ = nullptr;
    const gl::Program* step2_ = nullptr;
    const gl::Program* step2_books_ = nullptr;
    const gl::Program* step3_ = nullptr;
    const gl::Program* step3_books_ = nullptr;  // ATOMIC_MAX only
    unsigned queued_ = 0;  // ATOMIC_MAX: Step3s queued in this solve (iteration numbers)
};

}  // namespace

std::unique_ptr<Variant> make_gpu_naive() {
    return std::make_unique<GpuNaive>();
}
std::unique_ptr<Variant> make_gpu_full() {
    return std::make_unique<GpuFull>();
}
std::unique_ptr<Variant> make_gpu_opt(bool async) {
    return std::make_unique<GpuOpt>(async);
}

double time_spmv(Variant& variant, int repeats) {
    auto* gpu = dynamic_cast<GpuVariant*>(&variant);
    if (gpu == nullptr) throw Error("time_spmv needs a prepared GPU variant");
    return gpu->time_spmv(repeats);
}

std::vector<gl::BufferNeed> buffer_needs(std::int64_t rows, std::int64_t nnz) {
    const std::uint64_t n = rows < 0 ? 0 : std::uint64_t(rows);
    const std::uint64_t entries = nnz < 0 ? 0 : std::uint64_t(nnz);
    return {
        {"the CSR row offsets (" + std::to_string(rows) + " + 1 ints)",
         gl::bytes_of(n + 1, sizeof(int))},
        {"the CSR column indices (" + std::to_string(nnz) + " ints)",
         gl::bytes_of(std::max<std::uint64_t>(entries, 1), sizeof(int))},
        {"the CSR values (" + std::to_string(nnz) + " doubles)",
         gl::bytes_of(std::max<std::uint64_t>(entries, 1), sizeof(double))},
        {"the vector x (" + std::to_string(rows) + " doubles)", gl::bytes_of(n, sizeof(double))},
        {"the all-ones start vector", gl::bytes_of(n, sizeof(double))},
        {"the vector y = A x", gl::bytes_of(n, sizeof(double))},
        {"the reduction partials", kMaxSpmvGroups * sizeof(double)},
        {"the control block", sizeof(ControlBlock)},
    };
}

}  // namespace adilab::power
