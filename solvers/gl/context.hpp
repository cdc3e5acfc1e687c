#pragma once
// OpenGL contexts. adilab needs GL 4.3 core (compute shaders, shader storage buffers) and asks
// for 4.6. Two kinds exist:
//  - HeadlessContext: EGL's device platform, surfaceless and configless, for --bench, --info,
//    scripted runs and the tests. It picks the first hardware device, else Mesa's software
//    device (llvmpipe), or the device the user names with --gpu N.
//  - the GUI's window context (app/gui), which makes its own context current through GLFW and
//    then calls Context::attach_current().
// Each context owns the programs compiled for it (the shader cache) and frees them first.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "solvers/gl/shaders.hpp"

namespace adilab::gl {

struct DeviceInfo {
    std::string vendor, renderer, version, glsl_version;
    int major = 0, minor = 0;
    // A CPU renderer (llvmpipe, softpipe, SwiftShader, lavapipe): no clocks to ramp up, and work
    // groups that may run one after another (never all resident at once).
    bool software = false;
    std::string egl_device;  // which EGL device (headless only): index and description
    int max_work_group_size[3] = {0, 0, 0};
    int max_work_group_count[3] = {0, 0, 0};
    int max_work_group_invocations = 0;
    int max_shared_memory_bytes = 0;
    std::int64_t max_storage_block_bytes = 0;
    int max_storage_bindings = 0;
    std::int64_t max_texture_size = 0;
    bool fp64 = false;
    bool int64 = false;
    bool atomic_int64 = false;  // GL_NV_shader_atomic_int64: 64-bit atomics on storage buffers
    bool subgroups = false;     // GL_KHR_shader_subgroup
    int subgroup_size = 0;
    bool subgroup_arithmetic = false;  // compute shaders have subgroupMax/Min & co.
    bool debug_output = false;
    // GPU memory in MiB where the driver reports it (NVX_gpu_memory_info); 0 if unknown.
    std::int64_t total_memory_mib = 0;
    std::int64_t available_memory_mib = 0;
};

// Signature of eglGetProcAddress and glfwGetProcAddress.
using GlProc = void (*)();
using GetProcAddress = GlProc (*)(const char*);

class Context {
  public:
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    virtual ~Context();

    // The context current on this thread; throws adilab::Error if none.
    static Context& current();
    static bool has_current();

    const DeviceInfo& info() const { return info_; }
    ShaderCache& shaders() { return shaders_; }
    // Whether GL_TIME_ELAPSED queries time compute dispatches here, and whether GL_TIMESTAMP
    // marks between dispatches do (the viewer's per-phase times). Measured once, on the first
    // question, against the CPU's clock (context.cpp says how and why).
    bool timer_queries_work();
    bool timestamps_time_compute();

  protected:
    Context() = default;
    // Loads GL through `loader` for the context current on this thread, checks the version
    // (throws naming what was found when below 4.3), reads the limits and, in Debug builds,
    // installs the debug-message callback.
    void attach_current(GetProcAddress loader, std::string egl_device = {});
    void detach();

  private:
    DeviceInfo info_;
    ShaderCache shaders_;
    void probe_timers();
    int timer_queries_work_ = -1;  // unknown until first asked
    int timestamps_work_ = -1;
};

// A headless context through EGL_EXT_platform_device.
class HeadlessContext final : public Context {
  public:
    // device_index < 0: first hardware device, else the first software one.
    static std::unique_ptr<HeadlessContext> create(int device_index = -1);
    ~HeadlessContext() override;

    // One line per EGL device: index, hardware or software, DRM node or renderer string.
    static std::vector<std::string> list_devices();

  private:
    HeadlessContext() = default;
    void* display_ = nullptr;
    void* context_ = nullptr;
};

// A context made current elsewhere (the GUI's GLFW window) adopted by adilab.
class AdoptedContext final : public Context {
  public:
    explicit AdoptedContext(GetProcAddress loader) { attach_current(loader); }
    ~AdoptedContext() override { detach(); }
};

// Text for `adilab --info`.
std::string describe(const DeviceInfo& info);

}  // namespace adilab::gl
