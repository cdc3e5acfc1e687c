// The soak's verdict and tolerance (app/bench/soak.hpp) on made-up outcomes: what makes
// `adilab --bench soak` exit 1, without a GPU or a 20,000-step run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/bench/soak.hpp"

namespace adilab::bench::soak {
namespace {

TEST(SoakVerdict, TheToleranceIsTheRoundOffOfTheSteps) {
    // steps 2^-24 (1 + W) (max / mean) / sqrt(cells): the defaults' figure in soak.cpp.
    EXPECT_NEAR(total_tolerance(20000, 2.0, 1.3, 128 * 128), 3.63e-5, 0.01e-5);
    // Linear in the steps and in 1 + W, down with sqrt(cells).
    EXPECT_DOUBLE_EQ(total_tolerance(2000, 9.0, 1.0, 64), 2000 * std::ldexp(1.0, -24) * 10 / 8);
}

TEST(SoakVerdict, UnstableOrDriftingScenariosFailNamingWhy) {
    Outcome ok{"heat/free", true, -1, "", false, 1e-7, 3.6e-5};
    EXPECT_EQ(verdict(ok), "");

    Outcome drift = ok;
    drift.relative_change = 4e-4;
    const std::string lost = verdict(drift);
    EXPECT_NE(lost.find("heat/free lost its total"), std::string::npos) << lost;
    EXPECT_NE(lost.find("0.0004"), std::string::npos) << lost;
    EXPECT_NE(lost.find("3.6e-05"), std::string::npos) << lost;

    Outcome nan = ok;
    nan.relative_change = NAN;  // a total that became NaN is not "within" anything
    EXPECT_NE(verdict(nan), "");

    Outcome unstable{"shallow-water/drops", false, 1234, "h became NaN or infinite", true, NAN, 0};
    EXPECT_EQ(verdict(unstable),
              "shallow-water/drops went unstable at step 1234: h became NaN or infinite");

    Outcome sourced{"advection/river", true, -1, "", true, 0.5, 0};  // its total grows by design
    EXPECT_EQ(verdict(sourced), "");
}

TEST(SoakVerdict, ResidentMemoryIsRead) {
    const std::int64_t bytes = resident_bytes();
    EXPECT_GT(bytes, 1 << 20);  // a test binary holds more than a MiB
}

}  // namespace
}  // namespace adilab::bench::soak
