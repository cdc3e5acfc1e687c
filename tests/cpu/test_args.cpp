#include <gtest/gtest.h>

#include "app/cli/args.hpp"

namespace adilab::cli {
namespace {

const std::vector<OptionSpec> kKnown = {
    {"info", "", "flag"},
    {"sizes", "LIST", "list"},
    {"steps", "N", "int"},
    {"set", "K=V", "repeat", true},
};

TEST(Args, ParsesValuesFlagsAndEqualsForm) {
    Args a = Args::parse(
        {"--info", "--sizes", "1,2,3", "--steps=7", "--set", "a=1", "--set", "b=2"}, kKnown);
    EXPECT_TRUE(a.has("info"));
    EXPECT_EQ(a.get_int_list("sizes", {}, 1, 10), (std::vector<long long>{1, 2, 3}));
    EXPECT_EQ(a.get_int("steps", 0, 0, 100), 7);
    EXPECT_EQ(a.all("set"), (std::vector<std::string>{"a=1", "b=2"}));
    EXPECT_EQ(a.given().size(), 5u);
}

TEST(Args, RejectsUnknownMissingAndRepeated) {
    EXPECT_THROW(Args::parse({"--nope"}, kKnown), UsageError);
    EXPECT_THROW(Args::parse({"--steps"}, kKnown), UsageError);
    EXPECT_THROW(Args::parse({"--info=1"}, kKnown), UsageError);
    EXPECT_THROW(Args::parse({"--steps", "1", "--steps", "2"}, kKnown), UsageError);
    EXPECT_THROW(Args::parse({"positional"}, kKnown), UsageError);
}

TEST(Args, TypedGettersNameTheOptionOnBadValues) {
    Args a = Args::parse({"--steps", "12x", "--sizes", "4,-1"}, kKnown);
    try {
        a.get_int("steps", 0, 0, 100);
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--steps"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("12x"), std::string::npos);
    }
    EXPECT_THROW(a.get_int_list("sizes", {}, 1, 10), UsageError);
    Args b = Args::parse({"--steps", "1000"}, kKnown);
    EXPECT_THROW(b.get_int("steps", 0, 0, 100), UsageError);
    EXPECT_EQ(b.get_int("missing", 42, 0, 100), 42);
}

TEST(Args, SplitListDropsEmptyPieces) {
    EXPECT_EQ(split_list("a,,b,"), (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(split_list("").empty());
}

}  // namespace
}  // namespace adilab::cli
