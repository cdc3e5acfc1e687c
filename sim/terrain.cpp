// Bottom heights for shallow water, relative to the still water level L:
//   flat   b = 0 everywhere;
//   slope  a beach: b rises linearly from 0 at the left wall to 1.5 L at the right one;
//   island a Gaussian hill of height 1.5 L at the centre, width 0.15 of the smaller side;
//   basin  a bowl b = 1.2 L (r / R)^2, R = half the smaller side, capped at 1.5 L;
//   png    assets/terrain/hills.png (grey 0..255 -> 0 .. 1.5 L, bilinear onto the grid);
//   png:FILE any 8- or 16-bit PNG, read through stb_image, its grey level (or first channel).
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "sim/assets.hpp"
#include "sim/model.hpp"
#include "solvers/common/files.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::sim::detail {
namespace {

std::vector<float> load_png_terrain(const std::filesystem::path& path, int nx, int ny, float top) {
    int w = 0, h = 0, channels = 0;
    files::file_length(path, "height map");  // there, a file, readable: else named
    // The header first: a PNG declaring 100000 x 100000 pixels would make stb allocate 20 GB
    // before finding that the data is not there. 16384 x 16384 is twice the largest grid.
    constexpr int kMaxSide = 16384;
    if (!stbi_info(path.c_str(), &w, &h, &channels))
        throw files::InputError("cannot read height map '" + path.string() +
                                "': " + stbi_failure_reason());
    if (w < 1 || h < 1 || w > kMaxSide || h > kMaxSide)
        throw files::InputError("height map '" + path.string() + "': " + std::to_string(w) + " x " +
                                std::to_string(h) + " pixels, outside 1 .. " +
                                std::to_string(kMaxSide) + " a side");
    stbi_us* pixels = stbi_load_16(path.c_str(), &w, &h, &channels, 1);
    if (pixels == nullptr)
        throw files::InputError("cannot read height map '" + path.string() +
                                "': " + stbi_failure_reason());
    std::vector<float> grey(std::size_t(w) * h);
    for (std::size_t k = 0; k < grey.size(); ++k) grey[k] = pixels[k] / 65535.0f;
    stbi_image_free(pixels);
    std::vector<float> out(std::size_t(nx) * ny);
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            // cell centre -> image coordinates (pixel centres), image row 0 at the top = max y
            const float x = std::clamp((i + 0.5f) / nx * w - 0.5f, 0.0f, float(w - 1));
            const float y = std::clamp((1.0f - (j + 0.5f) / ny) * h - 0.5f, 0.0f, float(h - 1));
            const int x0 = int(x), y0 = int(y);
            const int x1 = std::min(x0 + 1, w - 1), y1 = std::min(y0 + 1, h - 1);
            const float fx = x - x0, fy = y - y0;
            auto at = [&](int px, int py) { return grey[std::size_t(py) * w + px]; };
            const float v = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x1, y0)) +
                            fy * ((1 - fx) * at(x0, y1) + fx * at(x1, y1));
            out[std::size_t(j) * nx + i] = top * v;
        }
    return out;
}

}  // namespace

std::vector<std::string> terrain_presets() {
    return {"flat", "slope", "island", "basin", "png"};
}

std::vector<float> make_terrain(const std::string& name, int nx, int ny, float level) {
    const float top = 1.5f * level;
    if (name == "png") return load_png_terrain(find_asset("terrain/hills.png"), nx, ny, top);
    if (name.starts_with("png:")) return load_png_terrain(name.substr(4), nx, ny, top);
    std::vector<float> b(std::size_t(nx) * ny, 0.0f);
    const float side = float(std::min(nx, ny));
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const float x = i + 0.5f, y = j + 0.5f;
            const float rx = x - 0.5f * nx, ry = y - 0.5f * ny;
            float v = 0;
            if (name == "flat")
                v = 0;
            else if (name == "slope")
                v = top * x / nx;
            else if (name == "island") {
                const float w = 0.15f * side;
                v = top * std::exp(-(rx * rx + ry * ry) / (w * w));
            } else if (name == "basin") {
                const float r = 0.5f * side;
                v = std::min(top, 1.2f * level * (rx * rx + ry * ry) / (r * r));
            } else {
                std::string list;
                for (const std::string& p : terrain_presets())
                    list += (list.empty() ? "" : ", ") + p;
                throw Error("unknown terrain '" + name + "' (available: " + list + ", png:FILE)");
            }
            b[std::size_t(j) * nx + i] = v;
        }
    return b;
}

}  // namespace adilab::sim::detail
