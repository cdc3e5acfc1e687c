#pragma once
// PNG captures as the GUI tests read them: the window, the viewport, a video frame or the
// headless interface, loaded as RGBA8 rows top first, and the two measures the tests compare
// pictures by.
#include <string>
#include <vector>

namespace adilab::test {

struct Image {
    int width = 0, height = 0;
    std::vector<unsigned char> rgba;
    bool ok() const { return !rgba.empty(); }
    // The pixel at column x, row y (from the top): its R, G, B, A.
    const unsigned char* pixel(int x, int y) const {
        return &rgba[4 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                          static_cast<std::size_t>(x))];
    }
};

// The PNG at `path`; an empty Image (ok() false) where it is missing or unreadable.
Image load_png(const std::string& path);
// How many distinct RGB colours the picture holds (a flat picture has one).
std::size_t colour_count(const Image& image);
// Mean absolute difference per channel, 0..255; 255 for pictures of different sizes.
double difference(const Image& a, const Image& b);

}  // namespace adilab::test
