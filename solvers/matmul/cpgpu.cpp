// cpgpu: Kwon & Lee's CPU + GPU split of C = A * B (fp32, row-major, any sizes). The GPU (gpu-fast,
// with its transfers) computes rows [0, g) of C while cpu_threads() - 1 CPU threads compute rows
// [g, m) with the cpu-blocked kernel, concurrently; the calling thread drives GL (and waits in
// the read-back). g comes from rates measured on this machine for this shape (calibrate()), not
// from manuals as in the paper: the GPU kernel rate, the CPU rate on a slab of rows, and the
// host <-> device transfer rate; balanced_gpu_rows() solves Kwon & Lee's balance with them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <tuple>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/matmul/variants.hpp"

namespace adilab::matmul {

SplitReport Multiplier::split() const {
    return {};
}

int balanced_gpu_rows(Shape s, const SplitRates& r) {
    if (r.cpu_gflops <= 0) return s.m;
    if (r.gpu_gflops <= 0 || r.transfer_gb_per_s <= 0) return 0;
    const double n = s.n, l = s.l, m = s.m;
    const double pg = r.gpu_gflops * 1e9, pc = r.cpu_gflops * 1e9, rate = r.transfer_gb_per_s * 1e9;
    // 2 g n l / Pg + 4 (g n + n l + g l) / r = 2 (m - g) n l / Pc, solved for g.
    const double numerator = 2 * m * n * l / pc - 4 * n * l / rate;
    const double denominator = 2 * n * l / pg + 2 * n * l / pc + 4 * (n + l) / rate;
    double g = std::clamp(numerator / denominator, 0.0, m);
    // Multiples of 16 rows: whole 4-row passes of the CPU kernel on every thread count that
    // matters; the GPU covers a partial block with its guarded strip kernel.
    g = std::min(m, std::round(g / 16) * 16);
    return static_cast<int>(std::lround(g));
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

class CpGpu final : public Multiplier {
  public:
    explicit CpGpu(std::optional<GemmTiles> tiles) : gpu_(make_gpu_fast(tiles)) {}
    std::string name() const override { return "cpgpu"; }
    bool on_gpu() const override { return false; }
    SplitReport split() const override { return last_; }

    void multiply_host(Shape s, const float* a, const float* b, float* c) override {
        const SplitRates rates = calibrated(s, a, b);
        const int g = balanced_gpu_rows(s, rates);
        last_ = {g, rates};
        if (g >= s.m) {
            gpu_->multiply_host(s, a, b, c);
            return;
        }
        if (g <= 0) {
            multiply_rows_blocked(s, a, b, c, 0, s.m, cpu_threads());
            return;
        }
        // The CPU starts first: it only reads host memory, while the GPU's uploads take time.
        // A jthread, joined however the GPU part leaves: a GUI tab's Cancel throws from its
        // dispatches (gl::CancellationCheck), and a joinable std::thread would terminate.
        std::jthread cpu(multiply_rows_blocked, s, a, b, c, g, s.m, cpu_workers());
        gpu_->multiply_host(Shape{g, s.n, s.l}, a, b, c);  // rows [0, g) of A and C lead the arrays
    }

  private:
    static int cpu_workers() { return std::max(1, cpu_threads() - 1); }

    SplitRates calibrated(Shape s, const float* a, const float* b) {
        const auto key = std::make_tuple(s.m, s.n, s.l);
        auto found = rates_.find(key);
        if (found != rates_.end()) return found->second;
        SplitRates r;
        // GPU kernel rate and transfer rate on the whole problem.
        gl::Buffer ga(sizeof(float) * static_cast<std::size_t>(s.m) * s.n);
        gl::Buffer gb(sizeof(float) * static_cast<std::size_t>(s.n) * s.l);
        gl::Buffer gc(sizeof(float) * static_cast<std::size_t>(s.m) * s.l);
        std::vector<float> c_back(static_cast<std::size_t>(s.m) * s.l);
        // Transfers timed on the second round: the first one pays for the driver's page setup,
        // which multiply_host's kept buffers do not.
        double transfer_s = 0;
        for (int round = 0; round < 2; ++round) {
            gl::finish();
            auto start = Clock::now();
            ga.upload(0, ga.size(), a);
            gb.upload(0, gb.size(), b);
            gl::finish();
            gc.download(0, gc.size(), c_back.data());
            transfer_s = seconds_since(start);
        }
        auto kernel_ms =
            gl::time_runs([&] { gpu_->multiply_gpu(s, ga, gb, gc); }, {.warmup = 1, .repeats = 3});
        r.gpu_gflops = s.flops() / (gl::median(kernel_ms) * 1e6);
        r.transfer_gb_per_s =
            static_cast<double>(ga.size() + gb.size() + gc.size()) / (transfer_s * 1e9);
        // CPU rate on a slab of rows (about 1 GFLOP: long enough to time, short enough to
        // calibrate quickly), on the threads the split will use, timed after one warm-up run.
        const int workers = cpu_workers();
        const double rows_wanted = 1e9 / (2.0 * s.n * s.l);
        int rows =
            std::clamp(static_cast<int>(std::ceil(rows_wanted / (4 * workers))) * 4 * workers,
                       std::min(s.m, 4 * workers), s.m);
        std::vector<float> scratch(static_cast<std::size_t>(rows) * s.l);
        multiply_rows_blocked(Shape{rows, s.n, s.l}, a, b, scratch.data(), 0, rows, workers);
        const auto start = Clock::now();
        multiply_rows_blocked(Shape{rows, s.n, s.l}, a, b, scratch.data(), 0, rows, workers);
        r.cpu_gflops = Shape{rows, s.n, s.l}.flops() / (seconds_since(start) * 1e9);
        rates_[key] = r;
        return r;
    }

    std::unique_ptr<Multiplier> gpu_;
    std::map<std::tuple<int, int, int>, SplitRates> rates_;
    SplitReport last_;
};

}  // namespace

std::unique_ptr<Multiplier> make_cpgpu(std::optional<GemmTiles> tiles) {
    return std::make_unique<CpGpu>(tiles);
}

}  // namespace adilab::matmul
