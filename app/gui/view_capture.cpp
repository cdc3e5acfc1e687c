// The view drawn offscreen: see view_capture.hpp.
#include "app/gui/view_capture.hpp"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "app/gui/viewer.hpp"
#include "app/gui/viewer_overlay.hpp"
#include "solvers/gl/commands.hpp"

namespace adilab::gui {

void ViewCapture::draw(const Viewer& viewer, render::Renderer& renderer, int width, int height) {
    if (target_.id() == 0 || target_.width() != width || target_.height() != height)
        target_ = gl::Framebuffer(width, height);
    const gl::FramebufferBindingGuard restore;
    target_.bind();
    const render::Rect area{0, 0, width, height};
    renderer.draw(viewer.source(), viewer.view(), area, &target_.colour());
    // The colour bar's labels: a draw list of our own, in the capture's pixels (one ImGui unit
    // a pixel), rendered by the backend into the bound framebuffer. The backend saves and
    // restores the GL state it touches but for the framebuffer, which is ours here.
    if (ImGui::GetCurrentContext() != nullptr) {
        ImDrawList labels(ImGui::GetDrawListSharedData());
        labels._ResetForNewFrame();
        labels.PushTextureID(ImGui::GetIO().Fonts->TexID);
        labels.PushClipRect(ImVec2(0, 0), ImVec2(float(width), float(height)));
        draw_colour_bar_labels(labels, viewer, area, float(height), 1.0f);
        ImDrawList* lists[] = {&labels};
        ImDrawData data;
        data.Valid = true;
        data.CmdLists = lists;
        data.CmdListsCount = 1;
        data.TotalVtxCount = labels.VtxBuffer.Size;
        data.TotalIdxCount = labels.IdxBuffer.Size;
        data.DisplayPos = ImVec2(0, 0);
        data.DisplaySize = ImVec2(float(width), float(height));
        data.FramebufferScale = ImVec2(1, 1);
        ImGui_ImplOpenGL3_RenderDrawData(&data);
    }
}

}  // namespace adilab::gui
