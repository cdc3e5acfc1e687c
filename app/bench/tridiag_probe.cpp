// Issue 3's slow-state probe (tridiag_probe.hpp says what and why).
#include "app/bench/tridiag_probe.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"
#include "solvers/reference/tridiagonal.hpp"
#include "solvers/tridiagonal/gpu_solver.hpp"
#include "solvers/tridiagonal/variants.hpp"

namespace adilab::bench {

int y_probe_rounds() {
    const char* text = std::getenv("ADILAB_BENCH_YPROBE");
    return text != nullptr ? std::clamp(std::atoi(text), 0, 20) : 0;
}

namespace {

struct Set {
    gl::Buffer k, x;
    gl::Texture2D texture;  // the same values as k
};

Set make_set(int n, const std::vector<float>& values) {
    Set s;
    s.k = gl::Buffer::from(values);
    s.x = gl::Buffer(values.size() * sizeof(float));
    s.x.zero();
    s.texture = gl::Texture2D(n, n, gl::TextureFormat::r32f);
    s.texture.upload(values.data());
    return s;
}

// ms per call of `work`: batches of ~2 ms (one query each), median of 9.
double time_ms(const std::function<void()>& work) {
    const double single = gl::median(gl::time_runs(work, {.warmup = 1, .repeats = 1}));
    const int batch = std::clamp(int(2.0 / std::max(single, 1e-4)), 1, 200);
    const auto samples = gl::time_runs(
        [&] {
            for (int i = 0; i < batch; ++i) work();
        },
        {.warmup = 2, .repeats = 9});
    return gl::median(samples) / batch;
}

struct Copy {
    std::string name;
    unsigned cols, chunks, rows, order;
    bool contiguous, texture;
};

}  // namespace

struct YProbe::State {
    int n;
    gl::MemoryStatus at_start;
    std::vector<float> values;
    Set early;
};

YProbe::YProbe(int n) : state_(std::make_unique<State>()) {
    state_->n = n;
    std::mt19937 random(4242u + unsigned(n));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    state_->values.resize(std::size_t(n) * std::size_t(n));
    for (float& v : state_->values) v = uniform(random);
    state_->at_start = gl::memory_status();
    state_->early = make_set(n, state_->values);
}

YProbe::~YProbe() = default;

void YProbe::run(std::ostream& out, int rounds) {
    const int n = state_->n;
    const std::vector<float>& values = state_->values;
    const tridiag::ConstantCoefficients constant{-0.5f, 2.0f, -0.5f, 2.0f, 2.0f};
    const tridiag::Coefficients coefficients(constant);
    const auto expected =
        reference::solve_grid_constant(n, n, false, constant.a, constant.b, constant.c,
                                       constant.b_first, constant.b_last, values);
    auto print_memory = [&](const char* when, const gl::MemoryStatus& m) {
        out << "probe memory " << when << ": available " << m.available_kib / 1024
            << " MiB, evictions " << m.evictions << ", evicted " << m.evicted_kib / 1024
            << " MiB\n";
    };
    print_memory("at start", state_->at_start);
    print_memory("after prelude", gl::memory_status());
    Set late = make_set(n, values);
    gl::Buffer checked(values.size() * sizeof(float));

    struct Variant {
        std::string name;
        std::unique_ptr<tridiag::Solver> solver;
    };
    auto make_window = [](const std::string& name, tridiag::WindowSettings settings) {
        return tridiag::make_lu_window(name, settings,
                                       tridiag::make_lu_scan("lu-scan", 16, 32, 8, 32, 4096,
                                                             true));
    };
    tridiag::WindowSettings window16, colscan;
    window16.scan_y = false;            // the decay-window kernel, 16 rows per invocation
    colscan.scan_max_unknowns = ~0u;    // the column scan (8 x 8) on every grid
    std::vector<Variant> variants;
    variants.push_back({"lu-window", make_window("lu-window", {})});
    variants.push_back({"colscan-8x8", make_window("colscan-8x8", colscan)});
    variants.push_back({"window-16", make_window("window-16", window16)});
    variants.push_back({"lu-scan", tridiag::make_solver("lu-scan")});

    const std::vector<Copy> copies = {
        {"copy-x", 32, 8, 32, 0, true, false},
        {"copy-y32", 32, 8, 32, 0, false, false},
        {"copy-y32-texture", 32, 8, 32, 0, false, true},
    };

    // Correctness once (late buffers into `checked`), so that a probe line is a real solve.
    std::vector<double> errors;
    for (Variant& v : variants) {
        checked.poison();
        v.solver->solve({n, n}, tridiag::Direction::y, coefficients, late.k, checked);
        errors.push_back(reference::max_relative_error(checked.read_all<float>(), expected.x));
    }
    auto copy_once = [n](const Copy& c, const Set& from, gl::Buffer& to) {
        const gl::Program& program = gl::compute_program(
            "common/strided_copy.comp",
            {{"COLS", std::to_string(c.cols)},
             {"CHUNKS", std::to_string(c.chunks)},
             {"ROWS", std::to_string(c.rows)},
             {"ORDER", std::to_string(c.order)},
             {"CONTIGUOUS", c.contiguous ? "1" : "0"},
             {"SOURCE_TEXTURE", c.texture ? "1" : "0"},
             {"WG_SIZE", std::to_string(c.cols * c.chunks)}});
        const unsigned groups =
            unsigned(n) / c.cols * ((unsigned(n) + c.rows * c.chunks - 1) / (c.rows * c.chunks));
        program.use();
        program.set("n", unsigned(n));
        program.set("stride_in", unsigned(n));
        program.set("stride_out", unsigned(n));
        program.set("row_offset", 0u);
        if (c.texture) {
            program.set("source_texture", 0);
            from.texture.bind(0);
        }
        from.k.bind_storage(0);
        to.bind_storage(1);
        const unsigned gx = std::min(groups, 65535u);
        gl::dispatch(gx, (groups + gx - 1) / gx);
        gl::memory_barrier(gl::Barrier::storage);
    };
    // Copies checked once, whole (into `checked`: the timed outputs are never read back).
    std::vector<bool> copy_ok;
    for (const Copy& c : copies) {
        checked.poison();
        copy_once(c, late, checked);
        copy_ok.push_back(checked.read_all<float>() == values);
    }

    const gl::Program& empty = gl::compute_program("common/copy_vec4.comp");
    auto empty_dispatch = [&] {
        empty.use();
        empty.set("count", 0u);
        gl::dispatch(1);
        gl::memory_barrier(gl::Barrier::storage);
    };
    auto solve_y = [&](tridiag::Solver& solver, const Set& set, gl::Buffer& to) {
        solver.solve({n, n}, tridiag::Direction::y, coefficients, set.k, to);
    };
    gl::warm_up([&] { solve_y(*variants[0].solver, late, late.x); });

    // A: the shapes on buffers allocated before / after the prelude.
    for (int round = 0; round < rounds; ++round) {
        for (Set* set : {&state_->early, &late}) {
            const std::string tag = std::string("probe ") + (set == &late ? "late" : "early") +
                                    " r" + std::to_string(round) + " ";
            for (std::size_t i = 0; i < variants.size(); ++i) {
                const double ms = time_ms([&] { solve_y(*variants[i].solver, *set, set->x); });
                out << tag << variants[i].name << " " << ms << " err=" << errors[i] << "\n";
            }
            for (std::size_t i = 0; i < copies.size(); ++i) {
                const double ms = time_ms([&] { copy_once(copies[i], *set, set->x); });
                out << tag << copies[i].name << " " << ms << (copy_ok[i] ? "" : " WRONG-COPY")
                    << "\n";
            }
            out << tag << "empty-dispatch " << time_ms(empty_dispatch) << "\n";
            out.flush();
        }
    }

    // B: the slow state on purpose. New lu-window and lu-scan instances, timed fresh, then after
    // 16 solve + check_pivots() cycles (the bench's pattern), then with a never-read buffer bound
    // at the pivot flag's binding (copies / empty only: a solve binds its own flag), then after
    // 300 more solves without checks; with the flag read directly (the old way) and staged.
    const bool configured = tridiag::pivot_readback_direct();
    gl::Buffer spare(2 * sizeof(std::uint32_t));
    spare.zero();
    for (bool direct : {true, false}) {
        tridiag::set_pivot_readback_direct(direct);
        auto window = make_window("colscan-8x8", colscan);
        auto scan = tridiag::make_solver("lu-scan");
        auto measure = [&](const std::string& label, bool solves) {
            out << "probe repro " << (direct ? "direct" : "staged") << " " << label;
            if (solves) out << " colscan-8x8 " << time_ms([&] { solve_y(*window, late, late.x); });
            // binding 5 now holds the column-scan instance's flag (or `spare`)
            out << " copy-y32 " << time_ms([&] { copy_once(copies[1], late, late.x); })
                << " copy-x " << time_ms([&] { copy_once(copies[0], late, late.x); })
                << " empty " << time_ms(empty_dispatch);
            if (solves) out << " lu-scan " << time_ms([&] { solve_y(*scan, late, late.x); });
            const gl::MemoryStatus m = gl::memory_status();
            out << " evictions " << m.evictions << "\n";
            out.flush();
        };
        solve_y(*window, late, late.x);
        solve_y(*scan, late, late.x);
        measure("fresh", true);
        for (int i = 0; i < 16; ++i) {
            solve_y(*window, late, checked);
            if (window->check_pivots()) out << "probe repro: unexpected pivot failure\n";
            solve_y(*scan, late, checked);
            if (scan->check_pivots()) out << "probe repro: unexpected pivot failure\n";
        }
        measure("after-16-checks", true);
        solve_y(*window, late, late.x);
        spare.bind_storage(5);
        measure("spare-at-5", false);
        for (int i = 0; i < 300; ++i) {
            solve_y(*window, late, late.x);
            solve_y(*scan, late, late.x);
        }
        gl::finish();
        measure("after-300-solves", true);
    }
    tridiag::set_pivot_readback_direct(configured);
}

}  // namespace adilab::bench
