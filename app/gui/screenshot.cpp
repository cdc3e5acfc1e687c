#include "app/gui/screenshot.hpp"

#include "app/files/png.hpp"
#include "solvers/gl/commands.hpp"

namespace adilab::gui {

void write_screenshot(const std::filesystem::path& path, render::Rect area) {
    auto pixels = gl::read_pixels_rgba(area.x, area.y, area.width, area.height);
    files::write_png(path, area.width, area.height, pixels);
}

}  // namespace adilab::gui
