// The 3-D view (ray-cast height field) against what it must show, pixel by pixel: a float64
// reference ray cast (solvers/reference/height_field_ray) of the same camera over the same
// surface says for every pixel whether its ray meets water, terrain or nothing, and the GPU's
// colours must agree (water blue over red, terrain red over blue, background exactly). The scene
// is a flat lake over a known ramp of terrain with a tall wall in front of part of the lake
// (occlusion: lake points behind the wall must show the wall), and the same lake with a bump
// (the slope facing the light must be lit brighter than the slope facing away, and differ from
// the flat lake). Awkward sizes: the grid is not a multiple of the ray caster's block.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <glm/glm.hpp>
#include <limits>
#include <numbers>

#include "app/files/png.hpp"
#include "app/render/renderer.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/objects.hpp"
#include "solvers/reference/height_field_ray.hpp"
#include "tests/support/gl_environment.hpp"

namespace adilab::test {
namespace {

constexpr int kNx = 61, kNy = 43;  // 60 x 42 dual cells: 7.5 x 5.25 blocks of 8
constexpr int kWidth = 160, kHeight = 120;
constexpr double kWallHeight = 1.5;  // metres

enum class Seen { background, terrain, water };

struct Scene {
    std::vector<float> h, b;  // water surface and bottom, metres
};

// Bottom: a ramp along y from -1 m (front, y = 0) to +1 m (back), and a wall of kWallHeight
// across the left third at rows 3-5. Water: a flat lake at 0 m where the bottom is below,
// h = b (dry) elsewhere; plus an optional bump of `bump` metres on the lake.
Scene make_scene(double bump, glm::dvec2 bump_centre, double bump_sigma) {
    Scene s;
    s.h.resize(std::size_t(kNx) * kNy);
    s.b.resize(s.h.size());
    const double cw = 2.0 / std::max(kNx, kNy);
    for (int j = 0; j < kNy; ++j)
        for (int i = 0; i < kNx; ++i) {
            double b = -1.0 + 2.0 * j / (kNy - 1);
            if (j >= 3 && j <= 5 && i < kNx / 3) b = kWallHeight;
            const glm::dvec2 w(-kNx * cw / 2 + (i + 0.5) * cw, -kNy * cw / 2 + (j + 0.5) * cw);
            const glm::dvec2 r = (w - bump_centre) / bump_sigma;
            double h = b < 0 ? bump * std::exp(-0.5 * glm::dot(r, r)) : b;
            if (h < b) h = b;
            const std::size_t k = std::size_t(j) * kNx + i;
            s.h[k] = float(h);
            s.b[k] = float(b);
        }
    return s;
}

render::RenderSettings camera_settings() {
    render::RenderSettings settings;
    settings.three_d = true;
    settings.colour_bar = false;
    settings.tint_water = false;  // plain water colour: the classification needs no colormap
    settings.height_scale = 0.2f;
    settings.base_level = 0.0f;
    // From the front (-y), looking down at 40 degrees: the wall is between the eye and the
    // front of the lake's left part; the light's mirror direction is far from the eye (no
    // specular highlight saturating the water to white).
    settings.camera.yaw = -static_cast<float>(std::numbers::pi / 2);
    settings.camera.pitch = 0.7f;
    settings.camera.distance = 2.6f;
    return settings;
}

struct Reference {
    std::vector<Seen> seen;
    std::vector<double> depth;  // metres of water at the hit
};

// The float64 ray cast of every pixel: the same camera model as the renderer (glm::lookAt with
// +z up, glm::perspective), rays through pixel centres, the surface max(h, b) bilinear between
// cell centres, world z = (S - base) * scale.
Reference reference_image(const Scene& scene, const render::RenderSettings& settings) {
    const double longest = std::max(kNx, kNy);
    const double cw = 2.0 / longest;
    const glm::dvec2 half_extent(kNx / longest, kNy / longest);
    std::vector<double> z(scene.h.size()), depth(scene.h.size());
    for (std::size_t k = 0; k < z.size(); ++k) {
        z[k] = (std::max<double>(scene.h[k], scene.b[k]) - settings.base_level) *
               settings.height_scale;
        depth[k] = double(scene.h[k]) - scene.b[k];
    }
    const render::OrbitCamera& cam = settings.camera;
    const glm::dvec3 eye(cam.eye()), target(cam.target);
    const glm::dvec3 forward = glm::normalize(target - eye);
    const glm::dvec3 side = glm::normalize(glm::cross(forward, glm::dvec3(0, 0, 1)));
    const glm::dvec3 up = glm::cross(side, forward);
    const double tan_half = std::tan(0.5 * double(cam.fov_y));
    const double aspect = double(kWidth) / kHeight;
    Reference ref;
    ref.seen.assign(std::size_t(kWidth) * kHeight, Seen::background);
    ref.depth.assign(ref.seen.size(), 0.0);
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            const glm::dvec2 ndc =
                (glm::dvec2(x, y) + 0.5) / glm::dvec2(kWidth, kHeight) * 2.0 - 1.0;
            const glm::dvec3 dir =
                glm::normalize(forward + ndc.x * tan_half * aspect * side + ndc.y * tan_half * up);
            const std::array<double, 3> o = {(eye.x + half_extent.x) / cw - 0.5,
                                             (eye.y + half_extent.y) / cw - 0.5, eye.z};
            const std::array<double, 3> d = {dir.x / cw, dir.y / cw, dir.z};
            const auto hit = reference::ray_height_field(z, kNx, kNy, o, d);
            if (!hit.hit) continue;
            const std::size_t k = std::size_t(y) * kWidth + x;
            ref.depth[k] = reference::height_field_at(depth, kNx, kNy, hit.x, hit.y);
            // Wet: below the water level of the hit cell's wet corners (depth > 1 mm).
            const int ci = std::min(int(hit.x), kNx - 2), cj = std::min(int(hit.y), kNy - 2);
            double level = -std::numeric_limits<double>::infinity();
            for (int c = 0; c < 4; ++c) {
                const std::size_t s = std::size_t(cj + c / 2) * kNx + ci + c % 2;
                if (depth[s] > 1e-3) level = std::max(level, z[s]);
            }
            ref.seen[k] =
                hit.z <= level + 1e-3 * settings.height_scale ? Seen::water : Seen::terrain;
        }
    return ref;
}

// A pixel is "certain" when its 3x3 neighbourhood agrees (fp32 rays and the reference can put a
// silhouette or shoreline one pixel apart) and, for water, the lake is deep enough there that
// the terrain showing through cannot turn the colour sandy (0.3 m: murk >= 0.21, water >= 49 %).
bool certain(const Reference& ref, int x, int y) {
    if (x < 1 || y < 1 || x >= kWidth - 1 || y >= kHeight - 1) return false;
    const Seen s = ref.seen[std::size_t(y) * kWidth + x];
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (ref.seen[std::size_t(y + dy) * kWidth + x + dx] != s) return false;
    return s != Seen::water || ref.depth[std::size_t(y) * kWidth + x] > 0.3;
}

// Pixel (x, y) in GL convention (y up) of an image read back top row first.
glm::ivec3 rgb(const std::vector<std::uint8_t>& img, int x, int y) {
    const std::size_t k = 4 * (std::size_t(kHeight - 1 - y) * kWidth + x);
    return {img[k], img[k + 1], img[k + 2]};
}

// Background exactly; water's blue beats its red (the lit water colour is (0.10, 0.35, 0.65) at
// >= 49 % over sand); terrain's red beats its blue by >= 5 levels (sand or sand-grass, lit at
// >= 35 %: >= 0.05 * 255 = 13 levels apart).
Seen classify(glm::ivec3 c, const render::RenderSettings& settings) {
    const glm::ivec3 bg(glm::round(settings.background * 255.0f));
    if (c == bg) return Seen::background;
    if (c.b > c.r) return Seen::water;
    if (c.r > c.b + 5) return Seen::terrain;
    return Seen::background;  // neither: counted as a mismatch unless the reference agrees
}

// The pixel (GL convention) where world point p appears.
glm::ivec2 project(const render::RenderSettings& settings, glm::vec3 p) {
    const float aspect = float(kWidth) / kHeight;
    const glm::vec4 clip =
        settings.camera.projection(aspect) * settings.camera.view() * glm::vec4(p, 1.0f);
    const glm::vec2 ndc = glm::vec2(clip) / clip.w;
    return glm::ivec2(glm::floor((ndc + 1.0f) * 0.5f * glm::vec2(kWidth, kHeight)));
}

std::vector<std::uint8_t> draw(const Scene& scene, const render::RenderSettings& settings) {
    gl::Buffer field = gl::Buffer::from(scene.h);
    gl::Buffer bottom = gl::Buffer::from(scene.b);
    gl::Framebuffer target(kWidth, kHeight);
    // Poisoned: a pixel the ray pass does not write stays magenta and fails the classification.
    target.bind();
    gl::clear(1.0f, 0.0f, 1.0f, 1.0f);
    render::Renderer renderer;
    render::FieldSource source{&field, kNx, kNy, 1.0f, &bottom, {}, true};
    renderer.draw(source, settings, {0, 0, kWidth, kHeight}, &target.colour());
    return target.read_rgba();
}

TEST(Render3D, LakeTerrainAndWallMatchTheFloat64RayCast) {
    ADILAB_NEED_GL();
    const render::RenderSettings settings = camera_settings();
    const Scene scene = make_scene(0.0, {0, 0}, 1.0);
    const auto image = draw(scene, settings);
    const Reference ref = reference_image(scene, settings);
    if (const char* dump = std::getenv("ADILAB_TEST_DUMP"))
        files::write_png(std::string(dump) + "/render-3d-lake.png", kWidth, kHeight, image);

    int counted[3] = {0, 0, 0}, mismatches = 0;
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            if (!certain(ref, x, y)) continue;
            const Seen want = ref.seen[std::size_t(y) * kWidth + x];
            const Seen got = classify(rgb(image, x, y), settings);
            ++counted[int(want)];
            if (got != want && ++mismatches <= 10)
                ADD_FAILURE() << "pixel (" << x << ", " << y << "): expected class " << int(want)
                              << ", got " << int(got) << " from colour " << rgb(image, x, y).r
                              << "," << rgb(image, x, y).g << "," << rgb(image, x, y).b;
        }
    EXPECT_EQ(mismatches, 0);
    // The scene shows all three, each over a good share of the image.
    for (int c = 0; c < 3; ++c) EXPECT_GT(counted[c], kWidth * kHeight / 20) << "class " << c;

