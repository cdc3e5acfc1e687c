#include "solvers/gl/context.hpp"

#include <glad/egl.h>
#include <glad/gl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "solvers/gl/error.hpp"

namespace adilab::gl {

namespace {

thread_local Context* current_context = nullptr;

bool has_extension(const char* list, const char* name) {
    if (list == nullptr) return false;
    const std::size_t length = std::strlen(name);
    for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += length) {
        const bool starts = p == list || p[-1] == ' ';
        const bool ends = p[length] == '\0' || p[length] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

bool has_gl_extension(const char* name) {
    GLint count = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count; ++i) {
        const char* ext = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, i));
        if (ext != nullptr && std::strcmp(ext, name) == 0) return true;
    }
    return false;
}

std::string gl_string(GLenum name) {
    const GLubyte* s = glGetString(name);
    return s ? reinterpret_cast<const char*>(s) : "";
}

#ifdef ADILAB_DEBUG
void GLAD_API_PTR debug_message(GLenum, GLenum type, GLuint, GLenum severity, GLsizei,
                                const GLchar* message, const void*) {
    if (severity == GL_DEBUG_SEVERITY_NOTIFICATION) return;
    std::fprintf(stderr, "adilab: GL debug (%s): %s\n",
                 type == GL_DEBUG_TYPE_ERROR ? "error" : "note", message);
}
#endif

}  // namespace

Context::~Context() = default;

Context& Context::current() {
    if (current_context == nullptr) throw Error("no OpenGL context is current on this thread");
    return *current_context;
}

bool Context::has_current() {
    return current_context != nullptr;
}

void Context::attach_current(GetProcAddress loader, std::string egl_device) {
    if (gladLoadGL(reinterpret_cast<GLADloadfunc>(loader)) == 0)
        throw Error("could not load OpenGL entry points for the new context");
    DeviceInfo& d = info_;
    d.vendor = gl_string(GL_VENDOR);
    d.renderer = gl_string(GL_RENDERER);
    for (const char* name : {"llvmpipe", "softpipe", "SwiftShader", "lavapipe"})
        if (d.renderer.find(name) != std::string::npos) d.software = true;
    d.version = gl_string(GL_VERSION);
    d.glsl_version = gl_string(GL_SHADING_LANGUAGE_VERSION);
    glGetIntegerv(GL_MAJOR_VERSION, &d.major);
    glGetIntegerv(GL_MINOR_VERSION, &d.minor);
    d.egl_device = std::move(egl_device);
    if (d.major < 4 || (d.major == 4 && d.minor < 3))
        throw Error("adilab needs OpenGL 4.3 core with compute shaders; this context is " +
                    std::to_string(d.major) + "." + std::to_string(d.minor) + " (\"" + d.version +
                    "\" on " + d.renderer + ")");
    for (int i = 0; i < 3; ++i) {
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i, &d.max_work_group_size[i]);
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &d.max_work_group_count[i]);
    }
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &d.max_work_group_invocations);
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &d.max_shared_memory_bytes);
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    d.max_storage_block_bytes = block;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &d.max_storage_bindings);
    GLint texture = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &texture);
    d.max_texture_size = texture;
    d.fp64 = true;  // GLSL double is core since GL 4.0, and adilab needs 4.3
    d.int64 = has_gl_extension("GL_ARB_gpu_shader_int64");
    d.atomic_int64 = d.int64 && has_gl_extension("GL_NV_shader_atomic_int64");
    d.subgroups = has_gl_extension("GL_KHR_shader_subgroup");
    if (d.subgroups) {
        constexpr GLenum kSubgroupSize = 0x9532;  // GL_SUBGROUP_SIZE_KHR
        glGetIntegerv(kSubgroupSize, &d.subgroup_size);
        constexpr GLenum kStages = 0x9533;    // GL_SUBGROUP_SUPPORTED_STAGES_KHR
        constexpr GLenum kFeatures = 0x9534;  // GL_SUBGROUP_SUPPORTED_FEATURES_KHR
        GLint stages = 0, features = 0;
        glGetIntegerv(kStages, &stages);
        glGetIntegerv(kFeatures, &features);
        d.subgroup_arithmetic = (stages & 0x20) != 0 && (features & 0x4) != 0;  // compute, arith.
    }
    if (has_gl_extension("GL_NVX_gpu_memory_info")) {
        GLint total = 0, available = 0;
        glGetIntegerv(0x9048, &total);      // GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX (KiB)
        glGetIntegerv(0x9049, &available);  // GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX
        d.total_memory_mib = total / 1024;
        d.available_memory_mib = available / 1024;
    }
    while (glGetError() != GL_NO_ERROR) {
    }
