#pragma once
// The view drawn offscreen at a size of the user's choosing, for videos (F10, --record-video)
// and screenshots at a chosen resolution: the field as the viewport shows it (2-D zoom and pan,
// or the 3-D camera), the colour bar with its tick labels and unit, and no overlay or panel. The
// labels are the overlay's own (viewer_overlay.hpp), drawn through Dear ImGui's OpenGL3 backend
// into the capture's framebuffer. Only while a video records or a screenshot is asked for.
#include <vector>

#include "app/render/renderer.hpp"
#include "solvers/gl/objects.hpp"
#include "solvers/gl/readback.hpp"

namespace adilab::gui {

class Viewer;

class ViewCapture {
  public:
    // Draws `viewer`'s view with `renderer` into the capture's width x height framebuffer; the
    // framebuffers and viewport bound before are bound again after. Needs ImGui's frame to have
    // begun (its font). Throws adilab::Error when the framebuffer cannot be made.
    void draw(const Viewer& viewer, render::Renderer& renderer, int width, int height);
    const gl::Framebuffer& target() const { return target_; }
    // The video's pixel read-back (a frame or two late, never stalling): see gl::FramebufferReader.
    gl::FramebufferReader& reader() { return reader_; }

  private:
    gl::Framebuffer target_;
    gl::FramebufferReader reader_{3};
};

}  // namespace adilab::gui
