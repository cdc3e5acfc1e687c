// The viewport's keys and mouse: see viewer_input.hpp.
#include "app/gui/viewer_input.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/gui/viewer.hpp"

namespace adilab::gui {

namespace {

// Every press since the last frame counts, however short (window.cpp queues them): ten quick
// taps of S are ten steps even at 2 FPS. Toggles and one-shot actions ignore key repeat (a held
// Space must not flicker between play and pause, a held R or F12 must not reset or shoot over
// and over); a held S keeps stepping.
void handle_keys(Viewer& viewer, std::span<const KeyPress> keys) {
    InterfaceSettings& ui = viewer.interface_settings();
    for (const KeyPress& k : keys) {
        const bool ctrl = (k.mods & GLFW_MOD_CONTROL) != 0;
        if (ctrl) {
            // Ctrl+S: "Save as preset" (its name field in the panel); other chords are not ours.
            if (k.key == GLFW_KEY_S && !k.repeat) viewer.request_preset_name();
            continue;
        }
        if (k.key == GLFW_KEY_S) viewer.step_once();
        if (k.repeat) continue;
        switch (k.key) {
            case GLFW_KEY_SPACE:
                viewer.toggle_playing();
                break;
            case GLFW_KEY_R:
                viewer.reset_view_and_field();
                break;
            case GLFW_KEY_C:
                viewer.fit_view();
                break;
            case GLFW_KEY_H:
                ui.show_help = !ui.show_help;
                break;
            case GLFW_KEY_TAB:
                ui.hide_ui = !ui.hide_ui;
                break;
            case GLFW_KEY_F11:
                viewer.request_fullscreen();
                break;
            case GLFW_KEY_F12:
                viewer.request_screenshot();
                break;
            case GLFW_KEY_F9:
                viewer.toggle_recording();
                break;
            case GLFW_KEY_F10:
                viewer.toggle_video();
                break;
            default:
                break;
        }
    }
}

// The wheel: the 3-D camera's distance, or the 2-D zoom about the cursor (the point under it
// stays put).
void zoom(Viewer& viewer, render::Rect viewport, glm::vec2 mouse, float wheel, bool three_d) {
    render::RenderSettings& view = viewer.view();
    if (three_d) {
        view.camera.zoom(std::pow(0.9f, wheel));
        return;
    }
    const render::FieldSource src = viewer.source();
    auto before = render::Renderer::layout_2d(src, view, viewport);
    const glm::vec2 f = (mouse - before.domain_min) / (before.domain_max - before.domain_min);
    view.zoom = std::clamp(view.zoom * std::pow(1.15f, wheel), 0.2f, 64.0f);
    auto after = render::Renderer::layout_2d(src, view, viewport);
    const glm::vec2 size = after.domain_max - after.domain_min;
    view.pan += (mouse - (after.domain_min + f * size)) / size;
}

// Left: paint (2-D) or orbit (3-D; with Shift it paints), unless a cross-section line is being
// dragged (Ctrl). Right or middle: pan (2-D) / orbit (3-D). `delta` is the mouse's move in
// framebuffer pixels, y down.
void drag(Viewer& viewer, render::Rect viewport, glm::vec2 mouse, glm::vec2 delta, bool three_d) {
    const ImGuiIO& io = ImGui::GetIO();
    render::RenderSettings& view = viewer.view();
    const bool left = ImGui::IsMouseDown(ImGuiMouseButton_Left) && !io.KeyCtrl &&
                      !viewer.cross_section_dragging();
    const bool paint = left && (!three_d || io.KeyShift);
    const bool orbit =
        three_d && (ImGui::IsMouseDown(ImGuiMouseButton_Right) || (left && !io.KeyShift));
    if (paint) viewer.paint_at(viewport, mouse);
    if (orbit) {
        view.camera.rotate(-delta.x * 0.01f, delta.y * 0.01f);
    } else if (!three_d && (ImGui::IsMouseDown(ImGuiMouseButton_Right) ||
                            ImGui::IsMouseDown(ImGuiMouseButton_Middle))) {
        auto layout = render::Renderer::layout_2d(viewer.source(), view, viewport);
        view.pan += glm::vec2(delta.x, -delta.y) / (layout.domain_max - layout.domain_min);
    }
}

void handle_mouse(Viewer& viewer, render::Rect viewport, float framebuffer_height, float scale,
                  std::span<const MousePress> clicks) {
    const ImGuiIO& io = ImGui::GetIO();
    // A cross-section's end follows the mouse until the button is released, wherever that is.
    if (viewer.cross_section_dragging() && !ImGui::IsMouseDown(ImGuiMouseButton_Left))
        viewer.end_cross_section_drag();
    // ImGui positions are in its units (logical pixels), y down; the viewport is in framebuffer
    // pixels, y up.
    const glm::vec2 mouse(io.MousePos.x * scale, framebuffer_height - io.MousePos.y * scale);
    const bool inside = mouse.x >= viewport.x && mouse.x < viewport.x + viewport.width &&
                        mouse.y >= viewport.y && mouse.y < viewport.y + viewport.height;
    if (io.WantCaptureMouse || !inside) {
        viewer.set_probe_cell(std::nullopt);
        return;
    }
    const render::FieldSource src = viewer.source();
    const bool three_d = render::Renderer::draws_3d(src, viewer.view());
    const auto cell = render::Renderer::pixel_to_cell(src, viewer.view(), viewport, mouse);
    if (cell)
        viewer.set_probe_cell(glm::ivec2(std::clamp(int(cell->x), 0, src.nx - 1),
                                         std::clamp(int(cell->y), 0, src.ny - 1)));
    else
        viewer.set_probe_cell(std::nullopt);
    // Ctrl+left press on the field starts a cross-section line at the press (at a low frame rate
    // the pointer may have moved on by the frame that handles it); the drag moves its end.
    if (cell && io.KeyCtrl && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        auto start = cell;
        for (const MousePress& click : clicks)
            if (click.button == GLFW_MOUSE_BUTTON_LEFT && (click.mods & GLFW_MOD_CONTROL)) {
                const glm::vec2 at(click.x * scale, framebuffer_height - click.y * scale);
                if (const auto pressed =
                        render::Renderer::pixel_to_cell(src, viewer.view(), viewport, at))
                    start = pressed;
                break;
            }
        viewer.begin_cross_section(*start);
        if (start != cell) viewer.move_cross_section_end(*cell);
    } else if (cell && viewer.cross_section_dragging())
        viewer.move_cross_section_end(*cell);
    if (io.MouseWheel != 0) zoom(viewer, viewport, mouse, io.MouseWheel, three_d);
    drag(viewer, viewport, mouse, glm::vec2(io.MouseDelta.x * scale, io.MouseDelta.y * scale),
         three_d);
}

}  // namespace

void handle_input(Viewer& viewer, render::Rect viewport, float framebuffer_height, float scale,
                  std::span<const KeyPress> keys, std::span<const MousePress> clicks) {
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.WantCaptureKeyboard && !io.WantTextInput) handle_keys(viewer, keys);
    if (!viewport.empty()) handle_mouse(viewer, viewport, framebuffer_height, scale, clicks);
}

}  // namespace adilab::gui
