// Matrix Market reader: a strict line-by-line parser that names the file and line of the first
// problem, and conversions to dense and CSR.
#include "solvers/common/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <string_view>

#include "solvers/common/files.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::mm {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::vector<std::string_view> split_tokens(std::string_view line) {
    std::vector<std::string_view> tokens;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        std::size_t start = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i > start) tokens.push_back(line.substr(start, i - start));
    }
    return tokens;
}

// Reads lines and knows where it is, so every message can say "<file>:<line>: ...".
class LineReader {
  public:
    LineReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

    // The next line that is neither a comment nor blank; false at the end of the input.
    bool next_data_line(std::string& line) {
        while (std::getline(in_, line)) {
            ++line_number_;
            auto tokens = split_tokens(line);
            if (tokens.empty() || tokens.front().front() == '%') continue;
            return true;
        }
        if (in_.bad()) fail_here("read error");
        return false;
    }
    bool raw_line(std::string& line) {
        if (!std::getline(in_, line)) return false;
        ++line_number_;
        return true;
    }

    [[noreturn]] void fail_here(const std::string& what) const {
        throw files::InputError(name_ + ":" + std::to_string(line_number_) + ": " + what);
    }
    // At the end of the input: names the last line (line 1 for an empty file).
    [[noreturn]] void fail_at_end(const std::string& what) const {
        throw files::InputError(
            name_ + ":" + std::to_string(std::max<std::int64_t>(line_number_, 1)) + ": " + what);
    }

    // Bytes left in the input, where the stream can tell (files can); -1 where it cannot.
    std::int64_t bytes_left() const {
        const std::streampos here = in_.tellg();
        if (here < 0) return -1;
        in_.seekg(0, std::ios::end);
        const std::streampos end = in_.tellg();
        in_.seekg(here);
        return end < 0 ? -1 : std::int64_t(end - here);
    }

    std::int64_t line_number() const { return line_number_; }

    std::int64_t parse_index(std::string_view token, const char* what) const {
        std::int64_t value = 0;
        auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (error != std::errc() || end != token.data() + token.size())
            fail_here(std::string(what) + " '" + std::string(token) + "' is not an integer");
        return value;
    }
    double parse_value(std::string_view token, Field field) const {
        if (field == Field::integer) {
            std::int64_t value = 0;
            auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
            if (error != std::errc() || end != token.data() + token.size())
                fail_here("value '" + std::string(token) +
                          "' is not an integer (field is integer)");
            return static_cast<double>(value);
        }
        // from_chars does not take a leading '+', which some writers emit.
        std::string_view digits = token;
        if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
        double value = 0.0;
        auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (error == std::errc::result_out_of_range)
            fail_here("value '" + std::string(token) + "' is out of the range of a double");
        if (error != std::errc() || end != digits.data() + digits.size() || digits.empty())
            fail_here("value '" + std::string(token) + "' is not a number");
        if (!std::isfinite(value)) fail_here("value '" + std::string(token) + "' is not finite");
        return value;
    }

  private:
    std::istream& in_;
    std::string name_;
    std::int64_t line_number_ = 0;
};

struct Header {
    Format format;
    Field field;
    Symmetry symmetry;
};

Header parse_header(LineReader& reader) {
    std::string line;
    if (!reader.raw_line(line))
        reader.fail_at_end("empty file: expected a '%%MatrixMarket matrix ...' header line");
    auto tokens = split_tokens(line);
    if (tokens.empty() || lower(tokens[0]) != "%%matrixmarket")
        reader.fail_here(
            "not a Matrix Market file: the first line must start with "
            "'%%MatrixMarket' (found '" +
            line.substr(0, 40) + "')");
    if (tokens.size() != 5)
        reader.fail_here(
            "bad header: expected '%%MatrixMarket matrix <coordinate|array> "
            "<real|integer|pattern> <general|symmetric>', found " +
            std::to_string(tokens.size()) + " words");
    const std::string object = lower(tokens[1]), format = lower(tokens[2]),
                      field = lower(tokens[3]), symmetry = lower(tokens[4]);
    if (object != "matrix")
        reader.fail_here("bad header: object '" + std::string(tokens[1]) +
                         "' is not supported (only 'matrix')");
    Header header{};
    if (format == "coordinate")
        header.format = Format::coordinate;
    else if (format == "array")
        header.format = Format::array;
    else
        reader.fail_here("bad header: format '" + std::string(tokens[2]) +
                         "' is not 'coordinate' or 'array'");
    if (field == "real" || field == "double")
        header.field = Field::real;
    else if (field == "integer")
        header.field = Field::integer;
    else if (field == "pattern")
        header.field = Field::pattern;
    else if (field == "complex")
        reader.fail_here("complex matrices are not supported (field 'complex')");
    else
        reader.fail_here("bad header: field '" + std::string(tokens[3]) +
                         "' is not 'real', 'integer' or 'pattern'");
    if (header.format == Format::array && header.field == Field::pattern)
        reader.fail_here("bad header: an 'array' file cannot have the 'pattern' field");
    if (symmetry == "general")
        header.symmetry = Symmetry::general;
    else if (symmetry == "symmetric")
        header.symmetry = Symmetry::symmetric;
    else if (symmetry == "skew-symmetric" || symmetry == "hermitian")
        reader.fail_here("symmetry '" + std::string(tokens[4]) +
                         "' is not supported (only 'general' and 'symmetric')");
    else
        reader.fail_here("bad header: symmetry '" + std::string(tokens[4]) +
                         "' is not 'general' or 'symmetric'");
    return header;
}

