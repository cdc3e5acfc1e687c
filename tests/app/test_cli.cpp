// The adilab executable end to end: help, info, bad input, reports.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"

namespace adilab::test {
namespace {

TEST(Cli, HelpDocumentsEveryModeAndBenchmark) {
    auto r = run_adilab("--help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const char* text : {"--info", "--bench", "--report", "--frames", "--screenshot", "--gpu",
                             "--version", "bandwidth"})
        EXPECT_NE(r.output.find(text), std::string::npos) << text;
}

TEST(Cli, VersionPrintsVersion) {
    auto r = run_adilab("--version");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.output.rfind("adilab ", 0), 0u) << r.output;
}

TEST(Cli, UnknownOptionExitsTwoNamingIt) {
    auto r = run_adilab("--frobnicate");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("--frobnicate"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("usage: adilab"), std::string::npos) << r.output;
}

TEST(Cli, BadValuesExitTwoNamingTheOption) {
    for (const char* args : {"--frames abc", "--bench bandwidth --mib 0", "--bench nope",
                             "--bench bandwidth --frames 3", "--bench", "--screenshot a.png"}) {
        auto r = run_adilab(args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("usage"), std::string::npos) << args;
    }
    auto r = run_adilab("--bench nope");
    EXPECT_NE(r.output.find("unknown benchmark 'nope'"), std::string::npos) << r.output;
}

TEST(Cli, InfoPrintsDeviceAndLimitsHeadless) {
    ADILAB_NEED_GL();
    auto r = run_command(std::string("env -u DISPLAY '") + ADILAB_EXE + "' --info");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* key :
         {"vendor:", "renderer:", "gl_version:", "work_group_invocations:", "shared_memory_bytes:",
          "max_ssbo_bytes:", "fp64:", "subgroups:", "EGL devices:"})
        EXPECT_NE(r.output.find(key), std::string::npos) << key << "\n" << r.output;
    auto bad = run_adilab("--info --gpu 63");
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.output.find("--gpu 63"), std::string::npos) << bad.output;
}

TEST(Cli, BenchWritesJsonAndCsvReports) {
    ADILAB_NEED_GL();
    std::string dir = temp_folder("cli-report");
    auto r = run_adilab("--bench bandwidth --mib 1,2 --repeats 2 --report " + dir + "/b.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string json = read_text(dir + "/b.json");
    for (const char* key :
         {"\"tool\": \"adilab\"", "\"benchmark\": \"bandwidth\"", "\"created\"", "\"renderer\"",
          "\"config\": {\"bench\": \"bandwidth\", \"mib\": \"1,2\"", "\"name\": \"gl-copy-vec4\"",
          "\"median_ms\""})
        EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
    r = run_adilab("--bench bandwidth --mib 1 --repeats 2 --report " + dir + "/b.csv");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string csv = read_text(dir + "/b.csv");
    EXPECT_EQ(csv.rfind("name,mib,min_ms,median_ms,max_ms,unstable,gb_per_s\ngl-copy-vec4,1,", 0),
              0u)
        << csv;
}

TEST(Cli, UnwritableReportFailsBeforeWork) {
    auto r = run_adilab("--bench bandwidth --mib 1 --report /nonexistent-folder/r.json");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("/nonexistent-folder"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("gl-copy-vec4"), std::string::npos) << "work ran before the check";
    r = run_adilab("--bench bandwidth --mib 1 --report out.txt");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find(".json or .csv"), std::string::npos) << r.output;
}

TEST(Cli, GuiWithoutDisplayPointsToHeadlessModes) {
    auto r = run_command(std::string("env -u DISPLAY -u WAYLAND_DISPLAY '") + ADILAB_EXE +
                         "' --frames 1");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--bench"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace adilab::test
