// The capacity check's messages (solvers/gl/capacity.hpp) with fake device limits: a software
// renderer's 128 MiB storage block cannot be lowered on the machine that runs the tests, so the
// refusals of a small GPU are checked here on plain structs, and end to end on llvmpipe in
// tests/app/test_bad_input.cpp (BadInput.SizesTheGpuCannotHold...).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "solvers/gl/capacity.hpp"
#include "solvers/gl/context.hpp"
#include "solvers/lu/lu.hpp"
#include "solvers/matmul/matmul.hpp"
#include "solvers/power/power.hpp"

namespace adilab::gl {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

Limits small_gpu() {
    Limits limits;
    limits.max_block_bytes = 128 * kMiB;
    limits.free_bytes = std::int64_t(512 * kMiB);
    limits.device = "Fake GPU 9000";
    return limits;
}

void expect_has(const std::string& text, const std::vector<std::string>& parts) {
    for (const std::string& part : parts)
        EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

TEST(Capacity, BuffersThatFitAreAccepted) {
    const BufferNeed needs[] = {{"heat's T field", 128 * kMiB}, {"heat's half-step T", 128 * kMiB}};
    EXPECT_EQ(capacity_problem(needs, small_gpu()), "");  // at the limit, not over it
    EXPECT_NO_THROW(check_buffers_fit(needs, small_gpu()));
    // A driver that tells nothing refuses nothing (the gl::Buffer constructor is the last check).
    const BufferNeed huge[] = {{"anything", std::uint64_t{1} << 50}};
    EXPECT_EQ(capacity_problem(huge, Limits{}), "");
}

TEST(Capacity, ABufferOverTheStorageBlockIsNamedWithItsSizeAndTheLimit) {
    const BufferNeed needs[] = {{"heat's T field", 64 * kMiB},
                                {"the LU panel scratch", 128 * kMiB + 1},
                                {"the LU matrix", 256 * kMiB}};
    const std::string problem = capacity_problem(needs, small_gpu());
    // The first one over the limit, in the caller's order, with its size both ways, and the limit.
    expect_has(problem, {"the GPU cannot hold the LU panel scratch", "128.0 MiB (134217729 bytes)",
                         "largest storage buffer is 128.0 MiB", "GL_MAX_SHADER_STORAGE_BLOCK_SIZE",
                         "Fake GPU 9000"});
    EXPECT_EQ(problem.find("heat's T field"), std::string::npos) << problem;
    EXPECT_EQ(problem.find("the LU matrix"), std::string::npos) << problem;
    try {
        check_buffers_fit(needs, small_gpu());
        ADD_FAILURE() << "accepted";
    } catch (const CapacityError& e) {
        EXPECT_EQ(std::string(e.what()), problem);
    }
}

TEST(Capacity, BuffersOverTheFreeMemoryTogetherAreListedWithTheTotal) {
    // Each fits one block; together they exceed the 512 MiB the driver reports free.
    const BufferNeed needs[] = {{"shallow-water's h field", 110 * kMiB},
                                {"shallow-water's bottom b", 110 * kMiB},
                                {"shallow-water's v field", 110 * kMiB},
                                {"shallow-water's x-sweep result", 110 * kMiB},
                                {"shallow-water's y-sweep height", 110 * kMiB},
                                {"shallow-water's mean velocity", 4}};
    const std::string problem = capacity_problem(needs, small_gpu());
    expect_has(problem,
               {"shallow-water's h field (110.0 MiB)", "shallow-water's mean velocity (4 bytes)",
                "550.0 MiB in all", "512.0 MiB free", "Fake GPU 9000"});
    Limits unknown_free = small_gpu();
    unknown_free.free_bytes = -1;
    EXPECT_EQ(capacity_problem(needs, unknown_free), "");
}

TEST(Capacity, SizesSaturateInsteadOfWrapping) {
    constexpr std::uint64_t kMost = std::numeric_limits<std::uint64_t>::max();
    EXPECT_EQ(bytes_of(std::uint64_t{1} << 32, std::uint64_t{1} << 32), kMost);  // 2^64 wraps to 0
    EXPECT_EQ(bytes_of(3, 4), 12u);
    EXPECT_EQ(bytes_of(0, kMost), 0u);
    // A sum of buffers past 2^64 must not wrap below the free memory either.
    const BufferNeed needs[] = {{"a", kMost}, {"b", kMost}};
    Limits no_block = small_gpu();
    no_block.max_block_bytes = 0;
    EXPECT_NE(capacity_problem(needs, no_block), "");
    EXPECT_EQ(format_bytes(17), "17 bytes");
    EXPECT_EQ(format_bytes(1536), "1.5 KiB");
    EXPECT_EQ(format_bytes(3 * (std::uint64_t{1} << 40)), "3.0 TiB");
}

// The lists the solvers give name their buffers in the problem's words.
TEST(Capacity, SolversNameTheirBuffers) {
    // The coordinate file: 5e7 rows and one entry need a 200 MB row pointer.
    std::string problem = capacity_problem(power::buffer_needs(50'000'000, 1), small_gpu());
    expect_has(problem, {"the CSR row offsets (50000000 + 1 ints)", "190.7 MiB (200000004 bytes)"});
    // 2e9 x 2e9 floats is 1.6e19 bytes: below 2^64, named exactly.
    problem = capacity_problem(lu::buffer_needs(2'000'000'000, 64), small_gpu());
    expect_has(problem,
               {"the LU matrix (2000000000 x 2000000000 floats)", "16000000000000000000 bytes"});
    // gpu-blocked's panel scratch alone: nb x n floats, the matrix itself fitting.
    const BufferNeed* scratch = nullptr;
    const auto needs = lu::buffer_needs(4096, 128);
    for (const BufferNeed& need : needs)
        if (need.name.find("panel scratch") != std::string::npos) scratch = &need;
    ASSERT_NE(scratch, nullptr);
    EXPECT_EQ(scratch->bytes, 128u * 4096u * 4u);

    DeviceInfo device;
    device.max_storage_block_bytes = std::int64_t(128 * kMiB);
    device.renderer = "Fake GPU 9000";
    try {
        matmul::check_shape({6000, 6000, 100}, true, device);
        ADD_FAILURE() << "accepted";
    } catch (const CapacityError& e) {
        expect_has(e.what(), {"matmul size 6000x6000x100", "matrix A (6000 x 6000 floats)",
                              "137.3 MiB", "128.0 MiB", "Fake GPU 9000"});
    }
}

}  // namespace
}  // namespace adilab::gl
