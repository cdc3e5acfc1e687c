#pragma once
// PNG images: the GUI's screenshots and video frames, the headless interface's screenshot
// (`--bench sim --ui-screenshot`) and the render tests' dumps, all written the same way.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace adilab::files {

// Throws adilab::Error when a PNG cannot be written at `path` (wrong extension, missing or
// read-only folder). Called before the work that produces the image.
void check_png_path(const std::filesystem::path& path);
// Writes RGBA8 pixels, rows top first, as a PNG (stb_image_write), through a temporary file.
void write_png(const std::filesystem::path& path, int width, int height,
               const std::vector<std::uint8_t>& rgba);

}  // namespace adilab::files
