// The GL runtime on a real headless context: buffers, programs, the shader registry's error
// messages, RAII moves and the timer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/shaders.hpp"
#include "solvers/gl/timer.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab {
namespace {

TEST(GlRuntime, ContextIsAtLeast43WithComputeLimits) {
    ADILAB_NEED_GL();
    const gl::DeviceInfo& info = gl::Context::current().info();
    EXPECT_TRUE(info.major > 4 || (info.major == 4 && info.minor >= 3)) << info.version;
    EXPECT_GE(info.max_work_group_invocations, 128);  // GL 4.3 guarantees 1024
    EXPECT_GE(info.max_shared_memory_bytes, 16384);   // GL 4.3 guarantees 32 KiB
    EXPECT_FALSE(info.renderer.empty());
}

TEST(GlRuntime, BufferRoundTripOfAwkwardSizes) {
    ADILAB_NEED_GL();
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> dist(-1e6f, 1e6f);
    for (std::size_t count : {1u, 3u, 1000u, 65537u}) {
        std::vector<float> values(count);
        for (float& v : values) v = dist(rng);
        gl::Buffer buffer = gl::Buffer::from(values);
        EXPECT_EQ(buffer.size(), count * sizeof(float));
        EXPECT_EQ(buffer.read_all<float>(), values) << count;
        // Partial update and read in the middle.
        if (count > 2) {
            std::vector<float> middle = {7.0f};
            buffer.write(middle, count / 2);
            EXPECT_EQ(buffer.read<float>(1, count / 2)[0], 7.0f);
        }
    }
}

// The bandwidth roof's copy kernel (common/copy_vec4.comp, 8 vec4s an invocation): every vec4 of
// counts that end inside an invocation's pass, inside a work group's block and past one dispatch
// of a single group (the grid-stride loop), into a poisoned destination whose tail it must leave.
TEST(GlRuntime, CopyKernelCopiesEveryVec4AndNothingPast) {
    ADILAB_NEED_GL();
    std::mt19937 rng(31);
    std::uniform_real_distribution<float> value(-1, 1);
    const gl::Program& copy = gl::compute_program("common/copy_vec4.comp");
    for (unsigned count : {1u, 1023u, 8193u, 20000u}) {
        std::vector<float> data(4 * std::size_t(count) + 4);
        for (float& v : data) v = value(rng);
        gl::Buffer source = gl::Buffer::from(data), destination(data.size() * sizeof(float));
        destination.poison();
        copy.use();
        copy.set("count", count);
        source.bind_storage(0);
        destination.bind_storage(1);
        gl::dispatch(1);  // one group: 8192 vec4s a pass, the rest by the grid-stride loop
        gl::memory_barrier(gl::Barrier::all);
        const auto got = destination.read_all<float>();
        for (std::size_t i = 0; i < 4 * std::size_t(count); ++i)
            ASSERT_EQ(got[i], data[i]) << "count " << count << " float " << i;
        for (std::size_t i = 4 * std::size_t(count); i < got.size(); ++i)
            EXPECT_TRUE(std::isnan(got[i])) << "count " << count << " wrote float " << i;
    }
}

TEST(GlRuntime, PoisonIsNaNAndFillSetsEveryElement) {
    ADILAB_NEED_GL();
    gl::Buffer buffer(1001 * sizeof(float));
    buffer.poison();
    for (float v : buffer.read_all<float>()) ASSERT_TRUE(std::isnan(v));
    buffer.fill(2.5f);
    for (float v : buffer.read_all<float>()) ASSERT_EQ(v, 2.5f);
    gl::Buffer doubles(17 * sizeof(double));
    doubles.poison();
    for (double v : doubles.read_all<double>()) ASSERT_TRUE(std::isnan(v));
}

// test/pattern.comp into `output`: output[i] = scale i + offset for i < count (groups of 64).
const gl::Program& write_pattern(gl::Buffer& output, unsigned count, float scale, float offset) {
    const gl::Program& pattern = gl::compute_program("test/pattern.comp");
    pattern.use();
    pattern.set("count", count);
    pattern.set("scale", scale);
    pattern.set("offset", offset);
    output.bind_storage(0);
    gl::dispatch((count + 63) / 64);
    return pattern;
}

TEST(GlRuntime, ComputeShaderWritesKnownPatternThroughInclude) {
    ADILAB_NEED_GL();
    const unsigned count = 1000;  // not a multiple of the work-group size (64)
    gl::Buffer output((count + 24) * sizeof(float));
    output.poison();
    const gl::Program& pattern = write_pattern(output, count, 0.5f, 3.0f);
    gl::memory_barrier(gl::Barrier::buffer_update);
    auto values = output.read_all<float>();
    for (unsigned i = 0; i < count; ++i) ASSERT_EQ(values[i], 0.5f * i + 3.0f) << i;
    // Past `count` nothing was written: still poisoned.
    for (unsigned i = count; i < values.size(); ++i) ASSERT_TRUE(std::isnan(values[i])) << i;
    EXPECT_EQ(pattern.work_group_size().x, 64u);
}

// The two parts of a pair are buffers of their own in one allocation: every operation (a clear, an
// upload before and after one, a GPU copy, a kernel's stores through the part's binding) stays
// inside its part's bytes, at every size, and either part outlives the other.
TEST(GlRuntime, PairPartsKeepToTheirOwnBytes) {
    ADILAB_NEED_GL();
    std::mt19937 rng(77);
    std::uniform_real_distribution<float> dist(-1e3f, 1e3f);
    for (std::size_t count : {1u, 3u, 1001u, 65537u}) {
        const std::size_t bytes = count * sizeof(float);
        auto [first, second] = gl::Buffer::pair(bytes);
        ASSERT_EQ(first.id(), second.id());
        EXPECT_EQ(first.offset(), 0u);
        EXPECT_EQ(second.offset() % 256, 0u) << count;
        EXPECT_GE(second.offset(), bytes);
        EXPECT_EQ(first.size(), bytes);
        EXPECT_EQ(second.size(), bytes);
        std::vector<float> values(count), others(count);
        for (float& v : values) v = dist(rng);
        for (float& v : others) v = dist(rng);

        first.poison();
        second.fill(2.5f);
        for (float v : first.read_all<float>()) ASSERT_TRUE(std::isnan(v)) << count;
        for (float v : second.read_all<float>()) ASSERT_EQ(v, 2.5f) << count;
        first.write(values);  // after a clear: through a GPU copy (Buffer::upload)
        EXPECT_EQ(first.read_all<float>(), values) << count;
        for (float v : second.read_all<float>()) ASSERT_EQ(v, 2.5f) << count;

        second.copy_from(first, bytes);
        EXPECT_EQ(second.read_all<float>(), values) << count;
        second.write(others);
        EXPECT_EQ(second.read_all<float>(), others) << count;
        EXPECT_EQ(first.read_all<float>(), values) << count;

        const unsigned written = unsigned(count > 2 ? count - 2 : count);
        write_pattern(second, written, 0.5f, 3.0f);
        gl::memory_barrier(gl::Barrier::buffer_update);
        const auto got = second.read_all<float>();
        for (unsigned i = 0; i < written; ++i) ASSERT_EQ(got[i], 0.5f * i + 3.0f) << i;
        for (std::size_t i = written; i < count; ++i) ASSERT_EQ(got[i], others[i]) << i;
        EXPECT_EQ(first.read_all<float>(), values) << count;

        first = gl::Buffer();  // the allocation lives on in the second part
        write_pattern(second, written, -1.0f, 0.0f);
        gl::memory_barrier(gl::Barrier::buffer_update);
        EXPECT_EQ(second.read<float>(1)[0], 0.0f);
    }
    EXPECT_THROW(gl::Buffer::pair(0), Error);
}

// The queue bound keeps at most `depth` fences pending, and the work between them runs in order:
// each batch overwrites the buffer, and the last batch's pattern is what is read.
TEST(GlRuntime, QueueBoundKeepsAtMostDepthBatchesPending) {
    ADILAB_NEED_GL();
    const unsigned count = 777;
    gl::Buffer output(count * sizeof(float));
    output.poison();
    gl::QueueBound bound(2);
    for (int batch = 0; batch < 6; ++batch) {
        write_pattern(output, count, 1.0f, float(batch));
        gl::memory_barrier(gl::Barrier::storage);
        bound.mark();
        EXPECT_EQ(bound.pending(), std::min(batch + 1, 2)) << batch;
    }
    gl::memory_barrier(gl::Barrier::buffer_update);
    const auto values = output.read_all<float>();
    for (unsigned i = 0; i < count; ++i) ASSERT_EQ(values[i], float(i) + 5.0f) << i;
}

TEST(GlRuntime, ProgramsAreCachedPerDefines) {
    ADILAB_NEED_GL();
    const gl::Program& a = gl::compute_program("test/pattern.comp");
    const gl::Program& b = gl::compute_program("test/pattern.comp");
    const gl::Program& c = gl::compute_program("test/pattern.comp", {{"UNUSED_VARIANT", "1"}});
    EXPECT_EQ(&a, &b);
    EXPECT_NE(a.id(), c.id());
}

TEST(GlRuntime, CompileErrorNamesFileAndLine) {
    ADILAB_NEED_GL();
    try {
        gl::compile_compute("test/syntax_error.comp");
        FAIL() << "a shader with an undeclared variable compiled";
    } catch (const Error& e) {
        std::string message = e.what();
        EXPECT_NE(message.find("shaders/test/syntax_error.comp:6:"), std::string::npos) << message;
    }
}

TEST(GlRuntime, UnknownShaderFileIsAnError) {
    ADILAB_NEED_GL();
    EXPECT_THROW(gl::compute_program("no/such/file.comp"), Error);
}

TEST(GlRuntime, ObjectsMoveAndLeaveIdZero) {
    ADILAB_NEED_GL();
    gl::Buffer a(64);
    const gl::Id id = a.id();
    ASSERT_NE(id, 0u);
    gl::Buffer b = std::move(a);
    EXPECT_EQ(a.id(), 0u);
    EXPECT_EQ(b.id(), id);
    gl::Buffer c;
    EXPECT_EQ(c.id(), 0u);
    c = std::move(b);
    EXPECT_EQ(c.id(), id);
    EXPECT_EQ(b.id(), 0u);
    static_assert(!std::is_copy_constructible_v<gl::Buffer>);
    static_assert(!std::is_copy_assignable_v<gl::Program>);
    static_assert(std::is_nothrow_move_constructible_v<gl::Texture2D>);

    gl::Framebuffer fb(8, 4);
    gl::Framebuffer moved = std::move(fb);
    EXPECT_EQ(fb.id(), 0u);
    EXPECT_NE(moved.id(), 0u);
    gl::VertexArray vao;
    EXPECT_NE(vao.id(), 0u);
}

TEST(GlRuntime, FramebufferClearReadsBack) {
    ADILAB_NEED_GL();
    gl::Framebuffer fb(7, 5);
    fb.bind();
    gl::clear(1.0f, 0.0f, 0.0f, 1.0f);
    auto pixels = fb.read_rgba();
    ASSERT_EQ(pixels.size(), 7u * 5u * 4u);
    for (std::size_t i = 0; i < pixels.size(); i += 4) {
        ASSERT_EQ(pixels[i], 255);
        ASSERT_EQ(pixels[i + 1], 0);
    }
}

TEST(GlRuntime, TimerMeasuresPositiveTime) {
    ADILAB_NEED_GL();
    gl::Buffer big(8 << 20);
    auto samples = gl::time_runs([&] { big.fill(1.0f); }, {.warmup = 1, .repeats = 3});
    ASSERT_EQ(samples.size(), 3u);
    for (double ms : samples) EXPECT_GT(ms, 0.0);
    EXPECT_EQ(gl::median({3.0, 1.0, 2.0}), 2.0);
    EXPECT_EQ(gl::median({4.0, 1.0, 2.0, 3.0}), 2.5);
}

// The phase timestamps (gl::StampLog): each mark charges the time since the previous one to its
// phase, a collect starts over, and the queries are reused.
TEST(GlRuntime, StampLogChargesEachPhaseTheTimeSinceTheMarkBefore) {
    ADILAB_NEED_GL();
    gl::Buffer big(32 << 20);
    gl::StampLog log;
    for (int round = 0; round < 2; ++round) {
        log.mark(-1);
        big.fill(1.0f);
        log.mark(0);
        log.mark(1);  // nothing between: phase 1 gets (almost) nothing
        big.fill(2.0f);
        big.fill(3.0f);
        log.mark(0);
        log.mark(7);  // outside the phases collected: counted nowhere
        const gl::StampLog::Totals totals = log.collect(2);
        ASSERT_EQ(totals.marks, (std::vector<int>{2, 1}));
        for (double ms : totals.ms) EXPECT_GE(ms, 0.0);
        EXPECT_LT(totals.ms[0], 60'000.0);  // not a wrapped-around difference
        // Three 32 MiB fills against nothing, where the driver's timers are real.
        if (gl::Context::current().timer_queries_work()) {
            EXPECT_GT(totals.ms[0], totals.ms[1]);
        }
    }
}

}  // namespace
}  // namespace adilab