// Sizes beyond this are refused before any allocation: no adilab solver takes more.
constexpr std::int64_t kMaxDimension = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxStored = std::int64_t{1} << 31;

void parse_coordinate(LineReader& reader, Matrix& m) {
    std::string line;
    if (!reader.next_data_line(line))
        reader.fail_at_end("truncated file: expected the size line '<rows> <columns> <entries>'");
    auto tokens = split_tokens(line);
    m.size_line = reader.line_number();
    if (tokens.size() != 3)
        reader.fail_here("bad size line: expected '<rows> <columns> <entries>', found " +
                         std::to_string(tokens.size()) + " numbers");
    m.rows = reader.parse_index(tokens[0], "row count");
    m.cols = reader.parse_index(tokens[1], "column count");
    const std::int64_t declared = reader.parse_index(tokens[2], "entry count");
    m.declared_entries = declared;
    if (m.rows < 0 || m.cols < 0 || declared < 0)
        reader.fail_here("bad size line: sizes must not be negative");
    if (m.rows > kMaxDimension || m.cols > kMaxDimension || declared > kMaxStored)
        reader.fail_here("matrix too large: " + std::to_string(m.rows) + " x " +
                         std::to_string(m.cols) + " with " + std::to_string(declared) +
                         " entries (limits: 2^31 - 1 rows/columns, 2^31 entries)");
    if (m.symmetry == Symmetry::symmetric && m.rows != m.cols)
        reader.fail_here("a symmetric matrix must be square, this one is " +
                         std::to_string(m.rows) + " x " + std::to_string(m.cols));
    // Each entry line holds at least "i j\n" (4 bytes), "i j v\n" (6) with a value: a size line
    // declaring more entries than the rest of the file can hold is refused before any reserve.
    const std::int64_t left = reader.bytes_left();
    const std::int64_t min_line = m.field == Field::pattern ? 4 : 6;
    if (left >= 0 && declared > left / min_line + 1)
        reader.fail_here("the size line declares " + std::to_string(declared) +
                         " entries but the " + std::to_string(left) +
                         " bytes left in the file hold at most " +
                         std::to_string(left / min_line + 1));
    const std::size_t expected_tokens = m.field == Field::pattern ? 2 : 3;
    // Reserve from the declared count, but not blindly: a corrupt header must not allocate
    // gigabytes before the first entry is read.
    m.entries.reserve(static_cast<std::size_t>(std::min<std::int64_t>(declared, 1 << 24) *
                                               (m.symmetry == Symmetry::symmetric ? 2 : 1)));
    std::int64_t read_count = 0;
    while (reader.next_data_line(line)) {
        if (read_count == declared)
            reader.fail_here("more entries than the " + std::to_string(declared) +
                             " the size line declares");
        tokens = split_tokens(line);
        if (tokens.size() != expected_tokens)
            reader.fail_here("bad entry: expected " +
                             std::string(m.field == Field::pattern ? "'<row> <column>'"
                                                                   : "'<row> <column> <value>'") +
                             ", found " + std::to_string(tokens.size()) + " numbers");
        const std::int64_t row = reader.parse_index(tokens[0], "row index");
        const std::int64_t col = reader.parse_index(tokens[1], "column index");
        if (row < 1 || row > m.rows)
            reader.fail_here("row index " + std::to_string(row) + " is out of range 1.." +
                             std::to_string(m.rows));
        if (col < 1 || col > m.cols)
            reader.fail_here("column index " + std::to_string(col) + " is out of range 1.." +
                             std::to_string(m.cols));
        const double value =
            m.field == Field::pattern ? 1.0 : reader.parse_value(tokens[2], m.field);
        if (m.symmetry == Symmetry::symmetric && row < col)
            reader.fail_here("entry (" + std::to_string(row) + ", " + std::to_string(col) +
                             ") lies above the diagonal; a symmetric file stores the lower "
                             "triangle only");
        m.entries.push_back({row - 1, col - 1, value});
        if (m.symmetry == Symmetry::symmetric && row != col)
            m.entries.push_back({col - 1, row - 1, value});
        ++read_count;
    }
    if (read_count != declared)
        reader.fail_at_end("truncated file: the size line declares " + std::to_string(declared) +
                           " entries, found " + std::to_string(read_count));
}

