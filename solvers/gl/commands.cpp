#include "solvers/gl/commands.hpp"

#include <glad/gl.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "solvers/gl/error.hpp"
#include "solvers/gl/frame_timer.hpp"
#include "solvers/gl/objects.hpp"

namespace adilab::gl {

namespace {
thread_local const std::function<void()>* cancellation_check = nullptr;
}  // namespace

CancellationCheck::CancellationCheck(std::function<void()> check)
    : check_(std::move(check)), previous_(cancellation_check) {
    cancellation_check = &check_;
}

CancellationCheck::~CancellationCheck() {
    cancellation_check = previous_;
}

void cancellation_point() {
    if (cancellation_check != nullptr) (*cancellation_check)();
}

QueueBound::~QueueBound() {
    for (void* fence : fences_) glDeleteSync(static_cast<GLsync>(fence));
}

void wait_for_fence(void* fence, const char* what) {
    const auto sync = static_cast<GLsync>(fence);
    GLenum status = glClientWaitSync(sync, 0, 0);
    GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
    while (status != GL_ALREADY_SIGNALED && status != GL_CONDITION_SATISFIED) {
        if (status == GL_WAIT_FAILED) throw Error(std::string("glClientWaitSync failed ") + what);
        status = glClientWaitSync(sync, flags, 1'000'000'000ull);
        flags = 0;
    }
}

void QueueBound::mark() {
    fences_.push_back(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
    while (int(fences_.size()) > depth_) {
        wait_for_fence(fences_.front(),
                       "bounding the GPU queue");  // on a throw ~QueueBound deletes it
        glDeleteSync(static_cast<GLsync>(fences_.front()));
        fences_.erase(fences_.begin());
    }
}

void dispatch(unsigned groups_x, unsigned groups_y, unsigned groups_z) {
    cancellation_point();
    if (groups_x == 0 || groups_y == 0 || groups_z == 0) return;
    glDispatchCompute(groups_x, groups_y, groups_z);
    // The viewer's per-phase GPU times (frame_timer.hpp); one pointer test when not profiling.
    if (DispatchProfiler* profiler = DispatchProfiler::active()) profiler->after_dispatch();
}

void dispatch_indirect(const Buffer& arguments, std::size_t offset) {
    cancellation_point();
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, arguments.id());
    glDispatchComputeIndirect(GLintptr(arguments.offset() + offset));
    if (DispatchProfiler* profiler = DispatchProfiler::active()) profiler->after_dispatch();
}

void memory_barrier(Barrier bits) {
    const unsigned b = static_cast<unsigned>(bits);
    if (bits == Barrier::all) {
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        return;
    }
    GLbitfield gl_bits = 0;
    if (b & static_cast<unsigned>(Barrier::storage)) gl_bits |= GL_SHADER_STORAGE_BARRIER_BIT;
    if (b & static_cast<unsigned>(Barrier::uniform)) gl_bits |= GL_UNIFORM_BARRIER_BIT;
    if (b & static_cast<unsigned>(Barrier::vertex_attrib))
        gl_bits |= GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT;
    if (b & static_cast<unsigned>(Barrier::buffer_update)) gl_bits |= GL_BUFFER_UPDATE_BARRIER_BIT;
    if (b & static_cast<unsigned>(Barrier::texture_fetch)) gl_bits |= GL_TEXTURE_FETCH_BARRIER_BIT;
    if (b & static_cast<unsigned>(Barrier::image_access))
        gl_bits |= GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;
    if (b & static_cast<unsigned>(Barrier::command)) gl_bits |= GL_COMMAND_BARRIER_BIT;
    glMemoryBarrier(gl_bits);
}

void finish() {
    glFinish();
}
void flush() {
    glFlush();
}

void viewport(int x, int y, int width, int height) {
    glViewport(x, y, width, height);
}

void clear(float r, float g, float b, float a, bool depth) {
    glClearColor(r, g, b, a);
    glClear(GL_COLOR_BUFFER_BIT | (depth ? GL_DEPTH_BUFFER_BIT : 0));
}

void set_depth_test(bool on) {
    if (on) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
    } else {
        glDisable(GL_DEPTH_TEST);
    }
}

void set_blending(bool on) {
    if (on) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    } else {
        glDisable(GL_BLEND);
    }
}

static GLenum primitive(Primitive mode) {
    switch (mode) {
        case Primitive::triangles:
            return GL_TRIANGLES;
        case Primitive::triangle_strip:
            return GL_TRIANGLE_STRIP;
        case Primitive::lines:
            return GL_LINES;
        case Primitive::points:
            return GL_POINTS;
    }
    return GL_TRIANGLES;
}

void draw_arrays(Primitive mode, int first, int count) {
    glDrawArrays(primitive(mode), first, count);
}

void draw_arrays_instanced(Primitive mode, int first, int count, int instances) {
    glDrawArraysInstanced(primitive(mode), first, count, instances);
}

std::vector<std::uint8_t> read_pixels_rgba(int x, int y, int width, int height) {
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 4);
    if (pixels.empty()) return pixels;
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(x, y, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // GL's rows run bottom-up; images are written top-down.
    const std::size_t row = static_cast<std::size_t>(width) * 4;
    std::vector<std::uint8_t> swap(row);
    for (int j = 0; j < height / 2; ++j) {
        std::uint8_t* top = pixels.data() + j * row;
        std::uint8_t* bottom = pixels.data() + (height - 1 - j) * row;
        std::memcpy(swap.data(), top, row);
        std::memcpy(top, bottom, row);
        std::memcpy(bottom, swap.data(), row);
    }
    return pixels;
}

FramebufferBindingGuard::FramebufferBindingGuard() {
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_);
    glGetIntegerv(GL_VIEWPORT, viewport_);
}

FramebufferBindingGuard::~FramebufferBindingGuard() {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(draw_));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read_));
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
}

void check_errors(const char* where) {
    GLenum first = glGetError();
    if (first == GL_NO_ERROR) return;
    while (glGetError() != GL_NO_ERROR) {
    }
    char code[16];
    std::snprintf(code, sizeof code, "0x%04X", first);
    throw Error(std::string("OpenGL error ") + code + " in " + where);
}

}  // namespace adilab::gl