namespace adilab {
// A buffer's contents set on the GPU (a clear, a kernel's stores, a copy) and then overwritten
// from the host must reach the next kernel as the host's values: the order of GL commands,
// whatever path the driver takes for the upload. Sizes around the drivers' small-upload limits
// (64 KiB) and the heat tests' 291 x 173 field (201 KB); each buffer is fresh, as a model's are
// after reset(). Without Buffer::upload's staging after a transfer, on the H200 (run first in its
// process) the kernel read 0.25 after a clear (16385 and 50343 floats) and after a copy (those
// and 1048579 floats).
TEST(GlRuntime, UploadAfterGpuWritesReachesTheNextKernel) {
    ADILAB_NEED_GL();
    const gl::Program& copy = gl::compute_program("test/copy.comp");
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (const unsigned count : {1000u, 16385u, 291u * 173u, 1048576u + 3u}) {
        for (const char* before : {"a clear", "a kernel", "a copy"}) {
            std::vector<float> values(count);
            for (float& v : values) v = uniform(random);
            gl::Buffer field(count * sizeof(float));
            if (before == std::string("a kernel")) {
                write_pattern(field, count, 0.0f, 0.25f);
            } else if (before == std::string("a copy")) {
                gl::Buffer quarter(count * sizeof(float));
                quarter.fill(0.25f);
                field.copy_from(quarter, quarter.size());
            } else {
                field.fill(0.25f);
            }
            field.write(values);
            gl::Buffer seen(count * sizeof(float));
            seen.poison();
            copy.use();
            copy.set("count", count);
            field.bind_storage(0);
            seen.bind_storage(1);
            gl::dispatch((count + 63) / 64);
            const std::vector<float> out = seen.read_all<float>();
            unsigned wrong = 0;
            for (unsigned i = 0; i < count; ++i) wrong += out[i] != values[i];
            EXPECT_EQ(wrong, 0u) << count << " floats, set before by " << before << "; out[0] "
                                 << out[0] << " against " << values[0];
        }
    }
}
}  // namespace adilab
