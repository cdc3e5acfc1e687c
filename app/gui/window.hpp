#pragma once
// The GUI's window: GLFW window + GL 4.3+ core context + Dear ImGui, owned together.
#include <deque>
#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace adilab::gl {
class AdoptedContext;
}

namespace adilab::gui {

// A key press (or a held key's repeat) as GLFW reported it, for the viewer's actions.
struct KeyPress {
    int key = 0;  // GLFW_KEY_*
    int mods = 0;
    bool repeat = false;
};

// A mouse button press with where the pointer was when it came (ImGui units: logical pixels, y
// down), which at a low frame rate can be far from where the pointer is when the frame runs.
struct MousePress {
    int button = 0;  // GLFW_MOUSE_BUTTON_*
    int mods = 0;
    float x = 0, y = 0;
};

class Window {
  public:
    // Throws adilab::Error when there is no display or no GL 4.3 context.
    Window(int width, int height, const std::string& title);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    bool should_close() const;
    // Polls events and starts an ImGui frame. Key and character events are queued as they come
    // and every one reaches ImGui (see window.cpp) and key_presses().
    void begin_frame();
    void end_frame();  // renders ImGui into the back buffer (not yet swapped)
    void present();    // swaps buffers
    void set_vsync(bool on);
    // Framebuffer size in pixels (0 x 0 while minimised).
    int framebuffer_width() const;
    int framebuffer_height() const;
    float content_scale() const { return content_scale_; }
    GLFWwindow* handle() const { return window_; }
    // Every key press and repeat that arrived during the last begin_frame(), in order.
    const std::vector<KeyPress>& key_presses() const { return presses_; }
    // Every mouse button press of the last begin_frame(), in order (they reach ImGui too).
    const std::vector<MousePress>& mouse_presses() const { return mouse_presses_; }
    // F11: fullscreen on the primary monitor, or back to the window it was.
    void toggle_fullscreen();
    gl::AdoptedContext& context() { return *context_; }

  private:
    GLFWwindow* window_ = nullptr;
    std::unique_ptr<gl::AdoptedContext> context_;
    float content_scale_ = 1.0f;
    // GLFW's key and character events, oldest first, until ImGui has been given them.
    struct InputEvent {
        bool is_char = false;
        int key = 0, scancode = 0, action = 0, mods = 0;
        unsigned codepoint = 0;
    };
    std::deque<InputEvent> pending_;
    std::vector<KeyPress> presses_;
    std::vector<MousePress> mouse_presses_;
    double pointer_x_ = 0, pointer_y_ = 0;  // the last cursor move GLFW reported
    bool pointer_known_ = false;
    int windowed_[4] = {0, 0, 0, 0};  // x, y, width, height before fullscreen
    void feed_imgui();
};

}  // namespace adilab::gui
