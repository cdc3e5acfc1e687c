#include "app/files/png.hpp"

#include <stb_image_write.h>

#include <string>

#include "solvers/common/files.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::files {

void check_png_path(const std::filesystem::path& path) {
    if (path.extension() != ".png")
        throw Error("screenshot path '" + path.string() + "' must end in .png");
    check_output_path(path, "image");
}

void write_png(const std::filesystem::path& path, int width, int height,
               const std::vector<std::uint8_t>& rgba) {
    check_png_path(path);
    if (width <= 0 || height <= 0 ||
        rgba.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4)
        throw Error("cannot write '" + path.string() + "': the image is empty");
    // Encoded in memory, then written through the one atomic writer: a full disk or a
    // file-size limit leaves the old image untouched and names the reason.
    std::string png;
    auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                                   std::size_t(size));
    };
    if (!stbi_write_png_to_func(append, &png, width, height, 4, rgba.data(), width * 4))
        throw Error("cannot write '" + path.string() + "': the PNG encoder failed");
    write_file_atomically(path, png);
}

}  // namespace adilab::files
