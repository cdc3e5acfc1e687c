#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/bench/report.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::bench {
namespace {

Report sample() {
    gl::DeviceInfo device;
    device.vendor = "V";
    device.renderer = "R \"quoted\"";
    device.version = "4.6";
    Report r = make_report("demo", device);
    r.config.push_back({"sizes", Value(std::string("1,2"))});
    Row a;
    a.set("name", "alpha").set("n", 3).set("median_ms", 1.5);
    Row b;
    b.set("name", "be,ta").set("median_ms", std::nan("")).set("extra", true);
    r.rows = {a, b};
    return r;
}

std::string read(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

TEST(Report, JsonHasTheSharedShape) {
    std::string json = to_json(sample());
    for (const char* key :
         {"\"tool\": \"adilab\"", "\"benchmark\": \"demo\"", "\"created\": \"",
          "\"device\": {\"vendor\": \"V\"", "\\\"quoted\\\"", "\"config\": {\"sizes\": \"1,2\"}",
          "\"name\": \"alpha\"", "\"median_ms\": 1.5", "\"median_ms\": null"})
        EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
    EXPECT_EQ(sample().created.size(), 20u);  // 2026-11-21T05:00:00Z
}

TEST(Report, CsvHasHeaderUnionAndQuotes) {
    std::string csv = to_csv(sample());
    EXPECT_EQ(csv, "name,n,median_ms,extra\nalpha,3,1.5,\n\"be,ta\",,,yes\n");
}

TEST(Report, PathChecksComeBeforeWork) {
    auto dir = std::filesystem::temp_directory_path() / "adilab-report-test";
    std::filesystem::create_directories(dir);
    EXPECT_THROW(check_report_path(dir / "r.txt"), Error);
    EXPECT_THROW(check_report_path(dir / "missing" / "r.json"), Error);
    EXPECT_NO_THROW(check_report_path(dir / "r.json"));
    write_report(sample(), dir / "r.csv");
    EXPECT_EQ(read(dir / "r.csv"), to_csv(sample()));
    // No temporary file is left behind.
    int files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir))
        files += e.path().filename() == "r.csv" ? 0 : 1;
    EXPECT_EQ(files, 0);
    std::filesystem::remove_all(dir);
}

TEST(Report, TableAlignsAndShowsMissingAsDash) {
    std::string table = format_table(sample().rows, {{"name"}, {"median_ms", "ms", 2}});
    EXPECT_EQ(table, " name    ms\nalpha  1.50\nbe,ta     -\n");
}

TEST(Report, TimingKeepsMinMedianMaxAndFlagsAWideSpreadOnlyIfItStays) {
    const Timing t = timing_of({3.0, 1.0, 2.0, 4.0});
    EXPECT_EQ(t.min_ms, 1.0);
    EXPECT_EQ(t.median_ms, 2.5);
    EXPECT_EQ(t.max_ms, 4.0);
    int calls = 0, warmed = 0;
    // Steady repeats: measured once, not flagged.
    Timing steady = measure_stable(
        [&] {
            ++calls;
            return std::vector<double>{1.0, 1.05};
        },
        [&] { ++warmed; });
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(warmed, 0);
    EXPECT_FALSE(steady.unstable);
    // Wide, then steady after more warm-up: the second set counts, not flagged.
    calls = 0;
    Timing settled = measure_stable(
        [&] {
            return ++calls == 1 ? std::vector<double>{1.0, 4.0} : std::vector<double>{1.0, 1.02};
        },
        [&] { ++warmed; });
    EXPECT_EQ(warmed, 1);
    EXPECT_FALSE(settled.unstable);
    EXPECT_EQ(settled.max_ms, 1.02);
    // Wide twice: flagged, and the report says so in a note.
    Timing wide = measure_stable([&] { return std::vector<double>{1.0, 1.5}; }, {});
    EXPECT_TRUE(wide.unstable);
    Report r = sample();
    Row row;
    row.set("name", "gamma").set("n", 5);
    set_timing(row, wide);
    r.rows.push_back(row);
    note_unstable_rows(r);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("unstable: gamma 5"), std::string::npos) << r.notes[0];
    EXPECT_NE(
        to_json(r).find("\"min_ms\": 1, \"median_ms\": 1.25, \"max_ms\": 1.5, \"unstable\": true"),
        std::string::npos);
}

TEST(Report, ReadsItsJsonBackAndComparesMatchingRows) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("adilab-compare-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    Report old = sample();
    old.rows[0].set("tune.x", 1);  // tuning is not part of a row's identity
    write_report(old, dir / "old.json");
    const Report back = read_report(dir / "old.json");
    EXPECT_EQ(back.benchmark, "demo");
    ASSERT_EQ(back.rows.size(), 2u);
    EXPECT_EQ(back.rows[0].number("n"), 3);
    EXPECT_EQ(back.rows[0].number("median_ms"), 1.5);
    EXPECT_EQ(back.rows[1].text("name"), "be,ta");
    Report now = sample();
    now.rows[0].set("median_ms", 0.75);
    Row extra;
    extra.set("name", "alpha").set("n", 4).set("median_ms", 1.0);  // another size: no match
    now.rows.push_back(extra);
    const std::string text = compare_reports(now, back);
    EXPECT_NE(text.find("0.500"), std::string::npos) << text;
    EXPECT_NE(text.find("no match"), std::string::npos) << text;
    std::ofstream(dir / "bad.json") << "{\"rows\": [";
    EXPECT_THROW(read_report(dir / "bad.json"), Error);
    EXPECT_THROW(read_report(dir / "missing.json"), Error);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace adilab::bench
