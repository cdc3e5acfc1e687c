#include "solvers/gl/timer.hpp"

#include <glad/gl.h>

#include <algorithm>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"

namespace adilab::gl {

GpuTimer::GpuTimer() : query_(Query::create()) {
    use_queries_ = Context::current().timer_queries_work();
}

void GpuTimer::begin() {
    if (use_queries_) {
        glBeginQuery(GL_TIME_ELAPSED, query_.id());
    } else {
        glFinish();
        wall_start_ = std::chrono::steady_clock::now();
    }
}

void GpuTimer::end() {
    if (use_queries_) {
        glEndQuery(GL_TIME_ELAPSED);
    } else {
        glFinish();
        wall_end_ = std::chrono::steady_clock::now();
    }
}

double GpuTimer::elapsed_ms() {
    if (!use_queries_)
        return std::chrono::duration<double, std::milli>(wall_end_ - wall_start_).count();
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query_.id(), GL_QUERY_RESULT, &ns);
    return static_cast<double>(ns) * 1e-6;
}

std::vector<double> time_runs(const std::function<void()>& work, TimingOptions options) {
    for (int i = 0; i < options.warmup; ++i) {
        cancellation_point();
        work();
    }
    GpuTimer timer;
    std::vector<double> samples;
    samples.reserve(static_cast<std::size_t>(options.repeats));
    for (int i = 0; i < options.repeats; ++i) {
        cancellation_point();
        timer.begin();
        work();
        timer.end();
        samples.push_back(timer.elapsed_ms());
    }
    return samples;
}

void warm_up(const std::function<void()>& work, double min_ms, int min_runs) {
    if (Context::current().info().software) min_ms = 0;  // a CPU renderer has no clocks to ramp
    const auto start = std::chrono::steady_clock::now();
    // At most 10,000 runs: a work item of microseconds cannot stretch the warm-up unboundedly.
    for (int run = 0; run < 10000; ++run) {
        const double elapsed =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        if (run >= min_runs && elapsed >= min_ms) break;
        cancellation_point();
        work();
        glFinish();
    }
}

void StampLog::mark(int phase) {
    if (phases_.size() == queries_.size()) queries_.push_back(Query::create());
    glQueryCounter(queries_[phases_.size()].id(), GL_TIMESTAMP);
    phases_.push_back(phase);
}

StampLog::Totals StampLog::collect(int phases) {
    Totals totals{std::vector<double>(static_cast<std::size_t>(phases), 0.0),
                  std::vector<int>(static_cast<std::size_t>(phases), 0)};
    GLuint64 previous = 0;
    for (std::size_t i = 0; i < phases_.size(); ++i) {
        GLuint64 ns = 0;
        glGetQueryObjectui64v(queries_[i].id(), GL_QUERY_RESULT, &ns);
        const int phase = phases_[i];
        if (i > 0 && phase >= 0 && phase < phases) {
            totals.ms[static_cast<std::size_t>(phase)] += static_cast<double>(ns - previous) * 1e-6;
            ++totals.marks[static_cast<std::size_t>(phase)];
        }
        previous = ns;
    }
    phases_.clear();
    return totals;
}

double median(std::vector<double> samples) {
    if (samples.empty()) return 0.0;
    const std::size_t mid = samples.size() / 2;
    std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(mid),
                     samples.end());
    double upper = samples[mid];
    if (samples.size() % 2 == 1) return upper;
    double lower =
        *std::max_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(mid));
    return 0.5 * (lower + upper);
}

}  // namespace adilab::gl
