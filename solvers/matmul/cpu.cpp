// CPU baselines for C = A * B (fp32, row-major; A m x n, B n x l).
//  - cpu-ijk: the OpenGL matmul paper Algorithm 3, Kwon & Lee's CPU1. The inner loop walks B down a
//  column
//    (stride l), so for large N every load misses cache: the reference point both papers beat.
//  - cpu-ikj: Kwon & Lee's CPU2. The inner loop runs along a row of B and of C (stride 1), which
//    the compiler vectorises; one thread, as in the paper.
//  - cpu-blocked: beyond the papers. i-k-j on kKBlock x kJBlock blocks of B (kept in L2), four
//    rows of C per pass (each B row loaded once for four FMAs), rows split over all threads.
// All accumulate in fp32, like the GPU variants.
#include <algorithm>
#include <thread>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/matmul/matmul.hpp"
#include "solvers/matmul/variants.hpp"

namespace adilab::matmul {

namespace {

constexpr int kKBlock = 128;  // 128 rows x 256 floats of B = 128 KiB: fits L2
constexpr int kJBlock = 256;  // 4 rows of C x 256 floats = 4 KiB: stays in L1

void blocked_rows(Shape s, const float* a, const float* b, float* c, int row_begin, int row_end) {
    const std::size_t n = static_cast<std::size_t>(s.n), l = static_cast<std::size_t>(s.l);
    for (int i = row_begin; i < row_end; ++i) std::fill(c + i * l, c + (i + 1) * l, 0.0f);
    for (int k0 = 0; k0 < s.n; k0 += kKBlock) {
        const int k1 = std::min(s.n, k0 + kKBlock);
        for (int j0 = 0; j0 < s.l; j0 += kJBlock) {
            const int j1 = std::min(s.l, j0 + kJBlock);
            int i = row_begin;
            for (; i + 4 <= row_end; i += 4) {
                float* c0 = c + i * l;
                float* c1 = c0 + l;
                float* c2 = c1 + l;
                float* c3 = c2 + l;
                for (int k = k0; k < k1; ++k) {
                    const float a0 = a[i * n + k], a1 = a[(i + 1) * n + k];
                    const float a2 = a[(i + 2) * n + k], a3 = a[(i + 3) * n + k];
                    const float* b_row = b + k * l;
                    for (int j = j0; j < j1; ++j) {
                        const float bv = b_row[j];
                        c0[j] += a0 * bv;
                        c1[j] += a1 * bv;
                        c2[j] += a2 * bv;
                        c3[j] += a3 * bv;
                    }
                }
            }
            for (; i < row_end; ++i) {
                float* c_row = c + i * l;
                for (int k = k0; k < k1; ++k) {
                    const float av = a[i * n + k];
                    const float* b_row = b + k * l;
                    for (int j = j0; j < j1; ++j) c_row[j] += av * b_row[j];
                }
            }
        }
    }
}

class CpuIjk final : public Multiplier {
  public:
    std::string name() const override { return "cpu-ijk"; }
    bool on_gpu() const override { return false; }
    void multiply_host(Shape s, const float* a, const float* b, float* c) override {
        const std::size_t n = static_cast<std::size_t>(s.n), l = static_cast<std::size_t>(s.l);
        for (std::size_t i = 0; i < static_cast<std::size_t>(s.m); ++i) {
            // A cancellation point a row (gl/commands.hpp): a run takes seconds at n = 1024,
            // longer than a GUI tab's Cancel may wait.
            gl::cancellation_point();
            for (std::size_t j = 0; j < l; ++j) {
                float sum = 0.0f;
                for (std::size_t k = 0; k < n; ++k) sum += a[i * n + k] * b[k * l + j];
                c[i * l + j] = sum;
            }
        }
    }
};

class CpuIkj final : public Multiplier {
  public:
    std::string name() const override { return "cpu-ikj"; }
    bool on_gpu() const override { return false; }
    void multiply_host(Shape s, const float* a, const float* b, float* c) override {
        const std::size_t n = static_cast<std::size_t>(s.n), l = static_cast<std::size_t>(s.l);
        for (std::size_t i = 0; i < static_cast<std::size_t>(s.m); ++i) {
            gl::cancellation_point();
            float* c_row = c + i * l;
            std::fill(c_row, c_row + l, 0.0f);
            for (std::size_t k = 0; k < n; ++k) {
                const float av = a[i * n + k];
                const float* b_row = b + k * l;
                for (std::size_t j = 0; j < l; ++j) c_row[j] += av * b_row[j];
            }
        }
    }
};

class CpuBlocked final : public Multiplier {
  public:
    std::string name() const override { return "cpu-blocked"; }
    bool on_gpu() const override { return false; }
    void multiply_host(Shape s, const float* a, const float* b, float* c) override {
        multiply_rows_blocked(s, a, b, c, 0, s.m, cpu_threads());
    }
};

}  // namespace

void Multiplier::multiply_gpu(Shape, const gl::Buffer&, const gl::Buffer&, gl::Buffer&) {
    throw Error(name() + " runs on the CPU: it has no GPU-buffer entry");
}

int cpu_threads() {
    return std::max(1u, std::thread::hardware_concurrency());
}

void multiply_rows_blocked(Shape s, const float* a, const float* b, float* c, int row_begin,
                           int row_end, int threads) {
    const int rows = row_end - row_begin;
    if (rows <= 0) return;
    // Whole multiples of 4 rows per thread, so the 4-row kernel covers nearly everything.
    threads = std::max(1, std::min(threads, (rows + 3) / 4));
    if (threads == 1) {
        blocked_rows(s, a, b, c, row_begin, row_end);
        return;
    }
    const int per_thread = (rows / threads + 3) / 4 * 4;
    std::vector<std::thread> workers;
    int begin = row_begin;
    for (int t = 0; t < threads && begin < row_end; ++t) {
        const int end = t + 1 == threads ? row_end : std::min(row_end, begin + per_thread);
        workers.emplace_back(blocked_rows, s, a, b, c, begin, end);
        begin = end;
    }
    if (begin < row_end) blocked_rows(s, a, b, c, begin, row_end);
    for (std::thread& w : workers) w.join();
}

std::unique_ptr<Multiplier> make_cpu_ijk() {
    return std::make_unique<CpuIjk>();
}
std::unique_ptr<Multiplier> make_cpu_ikj() {
    return std::make_unique<CpuIkj>();
}
std::unique_ptr<Multiplier> make_cpu_blocked() {
    return std::make_unique<CpuBlocked>();
}

}  // namespace adilab::matmul
