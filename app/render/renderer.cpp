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

constexpr unsigned kFieldBinding = 0, kRangeBinding = 1, kBottomBinding = 2, kPartialsBinding = 3,
                   kSurfaceBinding = 4, kBlocksBinding = 5, kBoundsBinding = 6;
// 3-D: dual cells per side of a block of the ray caster's acceleration grid (its work group is
// kRayBlock^2 invocations, a power of two).
// Measured on the H200 at 1024^2, 1920x1080: 8 (ray pass 0.172 ms + blocks 0.038 ms) and 16
// (0.193 + 0.019 ms) draw in the same time; 8 keeps the fine walk short on grazing rays.
constexpr int kRayBlock = 8;
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
    throw Error("unknown colormap '" + name +
                "' (valid: viridis, inferno, diverging, grayscale, turbo)");
}

Range shown_range(const Range& measured, const RenderSettings& settings) {
    Range r = measured;
    if (!settings.auto_range) {
        r.min = settings.range_min;
        r.max = settings.range_max;
    }
    if (!(r.max > r.min)) {
        r.max = r.min + 0.5f;
        r.min -= 0.5f;
    }
    if (!std::isfinite(r.min) || !std::isfinite(r.max)) {
        r.min = 0;
        r.max = 1;
    }
    if (uses_log_scale(settings)) {
        // As range.glsl: the top and at most 4 decades below it.
        r.max = std::max(r.max, 1e-30f);
        r.min = std::max(r.min, r.max * 1e-4f);
    }
    if (settings.colormap == Colormap::diverging) {
        const float half =
            std::max({r.max - settings.reference, settings.reference - r.min, 1e-30f});
        r.min = settings.reference - half;
        r.max = settings.reference + half;
    }
    return r;
}

// ---- OrbitCamera -------------------------------------------------------------------------------

void OrbitCamera::rotate(float dx, float dy) {
    yaw += dx;
    // Stay above the horizon and short of the pole, where lookAt's up vector degenerates.
    // Limits short of edge-on (0.15 rad, about 9 degrees: the surface still reads as a surface).
    pitch = std::clamp(pitch + dy, 0.15f, 1.5f);
}

double colour_position(double value, const Range& shown, const RenderSettings& settings) {
    if (uses_log_scale(settings))
        return (std::log(std::max(value, double(shown.min))) - std::log(double(shown.min))) /
               (std::log(double(shown.max)) - std::log(double(shown.min)));
    return (value - shown.min) / (double(shown.max) - shown.min);
}

void OrbitCamera::fit(glm::vec2 half, float height, float aspect) {
    const float radius = std::sqrt(half.x * half.x + half.y * half.y + height * height);
    const float half_fov_x = std::atan(std::tan(0.5f * fov_y) * std::max(aspect, 1e-3f));
    const float half_fov = std::min(0.5f * fov_y, half_fov_x);
    target = glm::vec3(0.0f);
    distance = std::clamp(1.05f * radius / std::sin(half_fov), 0.2f, 20.0f);
}

void OrbitCamera::zoom(float factor) {
    distance = std::clamp(distance * factor, 0.2f, 20.0f);
}

glm::vec3 OrbitCamera::eye() const {
    return target + distance * glm::vec3(std::cos(pitch) * std::cos(yaw),
                                         std::cos(pitch) * std::sin(yaw), std::sin(pitch));
}

glm::mat4 OrbitCamera::view() const {
    return glm::lookAt(eye(), target, glm::vec3(0, 0, 1));
}

glm::mat4 OrbitCamera::projection(float aspect) const {
    return glm::perspective(fov_y, std::max(aspect, 1e-3f), 0.01f, 100.0f);
}

// ---- Renderer ----------------------------------------------------------------------------------

