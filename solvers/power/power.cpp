// The power method's shared helpers and the `host` variant.
//
// host: the float64 CPU method (the power-method paper's HOST), single-threaded as the paper's
// baseline; limits: main memory only. It is also the reference the GPU variants are tested against
// (solvers/reference/power_reference.cpp runs the same arithmetic).
#include "solvers/power/power.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "solvers/common/clock.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/power/variants.hpp"
#include "solvers/reference/power_reference.hpp"

namespace adilab::power {

namespace {

class HostVariant final : public Variant {
  public:
    std::string name() const override { return "host"; }
    bool on_gpu() const override { return false; }
    void prepare(const CsrMatrix& a, const Options&) override {
        check_problem(a, {});
        a_ = &a;
    }
    Result solve(std::span<const double> start, const Options& options) override {
        auto outcome = reference::power_method(*a_, start, options.tol, options.max_iter);
        x_ = std::move(outcome.vector);
        return outcome.result;
    }
    std::vector<double> eigenvector() override { return x_; }
    PhaseTimes phase_times(const Options&, int iterations) override {
        const std::size_t n = static_cast<std::size_t>(a_->rows);
        std::vector<double> x(n, 1.0), y(n);
        std::vector<double> spmv, max, newx;
        for (int k = 0; k < iterations; ++k) {
            auto t0 = std::chrono::steady_clock::now();
            csr_multiply(*a_, x, y);
            spmv.push_back(ms_since(t0));
            auto t1 = std::chrono::steady_clock::now();
            double lambda = max_magnitude(y);
            max.push_back(ms_since(t1));
            if (lambda == 0.0) lambda = 1.0;
            auto t2 = std::chrono::steady_clock::now();
            double error = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                const double next = y[i] / lambda;
                error = std::max(error, std::abs(next - x[i]));
                x[i] = next;
            }
            newx.push_back(ms_since(t2));
            sink_ += error;
        }
        return {gl::median(spmv), gl::median(max), gl::median(newx)};
    }

  private:
    const CsrMatrix* a_ = nullptr;
    std::vector<double> x_;
    double sink_ = 0.0;  // keeps the timed error loop from being optimised away
};

}  // namespace

std::unique_ptr<Variant> make_host() {
    return std::make_unique<HostVariant>();
}

Tuning Tuning::defaults(const gl::DeviceInfo& device) {
    Tuning t;
    // The stream layout keeps (chunk + 256) doubles in shared memory.
    while (t.stream_chunk > 256 && device.max_shared_memory_bytes > 0 &&
           (t.stream_chunk + 256) * 8 > device.max_shared_memory_bytes)
        t.stream_chunk -= 256;
    return t;
}

std::vector<TuningField> tuning_fields(Tuning& t) {
    return {
        {"threads_per_row", "rows layout: threads a row, a power of two (0: from nnz/row)",
         &t.threads_per_row, 0, 32},
        {"stream_chunk", "stream layout: nonzeros a pass, a multiple of 256", &t.stream_chunk, 256,
         4096},
        {"max_groups", "SpMV work groups at most", &t.max_groups, 1, 16384},
        {"x_image", "1: gather x from a 2D texture (where it fits); 0: the storage buffer",
         &t.x_image, 0, 1},
        {"x_block_gobs", "x's texture: GOBs a block column, a power of two (0: automatic)",
         &t.x_block_gobs, 0, 32},
        {"unroll", "rows layout, 1 thread a row: gathers in flight (0: plain loop)", &t.unroll, 0,
         16},
        {"subgroups", "1: subgroup reductions where the device has them; 0: shared memory",
         &t.subgroups, 0, 1},
        {"step3_groups", "gpu-opt Step3 work groups at most", &t.step3_groups, 1, 16384},
        {"check_every", "gpu-opt-async: iterations between two reads of the flag", &t.check_every,
         1, 1000000},
        {"flag_lag", "gpu-opt: read iteration k-L+1's books after queueing k (0: drain)",
         &t.flag_lag, 0, 16},
        {"flag_poll", "gpu-opt, lag >= 1: 1 poll the books' stamp; 0 wait on a fence", &t.flag_poll,
         0, 1},
        {"flush_every", "gpu-opt, lag >= 1: glFlush every N queued iterations", &t.flush_every, 1,
         1000},
        {"atomic_max", "gpu-opt: 1 = Step1's 64-bit atomicMax replaces Step2 where it exists",
         &t.atomic_max, 0, 1},
        {"emulate_atomic_max", "tests: that path with the max emulated under a lock",
         &t.emulate_atomic_max, 0, 1},
        {"key_slots", "gpu-opt without Step2: slots the groups' atomicMax spread over",
         &t.key_slots, 1, 256},
    };
}

std::string describe(const Tuning& tuning) {
    Tuning t = tuning;
    std::string out;
    for (const TuningField& f : tuning_fields(t))
        out += (out.empty() ? "power." : " power.") + f.name + "=" + std::to_string(*f.value);
    return out;
}

double residual(const CsrMatrix& a, double lambda, const std::vector<double>& x) {
    std::vector<double> y;
    csr_multiply(a, x, y);
    double worst = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i)
        worst = std::max(worst, std::abs(y[i] - lambda * x[i]));
    return worst;
}

Options::Layout choose_layout(const CsrMatrix& a) {
    const double mean = a.rows ? static_cast<double>(a.nnz()) / a.rows : 0.0;
    std::int32_t longest = 0;
    for (std::int32_t r = 0; r < a.rows; ++r)
        longest = std::max(longest, a.row_offsets[r + 1] - a.row_offsets[r]);
    return longest > 64.0 * mean + 64.0 ? Options::Layout::stream : Options::Layout::rows;
}

int choose_threads_per_row(const CsrMatrix& a) {
    const double mean = a.rows ? static_cast<double>(a.nnz()) / a.rows : 0.0;
    // The largest power of two at most mean / 2 (about 2-4 nonzeros a lane): enough lanes a row
    // to keep several gathers in flight, few enough that no lane idles (docs/performance.md has
    // the sweep at 10 nonzeros a row; other densities are not measured).
    int tpr = 1;
    while (tpr < 32 && tpr * 2 <= mean / 2.0) tpr *= 2;
    return tpr;
}

Solution solve(Variant& variant, const CsrMatrix& a, const Options& options,
               std::span<const double> start) {
    check_problem(a, start);
    variant.prepare(a, options);
    Solution s;
    s.result = variant.solve(start, options);
    s.vector = variant.eigenvector();
    s.residual = residual(a, s.result.lambda, s.vector);
    return s;
}

}  // namespace adilab::power
