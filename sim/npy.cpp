// .npy (NumPy format 1.0/2.0) float32 2-D arrays: the field layout, shape (ny, nx), C order.
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/simulation.hpp"
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
    if (header[start] == '(') end = header.find(')', start) + 1;
    else if (header[start] == '\'') end = header.find('\'', start + 1) + 1;
    else end = header.find(',', start);
    return header.substr(start, end - start);
}

}  // namespace

NpyArray read_npy(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    auto fail = [&](const std::string& why) { throw Error("'" + path.string() + "': " + why); };
    if (!file) fail("cannot open the file");
    char magic[8] = {};
    file.read(magic, 8);
    if (!file || std::memcmp(magic, "\x93NUMPY", 6) != 0) fail("not a .npy file");
    std::size_t header_length = 0;
    if (magic[6] == 1) {
        unsigned char b[2];
        file.read(reinterpret_cast<char*>(b), 2);
        header_length = b[0] | (b[1] << 8);
    } else {
        unsigned char b[4];
        file.read(reinterpret_cast<char*>(b), 4);
        header_length = b[0] | (b[1] << 8) | (b[2] << 16) | (std::size_t(b[3]) << 24);
    }
    std::string header(header_length, '\0');
    file.read(header.data(), std::streamsize(header_length));
    if (!file) fail("truncated header");
    const std::string descr = header_value(header, "descr");
    const std::string order = header_value(header, "fortran_order");
    const std::string shape = header_value(header, "shape");
    const bool f32 = descr == "'<f4'", f64 = descr == "'<f8'";
    if (!f32 && !f64) fail("dtype " + descr + " is not little-endian float32 or float64");
    if (order != "False") fail("Fortran-ordered arrays are not supported");
    int ny = 0, nx = 0;
    char open = 0, comma = 0;
    std::istringstream in(shape);
    if (!(in >> open >> ny >> comma >> nx) || open != '(' || comma != ',' || ny <= 0 || nx <= 0)
        fail("shape " + shape + " is not 2-D (ny, nx)");
    std::string rest;
    std::getline(in, rest);
    if (rest.find_first_of("0123456789") != std::string::npos) fail("shape " + shape + " is not 2-D");
    NpyArray array{nx, ny, std::vector<float>(std::size_t(nx) * ny)};
    if (f32) {
        file.read(reinterpret_cast<char*>(array.values.data()), std::streamsize(array.values.size() * 4));
    } else {
        std::vector<double> values(array.values.size());
        file.read(reinterpret_cast<char*>(values.data()), std::streamsize(values.size() * 8));
        for (std::size_t k = 0; k < values.size(); ++k) array.values[k] = float(values[k]);
    }
    if (!file) fail("truncated data (expected " + std::to_string(array.values.size()) + " values)");
    return array;
}

void write_npy(const std::filesystem::path& path, int nx, int ny, std::span<const float> values) {
    if (values.size() != std::size_t(nx) * std::size_t(ny))
        throw Error("write_npy: " + std::to_string(values.size()) + " values for " + std::to_string(ny) + " x " + std::to_string(nx));
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(ny) +
                         ", " + std::to_string(nx) + "), }";
    // Pad with spaces so magic + length + header + '\n' is a multiple of 64 (format 1.0).
    const std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::ofstream file(path, std::ios::binary);
    if (!file) throw Error("cannot write '" + path.string() + "'");
    file.write("\x93NUMPY\x01\x00", 8);
    const unsigned char length[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                     static_cast<unsigned char>(header.size() >> 8)};
    file.write(reinterpret_cast<const char*>(length), 2);
    file << header;
    file.write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size_bytes()));
    file.close();
    if (!file) throw Error("cannot write '" + path.string() + "'");
}

}  // namespace adilab::sim