    // Occlusion: a lake point right behind the wall. On the plane z = 0 it is open water, but
    // the wall (0.3 world units tall, in front) hides it: the reference and the image show
    // terrain there, where a renderer without depth would show the lake.
    const double cw = 2.0 / std::max(kNx, kNy);
    const glm::vec3 behind(float(-kNx * cw / 2 + 8 * cw), float(-kNy * cw / 2 + 7.5 * cw), 0.0f);
    const glm::ivec2 p = project(settings, behind);
    ASSERT_TRUE(p.x > 0 && p.y > 0 && p.x < kWidth && p.y < kHeight);
    EXPECT_EQ(ref.seen[std::size_t(p.y) * kWidth + p.x], Seen::terrain) << "scene: wall hides it";
    EXPECT_EQ(classify(rgb(image, p.x, p.y), settings), Seen::terrain);
    // ... while the same spot on the unobstructed right half is water.
    const glm::ivec2 q = project(settings, glm::vec3(-behind.x, behind.y, 0.0f));
    EXPECT_EQ(ref.seen[std::size_t(q.y) * kWidth + q.x], Seen::water);
    EXPECT_EQ(classify(rgb(image, q.x, q.y), settings), Seen::water);
}

TEST(Render3D, ABumpIsLitOnTheSideFacingTheLight) {
    ADILAB_NEED_GL();
    const render::RenderSettings settings = camera_settings();
    const glm::dvec2 centre(0.35, -0.3);
    const double sigma = 0.12, bump = 0.4;
    const Scene flat = make_scene(0.0, centre, sigma);
    const Scene bumped = make_scene(bump, centre, sigma);
    const auto flat_image = draw(flat, settings);
    const auto image = draw(bumped, settings);
    if (const char* dump = std::getenv("ADILAB_TEST_DUMP"))
        files::write_png(std::string(dump) + "/render-3d-bump.png", kWidth, kHeight, image);
    // The light comes from -x (and -y, up): on the bump's -x flank the normal leans towards it
    // (Lambert 0.78 against 0.69 for the flat lake), on the +x flank away (0.55). Both flanks at
    // one sigma from the top, where the slope is steepest; their world z is the bump's there.
    const float z = float(bump * std::exp(-0.5) * settings.height_scale);
    const glm::ivec2 lit =
        project(settings, glm::vec3(float(centre.x - sigma), float(centre.y), z));
    const glm::ivec2 dark =
        project(settings, glm::vec3(float(centre.x + sigma), float(centre.y), z));
    auto brightness = [](glm::ivec3 c) { return c.r + c.g + c.b; };
    const glm::ivec3 lit_c = rgb(image, lit.x, lit.y), dark_c = rgb(image, dark.x, dark.y);
    EXPECT_EQ(classify(lit_c, settings), Seen::water);
    EXPECT_EQ(classify(dark_c, settings), Seen::water);
    // Diffuse 0.78 vs 0.55 on water's lit colour (0.3 + 0.7 diffuse) at >= 70 % opacity: the
    // blue channel alone differs by >= 0.65 * 0.7 * 0.23 * 0.7 * 255 = 19 levels.
    EXPECT_GT(brightness(lit_c), brightness(dark_c) + 15)
        << "lit flank " << lit_c.r << "," << lit_c.g << "," << lit_c.b << " vs dark flank "
        << dark_c.r << "," << dark_c.g << "," << dark_c.b;
    EXPECT_GT(brightness(lit_c), brightness(rgb(flat_image, lit.x, lit.y)));
    EXPECT_LT(brightness(dark_c), brightness(rgb(flat_image, dark.x, dark.y)));
    // Far from the bump, nothing changed.
    const glm::ivec2 far = project(settings, glm::vec3(-0.6f, -0.3f, 0.0f));
    EXPECT_EQ(rgb(image, far.x, far.y), rgb(flat_image, far.x, far.y));
}

