// Bad input that never needs a GPU (issue 16): the strict number parser, the one atomic writer,
// and every reader (.npy, state, Matrix Market, PNG height map) fed truncated files, files that
// declare sizes they do not hold, wrong types and non-finite numbers. Each must refuse with the
// file and the field named, before allocating what the header claims.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "app/cli/args.hpp"
#include "sim/model.hpp"
#include "sim/simulation.hpp"
#include "sim/state_file.hpp"
#include "solvers/common/files.hpp"
#include "solvers/common/matrix_market.hpp"
#include "solvers/common/numbers.hpp"
#include "solvers/gl/capacity.hpp"
#include "solvers/power/power.hpp"
#include "tests/support/temp_folder.hpp"

namespace adilab {
namespace {

std::filesystem::path scratch(const std::string& name) {
    return test::temp_folder("bad-input-" + name);
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// The high-water mark of this process's resident memory, in MiB.
long max_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

// Runs `read`, expects an exception whose message holds every one of `named`, and that the
// process's peak memory grew by less than 64 MiB on the way (the files here are tiny; before
// the checks a 16-byte .npy took 1.6 GB).
template <class Exception = Error>
void expect_refused(const std::function<void()>& read, const std::vector<std::string>& named,
                    const std::string& label) {
    const long before = max_rss_mib();
    try {
        read();
        ADD_FAILURE() << label << ": accepted";
    } catch (const Exception& e) {
        for (const std::string& text : named)
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
                << label << ": '" << text << "' not in: " << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << label << ": wrong exception type: " << e.what();
    }
    EXPECT_LT(max_rss_mib() - before, 64) << label << ": allocated before checking";
}

// ---- Numbers ---------------------------------------------------------------------------------

TEST(StrictNumbers, IntegersNeitherWrapNorTruncate) {
    struct Case {
        const char* text;
        std::optional<long long> expected;
    } cases[] = {
        {"64", 64},
        {"+7", 7},
        {"-3", -3},
        {"0", 0},
        {"4294967360", 4294967360LL},
        {"9223372036854775807", 9223372036854775807LL},
        {"9223372036854775808", std::nullopt},
        {"99999999999999999999", std::nullopt},
        {"", std::nullopt},
        {" 5", std::nullopt},
        {"5 ", std::nullopt},
        {"12abc", std::nullopt},
        {"1e3", std::nullopt},
        {"0x10", std::nullopt},
        {"+-1", std::nullopt},
        {"+", std::nullopt},
        {"3.0", std::nullopt},
    };
    for (const Case& c : cases)
        EXPECT_EQ(numbers::to_integer(c.text), c.expected) << "'" << c.text << "'";
}

TEST(StrictNumbers, RealsAreFiniteAndWhole) {
    struct Case {
        const char* text;
        std::optional<double> expected;
    } cases[] = {
        {"0.25", 0.25},           {"-1e3", -1000.0},
        {"0x1.8p+1", 3.0},        {"7", 7.0},
        {"nan", std::nullopt},    {"inf", std::nullopt},
        {"-inf", std::nullopt},   {"1e999", std::nullopt},
        {"1e-999", std::nullopt}, {"", std::nullopt},
        {" 1", std::nullopt},     {"1 ", std::nullopt},
        {"1,5", std::nullopt},    {"0.5x", std::nullopt},
    };
    for (const Case& c : cases)
        EXPECT_EQ(numbers::to_real(c.text), c.expected) << "'" << c.text << "'";
}

TEST(StrictNumbers, CommandLineMessagesQuoteTheUsersText) {
    struct Case {
        std::function<void()> parse;
        const char* quoted;
    } cases[] = {
        {[] { cli::parse_dimensions("grid", "4294967360", 4, 8192); }, "'4294967360'"},
        {[] { cli::parse_dimensions("grid", "64x4294967360", 4, 8192); }, "'4294967360'"},
        {[] { cli::parse_dimensions("grid", "99999999999", 4, 8192); }, "'99999999999'"},
        {[] { cli::parse_dimensions("grid", "99999999999999999999", 4, 8192); },
         "'99999999999999999999'"},
        {[] { cli::parse_dimensions("grid", "64x64x64", 4, 8192); }, "'64x64x64'"},
        {[] { cli::parse_int_in("steps", "-1", 0, 10); }, "'-1'"},
        {[] { cli::parse_double("set dt", "nan"); }, "'nan'"},
        {[] { cli::parse_double("set dt", "1e999"); }, "'1e999'"},
        {[] { cli::parse_float("constant", "1e39"); }, "'1e39'"},      // Inf as a float32
        {[] { cli::parse_float("constant", "-1e-50"); }, "'-1e-50'"},  // 0 as a float32
        {[] { cli::parse_float("constant", " 4"); }, "' 4'"},
    };
    for (const Case& c : cases) {
        try {
            c.parse();
            ADD_FAILURE() << c.quoted << " accepted";
        } catch (const cli::UsageError& e) {
            EXPECT_NE(std::string(e.what()).find(c.quoted), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(cli::parse_dimensions("grid", "64x32", 4, 8192), std::make_pair(64LL, 32LL));
    EXPECT_EQ(cli::parse_float("constant", "-0.25"), -0.25f);
    EXPECT_EQ(cli::parse_float("constant", "0"), 0.0f);
}

// ---- The atomic writer -----------------------------------------------------------------------

bool has_temporary_files(const std::filesystem::path& dir) {
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().filename().string().find(".tmp-") != std::string::npos) return true;
    return false;
}

TEST(AtomicFile, FailuresLeaveTheOldFileAndNameThePathAndReason) {
    const auto dir = scratch("atomic");
    const auto target = dir / "out.bin";
    files::write_file_atomically(target, "old contents");
    EXPECT_EQ(read_bytes(target), "old contents");
    files::write_file_atomically(target, "new contents");
    EXPECT_EQ(read_bytes(target), "new contents");

    write_bytes(dir / "plain", "x");
    struct Case {
        std::filesystem::path path;
        std::string reason;
    } cases[] = {
        {dir / "missing-folder" / "out.bin", "does not exist"},
        {dir / "plain" / "out.bin", "Not a directory"},
        {dir, "it is a folder"},
        {"", "empty path"},
    };
    for (const Case& c : cases) {
        try {
            files::write_file_atomically(c.path, "data");
            ADD_FAILURE() << c.path << " accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(c.path.string()), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what();
        }
    }
    EXPECT_FALSE(has_temporary_files(dir));
}

TEST(AtomicFile, AFileSizeLimitFailsWithEfbigAndKeepsTheOldFile) {
    // In a child: RLIMIT_FSIZE is per process and would break the rest of this binary. SIGXFSZ
    // is ignored, as main() does, so write() returns EFBIG instead of killing the process.
    const auto dir = scratch("fsize");
    const auto target = dir / "field.npy";
    files::write_file_atomically(target, "the good old file");
    int pipe_fd[2];
    ASSERT_EQ(::pipe(pipe_fd), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(pipe_fd[0]);
        ::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{8192, 8192};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        std::string message = "accepted";
        try {
            files::write_file_atomically(target, std::string(1 << 20, 'x'));
        } catch (const Error& e) {
            message = e.what();
        }
        [[maybe_unused]] auto n = ::write(pipe_fd[1], message.data(), message.size());
        ::_exit(0);
    }
    ::close(pipe_fd[1]);
    std::string message;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipe_fd[0], buffer, sizeof buffer)) > 0;)
        message.append(buffer, std::size_t(n));
    ::close(pipe_fd[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status)) << "the child was killed (SIGXFSZ?)";
    EXPECT_NE(message.find("File too large"), std::string::npos) << message;
    EXPECT_NE(message.find(target.string()), std::string::npos) << message;
    EXPECT_EQ(read_bytes(target), "the good old file");
    EXPECT_FALSE(has_temporary_files(dir));
}

// ---- .npy ------------------------------------------------------------------------------------

std::string npy(const std::string& header_dict, std::size_t data_bytes, char version = 1) {
    std::string header = header_dict;
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY", 6);
    out += version;
    out += '\0';
    out += char(header.size() & 0xff);
    out += char(header.size() >> 8);
    if (version != 1) out += std::string(2, '\0');
    return out + header + std::string(data_bytes, '\0');
}

TEST(BadInputReaders, NpyRefusesBeforeAllocating) {
    const auto dir = scratch("npy");
    const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': ";
    std::string huge_header("\x93NUMPY\x02\x00\x00\x00\x00\x80", 12);  // 2 GiB header length
    struct Case {
        std::string name, bytes;
        std::vector<std::string> named;
    } cases[] = {
        {"truncated.npy", npy(f4 + "(4, 4), }", 40), {"shape (4, 4)", "64 bytes", "40"}},
        {"declares-huge.npy",
         npy(f4 + "(60000, 60000), }", 8),
         {"shape (60000, 60000)", "14400000000"}},
        {"declares-medium.npy", npy(f4 + "(20000, 20000), }", 16), {"shape (20000, 20000)"}},
        {"wraps.npy", npy(f4 + "(4294967360, 64), }", 16), {"4294967360"}},
        {"negative.npy", npy(f4 + "(-4, 4), }", 16), {"(-4, 4)"}},
        {"three-d.npy", npy(f4 + "(2, 2, 2), }", 32), {"not 2-D"}},
        {"int32.npy",
         npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", 16),
         {"dtype '<i4'"}},
        {"header-length.npy", huge_header + "{}", {"header length 2147483648"}},
        {"empty.npy", "", {"not a .npy file"}},
        {"text.npy", "hello, world\n", {"not a .npy file"}},
    };
    for (const Case& c : cases) {
        write_bytes(dir / c.name, c.bytes);
        std::vector<std::string> named = c.named;
        named.push_back(c.name);
        expect_refused<files::InputError>([&] { sim::read_npy(dir / c.name); }, named, c.name);
    }
    // NaN values are data, not a malformed file: read, and caught by the run (SimCli tests).
    std::vector<float> values(16, NAN);
    sim::write_npy(dir / "nan.npy", 4, 4, values);
    EXPECT_TRUE(std::isnan(sim::read_npy(dir / "nan.npy").values[5]));
}

// ---- State files -----------------------------------------------------------------------------

std::string state(const std::string& lines) {
    return "ADILAB-STATE 1\nmodel heat\nsolver fused\nscenario free\nterrain flat\n" + lines;
}

TEST(BadInputReaders, StateFilesAreValidatedFieldByField) {
    const auto dir = scratch("state");
    const std::string good = "grid 8 8\nsteps 5\ntime 0x1p-2\n";
    struct Case {
        std::string name, bytes;
        std::vector<std::string> named;
    } cases[] = {
        {"negative-steps", state("grid 8 8\nsteps -5\ntime 0x0p+0\nend\n"), {"steps '-5'"}},
        {"nan-time", state("grid 8 8\nsteps 5\ntime nan\nend\n"), {"time 'nan'"}},
        {"inf-time", state("grid 8 8\nsteps 5\ntime inf\nend\n"), {"time 'inf'"}},
        {"negative-time", state("grid 8 8\nsteps 5\ntime -0x1p+0\nend\n"), {"time '-0x1p+0'"}},
        {"nan-param", state(good + "param dt nan\nend\n"), {"param dt 'nan'"}},
        {"huge-grid",
         state("grid 99999999999 8\nsteps 5\ntime 0x0p+0\nend\n"),
         {"grid '99999999999 8'"}},
        {"huge-buffer", state(good + "buffer T 3000000000\n"), {"buffer T declares 3000000000"}},
        {"huge-buffer-1e12",
         state(good + "buffer T 1000000000000\n"),
         {"buffer T declares 1000000000000"}},
        {"short-buffer",
         state(good + "buffer T 256\n" + std::string(100, 'x')),
         {"buffer T declares 256"}},
        {"no-end", state(good), {"no 'end'"}},
        {"twice", state(good + "steps 6\nend\n"), {"'steps' line appears twice"}},
        {"no-grid", state("steps 5\ntime 0x0p+0\nend\n"), {"no 'grid'"}},
        {"version", "ADILAB-STATE 2\nmodel heat\n", {"version '2'"}},
        {"garbage",
         std::string("\x7f"
                     "ELF\x02\x01",
                     6),
         {"not an adilab state file"}},
        {"stray", state(good + "colour blue\nend\n"), {"unexpected line 'colour blue'"}},
    };
    for (const Case& c : cases) {
        write_bytes(dir / c.name, c.bytes);
        std::vector<std::string> named = c.named;
        named.push_back(c.name);
        expect_refused<files::InputError>([&] { sim::read_state_file(dir / c.name, 4, 8192); },
                                          named, c.name);
    }
    write_bytes(dir / "good", state(good + "param dt 0x1p-3\nbuffer T 4\nabcd\nend\n"));
    const sim::StateFile read = sim::read_state_file(dir / "good", 4, 8192);
    EXPECT_EQ(read.steps, 5);
    EXPECT_EQ(read.time, 0.25);
    EXPECT_EQ(read.buffers.at("T").size(), 4u);
}

// ---- Matrix Market
// -------------------------------------------------------------------------------

TEST(BadInputReaders, MatrixMarketSizesAreCheckedAgainstTheFile) {
    const auto dir = scratch("mtx");
    struct Case {
        std::string name, text;
        std::vector<std::string> named;
    } cases[] = {
        {"array-huge.mtx",
         "%%MatrixMarket matrix array real general\n20000 20000\n1\n",
         {"20000 x 20000", "400000000 values", ":2:"}},
        {"coordinate-huge.mtx",
         "%%MatrixMarket matrix coordinate real general\n5 5 50000000\n1 1 1\n",
         {"declares 50000000 entries"}},
        {"truncated.mtx",
         "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n",
         {"truncated", "declares 3"}},
        {"nan.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n", {"'nan'"}},
        {"wraps.mtx",
         "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 4294967297 1\n",
         {"column index 4294967297"}},
        {"complex.mtx",
         "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n",
         {"complex"}},
    };
    for (const Case& c : cases) {
        write_bytes(dir / c.name, c.text);
        std::vector<std::string> named = c.named;
        named.push_back(c.name);
        expect_refused<files::InputError>([&] { mm::read(dir / c.name); }, named, c.name);
    }
}

// A coordinate file's rows and columns are not bounded by its length (a sparse matrix has
// empty rows): reading a 60-byte file that declares 2e9 x 2e9 with one entry holds one entry,
// and what the size implies is the consumer's to check against the GPU before converting
// (the benches: tests/app/test_bad_input.cpp). The message starts at the file's size line.
TEST(BadInputReaders, MatrixMarketSizeLinesAreNamedForTheCapacityCheck) {
    const auto dir = scratch("mtx-rows");
    write_bytes(dir / "rows.mtx",
                "%%MatrixMarket matrix coordinate real general\n% a comment\n2000000000 2000000000 "
                "1\n1 1 1\n");
    const long before = max_rss_mib();
    const mm::Matrix m = mm::read(dir / "rows.mtx");
    EXPECT_LT(max_rss_mib() - before, 64) << "the reader allocated for the declared rows";
    EXPECT_EQ(m.rows, 2'000'000'000);
    EXPECT_EQ(mm::stored_entries(m), 1);
    EXPECT_EQ(mm::describe_size_line(m),
              (dir / "rows.mtx").string() +
                  ":3: the size line declares 2000000000 x 2000000000 with 1 entry");
    gl::Limits small;
    small.max_block_bytes = std::uint64_t{128} << 20;
    const std::string problem =
        gl::capacity_problem(power::buffer_needs(m.rows, mm::stored_entries(m)), small);
    EXPECT_NE(problem.find("the CSR row offsets (2000000000 + 1 ints) of 7.5 GiB"),
              std::string::npos)
        << problem;
}

// ---- PNG height maps ---------------------------------------------------------------------------

// A PNG signature and an IHDR chunk that declares `width` x `height` 8-bit grey pixels, and no
// data: stb_image would allocate the whole image before finding none.
std::string png_header(std::uint32_t width, std::uint32_t height) {
    auto be32 = [](std::uint32_t v) {
        return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    };
    std::string out("\x89PNG\r\n\x1a\n", 8);
    out += be32(13) + "IHDR" + be32(width) + be32(height);
    out += std::string("\x08\x00\x00\x00\x00", 5);  // 8-bit grey, no interlace
    out += be32(0);                                 // CRC (stb does not check it)
    return out;
}

TEST(BadInputReaders, PngHeightMapsAreCheckedBeforeDecoding) {
    const auto dir = scratch("png");
    struct Case {
        std::string name, bytes;
        std::vector<std::string> named;
    } cases[] = {
        {"huge.png", png_header(30000, 30000), {"30000 x 30000"}},
        {"truncated.png", png_header(8, 8), {"cannot read height map"}},
        {"text.png", "not a png", {"cannot read height map"}},
    };
    for (const Case& c : cases) {
        write_bytes(dir / c.name, c.bytes);
        std::vector<std::string> named = c.named;
        named.push_back(c.name);
        expect_refused<files::InputError>(
            [&] { sim::detail::make_terrain("png:" + (dir / c.name).string(), 8, 8, 1.0f); }, named,
            c.name);
    }
    expect_refused<Error>(
        [&] { sim::detail::make_terrain("png:" + (dir / "missing.png").string(), 8, 8, 1.0f); },
        {"missing.png", "No such file"}, "missing.png");
}

}  // namespace
}  // namespace adilab
