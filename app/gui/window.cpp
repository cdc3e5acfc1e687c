#include "app/gui/window.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

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
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
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

bool Window::should_close() const { return glfwWindowShouldClose(window_); }

void Window::begin_frame() {
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void Window::end_frame() {
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::present() { glfwSwapBuffers(window_); }

void Window::set_vsync(bool on) { glfwSwapInterval(on ? 1 : 0); }

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