TEST(Render3D, NonFiniteWaterIsNeverColoured) {
    ADILAB_NEED_GL();
    render::RenderSettings settings = camera_settings();
    settings.tint_water = true;  // the colormap is in play, and must not be used for NaN
    Scene scene = make_scene(0.0, {0, 0}, 1.0);
    for (std::size_t k = 0; k < scene.h.size(); ++k)
        scene.h[k] = k % 3 == 0 ? std::numeric_limits<float>::infinity()
                                : std::numeric_limits<float>::quiet_NaN();
    const auto image = draw(scene, settings);
    int grey = 0;
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            const glm::ivec3 c = rgb(image, x, y);
            if (classify(c, settings) == Seen::background &&
                c == glm::ivec3(glm::round(settings.background * 255.0f)))
                continue;
            EXPECT_TRUE(c.r == c.g && c.g == c.b)
                << "pixel (" << x << ", " << y << ") " << c.r << "," << c.g << "," << c.b;
            ++grey;
        }
    EXPECT_GT(grey, kWidth * kHeight / 4) << "the NaN surface is drawn (grey), not skipped";
}

TEST(Render3D, AWavySurfaceHasNoPinholes) {
    ADILAB_NEED_GL();
    // Waves of many wavelengths over a larger grid, seen at a larger size: rays cross the
    // surface on cell and block edges everywhere. A ray that slips through (rounding at an edge,
    // a cell or block wrongly skipped) shows the background as an isolated pixel inside the
    // surface.
    const int nx = 203, ny = 157, w = 480, h = 360;
    constexpr int kViews = 12;
    std::vector<float> water(std::size_t(nx) * ny), bottom(water.size(), -2.0f);
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i)
            water[std::size_t(j) * nx + i] = 0.3f * std::sin(0.37f * i) * std::cos(0.23f * j) +
                                             0.2f * std::sin(0.05f * (i + 2 * j));
    gl::Buffer field = gl::Buffer::from(water), floor = gl::Buffer::from(bottom);
    gl::Framebuffer target(w, h);
    render::Renderer renderer;
    render::RenderSettings settings;
    settings.colour_bar = false;
    settings.height_scale = 0.2f;
    settings.camera.pitch = 0.35f;  // low: long grazing rays
    settings.camera.distance = 1.7f;
    render::FieldSource source{&field, nx, ny, 1.0f, &floor, {}, true};
    const glm::ivec3 bg(glm::round(settings.background * 255.0f));
    int pinholes = 0;
    for (int view = 0; view < kViews; ++view) {  // all around: rays in every direction
        settings.camera.yaw = -0.9f + 6.2832f * view / kViews;
        target.bind();
        gl::clear(1.0f, 0.0f, 1.0f, 1.0f);
        renderer.draw(source, settings, {0, 0, w, h}, &target.colour());
        const auto image = target.read_rgba();
        if (const char* dump = std::getenv("ADILAB_TEST_DUMP"); dump != nullptr && view == 0)
            files::write_png(std::string(dump) + "/render-3d-waves.png", w, h, image);
        auto at = [&](int x, int y) {
            const std::size_t k = 4 * (std::size_t(y) * w + x);
            return glm::ivec3(image[k], image[k + 1], image[k + 2]);
        };
        int surface = 0;
        for (int y = 1; y < h - 1; ++y)
            for (int x = 1; x < w - 1; ++x) {
                ASSERT_NE(at(x, y), glm::ivec3(255, 0, 255)) << "pixel not written";
                if (at(x, y) != bg) {
                    ++surface;
                    continue;
                }
                const int around = (at(x - 1, y) != bg) + (at(x + 1, y) != bg) +
                                   (at(x, y - 1) != bg) + (at(x, y + 1) != bg);
                if (around == 4 && ++pinholes <= 5)
                    ADD_FAILURE() << "view " << view << ": pinhole at (" << x << ", " << y << ")";
            }
        EXPECT_GT(surface, w * h / 3) << "view " << view << ": the surface fills much of it";
    }
    EXPECT_EQ(pinholes, 0);
}

}  // namespace
}  // namespace adilab::test
