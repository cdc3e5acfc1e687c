// `adilab --bench matmul` end to end at tiny sizes: report fields, the paper tables, skipped CPU
// baselines, and the bad-input messages that come before any work.
#include <gtest/gtest.h>

#include <regex>

#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"

namespace adilab::test {
namespace {

TEST(MatmulBench, WritesEveryFieldAndThePaperTables) {
    ADILAB_NEED_GL();
    const std::string dir = temp_folder("matmul-bench");
    auto r =
        run_adilab("--bench matmul --sizes 8,33 --shapes 5x17x9 --impl all --repeats 2 --report " +
                   dir + "/m.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* text : {"Table 1 of the OpenGL matmul paper", "Table 1 of Kwon & Lee", "CPU1",
                             "CPU2", "CPGPU", "gpu-tiled32", "gpu-fast", "cpu-blocked"})
        EXPECT_NE(r.output.find(text), std::string::npos) << text << "\n" << r.output;
    const std::string json = read_text(dir + "/m.json");
    for (const char* key :
         {"\"name\"", "\"m\"", "\"n\"", "\"l\"", "\"median_ms\"", "\"median_ms_with_transfer\"",
          "\"gflops\"", "\"speedup_vs_cpu\"", "\"max_rel_error\"", "\"g\"", "\"tiles\""})
        EXPECT_NE(json.find(key), std::string::npos) << key;
    // 6 variants x 3 shapes, each within its fp32 bound (the bench notes any that is not).
    std::regex error_re("\"max_rel_error\": ([^,}]+), \"error_bound\": ([^,}]+)");
    int rows = 0;
    for (auto it = std::sregex_iterator(json.begin(), json.end(), error_re);
         it != std::sregex_iterator(); ++it) {
        ++rows;
        EXPECT_LE(std::stod((*it)[1]), std::stod((*it)[2])) << (*it)[0];
    }
    EXPECT_EQ(rows, 18) << json;
    EXPECT_EQ(r.output.find("exceeds the fp32 bound"), std::string::npos) << r.output;
}

TEST(MatmulBench, SkipsCpuBaselinesAboveCpuMax) {
    ADILAB_NEED_GL();
    auto r =
        run_adilab("--bench matmul --sizes 4,16 --impl cpu-ijk,gpu-fast --cpu-max 8 --repeats 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("cpu-ijk skipped at 16x16x16 (above --cpu-max 8)"), std::string::npos)
        << r.output;
}

TEST(MatmulBench, BadInputFailsBeforeWork) {
    struct Case {
        const char* args;
        int exit_code;
        const char* message;
    };
    for (const Case& c :
         {Case{"--sizes 0", 2, "--sizes"}, Case{"--sizes -4", 2, "--sizes"},
          Case{"--impl gpu-fastest", 2, "'gpu-fastest'"}, Case{"--shapes 3x4", 2, "--shapes"},
          Case{"--shapes 3x0x4", 2, "--shapes"}, Case{"--tiles abc", 2, "--tiles"},
          Case{"--sizes 60000 --impl gpu-fast", 1, "60000x60000x60000"},
          Case{"--tiles 100x128x8x8x8", 1, "100x128x8x8x8"}}) {
        auto r = run_adilab(std::string("--bench matmul ") + c.args);
        if (c.exit_code == 1 && r.output.find("no GL") != std::string::npos)
            continue;  // needs a context
        EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
        EXPECT_EQ(r.output.find("GFLOPS"), std::string::npos)
            << "work ran before the check: " << c.args;
    }
}

}  // namespace
}  // namespace adilab::test
