#pragma once
// The GL commands adilab issues outside object methods, so that no module but solvers/gl
// includes the loader.
#include <cstdint>
#include <vector>

namespace adilab::gl {

// Which later accesses must see the writes of earlier shaders (glMemoryBarrier bits).
enum class Barrier : unsigned {
    storage = 1u << 0,         // shader storage buffer reads and writes
    uniform = 1u << 1,         // buffers later bound as uniform blocks
    vertex_attrib = 1u << 2,   // buffers later read as vertex attributes
    buffer_update = 1u << 3,   // glGetBufferSubData / glBufferSubData / copies
    texture_fetch = 1u << 4,   // textures sampled after image stores
    image_access = 1u << 5,    // image loads and stores
    command = 1u << 6,         // indirect dispatch and draw arguments
    all = 0xFFFFFFFFu,
};
constexpr Barrier operator|(Barrier a, Barrier b) {
    return static_cast<Barrier>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

void dispatch(unsigned groups_x, unsigned groups_y = 1, unsigned groups_z = 1);
void memory_barrier(Barrier bits);
void finish();
void flush();

// Rendering state and draws (the viewer's renderer uses these).
void viewport(int x, int y, int width, int height);
void clear(float r, float g, float b, float a, bool depth = true);
void set_depth_test(bool on);
void set_blending(bool on);  // straight alpha blending
enum class Primitive { triangles, triangle_strip, lines, points };
void draw_arrays(Primitive mode, int first, int count);
void draw_arrays_instanced(Primitive mode, int first, int count, int instances);
// Reads the bound read framebuffer as RGBA8, rows top first (flipped from GL's bottom-up).
std::vector<std::uint8_t> read_pixels_rgba(int x, int y, int width, int height);

// Saves the read and draw framebuffer bindings and the viewport, and puts them back when it goes:
// for work that draws into a framebuffer of its own in the middle of someone else's frame (the
// viewer's offscreen captures).
class FramebufferBindingGuard {
public:
    FramebufferBindingGuard();
    ~FramebufferBindingGuard();
    FramebufferBindingGuard(const FramebufferBindingGuard&) = delete;
    FramebufferBindingGuard& operator=(const FramebufferBindingGuard&) = delete;

private:
    int draw_ = 0, read_ = 0;
    int viewport_[4] = {0, 0, 0, 0};
};

// Checks glGetError and throws adilab::Error naming `where` if anything is pending.
void check_errors(const char* where);

}  // namespace adilab::gl
