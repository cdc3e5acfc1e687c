#pragma once
// The GUI's window: GLFW window + GL 4.3+ core context + Dear ImGui, owned together.
#include <memory>
#include <string>

struct GLFWwindow;

namespace adilab::gl {
class AdoptedContext;
}

namespace adilab::gui {

class Window {
public:
    // Throws adilab::Error when there is no display or no GL 4.3 context.
    Window(int width, int height, const std::string& title);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    bool should_close() const;
    void begin_frame();  // polls events and starts an ImGui frame
    void end_frame();    // renders ImGui into the back buffer (not yet swapped)
    void present();      // swaps buffers
    void set_vsync(bool on);
    // Framebuffer size in pixels (0 x 0 while minimised).
    int framebuffer_width() const;
    int framebuffer_height() const;
    float content_scale() const { return content_scale_; }
    GLFWwindow* handle() const { return window_; }
    gl::AdoptedContext& context() { return *context_; }

private:
    GLFWwindow* window_ = nullptr;
    std::unique_ptr<gl::AdoptedContext> context_;
    float content_scale_ = 1.0f;
};

}  // namespace adilab::gui