#ifdef ADILAB_DEBUG
    GLint flags = 0;
    glGetIntegerv(GL_CONTEXT_FLAGS, &flags);
    if (flags & GL_CONTEXT_FLAG_DEBUG_BIT) {
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDebugMessageCallback(debug_message, nullptr);
        d.debug_output = true;
    }
#endif
    current_context = this;
}

void Context::detach() {
    shaders_.clear();  // programs die while their context is still current
    if (current_context == this) current_context = nullptr;
}

// The probe times one compute dispatch three ways: a GL_TIME_ELAPSED query around it, two
// GL_TIMESTAMP marks around it, and the CPU's clock around the glDispatchCompute call alone. A
// GPU queues the dispatch and returns at once, so its queries read the work and the call takes
// microseconds. Mesa's llvmpipe runs a compute dispatch on the CPU inside the call, but records
// its query times only when its rasteriser threads execute the binned scene, at the next flush:
// with a window's framebuffer bound (the GUI under Xvfb) every mark between two dispatches got
// the time of that flush, so the step's first dispatch read 0.000 ms and its time went to
// whichever later mark followed a flush; on its headless context the elapsed query reads 0 and
// the marks are right. A query is trusted only when it reads at least a microsecond and at
// least half of what the CPU spent inside the call, which a driver that runs compute inside the
// call and stamps elsewhere cannot meet. (A buffer clear, the earlier probe, is no compute
// dispatch: llvmpipe's elapsed query read it as microseconds under GLX.)
void Context::probe_timers() {
    constexpr GLuint kCount = 1u << 22;  // 16 MiB: ~10 us on a large GPU, ms on llvmpipe
    Buffer data(kCount * sizeof(float));
    data.zero();
    const Program& program = shaders_.compute("common/timer_probe.comp");
    GLint previous = 0;
    glGetIntegerv(GL_CURRENT_PROGRAM, &previous);
    glUseProgram(program.id());
    program.set("count", kCount);
    data.bind_storage(0);
    const GLuint groups = (kCount + 255) / 256;
    glDispatchCompute(groups, 1, 1);  // a first run: the driver's lazy work (compile, first touch)
    glFinish();
    GLuint queries[3] = {0, 0, 0};
    glGenQueries(3, queries);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glQueryCounter(queries[0], GL_TIMESTAMP);
    glBeginQuery(GL_TIME_ELAPSED, queries[2]);
    const auto call_start = std::chrono::steady_clock::now();
    glDispatchCompute(groups, 1, 1);
    const auto call_end = std::chrono::steady_clock::now();
    glEndQuery(GL_TIME_ELAPSED);
    glQueryCounter(queries[1], GL_TIMESTAMP);
    glFinish();
    GLuint64 first = 0, last = 0, elapsed = 0;
    glGetQueryObjectui64v(queries[0], GL_QUERY_RESULT, &first);
    glGetQueryObjectui64v(queries[1], GL_QUERY_RESULT, &last);
    glGetQueryObjectui64v(queries[2], GL_QUERY_RESULT, &elapsed);
    glDeleteQueries(3, queries);
    glUseProgram(static_cast<GLuint>(previous));
    const double call_ns = std::chrono::duration<double, std::nano>(call_end - call_start).count();
    auto times_the_work = [&](double ns) { return ns >= 1000.0 && ns >= 0.5 * call_ns; };
    timer_queries_work_ = times_the_work(static_cast<double>(elapsed)) ? 1 : 0;
    timestamps_work_ = last > first && times_the_work(static_cast<double>(last - first)) ? 1 : 0;
}

bool Context::timer_queries_work() {
    if (timer_queries_work_ < 0) probe_timers();
    return timer_queries_work_ == 1;
}

bool Context::timestamps_time_compute() {
    if (timestamps_work_ < 0) probe_timers();
    return timestamps_work_ == 1;
}

// ---- HeadlessContext ---------------------------------------------------------------------------

