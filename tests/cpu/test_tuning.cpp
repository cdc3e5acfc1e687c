#include <gtest/gtest.h>

#include <functional>

#include "app/bench/tuning.hpp"

namespace adilab::bench {
namespace {

struct Knobs {
    int rows = 4, flag = 0;
};

std::vector<TuningField> fields(Knobs& k) {
    return {{"rows", "rows per block", &k.rows, 1, 16}, {"flag", "a switch", &k.flag, 0, 1}};
}

cli::Args parse(const std::vector<std::string>& tokens) {
    return cli::Args::parse(tokens, {tune_option("")});
}

std::string usage_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const cli::UsageError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Tuning, AppliesOnlyItsFamilyAndRecordsEveryField) {
    auto tune = tuning_assignments(parse({"--tune", "demo.rows=8", "--tune", "other.x=3"}),
                                   {"demo", "other"});
    Knobs k;
    apply_tuning(tune, "demo", fields(k));
    EXPECT_EQ(k.rows, 8);
    EXPECT_EQ(k.flag, 0);
    Row row;
    record_tuning(row, "demo", fields(k));
    EXPECT_EQ(row.number("demo.rows"), 8);
    EXPECT_EQ(row.number("demo.flag"), 0);
}

TEST(Tuning, BadAssignmentsNameTheFieldAndItsRange) {
    Knobs k;
    EXPECT_NE(usage_error([&] {
                  apply_tuning({"demo.rows=17"}, "demo", fields(k));
              }).find("demo.rows must lie in 1..16"),
              std::string::npos);
    EXPECT_NE(usage_error([&] {
                  apply_tuning({"demo.rows=x"}, "demo", fields(k));
              }).find("integer in 1..16"),
              std::string::npos);
    EXPECT_NE(usage_error([&] {
                  apply_tuning({"demo.cols=1"}, "demo", fields(k));
              }).find("no field 'cols' (fields: rows, flag)"),
              std::string::npos);
    EXPECT_EQ(k.rows, 4);
    EXPECT_NE(usage_error([&] {
                  tuning_assignments(parse({"--tune", "demo.rows"}), {"demo"});
              }).find("FAMILY.FIELD=VALUE"),
              std::string::npos);
    EXPECT_NE(usage_error([&] {
                  tuning_assignments(parse({"--tune", "lu.rows=2"}), {"demo"});
              }).find("unknown family 'lu'"),
              std::string::npos);
}

TEST(Tuning, DescribeListsEachFieldWithItsRange) {
    Knobs k;
    const std::string text = describe_tuning("demo", fields(k));
    EXPECT_NE(text.find("demo.rows (1..16): rows per block"), std::string::npos);
    EXPECT_NE(text.find("demo.flag (0..1): a switch"), std::string::npos);
}

}  // namespace
}  // namespace adilab::bench
