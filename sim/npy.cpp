// .npy (NumPy format 1.0/2.0) float32 2-D arrays: the field layout, shape (ny, nx), C order.
#include <cstring>
#include <fstream>

#include "sim/simulation.hpp"
#include "solvers/common/files.hpp"
#include "solvers/common/numbers.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim {

namespace {

std::string header_value(const std::string& header, const std::string& key) {
    const auto at = header.find("'" + key + "'");
    if (at == std::string::npos) return {};
    auto start = header.find(':', at);
    if (start == std::string::npos) return {};
    ++start;
    while (start < header.size() && header[start] == ' ') ++start;
    std::size_t end = start;
    if (header[start] == '(')
        end = header.find(')', start) + 1;
    else if (header[start] == '\'')
        end = header.find('\'', start + 1) + 1;
    else
        end = header.find(',', start);
    return header.substr(start, end - start);
}

}  // namespace

NpyArray read_npy(const std::filesystem::path& path) {
    // The file's real length first: every size the header declares is checked against it before
    // anything is allocated (a 16-byte file declaring (60000, 60000) fails here, not after 14 GB).
    const std::uintmax_t length = files::file_length(path, ".npy file");
    std::ifstream file(path, std::ios::binary);
    auto fail = [&](const std::string& why) {
        throw files::InputError("'" + path.string() + "': " + why);
    };
    if (!file) fail("cannot open the file");
    char magic[8] = {};
    file.read(magic, 8);
    if (!file || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail("not a .npy file");
    if (magic[6] != 1 && magic[6] != 2 && magic[6] != 3)
        fail("format version " + std::to_string(int(magic[6])) + " is not 1, 2 or 3");
    std::size_t header_length = 0;
    std::size_t prefix = 10;
    if (magic[6] == 1) {
        unsigned char b[2];
        file.read(reinterpret_cast<char*>(b), 2);
        header_length = b[0] | (b[1] << 8);
    } else {
        unsigned char b[4];
        file.read(reinterpret_cast<char*>(b), 4);
        header_length = b[0] | (b[1] << 8) | (b[2] << 16) | (std::size_t(b[3]) << 24);
        prefix = 12;
    }
    if (!file) fail("truncated header length");
    // NumPy writes headers of a few hundred bytes; a larger one is corrupt.
    constexpr std::size_t kMaxHeader = 64 * 1024;
    if (header_length > kMaxHeader)
        fail("header length " + std::to_string(header_length) + " is larger than 64 KiB");
    files::check_declared_bytes(path, "the header length", header_length, length - prefix);
    std::string header(header_length, '\0');
    file.read(header.data(), std::streamsize(header_length));
    if (!file) fail("truncated header");
    const std::string descr = header_value(header, "descr");
    const std::string order = header_value(header, "fortran_order");
    const std::string shape = header_value(header, "shape");
    const bool f32 = descr == "'<f4'", f64 = descr == "'<f8'";
    if (!f32 && !f64) fail("dtype " + descr + " is not little-endian float32 or float64");
    if (order != "False") fail("Fortran-ordered arrays are not supported");
    // "(ny, nx)": each part read strictly (no wrap of "4294967360" into an int).
    const auto open_at = shape.find('('), comma = shape.find(','), close_at = shape.find(')');
    if (open_at != 0 || comma == std::string::npos || close_at == std::string::npos ||
        close_at < comma)
        fail("shape " + shape + " is not 2-D (ny, nx)");
    auto trim = [](std::string text) {
        text.erase(0, text.find_first_not_of(' '));
        text.erase(text.find_last_not_of(' ') + 1);
        return text;
    };
    const std::string ny_text = trim(shape.substr(1, comma - 1));
    const std::string nx_text = trim(shape.substr(comma + 1, close_at - comma - 1));
    const auto ny_value = numbers::to_integer(ny_text), nx_value = numbers::to_integer(nx_text);
    if (!ny_value || !nx_value || nx_text.find(',') != std::string::npos)
        fail("shape " + shape + " is not 2-D (ny, nx)");
    // The largest grid any model takes is 8192 x 8192; anything beyond is not a field.
    constexpr long long kMaxSide = 65536;
    if (*ny_value <= 0 || *nx_value <= 0 || *ny_value > kMaxSide || *nx_value > kMaxSide)
        fail("shape " + shape + ": each side must lie in 1 .. " + std::to_string(kMaxSide));
    const int ny = int(*ny_value), nx = int(*nx_value);
    const std::uintmax_t values = std::uintmax_t(nx) * std::uintmax_t(ny);
    files::check_declared_bytes(path, "shape " + shape, values * (f32 ? 4 : 8),
                                length - prefix - header_length);
    NpyArray array{nx, ny, std::vector<float>(values)};
    if (f32) {
        file.read(reinterpret_cast<char*>(array.values.data()),
                  std::streamsize(array.values.size() * 4));
    } else {
        std::vector<double> wide(array.values.size());
        file.read(reinterpret_cast<char*>(wide.data()), std::streamsize(wide.size() * 8));
        for (std::size_t k = 0; k < wide.size(); ++k) array.values[k] = float(wide[k]);
    }
    if (!file) fail("truncated data (expected " + std::to_string(array.values.size()) + " values)");
    return array;
}

void write_npy(const std::filesystem::path& path, int nx, int ny, std::span<const float> values) {
    if (values.size() != std::size_t(nx) * std::size_t(ny))
        throw Error("write_npy: " + std::to_string(values.size()) + " values for " +
                    std::to_string(ny) + " x " + std::to_string(nx));
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                         std::to_string(ny) + ", " + std::to_string(nx) + "), }";
    // Pad with spaces so magic + length + header + '\n' is a multiple of 64 (format 1.0).
    const std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string bytes("\x93NUMPY\x01\x00", 8);
    bytes += char(header.size() & 0xff);
    bytes += char(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
    files::write_file_atomically(path, bytes);  // a failure leaves the old file as it was
}

}  // namespace adilab::sim
