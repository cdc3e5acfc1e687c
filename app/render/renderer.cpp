#include "app/render/renderer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/gtc/matrix_transform.hpp>

#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/frame_timer.hpp"
#include "solvers/gl/shaders.hpp"

namespace adilab::render {

namespace {

constexpr unsigned kFieldBinding = 0, kRangeBinding = 1, kBottomBinding = 2;
constexpr int kReduceGroupSize = 256;
// Enough groups to fill a large GPU; each strides over the rest. One dispatch per frame.
constexpr unsigned kReduceGroups = 256;

glm::vec2 to_ndc(glm::vec2 p, Rect viewport) {
    return (p - glm::vec2(viewport.x, viewport.y)) / glm::vec2(viewport.width, viewport.height) *
               2.0f -
           1.0f;
}

}  // namespace

Colormap colormap_from_name(const std::string& name) {
    for (std::size_t i = 0; i < kColormapNames.size(); ++i)
        if (name == kColormapNames[i]) return static_cast<Colormap>(i);
    throw Error("unknown colormap '" + name + "' (valid: viridis, inferno, diverging, grayscale)");
}

// ---- OrbitCamera -------------------------------------------------------------------------------

void OrbitCamera::rotate(float dx, float dy) {
    yaw += dx;
    // Stay above the horizon and short of the pole, where lookAt's up vector degenerates.
    pitch = std::clamp(pitch + dy, 0.05f, 1.5f);
}

void OrbitCamera::zoom(float factor) { distance = std::clamp(distance * factor, 0.2f, 20.0f); }

glm::vec3 OrbitCamera::eye() const {
    return target + distance * glm::vec3(std::cos(pitch) * std::cos(yaw),
                                         std::cos(pitch) * std::sin(yaw), std::sin(pitch));
}

glm::mat4 OrbitCamera::view() const { return glm::lookAt(eye(), target, glm::vec3(0, 0, 1)); }

glm::mat4 OrbitCamera::projection(float aspect) const {
    return glm::perspective(fov_y, std::max(aspect, 1e-3f), 0.01f, 100.0f);
}

// ---- Renderer ----------------------------------------------------------------------------------

Renderer::Renderer() : range_(4 * sizeof(std::uint32_t)), no_bottom_(sizeof(float)) {
    range_.zero();
    no_bottom_.zero();
}

glm::vec2 Renderer::half_extent(const FieldSource& source) {
    const float longest = static_cast<float>(std::max(source.nx, source.ny));
    return glm::vec2(source.nx, source.ny) / longest;
}

Renderer::Layout Renderer::layout_2d(const FieldSource& source, const RenderSettings& settings,
                                     Rect viewport) {
    Layout layout;
    layout.field_area = viewport;
    if (settings.colour_bar && viewport.width > 160) {
        // The bar and room for its labels (drawn by the GUI) on the right.
        const int room = 90, bar_width = 16;
        layout.field_area.width -= room;
        const int margin = std::max(8, viewport.height / 12);
        layout.bar = Rect{viewport.x + viewport.width - room + 10, viewport.y + margin, bar_width,
                          std::max(0, viewport.height - 2 * margin)};
    }
    const Rect area = layout.field_area;
    const float nx = static_cast<float>(std::max(source.nx, 1));
    const float ny = static_cast<float>(std::max(source.ny, 1));
    // Square cells: the domain keeps its aspect ratio whatever the viewport's.
    const float scale = std::min(area.width / nx, area.height / ny) * settings.zoom;
    const glm::vec2 size(nx * scale, ny * scale);
    const glm::vec2 centre =
        glm::vec2(area.x + 0.5f * area.width, area.y + 0.5f * area.height) + settings.pan * size;
    layout.domain_min = centre - 0.5f * size;
    layout.domain_max = centre + 0.5f * size;
    return layout;
}

std::optional<glm::vec2> Renderer::pixel_to_cell(const FieldSource& source,
                                                 const RenderSettings& settings, Rect viewport,
                                                 glm::vec2 p) {
    if (viewport.empty() || source.nx <= 0 || source.ny <= 0) return std::nullopt;
    glm::vec2 f;
    if (draws_3d(source, settings)) {
        const float aspect = static_cast<float>(viewport.width) / viewport.height;
        const glm::mat4 inverse =
            glm::inverse(settings.camera.projection(aspect) * settings.camera.view());
        const glm::vec2 ndc = to_ndc(p, viewport);
        glm::vec4 near = inverse * glm::vec4(ndc, -1.0f, 1.0f);
        glm::vec4 far = inverse * glm::vec4(ndc, 1.0f, 1.0f);
        const glm::vec3 a = glm::vec3(near) / near.w, b = glm::vec3(far) / far.w;
        if (std::abs(b.z - a.z) < 1e-9f) return std::nullopt;
        const float t = -a.z / (b.z - a.z);  // the plane z = 0: the base level
        if (t < 0) return std::nullopt;
        const glm::vec3 hit = a + t * (b - a);
        f = (glm::vec2(hit) / half_extent(source) + 1.0f) * 0.5f;
    } else {
        const Layout layout = layout_2d(source, settings, viewport);
        f = (p - layout.domain_min) / (layout.domain_max - layout.domain_min);
    }
    if (f.x < 0 || f.y < 0 || f.x > 1 || f.y > 1) return std::nullopt;
    return f * glm::vec2(source.nx, source.ny);
}

void Renderer::reduce_range(const gl::Buffer& field, std::size_t count) {
    // Reset to (largest key, smallest key, 0): a tiny upload, no read-back.
    const std::uint32_t reset[4] = {0xFFFFFFFFu, 0u, 0u, 0u};
    range_.upload(0, sizeof reset, reset);
    const gl::Program& program = gl::compute_program(
        "render/minmax.comp", {{"WG_SIZE", std::to_string(kReduceGroupSize)}});
    program.use();
    program.set("count", static_cast<unsigned>(count));
    field.bind_storage(kFieldBinding);
    range_.bind_storage(kRangeBinding);
    const std::size_t needed = (count + kReduceGroupSize - 1) / kReduceGroupSize;
    gl::dispatch(static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, kReduceGroups)));
    gl::memory_barrier(gl::Barrier::storage);
}

