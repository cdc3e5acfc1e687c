#pragma once
// The viewer's renderer: draws a simulation's field straight from its GPU storage buffers into
// whatever framebuffer is bound (the GUI's window or a headless offscreen one), with no host
// read-back in the frame. No GLFW or ImGui here: `adilab --bench sim --render WxH` and the GUI
// draw with this same code.
//
// Both views are compute passes that write every pixel of the viewport (compute runs on every SM;
// GPUs built for compute, H100/H200, run fragment work on only a few). 2-D: the field through a
// colormap, aspect preserved, zoom and pan, a colour bar, optional velocity arrows (the one
// rasterised part: a few hundred lines). 3-D (height fields, shallow water): the water surface
// over the terrain, ray-cast per pixel at the field's full resolution with a per-frame grid of
// block bounds to skip empty space, lit with normals from the field, seen through an orbit
// camera. The auto colour range is a min/max reduction on the GPU that the shaders read
// directly; the host reads it back only when asked (the GUI: a few times per second, for the
// colour bar's labels and the NaN warning).
#include <array>
#include <cstdint>
#include <glm/glm.hpp>
#include <optional>
#include <span>
#include <string>

#include "solvers/gl/objects.hpp"

namespace adilab::render {

// diverging is Moreland's cool-warm; turbo a perceptual rainbow (colormaps.glsl).
enum class Colormap { viridis = 0, inferno = 1, diverging = 2, grayscale = 3, turbo = 4 };
constexpr std::array<const char*, 5> kColormapNames = {"viridis", "inferno", "diverging",
                                                       "grayscale", "turbo"};
// Throws adilab::Error naming the valid names.
Colormap colormap_from_name(const std::string& name);

// The flow the advection model uses, drawn as arrows.
struct Velocity {
    enum class Kind { none, uniform, rotation };
    Kind kind = Kind::none;
    float u = 0, v = 0;  // m/s (uniform)
    float omega = 0;     // rad/s about the domain centre (rotation)
};

// What to draw: borrowed buffers, valid for the draw call.
struct FieldSource {
    const gl::Buffer* field = nullptr;  // nx * ny float32, (i, j) at j * nx + i
    int nx = 0, ny = 0;
    float dh = 1;                        // cell size (m)
    const gl::Buffer* bottom = nullptr;  // bottom height b (shallow water), or null
    Velocity velocity;
    bool height_field = false;  // the field is a water surface: can be drawn in 3-D
};

struct OrbitCamera {
    float yaw = -0.9f;      // radians about the vertical axis
    float pitch = 0.65f;    // radians above the horizon
    float distance = 2.8f;  // from the target, world units (the domain's longer side is 2)
    glm::vec3 target{0.0f};
    float fov_y = 0.75f;  // radians

    void rotate(float dx_radians, float dy_radians);
    void zoom(float factor);  // < 1 moves closer
    // Distance so that a domain of half extent `half` (world units) with relief up to
    // `height` stays in view at this aspect (width / height), from the current angles.
    void fit(glm::vec2 half, float height, float aspect);
    glm::vec3 eye() const;
    glm::mat4 view() const;
    glm::mat4 projection(float aspect) const;
};

struct RenderSettings {
    Colormap colormap = Colormap::viridis;
    bool auto_range = true;
    float range_min = 0, range_max = 1;  // used when !auto_range
    float zoom = 1;                      // 2-D: 1 fits the domain into the viewport
    glm::vec2 pan{0.0f};                 // 2-D: offset of the domain centre, in domain fractions
    bool show_velocity = false;
    float arrow_spacing_px = 36;
    bool colour_bar = true;
    bool reversed = false;   // the colormap runs from max to min
    bool log_scale = false;  // colours by log(value) (not for diverging maps)
    float reference = 0;     // diverging maps centre on this value
    bool three_d = true;     // height fields drawn in 3-D
    OrbitCamera camera;
    float height_scale = 1;  // 3-D: world units per metre of height
    float base_level = 0;    // 3-D: the height drawn at z = 0
    bool tint_water = true;  // 3-D: water coloured by the colormap of its height
    glm::vec3 background{0.08f, 0.09f, 0.11f};
};

// Pixel rectangle, GL convention (origin bottom-left of the framebuffer).
struct Rect {
    int x = 0, y = 0, width = 0, height = 0;
    bool empty() const { return width <= 0 || height <= 0; }
};

struct Range {
    float min = 0, max = 0;
    std::uint32_t nonfinite = 0;  // cells that are NaN or Inf
    bool valid = false;
};
// The value range the colours span, as the shaders compute it (range.glsl): the measured or
// fixed range, widened to 1 about a flat field, symmetric about the reference for diverging
// maps. For the colour bar's labels.
Range shown_range(const Range& measured, const RenderSettings& settings);
// Where `value` falls on the colour bar, 0 (bottom) to 1 (top), in the shown range: linear, or
// logarithmic with the log scale (range.glsl's colour_position).
double colour_position(double value, const Range& shown, const RenderSettings& settings);
// Whether the log scale applies: asked for, and the map is not diverging.
inline bool uses_log_scale(const RenderSettings& settings) {
    return settings.log_scale && settings.colormap != Colormap::diverging;
}

class Renderer {
  public:
    Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    // Draws into the bound framebuffer inside `viewport` (cleared first). An empty viewport
    // (minimised window) draws nothing. `target_image`: the bound framebuffer's rgba8 colour
    // texture when the caller owns it (offscreen), so the flat view's compute pass writes it
    // directly instead of into a texture that is then blitted.
    void draw(const FieldSource& source, const RenderSettings& settings, Rect viewport,
              const gl::Texture2D* target_image = nullptr);

