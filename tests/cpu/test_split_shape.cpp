// The split solve's shape (solvers/tridiagonal/split.hpp): its spans and coarse blocks cover
// every line length, and shapes it cannot run are refused with the reason.
#include <gtest/gtest.h>

#include <string>

#include "solvers/gl/error.hpp"
#include "solvers/tridiagonal/split.hpp"

namespace adilab::tridiag {
namespace {

TEST(SplitShape, SpansAndCoarseBlocksCoverEveryLength) {
    for (int chunk : {2, 3, 8, 16, 32})
        for (int warps : {1, 4, 8, 32})
            for (int length : {1, 2, 31, 32, 33, 1000, 4096, 8192}) {
                if (2 * length / (chunk * warps) > 128 * 32) continue;  // refused (next test)
                const SplitShape s = split_shape(length, chunk, warps);
                EXPECT_GE(s.spans * chunk * warps, length);
                EXPECT_LT((s.spans - 1) * chunk * warps, length);
                EXPECT_GE(s.coarse_block * s.coarse_warps, 2 * s.spans);
                EXPECT_LE(s.coarse_warps, 32);
                EXPECT_GE(s.coarse_block, 2);
                EXPECT_EQ(split_coarse_bytes(s, 100), std::size_t(2) * s.spans * 100 * 16);
            }
}

TEST(SplitShape, RefusesChunksWarpsAndLinesItCannotRun) {
    auto message = [](int length, int chunk, int warps) -> std::string {
        try {
            split_shape(length, chunk, warps);
        } catch (const Error& e) {
            return e.what();
        }
        return "(accepted)";
    };
    EXPECT_NE(message(100, 1, 4).find("1 unknowns per invocation"), std::string::npos);
    EXPECT_NE(message(100, 33, 4).find("33 unknowns per invocation"), std::string::npos);
    EXPECT_NE(message(100, 8, 0).find("0 chunks per work group"), std::string::npos);
    EXPECT_NE(message(100, 8, 33).find("33 chunks per work group"), std::string::npos);
    // Chunks of 2, one a work group: 8192 coarse rows for 8192 unknowns, past 32 blocks of 128.
    EXPECT_NE(message(8192, 2, 1).find("8192 unknowns"), std::string::npos);
}

}  // namespace
}  // namespace adilab::tridiag
