// The Matrix Market reader: every supported header, symmetric expansion, the conversions, and a
// message naming the file and line for each kind of malformed input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "solvers/common/matrix_market.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::mm {
namespace {

class MatrixMarketFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        folder_ = std::filesystem::temp_directory_path() /
                  ("adilab_mm_" + std::to_string(std::random_device{}()));
        std::filesystem::create_directories(folder_);
    }
    void TearDown() override { std::filesystem::remove_all(folder_); }

    std::filesystem::path write(const std::string& name, const std::string& text) {
        auto path = folder_ / name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    // The message of the adilab::Error reading `text` throws ("" if it does not throw).
    std::string error_of(const std::string& text) {
        auto path = write("bad.mtx", text);
        try {
            read(path);
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    }
    std::string where(int line) {
        return (folder_ / "bad.mtx").string() + ":" + std::to_string(line) + ": ";
    }

    std::filesystem::path folder_;
};

TEST_F(MatrixMarketFiles, CoordinateRealGeneral) {
    auto path = write("a.mtx",
                      "%%MatrixMarket matrix coordinate real general\n"
                      "% a comment\n"
                      "\n"
                      "3 4 4\n"
                      "1 1 1.5\n"
                      "3 4 -2e-3\n"
                      "2 2 +7\n"
                      "1 1 0.5\n");  // a duplicate: conversions add it
    Matrix m = read(path);
    EXPECT_EQ(m.rows, 3);
    EXPECT_EQ(m.cols, 4);
    EXPECT_EQ(m.format, Format::coordinate);
    ASSERT_EQ(m.entries.size(), 4u);
    EXPECT_EQ(m.entries[1].row, 2);
    EXPECT_EQ(m.entries[1].col, 3);
    EXPECT_DOUBLE_EQ(m.entries[1].value, -2e-3);
    auto dense = to_dense_row_major(m);
    ASSERT_EQ(dense.size(), 12u);
    EXPECT_DOUBLE_EQ(dense[0], 2.0);
    EXPECT_DOUBLE_EQ(dense[1 * 4 + 1], 7.0);
    EXPECT_DOUBLE_EQ(dense[2 * 4 + 3], -2e-3);
    CsrMatrix csr = to_csr(m);
    EXPECT_EQ(csr.rows, 3);
    EXPECT_EQ(csr.cols, 4);
    EXPECT_EQ(csr.row_offsets, (std::vector<std::int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(csr.columns, (std::vector<std::int32_t>{0, 1, 3}));
    EXPECT_EQ(csr.values, (std::vector<double>{2.0, 7.0, -2e-3}));
}

TEST_F(MatrixMarketFiles, SymmetricIntegerIsExpanded) {
    auto path = write("s.mtx",
                      "%%MatrixMarket matrix coordinate integer symmetric\n"
                      "3 3 3\n"
                      "1 1 4\n"
                      "3 1 -2\n"
                      "3 2 5\n");
    Matrix m = read(path);
    EXPECT_EQ(m.entries.size(), 5u);  // the diagonal once, off-diagonals twice
    auto dense = to_dense_row_major(m);
    const std::vector<double> expected = {4, 0, -2, 0, 0, 5, -2, 5, 0};
    EXPECT_EQ(dense, expected);
    CsrMatrix csr = to_csr(m);
    EXPECT_EQ(csr.row_offsets, (std::vector<std::int32_t>{0, 2, 3, 5}));
    EXPECT_EQ(csr.columns, (std::vector<std::int32_t>{0, 2, 2, 0, 1}));
}

TEST_F(MatrixMarketFiles, PatternReadsAsOnes) {
    auto path = write("p.mtx",
                      "%%MatrixMarket matrix coordinate pattern general\n"
                      "2 2 2\n1 2\n2 1\n");
    CsrMatrix csr = to_csr(read(path));
    EXPECT_EQ(csr.columns, (std::vector<std::int32_t>{1, 0}));
    EXPECT_EQ(csr.values, (std::vector<double>{1.0, 1.0}));
}

TEST_F(MatrixMarketFiles, ArrayRealGeneralIsColumnMajor) {
    auto path = write("d.mtx",
                      "%%MatrixMarket matrix array real general\n"
                      "% 2 x 3\n"
                      "2 3\n"
                      "1\n4\n2 5\n3\n0\n");  // several values on one line are accepted
    Matrix m = read(path);
    EXPECT_EQ(m.format, Format::array);
    EXPECT_EQ(m.values, (std::vector<double>{1, 4, 2, 5, 3, 0}));
    EXPECT_EQ(to_dense_row_major(m), (std::vector<double>{1, 2, 3, 4, 5, 0}));
    CsrMatrix csr = to_csr(m);  // the stored zero is dropped
    EXPECT_EQ(csr.row_offsets, (std::vector<std::int32_t>{0, 3, 5}));
    EXPECT_EQ(csr.values, (std::vector<double>{1, 2, 3, 4, 5}));
}

TEST_F(MatrixMarketFiles, ArraySymmetricStoresTheLowerTriangle) {
    auto path = write("ds.mtx",
                      "%%MatrixMarket matrix array real symmetric\n"
                      "3 3\n1\n2\n3\n4\n5\n6\n");
    EXPECT_EQ(to_dense_row_major(read(path)), (std::vector<double>{1, 2, 3, 2, 4, 5, 3, 5, 6}));
}

TEST_F(MatrixMarketFiles, EmptyMatrixAndEmptyRows) {
    auto path = write("e.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 1\n3 2 1\n");
    CsrMatrix csr = to_csr(read(path));
    EXPECT_EQ(csr.row_offsets, (std::vector<std::int32_t>{0, 0, 0, 1, 1}));
    auto none = write("z.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    EXPECT_EQ(to_csr(read(none)).rows, 0);
}

TEST_F(MatrixMarketFiles, MalformedInputNamesFileAndLine) {
    struct Case {
        std::string text;
        int line;
        std::string says;
    };
    const std::string coord = "%%MatrixMarket matrix coordinate real general\n";
    const std::vector<Case> cases = {
        {"", 1, "empty file"},
        {"hello\n", 1, "not a Matrix Market file"},
        {"%%MatrixMarket matrix coordinate real\n", 1, "bad header"},
        {"%%MatrixMarket vector coordinate real general\n", 1, "object 'vector'"},
        {"%%MatrixMarket matrix sparse real general\n", 1, "format 'sparse'"},
        {"%%MatrixMarket matrix coordinate complex general\n", 1, "complex"},
        {"%%MatrixMarket matrix coordinate real hermitian\n", 1, "hermitian"},
        {"%%MatrixMarket matrix array pattern general\n", 1, "pattern"},
        {coord, 1, "truncated file"},
        {coord + "% c\n2 2\n", 3, "bad size line"},
        {coord + "2 x 1\n1 1 1\n", 2, "'x' is not an integer"},
        {coord + "2 2 -1\n", 2, "negative"},
        {coord + "2 2 2\n1 1 1\n", 3, "declares 2 entries, found 1"},
        {coord + "2 2 1\n1 1 1\n2 2 2\n", 4, "more entries"},
        {coord + "2 2 1\n3 1 1\n", 3, "row index 3 is out of range 1..2"},
        {coord + "2 2 1\n1 0 1\n", 3, "column index 0 is out of range"},
        {coord + "2 2 1\n1 1 abc\n", 3, "'abc' is not a number"},
        {coord + "2 2 1\n1 1 1.5x\n", 3, "'1.5x' is not a number"},
        {coord + "2 2 1\n1 1 nan\n", 3, "not finite"},
        {coord + "2 2 1\n1 1\n", 3, "bad entry"},
        {coord + "2 2 1\n1 1 1 9\n", 3, "bad entry"},
        {"%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n", 3, "not an integer"},
        {"%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2, "must be square"},
        {"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", 3,
         "above the diagonal"},
        {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5,
         "implies 4 values, found 3"},
        {"%%MatrixMarket matrix array real general\n1 1\n1 2\n", 3, "more values"},
        {"%%MatrixMarket matrix array real general\n2 2 4\n", 2, "bad size line"},
        {coord + "3000000000 2 0\n", 2, "too large"},
    };
    for (const Case& c : cases) {
        const std::string message = error_of(c.text);
        EXPECT_NE(message.find(where(c.line)), std::string::npos)
            << "input:\n"
            << c.text << "\nmessage: " << message;
        EXPECT_NE(message.find(c.says), std::string::npos) << "input:\n"
                                                           << c.text << "\nmessage: " << message;
    }
}

TEST_F(MatrixMarketFiles, MissingFileIsAnError) {
    EXPECT_THROW(read(folder_ / "nothing.mtx"), Error);
    EXPECT_THROW(read(folder_), Error);
}

TEST_F(MatrixMarketFiles, RandomRoundTripThroughTheFile) {
    // A random coordinate file with awkward sizes, read back and compared entry by entry.
    std::mt19937_64 rng(12345);
    for (int rows : {1, 2, 31, 33}) {
        const int cols = rows + 3;
        std::vector<double> dense(static_cast<std::size_t>(rows * cols), 0.0);
        std::string body;
        int count = 0;
        std::uniform_real_distribution<double> value(-1.0, 1.0);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                if (rng() % 3 == 0) {
                    const double v = value(rng);
                    dense[static_cast<std::size_t>(r * cols + c)] = v;
                    char line[96];
                    std::snprintf(line, sizeof line, "%d %d %.17g\n", r + 1, c + 1, v);
                    body += line;
                    ++count;
                }
        auto path = write("r.mtx", "%%MatrixMarket matrix coordinate real general\n" +
                                       std::to_string(rows) + " " + std::to_string(cols) + " " +
                                       std::to_string(count) + "\n" + body);
        Matrix m = read(path);
        EXPECT_EQ(to_dense_row_major(m), dense);  // %.17g round-trips a double exactly
        CsrMatrix csr = to_csr(m);
        ASSERT_EQ(csr.nnz(), count);
        for (int r = 0; r < rows; ++r)
            for (int k = csr.row_offsets[r]; k < csr.row_offsets[r + 1]; ++k)
                EXPECT_EQ(csr.values[k],
                          dense[static_cast<std::size_t>(r * cols + csr.columns[k])]);
    }
}

}  // namespace
}  // namespace adilab::mm