Renderer::Renderer()
    : range_(4 * sizeof(std::uint32_t)),
      partials_(kReduceGroups * 4 * sizeof(float)),
      bounds_(2 * sizeof(std::uint32_t)),
      no_bottom_(sizeof(float)) {
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

std::optional<glm::vec2> Renderer::cell_to_pixel(const FieldSource& source,
                                                 const RenderSettings& settings, Rect viewport,
                                                 glm::vec2 cell) {
    if (viewport.empty() || source.nx <= 0 || source.ny <= 0) return std::nullopt;
    const glm::vec2 f = cell / glm::vec2(source.nx, source.ny);
    if (!draws_3d(source, settings)) {
        const Layout layout = layout_2d(source, settings, viewport);
        return layout.domain_min + f * (layout.domain_max - layout.domain_min);
    }
    const float aspect = static_cast<float>(viewport.width) / viewport.height;
    const glm::vec2 world = (f * 2.0f - 1.0f) * half_extent(source);
    const glm::vec4 clip =
        settings.camera.projection(aspect) * settings.camera.view() * glm::vec4(world, 0.0f, 1.0f);
    if (clip.w <= 0) return std::nullopt;
    const glm::vec2 ndc = glm::vec2(clip) / clip.w;
    return glm::vec2(viewport.x, viewport.y) +
           (ndc + 1.0f) * 0.5f * glm::vec2(viewport.width, viewport.height);
}

void Renderer::reduce_range(const gl::Buffer& field, std::size_t count) {
    const std::size_t needed = (count + kReduceGroupSize - 1) / kReduceGroupSize;
    const unsigned groups =
        static_cast<unsigned>(std::clamp<std::size_t>(needed, 1, kReduceGroups));
    const std::string wg = std::to_string(kReduceGroupSize);
    const gl::Program& pass1 =
        gl::compute_program("render/minmax.comp", {{"WG_SIZE", wg}, {"PASS1", "1"}});
    const gl::Program& pass2 = gl::compute_program("render/minmax.comp", {{"WG_SIZE", wg}});
    field.bind_storage(kFieldBinding);
    range_.bind_storage(kRangeBinding);
    partials_.bind_storage(kPartialsBinding);
    pass1.use();
    pass1.set("count", static_cast<unsigned>(count));
    gl::dispatch(groups);
    gl::memory_barrier(gl::Barrier::storage);
    pass2.use();
    pass2.set("count", groups);
    gl::dispatch(1);
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

void Renderer::draw(const FieldSource& source, const RenderSettings& settings, Rect viewport,
                    const gl::Texture2D* target_image) {
    if (viewport.empty()) return;
    gl::set_scissor(true, viewport.x, viewport.y, viewport.width, viewport.height);
    gl::viewport(viewport.x, viewport.y, viewport.width, viewport.height);
    empty_vao_.bind();
    // The compute passes write every pixel of the viewport: a clear only when there is nothing.
    if (source.field == nullptr || source.nx <= 0 || source.ny <= 0) {
        gl::clear(settings.background.r, settings.background.g, settings.background.b, 1.0f);
    } else {
        const std::size_t count = static_cast<std::size_t>(source.nx) * source.ny;
        if (source.field->size() < count * sizeof(float))
            throw Error("renderer: the field buffer holds fewer than nx * ny floats");
        reduce_range(*source.field, count);
        if (draws_3d(source, settings))
            draw_3d(source, settings, viewport, target_image);
        else
            draw_2d(source, settings, viewport, target_image);
    }
    gl::set_depth_test(false);
    gl::set_depth_write(true);
    gl::set_blending(false);
    gl::set_scissor(false);
}

Renderer::ImageTarget Renderer::image_target(Rect viewport, const gl::Texture2D* caller_image) {
    if (caller_image != nullptr) return {caller_image, glm::ivec2(viewport.x, viewport.y)};
    if (flat_.id() == 0 || flat_.width() != viewport.width || flat_.height() != viewport.height)
        flat_ = gl::Framebuffer(viewport.width, viewport.height);
    return {&flat_.colour(), glm::ivec2(0)};
}

void Renderer::set_colour_uniforms(const gl::Program& program, const RenderSettings& settings) {
    program.set("background", settings.background);
    program.set("map", static_cast<int>(settings.colormap));
    program.set("auto_range", settings.auto_range ? 1 : 0);
    program.set("fixed_range", glm::vec2(settings.range_min, settings.range_max));
    program.set("centred", settings.colormap == Colormap::diverging ? 1 : 0);
    program.set("reference", settings.reference);
    program.set("reversed", settings.reversed ? 1 : 0);
    program.set("log_scale", settings.log_scale ? 1 : 0);
}

void Renderer::fill_viewport(const ImageTarget& target, Rect viewport, unsigned tile) {
    target.image->bind_image(0, true);
    gl::dispatch((static_cast<unsigned>(viewport.width) + tile - 1) / tile,
                 (static_cast<unsigned>(viewport.height) + tile - 1) / tile);
    // The image feeds a blit, the framebuffer the arrows draw into, a read-back or the GUI.
    gl::memory_barrier(gl::Barrier::all);
    if (target.image == &flat_.colour())
        gl::blit_to_draw_framebuffer(flat_, viewport.x, viewport.y, viewport.width,
                                     viewport.height);
}

void Renderer::draw_2d(const FieldSource& source, const RenderSettings& settings, Rect viewport,
                       const gl::Texture2D* target_image) {
    const Layout layout = layout_2d(source, settings, viewport);
    gl::set_depth_test(false);
    gl::set_blending(false);
    const Rect area = layout.field_area;
    // The image is computed (field2d.comp), then blitted unless the caller's framebuffer
    // texture can take it directly.
    const ImageTarget target = image_target(viewport, target_image);
    const gl::Program& field = gl::compute_program("render/field2d.comp");
    field.use();
    field.set("origin", target.origin);
    field.set("size", glm::ivec2(viewport.width, viewport.height));
    const glm::vec2 corner(viewport.x, viewport.y);
    field.set("domain_min", layout.domain_min - corner);
    field.set("domain_max", layout.domain_max - corner);
    field.set("area_origin", glm::ivec2(area.x - viewport.x, area.y - viewport.y));
    field.set("area_size", glm::ivec2(std::max(area.width, 0), std::max(area.height, 0)));
    const Rect bar = layout.bar;
    field.set("bar_origin", glm::ivec2(bar.x - viewport.x, bar.y - viewport.y));
    field.set("bar_size", bar.empty() ? glm::ivec2(0) : glm::ivec2(bar.width, bar.height));
    field.set("grid", glm::ivec2(source.nx, source.ny));
    set_colour_uniforms(field, settings);
    source.field->bind_storage(kFieldBinding);
    range_.bind_storage(kRangeBinding);
    fill_viewport(target, viewport, 16);
    gl::set_scissor(true, area.x, area.y, std::max(area.width, 0), std::max(area.height, 0));

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
        const gl::Program& program =
            gl::graphics_program("render/arrows.vert", "render/arrows.frag");
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
}

void Renderer::draw_3d(const FieldSource& source, const RenderSettings& settings, Rect viewport,
                       const gl::Texture2D* target_image) {
    const glm::ivec2 grid(source.nx, source.ny);
    const glm::ivec2 blocks = (grid - 2) / kRayBlock + 1;  // ceil((grid - 1) / block) dual cells
    const glm::vec2 extent = half_extent(source);
    const float height_scale = settings.height_scale;
    const float floor_level = settings.base_level - 0.25f / std::max(height_scale, 1e-6f);

    // The surface's z per sample and the (min, max) of each block and of the whole surface.
    const std::size_t samples = static_cast<std::size_t>(grid.x) * grid.y;
    if (surface_.size() != samples * sizeof(float)) surface_ = gl::Buffer(samples * sizeof(float));
    const std::size_t block_bytes =
        static_cast<std::size_t>(blocks.x) * blocks.y * 2 * sizeof(float);
    if (blocks_.size() != block_bytes) blocks_ = gl::Buffer(block_bytes);
    bounds_.poison();  // 0xFFFFFFFF: the neutral element of the atomicMin on keys
    const std::string block = std::to_string(kRayBlock);
    const gl::Program& build =
        gl::compute_program("render/surface_blocks.comp", {{"BLOCK", block}});
    build.use();
    build.set("grid", grid);
    build.set("block_count", blocks);
    build.set("height_scale", height_scale);
    build.set("base_level", settings.base_level);
    build.set("has_bottom", source.bottom != nullptr ? 1 : 0);
    // With no bottom buffer, a floor a little below the surface's base level.
    build.set("floor_level", floor_level);
    source.field->bind_storage(kFieldBinding);
    (source.bottom != nullptr ? *source.bottom : no_bottom_).bind_storage(kBottomBinding);
    surface_.bind_storage(kSurfaceBinding);
    blocks_.bind_storage(kBlocksBinding);
    bounds_.bind_storage(kBoundsBinding);
    gl::dispatch(static_cast<unsigned>(blocks.x), static_cast<unsigned>(blocks.y));
    gl::memory_barrier(gl::Barrier::storage);

    // The rays, one per pixel, into the caller's image or ours (then blitted).
    const ImageTarget target = image_target(viewport, target_image);
    const OrbitCamera& camera = settings.camera;
    const float aspect = static_cast<float>(viewport.width) / viewport.height;
    const glm::vec3 eye = camera.eye();
    // The basis glm::lookAt (up = +z) and glm::perspective use, so that pixel_to_cell and the
    // rays agree.
    const glm::vec3 forward = glm::normalize(camera.target - eye);
    const glm::vec3 side = glm::normalize(glm::cross(forward, glm::vec3(0, 0, 1)));
    const glm::vec3 up = glm::cross(side, forward);
    const float tan_half = std::tan(0.5f * camera.fov_y);
    const gl::Program& ray = gl::compute_program("render/surface_ray.comp", {{"BLOCK", block}});
    ray.use();
    ray.set("origin", target.origin);
    ray.set("size", glm::ivec2(viewport.width, viewport.height));
    ray.set("eye", eye);
    ray.set("forward", forward);
    ray.set("right", side * (tan_half * aspect));
    ray.set("up", up * tan_half);
    ray.set("grid", grid);
    ray.set("block_count", blocks);
    ray.set("half_extent", extent);
    ray.set("cell_world", 2.0f * extent.x / static_cast<float>(grid.x));
    ray.set("height_scale", height_scale);
    ray.set("base_level", settings.base_level);
    ray.set("has_bottom", source.bottom != nullptr ? 1 : 0);
    ray.set("floor_level", floor_level);
    ray.set("light_direction", glm::normalize(glm::vec3(-0.4f, -0.6f, 0.7f)));
    ray.set("tint_by_value", settings.tint_water ? 1 : 0);
    set_colour_uniforms(ray, settings);
    Rect bar;
    if (settings.colour_bar && settings.tint_water) bar = layout_2d(source, settings, viewport).bar;
    ray.set("bar_origin", glm::ivec2(bar.x - viewport.x, bar.y - viewport.y));
    ray.set("bar_size", bar.empty() ? glm::ivec2(0) : glm::ivec2(bar.width, bar.height));
    range_.bind_storage(kRangeBinding);
    fill_viewport(target, viewport, 8);
}

}  // namespace adilab::render
