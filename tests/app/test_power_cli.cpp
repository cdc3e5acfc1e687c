// `adilab --bench power` end to end: bad input is refused before any work with the right exit
// code and a message naming the problem; a small run writes a report with the promised fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/gl_environment.hpp"
#include "tests/support/process.hpp"

namespace adilab::test {
namespace {

TEST(PowerCli, BadInputExitsWithAMessage) {
    ADILAB_NEED_GL();
    struct Case {
        std::string args;
        int exit_code;
        std::string says;
    };
    const std::string folder = temp_folder("adilab_power_cli");
    const std::string bad_mtx = folder + "/bad.mtx";
    std::ofstream(bad_mtx)
        << "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 2\n";
    const std::vector<Case> cases = {
        {"--variant gpu-fastest", 2, "unknown variant 'gpu-fastest'"},
        {"--rows 10 --nnz-per-row 20", 2, "exceeds --rows"},
        {"--rows 0", 2, "--rows"},
        {"--layout diagonal", 2, "--layout"},
        {"--tune power.threads_per_row=3", 2, "power of two"},
        {"--tune power.stream_chunk=300", 2, "multiple of 256"},
        {"--tune power.x_block_gobs=3", 2, "power.x_block_gobs must be 0 or a power of two"},
        {"--tune power.x_block_gobs=64", 2, "power.x_block_gobs must lie in 0..32"},
        {"--tune power.flag_lag=17", 2, "power.flag_lag must lie in 0..16"},
        {"--tune power.flush_every=0", 2, "power.flush_every"},
        {"--tune power.step3_pairs=2", 2, "power has no field 'step3_pairs'"},
        {"--tune lu.panel_rows=64", 2, "unknown family 'lu'"},
        {"--flag-lag 1", 2, "--flag-lag"},
        {"--mtx " + folder + "/missing.mtx", 2, "no such file"},
        {"--mtx " + bad_mtx + " --rows 5", 2, "--mtx takes its size"},
        {"--mtx " + bad_mtx, 2, bad_mtx + ":4: row index 4 is out of range 1..3"},
        {"--rows 2000000000 --nnz-per-row 1000", 1, "2^31 - 1 nonzeros"},
        {"--rows 100,200 --vector " + folder + "/x.txt", 2, "--vector writes one eigenvector"},
        {"--rows 100 --variant host --vector /no/such/folder/x.txt", 2, "does not exist"},
    };
    for (const Case& c : cases) {
        auto r = run_adilab("--bench power " + c.args);
        EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
    }
}

TEST(PowerCli, SmallRunWritesTheReport) {
    ADILAB_NEED_GL();
    const std::string folder = temp_folder("adilab_power_report");
    const std::string report = folder + "/power.json";
    auto r = run_adilab(
        "--bench power --rows 300 --nnz-per-row 4 --variant host,gpu-opt "
        "--repeats 1 --tune power.key_slots=4 --report " +
        report);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream f(report);
    std::stringstream s;
    s << f.rdbuf();
    const std::string json = s.str();
    for (const char* key : {"\"name\": \"host\"", "\"name\": \"gpu-opt\"", "\"iterations\"",
                            "\"lambda\"", "\"residual\"", "\"ms_per_iteration\"", "\"median_ms\"",
                            "\"speedup_vs_host\"", "\"spmv_ms\"", "\"max_ms\"", "\"newx_stop_ms\"",
                            "\"converged\": true", "\"name\": \"spmv\"",
                            // The complete tuning that ran, on every GPU row, the --tune included.
                            "\"power.key_slots\": 4", "\"power.flag_lag\": 1",
                            "power.threads_per_row=0 power.stream_chunk=1024"})
        EXPECT_NE(json.find(key), std::string::npos) << key;
    EXPECT_NE(r.output.find("Speed-up over host"), std::string::npos) << r.output;

    // The eigenvector on request, one line per entry: a random positive matrix has a positive
    // Perron vector, and the max normalisation makes its largest entry exactly 1.
    const std::string vector = folder + "/x.txt";
    auto v = run_adilab(
        "--bench power --rows 50 --nnz-per-row 4 --variant gpu-opt --repeats 1 "
        "--vector " +
        vector);
    ASSERT_EQ(v.exit_code, 0) << v.output;
    std::ifstream vf(vector);
    std::vector<double> x;
    for (double value; vf >> value;) x.push_back(value);
    ASSERT_EQ(x.size(), 50u);
    EXPECT_EQ(*std::max_element(x.begin(), x.end()), 1.0);
    EXPECT_GT(*std::min_element(x.begin(), x.end()), 0.0);

    // A Matrix Market file as the matrix, and as a PageRank graph.
    const std::string mtx = folder + "/cycle.mtx";
    std::ofstream(mtx)
        << "%%MatrixMarket matrix coordinate pattern general\n4 4 5\n1 2\n2 3\n3 4\n4 1\n1 3\n";
    auto m =
        run_adilab("--bench power --mtx " + mtx + " --pagerank --variant host,gpu-opt --repeats 1");
    EXPECT_EQ(m.exit_code, 0) << m.output;
    EXPECT_NE(m.output.find("cycle.mtx"), std::string::npos) << m.output;
}

}  // namespace
}  // namespace adilab::test
