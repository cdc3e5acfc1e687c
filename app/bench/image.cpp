#include "app/bench/image.hpp"

#include <stb_image_write.h>
#include <unistd.h>

#include "app/bench/report.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::bench {

void check_png_path(const std::filesystem::path& path) {
    if (path.extension() != ".png")
        throw Error("screenshot path '" + path.string() + "' must end in .png");
    check_output_folder(path, "image");
}

void write_png(const std::filesystem::path& path, int width, int height,
               const std::vector<std::uint8_t>& rgba) {
    check_png_path(path);
    if (width <= 0 || height <= 0 ||
        rgba.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4)
        throw Error("cannot write '" + path.string() + "': the image is empty");
    std::filesystem::path temporary = path;
    temporary += ".tmp-" + std::to_string(::getpid());
    if (!stbi_write_png(temporary.c_str(), width, height, 4, rgba.data(), width * 4)) {
        std::error_code ignore;
        std::filesystem::remove(temporary, ignore);
        throw Error("cannot write '" + path.string() + "'");
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::filesystem::remove(temporary, ec);
        throw Error("cannot write '" + path.string() + "': " + ec.message());
    }
}

}  // namespace adilab::bench