namespace {

struct EglDevices {
    EGLDisplay display = EGL_NO_DISPLAY;
    std::vector<EGLDeviceEXT> devices;
};

EglDevices query_devices() {
    if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0)
        throw Error(
            "could not load libEGL.so.1 (install libegl1, and a GL driver: "
            "Mesa's libegl-mesa0 or the NVIDIA driver)");
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    // NVIDIA's EGL names device enumeration and query together as EGL_EXT_device_base.
    const bool enumeration = has_extension(client, "EGL_EXT_device_enumeration") ||
                             has_extension(client, "EGL_EXT_device_base");
    if (enumeration) {
        if (!eglQueryDevicesEXT)
            eglQueryDevicesEXT = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(
                eglGetProcAddress("eglQueryDevicesEXT"));
        if (!eglQueryDeviceStringEXT)
            eglQueryDeviceStringEXT = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
                eglGetProcAddress("eglQueryDeviceStringEXT"));
        if (!eglGetPlatformDisplayEXT)
            eglGetPlatformDisplayEXT = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
                eglGetProcAddress("eglGetPlatformDisplayEXT"));
    }
    if (!enumeration || !has_extension(client, "EGL_EXT_platform_device") || !eglQueryDevicesEXT ||
        !eglGetPlatformDisplayEXT)
        throw Error(
            "EGL lacks EGL_EXT_device_enumeration / EGL_EXT_platform_device, which "
            "headless adilab needs (client extensions: " +
            std::string(client ? client : "none") + ")");
    EGLint count = 0;
    eglQueryDevicesEXT(0, nullptr, &count);
    EglDevices out;
    out.devices.resize(static_cast<std::size_t>(count));
    if (count > 0) eglQueryDevicesEXT(count, out.devices.data(), &count);
    out.devices.resize(static_cast<std::size_t>(count));
    if (count == 0)
        throw Error("EGL reports no devices: no GPU driver and no Mesa software device");
    return out;
}

bool is_software(EGLDeviceEXT device) {
    const char* ext =
        eglQueryDeviceStringEXT ? eglQueryDeviceStringEXT(device, EGL_EXTENSIONS) : nullptr;
    return has_extension(ext, "EGL_MESA_device_software");
}

std::string device_label(EGLDeviceEXT device) {
    if (is_software(device)) return "software (Mesa)";
    const char* ext =
        eglQueryDeviceStringEXT ? eglQueryDeviceStringEXT(device, EGL_EXTENSIONS) : nullptr;
    std::string label = "hardware";
    if (has_extension(ext, "EGL_EXT_device_drm")) {
        const char* node = eglQueryDeviceStringEXT(device, EGL_DRM_DEVICE_FILE_EXT);
        if (node) label += std::string(" ") + node;
    }
    if (has_extension(ext, "EGL_NV_device_cuda")) label += " (NVIDIA)";
    return label;
}

}  // namespace

std::vector<std::string> HeadlessContext::list_devices() {
    EglDevices found = query_devices();
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < found.devices.size(); ++i)
        lines.push_back(std::to_string(i) + ": " + device_label(found.devices[i]));
    return lines;
}