Range Renderer::read_range() const {
    const auto words = range_.read<std::uint32_t>(4);
    auto decode = [](std::uint32_t key) {
        const std::uint32_t bits = (key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key;
        float value;
        static_assert(sizeof value == sizeof bits);
        std::memcpy(&value, &bits, sizeof value);
        return value;
    };
    Range range;
    range.nonfinite = words[2];
    range.valid = words[0] != 0xFFFFFFFFu;
    if (range.valid) {
        range.min = decode(words[0]);
        range.max = decode(words[1]);
    }
    return range;
}

Range Renderer::measure(const gl::Buffer& buffer, std::size_t count) {
    reduce_range(buffer, count);
    return read_range();
}

void Renderer::draw(const FieldSource& source, const RenderSettings& settings, Rect viewport) {
    if (viewport.empty()) return;
    gl::set_scissor(true, viewport.x, viewport.y, viewport.width, viewport.height);
    gl::viewport(viewport.x, viewport.y, viewport.width, viewport.height);
    gl::clear(settings.background.r, settings.background.g, settings.background.b, 1.0f);
    empty_vao_.bind();
    if (source.field != nullptr && source.nx > 0 && source.ny > 0) {
        const std::size_t count = static_cast<std::size_t>(source.nx) * source.ny;
        if (source.field->size() < count * sizeof(float))
            throw Error("renderer: the field buffer holds fewer than nx * ny floats");
        reduce_range(*source.field, count);
        if (draws_3d(source, settings))
            draw_3d(source, settings, viewport);
        else
            draw_2d(source, settings, viewport);
    }
    gl::set_depth_test(false);
    gl::set_depth_write(true);
    gl::set_blending(false);
    gl::set_scissor(false);
}

void Renderer::draw_2d(const FieldSource& source, const RenderSettings& settings, Rect viewport) {
    const Layout layout = layout_2d(source, settings, viewport);
    gl::set_depth_test(false);
    gl::set_blending(false);
    const Rect area = layout.field_area;
    gl::set_scissor(true, area.x, area.y, std::max(area.width, 0), std::max(area.height, 0));
    const gl::Program& field = gl::graphics_program("render/quad.vert", "render/field2d.frag");
    field.use();
    field.set("rect_min", to_ndc(layout.domain_min, viewport));
    field.set("rect_max", to_ndc(layout.domain_max, viewport));
    field.set("grid", glm::ivec2(source.nx, source.ny));
    field.set("map", static_cast<int>(settings.colormap));
    field.set("auto_range", settings.auto_range ? 1 : 0);
    field.set("fixed_range", glm::vec2(settings.range_min, settings.range_max));
    source.field->bind_storage(kFieldBinding);
    range_.bind_storage(kRangeBinding);
    gl::draw_arrays(gl::Primitive::triangle_strip, 0, 4);

    if (settings.show_velocity && source.velocity.kind != Velocity::Kind::none) {
        const Velocity& vel = source.velocity;
        const glm::vec2 size = layout.domain_max - layout.domain_min;
        const float spacing = std::max(settings.arrow_spacing_px, 8.0f);
        const glm::ivec2 arrows = glm::max(glm::ivec2(size / spacing), glm::ivec2(1));
        const glm::vec2 domain(source.nx * source.dh, source.ny * source.dh);
        // The fastest speed on the grid: uniform |(u, v)|, or omega times the corner radius.
        const float max_speed = vel.kind == Velocity::Kind::uniform
                                    ? std::hypot(vel.u, vel.v)
                                    : std::abs(vel.omega) * 0.5f * glm::length(domain);
        const gl::Program& program = gl::graphics_program("render/arrows.vert", "render/arrows.frag");
        program.use();
        program.set("rect_min", to_ndc(layout.domain_min, viewport));
        program.set("rect_max", to_ndc(layout.domain_max, viewport));
        program.set("domain_size", domain);
        program.set("arrows", arrows);
        program.set("velocity_kind", vel.kind == Velocity::Kind::uniform ? 1 : 2);
        program.set("uniform_velocity", glm::vec2(vel.u, vel.v));
        program.set("omega", vel.omega);
        program.set("max_speed", max_speed);
        program.set("pixel_ndc", 2.0f / glm::vec2(viewport.width, viewport.height));
        program.set("spacing_px", spacing);
        gl::set_blending(true);
        gl::draw_arrays_instanced(gl::Primitive::lines, 0, 6, arrows.x * arrows.y);
        gl::set_blending(false);
    }
    gl::set_scissor(true, viewport.x, viewport.y, viewport.width, viewport.height);
    if (!layout.bar.empty()) draw_colour_bar(settings, viewport, layout.bar);
}

void Renderer::draw_3d(const FieldSource& source, const RenderSettings& settings, Rect viewport) {
    const float aspect = static_cast<float>(viewport.width) / viewport.height;
    const glm::mat4 view_projection =
        settings.camera.projection(aspect) * settings.camera.view();
    const glm::ivec2 grid(source.nx, source.ny);
    const glm::ivec2 mesh = glm::max(glm::min(grid, glm::ivec2(settings.max_mesh)), glm::ivec2(2));
    const glm::vec2 extent = half_extent(source);
    const glm::vec3 light = glm::normalize(glm::vec3(-0.4f, -0.6f, 0.7f));

    source.field->bind_storage(kFieldBinding);
    range_.bind_storage(kRangeBinding);
    (source.bottom != nullptr ? *source.bottom : no_bottom_).bind_storage(kBottomBinding);
    gl::set_depth_test(true);

    auto set_common = [&](const gl::Program& p) {
        p.use();
        p.set("grid", grid);
        p.set("mesh", mesh);
        p.set("view_projection", view_projection);
        p.set("half_extent", extent);
        p.set("height_scale", settings.height_scale);
        p.set("base_level", settings.base_level);
        p.set("has_bottom", source.bottom != nullptr ? 1 : 0);
        // With no bottom buffer, a floor a little below the surface's base level.
        p.set("floor_level", settings.base_level - 0.25f / std::max(settings.height_scale, 1e-6f));
        p.set("eye", settings.camera.eye());
        p.set("light_direction", light);
        p.set("map", static_cast<int>(settings.colormap));
        p.set("tint_by_value", settings.tint_water ? 1 : 0);
        p.set("auto_range", settings.auto_range ? 1 : 0);
        p.set("fixed_range", glm::vec2(settings.range_min, settings.range_max));
    };
    const int strip_vertices = 2 * mesh.x, strips = mesh.y - 1;
    const gl::Program& terrain = gl::graphics_program("render/surface.vert", "render/surface.frag",
                                                      {{"TERRAIN", "1"}});
    set_common(terrain);
    gl::set_blending(false);
    gl::draw_arrays_instanced(gl::Primitive::triangle_strip, 0, strip_vertices, strips);

    const gl::Program& water = gl::graphics_program("render/surface.vert", "render/surface.frag");
    set_common(water);
    gl::set_blending(true);
    gl::draw_arrays_instanced(gl::Primitive::triangle_strip, 0, strip_vertices, strips);
    gl::set_blending(false);
    gl::set_depth_test(false);

    if (settings.colour_bar && settings.tint_water && viewport.width > 160) {
        const Layout layout = layout_2d(source, settings, viewport);
        if (!layout.bar.empty()) draw_colour_bar(settings, viewport, layout.bar);
    }
}

void Renderer::draw_colour_bar(const RenderSettings& settings, Rect viewport, Rect bar) {
    const gl::Program& program = gl::graphics_program("render/quad.vert", "render/colour_bar.frag");
    program.use();
    program.set("rect_min", to_ndc(glm::vec2(bar.x, bar.y), viewport));
    program.set("rect_max", to_ndc(glm::vec2(bar.x + bar.width, bar.y + bar.height), viewport));
    program.set("map", static_cast<int>(settings.colormap));
    gl::draw_arrays(gl::Primitive::triangle_strip, 0, 4);
}

}  // namespace adilab::render
