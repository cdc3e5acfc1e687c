#pragma once
// The check shared by the tridiag and sim bench tests: every row quotes its effective bandwidth
// against the run's roof (app/bench/benchmark.hpp, measure_roof), and the report says so.
#include <gtest/gtest.h>

#include <cmath>

#include "app/bench/report.hpp"

namespace adilab::test {

inline void expect_rows_against_the_roof(const bench::Report& report) {
    ASSERT_FALSE(report.rows.empty());
    bool noted = false;
    for (const std::string& note : report.notes) noted = noted || note.starts_with("roof: ");
    EXPECT_TRUE(noted) << "no roof note";
    for (const bench::Row& row : report.rows) {
        const double roof = row.number("roof_gb_per_s"), pct = row.number("pct_of_roof");
        const double gb = row.number("gb_per_s");
        ASSERT_TRUE(roof > 0 && std::isfinite(roof)) << row.text("name");
        ASSERT_TRUE(gb > 0 && std::isfinite(gb)) << row.text("name");
        // The report writes 9 significant digits: each of the three values is within 5e-9 of
        // what was computed.
        EXPECT_NEAR(pct, 100.0 * gb / roof, 2e-8 * pct) << row.text("name");
    }
}

}  // namespace adilab::test