void parse_array(LineReader& reader, Matrix& m) {
    std::string line;
    if (!reader.next_data_line(line))
        reader.fail_at_end("truncated file: expected the size line '<rows> <columns>'");
    auto tokens = split_tokens(line);
    m.size_line = reader.line_number();
    if (tokens.size() != 2)
        reader.fail_here("bad size line: expected '<rows> <columns>' for an array file, found " +
                         std::to_string(tokens.size()) + " numbers");
    m.rows = reader.parse_index(tokens[0], "row count");
    m.cols = reader.parse_index(tokens[1], "column count");
    if (m.rows < 0 || m.cols < 0) reader.fail_here("bad size line: sizes must not be negative");
    if (m.rows > kMaxDimension || m.cols > kMaxDimension ||
        (m.cols > 0 && m.rows > kMaxStored / m.cols))
        reader.fail_here("matrix too large: " + std::to_string(m.rows) + " x " +
                         std::to_string(m.cols) + " (limit: 2^31 stored values)");
    if (m.symmetry == Symmetry::symmetric && m.rows != m.cols)
        reader.fail_here("a symmetric matrix must be square, this one is " +
                         std::to_string(m.rows) + " x " + std::to_string(m.cols));
    const std::int64_t n = m.rows;
    // general: every value, column by column. symmetric: the lower triangle column by column.
    const std::int64_t declared =
        m.symmetry == Symmetry::general ? m.rows * m.cols : n * (n + 1) / 2;
    // Each value takes at least two bytes ("1\n"): a 40-byte file declaring 20000 x 20000 is
    // refused here, before 3.2 GB are allocated for it.
    const std::int64_t left = reader.bytes_left();
    if (left >= 0 && declared > left / 2 + 1)
        reader.fail_here("the size line declares " + std::to_string(m.rows) + " x " +
                         std::to_string(m.cols) + " (" + std::to_string(declared) +
                         " values) but the " + std::to_string(left) +
                         " bytes left in the file hold at most " + std::to_string(left / 2 + 1));
    m.values.assign(static_cast<std::size_t>(m.rows * m.cols), 0.0);
    std::int64_t read_count = 0;
    std::int64_t col = 0, row = 0;  // where the next value goes
    while (reader.next_data_line(line)) {
        tokens = split_tokens(line);
        for (std::string_view token : tokens) {
            if (read_count == declared)
                reader.fail_here("more values than the " + std::to_string(declared) +
                                 " the size line implies");
            const double value = reader.parse_value(token, m.field);
            m.values[static_cast<std::size_t>(col * m.rows + row)] = value;
            if (m.symmetry == Symmetry::symmetric)
                m.values[static_cast<std::size_t>(row * m.rows + col)] = value;
            ++read_count;
            if (++row == m.rows) {
                ++col;
                row = m.symmetry == Symmetry::symmetric ? col : 0;
            }
        }
    }
    if (read_count != declared)
        reader.fail_at_end("truncated file: the size line implies " + std::to_string(declared) +
                           " values, found " + std::to_string(read_count));
}

}  // namespace

Matrix parse(std::istream& in, const std::string& source_name) {
    LineReader reader(in, source_name);
    const Header header = parse_header(reader);
    Matrix m;
    m.source = source_name;
    m.format = header.format;
    m.field = header.field;
    m.symmetry = header.symmetry;
    if (m.format == Format::coordinate)
        parse_coordinate(reader, m);
    else
        parse_array(reader, m);
    return m;
}

