#include <gtest/gtest.h>

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
    for (const char* key : {"\"tool\": \"adilab\"", "\"benchmark\": \"demo\"", "\"created\": \"",
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
    for (auto& e : std::filesystem::directory_iterator(dir)) files += e.path().filename() == "r.csv" ? 0 : 1;
    EXPECT_EQ(files, 0);
    std::filesystem::remove_all(dir);
}

TEST(Report, TableAlignsAndShowsMissingAsDash) {
    std::string table = format_table(sample().rows, {{"name"}, {"median_ms", "ms", 2}});
    EXPECT_EQ(table, " name    ms\nalpha  1.50\nbe,ta     -\n");
}

}  // namespace
}  // namespace adilab::bench
