#include "tests/support/images.hpp"

#include <stb_image.h>

#include <cstdlib>
#include <set>

namespace adilab::test {

Image load_png(const std::string& path) {
    Image image;
    int channels = 0;
    unsigned char* p = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
    if (p == nullptr) return image;
    image.rgba.assign(p, p + 4 * image.width * image.height);
    stbi_image_free(p);
    return image;
}

std::size_t colour_count(const Image& image) {
    std::set<unsigned> colours;
    for (std::size_t i = 0; i + 3 < image.rgba.size(); i += 4)
        colours.insert(image.rgba[i] << 16 | image.rgba[i + 1] << 8 | image.rgba[i + 2]);
    return colours.size();
}

double difference(const Image& a, const Image& b) {
    if (a.width != b.width || a.height != b.height) return 255;
    double sum = 0;
    for (std::size_t i = 0; i < a.rgba.size(); ++i) sum += std::abs(a.rgba[i] - b.rgba[i]);
    return sum / static_cast<double>(a.rgba.size());
}

}  // namespace adilab::test