std::unique_ptr<HeadlessContext> HeadlessContext::create(int device_index) {
    EglDevices found = query_devices();
    const int count = static_cast<int>(found.devices.size());
    int chosen = device_index;
    if (chosen >= count)
        throw Error("--gpu " + std::to_string(device_index) + ": EGL has only " +
                    std::to_string(count) + " device(s), numbered 0 to " +
                    std::to_string(count - 1));
    if (chosen < 0) {
        for (int i = 0; i < count && chosen < 0; ++i)
            if (!is_software(found.devices[i])) chosen = i;
        for (int i = 0; i < count && chosen < 0; ++i) chosen = i;
    }
    EGLDeviceEXT device = found.devices[static_cast<std::size_t>(chosen)];
    EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
    if (display == EGL_NO_DISPLAY)
        throw Error("eglGetPlatformDisplayEXT failed for EGL device " + std::to_string(chosen));
    EGLint egl_major = 0, egl_minor = 0;
    if (!eglInitialize(display, &egl_major, &egl_minor))
        throw Error("eglInitialize failed for EGL device " + std::to_string(chosen));
    gladLoaderLoadEGL(display);  // display extensions
    const char* display_ext = eglQueryString(display, EGL_EXTENSIONS);
    if (!has_extension(display_ext, "EGL_KHR_surfaceless_context") ||
        !(has_extension(display_ext, "EGL_KHR_no_config_context") ||
          has_extension(display_ext, "EGL_MESA_configless_context"))) {
        eglTerminate(display);
        throw Error("EGL device " + std::to_string(chosen) +
                    " cannot make a surfaceless, configless context");
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        eglTerminate(display);
        throw Error("EGL device " + std::to_string(chosen) + " does not offer desktop OpenGL");
    }
    // Ask for 4.6 core and step down to 4.3; below that adilab cannot run.
    EGLContext context = EGL_NO_CONTEXT;
    for (int minor = 6; minor >= 3 && context == EGL_NO_CONTEXT; --minor) {
        std::vector<EGLint> attributes = {
            EGL_CONTEXT_MAJOR_VERSION,       4,
            EGL_CONTEXT_MINOR_VERSION,       minor,
            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT};
#ifdef ADILAB_DEBUG
        attributes.insert(attributes.end(), {EGL_CONTEXT_OPENGL_DEBUG, EGL_TRUE});
#endif
        attributes.push_back(EGL_NONE);
        context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes.data());
    }
    if (context == EGL_NO_CONTEXT) {
        // Say what the device does give, so the user knows why.
        EGLint legacy[] = {EGL_NONE};
        EGLContext any = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, legacy);
        std::string found_version = "none";
        if (any != EGL_NO_CONTEXT && eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, any)) {
            gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress));
            found_version = gl_string(GL_VERSION) + " on " + gl_string(GL_RENDERER);
            eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        }
        if (any != EGL_NO_CONTEXT) eglDestroyContext(display, any);
        eglTerminate(display);
        throw Error("adilab needs OpenGL 4.3 core with compute shaders; EGL device " +
                    std::to_string(chosen) + " gives " + found_version);
    }
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        eglDestroyContext(display, context);
        eglTerminate(display);
        throw Error("eglMakeCurrent failed for EGL device " + std::to_string(chosen));
    }
    std::unique_ptr<HeadlessContext> out(new HeadlessContext());
    out->display_ = display;
    out->context_ = context;
    out->attach_current(reinterpret_cast<GetProcAddress>(eglGetProcAddress),
                        std::to_string(chosen) + ": " + device_label(device));
    return out;
}

HeadlessContext::~HeadlessContext() {
    detach();
    auto display = static_cast<EGLDisplay>(display_);
    if (display != EGL_NO_DISPLAY && display != nullptr) {
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(display, static_cast<EGLContext>(context_));
        // eglTerminate is left out on purpose: the EGL display is shared by every context on
        // the same device in this process (the GUI's benchmark workers make several).
    }
}

// ---- --info
// ---------------------------------------------------------------------------------------

std::string describe(const DeviceInfo& d) {
    std::ostringstream out;
    out << "vendor:                 " << d.vendor << "\n"
        << "renderer:               " << d.renderer << "\n"
        << "gl_version:             " << d.version << "\n"
        << "glsl_version:           " << d.glsl_version << "\n";
    if (!d.egl_device.empty()) out << "egl_device:             " << d.egl_device << "\n";
    out << "work_group_size_max:    " << d.max_work_group_size[0] << " x "
        << d.max_work_group_size[1] << " x " << d.max_work_group_size[2] << "\n"
        << "work_group_invocations: " << d.max_work_group_invocations << "\n"
        << "work_group_count_max:   " << d.max_work_group_count[0] << " x "
        << d.max_work_group_count[1] << " x " << d.max_work_group_count[2] << "\n"
        << "shared_memory_bytes:    " << d.max_shared_memory_bytes << "\n"
        << "max_ssbo_bytes:         " << d.max_storage_block_bytes << "\n"
        << "ssbo_bindings:          " << d.max_storage_bindings << "\n"
        << "fp64:                   " << (d.fp64 ? "yes" : "no") << "\n"
        << "int64:                  " << (d.int64 ? "yes" : "no") << "\n"
        << "atomic_int64:           " << (d.atomic_int64 ? "yes" : "no") << "\n"
        << "subgroups:              "
        << (d.subgroups ? "yes (size " + std::to_string(d.subgroup_size) + ")" : std::string("no"))
        << "\n";
    if (d.total_memory_mib > 0)
        out << "gpu_memory_mib:         " << d.total_memory_mib << " (available "
            << d.available_memory_mib << ")\n";
    return out.str();
}

}  // namespace adilab::gl
