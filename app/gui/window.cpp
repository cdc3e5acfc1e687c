#include "app/gui/window.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdlib>

#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {

namespace {
std::string glfw_error_text() {
    const char* text = nullptr;
    glfwGetError(&text);
    return text ? text : "unknown GLFW error";
}
}  // namespace

// ImGui 1.86's GLFW backend writes a key's state straight into io.KeysDown, and ImGui samples
// that once per frame: a key pressed and released between two frames never reaches it, and at
// 2-3 FPS even a 300 ms press can fall between samples. So the window installs its own
// callbacks: key and character events are queued, every press goes to the viewer's actions
// (key_presses()) the frame it arrives, and ImGui gets the queue "trickled": at most one change
// per key per frame, the rest waiting for the next frame, so each press is seen down for one
// frame and then up. Mouse, scroll, focus and monitor events go to the backend unchanged (it
// keeps its own record of quick clicks); a button press also keeps the pointer's position at
// that moment (mouse_presses()), since the backend samples the pointer once a frame.
namespace {
Window* owner(GLFWwindow* w) {
    return static_cast<Window*>(glfwGetWindowUserPointer(w));
}
}  // namespace

Window::Window(int width, int height, const std::string& title) {
    if (!glfwInit()) {
        const char* display = std::getenv("DISPLAY");
        const char* wayland = std::getenv("WAYLAND_DISPLAY");
        std::string why = (display == nullptr || !*display) && (wayland == nullptr || !*wayland)
                              ? "no display (DISPLAY and WAYLAND_DISPLAY are unset)"
                              : glfw_error_text();
        throw Error("cannot open the GUI: " + why +
                    ". For headless runs use 'adilab --bench NAME' or 'adilab --info'.");
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
#ifdef ADILAB_DEBUG
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, GLFW_TRUE);
#endif
    // Ask for 4.6 and step down to 4.3, the least adilab runs on.
    for (int minor = 6; minor >= 3 && window_ == nullptr; --minor) {
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
        window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
    }
    if (window_ == nullptr) {
        std::string why = glfw_error_text();
        glfwTerminate();
        throw Error("cannot open a window with OpenGL 4.3 core or newer: " + why +
                    ". For headless runs use 'adilab --bench NAME' or 'adilab --info'.");
    }
    glfwMakeContextCurrent(window_);
    try {
        context_ = std::make_unique<gl::AdoptedContext>(
            reinterpret_cast<gl::GetProcAddress>(glfwGetProcAddress));
    } catch (...) {
        glfwDestroyWindow(window_);
        glfwTerminate();
        throw;
    }
    glfwSwapInterval(1);
    float xscale = 1.0f, yscale = 1.0f;
    glfwGetWindowContentScale(window_, &xscale, &yscale);
    content_scale_ = std::max(1.0f, std::max(xscale, yscale));

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the GUI stores its own settings
    ImGui::StyleColorsDark();
    ImGui::GetStyle().ScaleAllSizes(content_scale_);
    io.FontGlobalScale = content_scale_;
    ImGui_ImplGlfw_InitForOpenGL(window_, false);
    glfwSetWindowUserPointer(window_, this);
    glfwSetWindowFocusCallback(window_, ImGui_ImplGlfw_WindowFocusCallback);
    glfwSetCursorEnterCallback(window_, ImGui_ImplGlfw_CursorEnterCallback);
    glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int button, int action, int mods) {
        ImGui_ImplGlfw_MouseButtonCallback(w, button, action, mods);
        if (action != GLFW_PRESS) return;
        // Where the pointer was at this event: the last move GLFW reported before it, in event
        // order (glfwGetCursorPos asks the X server for the pointer now, which at a low frame
        // rate is already further along a drag).
        Window* window = owner(w);
        double x = window->pointer_x_, y = window->pointer_y_;
        if (!window->pointer_known_) glfwGetCursorPos(w, &x, &y);
        window->mouse_presses_.push_back({button, mods, float(x), float(y)});
    });
    glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double x, double y) {
        Window* window = owner(w);
        window->pointer_x_ = x;
        window->pointer_y_ = y;
        window->pointer_known_ = true;
    });
    glfwSetScrollCallback(window_, ImGui_ImplGlfw_ScrollCallback);
    glfwSetMonitorCallback(ImGui_ImplGlfw_MonitorCallback);
    glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int scancode, int action, int mods) {
        InputEvent e;
        e.key = key;
        e.scancode = scancode;
        e.action = action;
        e.mods = mods;
        owner(w)->pending_.push_back(e);
        if (action != GLFW_RELEASE)
            owner(w)->presses_.push_back({key, mods, action == GLFW_REPEAT});
    });
    glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned codepoint) {
        InputEvent e;
        e.is_char = true;
        e.codepoint = codepoint;
        owner(w)->pending_.push_back(e);
    });
    ImGui_ImplOpenGL3_Init("#version 430 core");
}

Window::~Window() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    context_.reset();  // frees adilab's GL objects while the context is current
    glfwDestroyWindow(window_);
    glfwTerminate();
}

bool Window::should_close() const {
    return glfwWindowShouldClose(window_);
}

void Window::feed_imgui() {
    std::vector<int> changed;  // keys whose state ImGui already got this frame
    while (!pending_.empty()) {
        const InputEvent& e = pending_.front();
        if (e.is_char) {
            ImGui_ImplGlfw_CharCallback(window_, e.codepoint);
        } else if (e.action == GLFW_REPEAT) {
            // ImGui makes its own repeats from the held state.
        } else {
            if (std::find(changed.begin(), changed.end(), e.key) != changed.end()) break;
            changed.push_back(e.key);
            ImGui_ImplGlfw_KeyCallback(window_, e.key, e.scancode, e.action, e.mods);
        }
        pending_.pop_front();
    }
}

void Window::toggle_fullscreen() {
    GLFWmonitor* monitor = glfwGetWindowMonitor(window_);
    if (monitor != nullptr) {
        glfwSetWindowMonitor(window_, nullptr, windowed_[0], windowed_[1], windowed_[2],
                             windowed_[3], 0);
        return;
    }
    monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
    if (mode == nullptr) return;
    glfwGetWindowPos(window_, &windowed_[0], &windowed_[1]);
    glfwGetWindowSize(window_, &windowed_[2], &windowed_[3]);
    glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
}

void Window::begin_frame() {
    presses_.clear();
    mouse_presses_.clear();
    glfwPollEvents();
    feed_imgui();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void Window::end_frame() {
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::present() {
    glfwSwapBuffers(window_);
}

void Window::set_vsync(bool on) {
    glfwSwapInterval(on ? 1 : 0);
}

int Window::framebuffer_width() const {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    return w;
}

int Window::framebuffer_height() const {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    return h;
}

}  // namespace adilab::gui