    // The range of the last draw's field, read back from the GPU (waits for that draw).
    Range read_range() const;
    // Min/max of any buffer of `count` floats, read back (waits): for resets, not per frame.
    Range measure(const gl::Buffer& buffer, std::size_t count);

    // 2-D layout: where the domain lies in `viewport`, in pixels (GL convention).
    struct Layout {
        glm::vec2 domain_min, domain_max;  // the domain's rectangle
        Rect bar;                          // the colour bar (empty when hidden)
        Rect field_area;                   // the part of the viewport the field may use
    };
    static Layout layout_2d(const FieldSource& source, const RenderSettings& settings,
                            Rect viewport);
    // The cell coordinates (fractional, 0..nx, 0..ny) under pixel `p` (GL convention), or
    // nothing outside the domain. 3-D: the ray through p hits the plane z = 0 (base level).
    static std::optional<glm::vec2> pixel_to_cell(const FieldSource& source,
                                                  const RenderSettings& settings, Rect viewport,
                                                  glm::vec2 p);
    // Where cell coordinates `cell` (fractional, as pixel_to_cell gives them) are drawn: the
    // pixel (GL convention) of that point of the domain, in 3-D on the plane z = 0 (base level);
    // nothing where it falls behind the 3-D camera.
    static std::optional<glm::vec2> cell_to_pixel(const FieldSource& source,
                                                  const RenderSettings& settings, Rect viewport,
                                                  glm::vec2 cell);
    // Whether this source is drawn in 3-D with these settings.
    static bool draws_3d(const FieldSource& source, const RenderSettings& settings) {
        return source.height_field && settings.three_d && source.nx >= 2 && source.ny >= 2;
    }
    // World half-extent of the domain in 3-D (the longer side spans 2).
    static glm::vec2 half_extent(const FieldSource& source);

  private:
    void reduce_range(const gl::Buffer& field, std::size_t count);
    void draw_2d(const FieldSource& source, const RenderSettings& settings, Rect viewport,
                 const gl::Texture2D* target_image);
    void draw_3d(const FieldSource& source, const RenderSettings& settings, Rect viewport,
                 const gl::Texture2D* target_image);
    // Where a compute pass draws the viewport: the caller's image (at the viewport's corner)
    // or flat_ (at 0, sized to the viewport; blitted by fill_viewport).
    struct ImageTarget {
        const gl::Texture2D* image;
        glm::ivec2 origin;
    };
    ImageTarget image_target(Rect viewport, const gl::Texture2D* caller_image);
    // The colour-mapping uniforms the 2-D and 3-D passes share.
    static void set_colour_uniforms(const gl::Program& program, const RenderSettings& settings);
    // Runs the bound program over the viewport in tile x tile groups into `target`.
    void fill_viewport(const ImageTarget& target, Rect viewport, unsigned tile);

    gl::VertexArray empty_vao_;  // core profile draws need a bound VAO, even with no attributes
    gl::Buffer range_;           // 4 uints: min key, max key, non-finite count, pad
    gl::Buffer partials_;        // the reduction's per-group results
    gl::Buffer surface_;         // 3-D: world z of the drawn surface per sample
    gl::Buffer blocks_;          // 3-D: (min z, max z) per block of the ray caster's grid
    gl::Buffer bounds_;          // 3-D: the whole surface's z range, as two ordered keys
    gl::Framebuffer flat_;       // the computed image when the caller has no texture
    gl::Buffer no_bottom_;       // bound when there is no bottom buffer (binding must be valid)
};

}  // namespace adilab::render
