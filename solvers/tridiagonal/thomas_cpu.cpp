// `thomas-cpu`: the Thomas algorithm (Gaussian elimination without pivoting, O(N) per line) on
// the CPU in float32, threaded over lines with std::thread: the paper's CPU baseline (Kim & Lee
// 2005, Fig. 11). Its solve() reads the GPU buffers back and uploads the solution, so
// it is for the bench and tests only (VariantInfo.on_gpu = false); the bench times
// thomas_cpu_solve_host(), the arithmetic alone, so the comparison is not a PCIe benchmark.
// A zero or non-finite pivot stops that line and is reported by check_pivots().
#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <utility>
#include <vector>

#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::tridiag {

namespace {

bool usable(float pivot) {
    return pivot != 0.0f && std::isfinite(pivot);
}

// One line; c' is the scratch of the forward sweep.
bool thomas_line(const HostSystem& s, std::size_t first, std::size_t stride, std::size_t n,
                 std::vector<float>& c_prime) {
    auto at = [&](std::size_t i) { return first + i * stride; };
    auto a = [&](std::size_t i) {
        return i == 0 ? 0.0f : (s.a != nullptr ? s.a[at(i)] : s.constant.a);
    };
    auto c = [&](std::size_t i) {
        return i + 1 == n ? 0.0f : (s.c != nullptr ? s.c[at(i)] : s.constant.c);
    };
    auto b = [&](std::size_t i) {
        if (s.b != nullptr) return s.b[at(i)];
        if (i == 0) return s.constant.b_first;
        return i + 1 == n ? s.constant.b_last : s.constant.b;
    };
    c_prime.resize(n);
    float m = b(0);
    if (!usable(m)) return false;
    c_prime[0] = c(0) / m;
    s.x[at(0)] = s.k[at(0)] / m;
    for (std::size_t i = 1; i < n; ++i) {
        m = b(i) - a(i) * c_prime[i - 1];
        if (!usable(m)) return false;
        c_prime[i] = c(i) / m;
        s.x[at(i)] = (s.k[at(i)] - a(i) * s.x[at(i - 1)]) / m;
    }
    for (std::size_t i = n - 1; i-- > 0;) s.x[at(i)] -= c_prime[i] * s.x[at(i + 1)];
    return true;
}

}  // namespace

int thomas_cpu_solve_host(Grid grid, Direction direction, const HostSystem& system) {
    const LineLayout layout = line_layout(grid, direction);
    const unsigned threads =
        std::clamp(std::thread::hardware_concurrency(), 1u, std::max(layout.lines, 1u));
    std::atomic<int> failed_line{-1};
    auto work = [&](unsigned t) {
        std::vector<float> c_prime;
        // Contiguous blocks of lines per thread: x lines are rows (contiguous memory), y lines
        // neighbouring columns, so each thread streams through its own part of the grid.
        const unsigned begin = static_cast<unsigned>(std::size_t(layout.lines) * t / threads);
        const unsigned end = static_cast<unsigned>(std::size_t(layout.lines) * (t + 1) / threads);
        for (unsigned line = begin; line < end; ++line) {
            if (!thomas_line(system, std::size_t(line) * layout.line_stride, layout.element_stride,
                             layout.n, c_prime)) {
                int expected = -1;
                failed_line.compare_exchange_strong(expected, static_cast<int>(line));
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& thread : pool) thread.join();
    return failed_line.load();
}

namespace {

class ThomasCpuSolver final : public Solver {
  public:
    std::string name() const override { return "thomas-cpu"; }

    void solve(Grid grid, Direction direction, const Coefficients& coefficients,
               const gl::Buffer& rhs, gl::Buffer& solution) override {
        validate(grid, coefficients, rhs, solution);
        const std::size_t size = std::size_t(grid.nx) * std::size_t(grid.ny);
        k_ = rhs.read<float>(size);
        x_.assign(size, 0.0f);
        HostSystem system;
        system.k = k_.data();
        system.x = x_.data();
        if (const auto* general = std::get_if<GeneralCoefficients>(&coefficients)) {
            a_ = general->a->read<float>(size);
            b_ = general->b->read<float>(size);
            c_ = general->c->read<float>(size);
            system.a = a_.data();
            system.b = b_.data();
            system.c = c_.data();
        } else {
            system.constant = std::get<ConstantCoefficients>(coefficients);
        }
        const int failed = thomas_cpu_solve_host(grid, direction, system);
        if (failed >= 0 && !failure_) failure_ = PivotFailure{failed};
        solution.write(x_);
    }

    std::optional<PivotFailure> check_pivots() override { return std::exchange(failure_, {}); }

  private:
    std::vector<float> a_, b_, c_, k_, x_;
    std::optional<PivotFailure> failure_;
};

}  // namespace

std::unique_ptr<Solver> make_thomas_cpu() {
    return std::make_unique<ThomasCpuSolver>();
}

}  // namespace adilab::tridiag