Matrix read(const std::filesystem::path& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        throw files::InputError(path.string() + ": is a folder, not a Matrix Market file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw files::InputError(path.string() + ": cannot open the Matrix Market file");
    return parse(in, path.string());
}

std::string describe_size_line(const Matrix& matrix) {
    std::string out = matrix.source + ":" + std::to_string(matrix.size_line) +
                      ": the size line declares " + std::to_string(matrix.rows) + " x " +
                      std::to_string(matrix.cols);
    if (matrix.format == Format::coordinate)
        out += " with " + std::to_string(matrix.declared_entries) +
               (matrix.declared_entries == 1 ? " entry" : " entries");
    return out;
}

std::int64_t stored_entries(const Matrix& matrix) {
    if (matrix.format == Format::coordinate) return std::int64_t(matrix.entries.size());
    return std::int64_t(matrix.values.size());
}

std::vector<double> to_dense_row_major(const Matrix& matrix) {
    if (matrix.cols > 0 && matrix.rows > kMaxStored / matrix.cols)
        throw Error("matrix " + std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) +
                    " is too large to hold dense");
    const std::size_t rows = static_cast<std::size_t>(matrix.rows);
    const std::size_t cols = static_cast<std::size_t>(matrix.cols);
    std::vector<double> dense(rows * cols, 0.0);
    if (matrix.format == Format::array) {
        for (std::size_t c = 0; c < cols; ++c)
            for (std::size_t r = 0; r < rows; ++r)
                dense[r * cols + c] = matrix.values[c * rows + r];
    } else {
        for (const Entry& e : matrix.entries)
            dense[static_cast<std::size_t>(e.row) * cols + static_cast<std::size_t>(e.col)] +=
                e.value;
    }
    return dense;
}

CsrMatrix to_csr(const Matrix& matrix) {
    constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();
    if (matrix.rows > kMaxIndex || matrix.cols > kMaxIndex)
        throw Error("matrix " + std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) +
                    " exceeds 32-bit CSR indices");
    CsrMatrix csr;
    csr.rows = static_cast<std::int32_t>(matrix.rows);
    csr.cols = static_cast<std::int32_t>(matrix.cols);
    csr.row_offsets.assign(static_cast<std::size_t>(csr.rows) + 1, 0);
    if (matrix.format == Format::array) {
        const std::size_t rows = static_cast<std::size_t>(matrix.rows);
        std::int64_t count = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            for (std::size_t c = 0; c < static_cast<std::size_t>(matrix.cols); ++c) {
                const double v = matrix.values[c * rows + r];
                if (v == 0.0) continue;
                if (++count > kMaxIndex) throw Error("matrix has more than 2^31 - 1 nonzeros");
                csr.columns.push_back(static_cast<std::int32_t>(c));
                csr.values.push_back(v);
            }
            csr.row_offsets[r + 1] = static_cast<std::int32_t>(count);
        }
        return csr;
    }
    // Counting sort by row (stable, so file order survives within a row), then sort each row by
    // column and add duplicates.
    std::vector<std::int64_t> starts(static_cast<std::size_t>(csr.rows) + 1, 0);
    for (const Entry& e : matrix.entries) ++starts[static_cast<std::size_t>(e.row) + 1];
    std::partial_sum(starts.begin(), starts.end(), starts.begin());
    std::vector<std::pair<std::int32_t, double>> by_row(matrix.entries.size());
    {
        std::vector<std::int64_t> next(starts.begin(), starts.end() - 1);
        for (const Entry& e : matrix.entries)
            by_row[static_cast<std::size_t>(next[static_cast<std::size_t>(e.row)]++)] = {
                static_cast<std::int32_t>(e.col), e.value};
    }
    csr.columns.reserve(by_row.size());
    csr.values.reserve(by_row.size());
    for (std::size_t r = 0; r < static_cast<std::size_t>(csr.rows); ++r) {
        auto first = by_row.begin() + starts[r], last = by_row.begin() + starts[r + 1];
        std::stable_sort(first, last,
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto it = first; it != last; ++it) {
            if (csr.columns.size() > static_cast<std::size_t>(csr.row_offsets[r]) &&
                csr.columns.back() == it->first)
                csr.values.back() += it->second;
            else {
                if (csr.columns.size() >= static_cast<std::size_t>(kMaxIndex))
                    throw Error("matrix has more than 2^31 - 1 nonzeros");
                csr.columns.push_back(it->first);
                csr.values.push_back(it->second);
            }
        }
        csr.row_offsets[r + 1] = static_cast<std::int32_t>(csr.columns.size());
    }
    return csr;
}

}  // namespace adilab::mm
