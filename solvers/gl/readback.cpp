#include "solvers/gl/readback.hpp"

#include <glad/gl.h>

#include <string>
#include <utility>

#include "solvers/gl/error.hpp"

namespace adilab::gl {

Readback::Readback(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) throw Error("Readback of zero bytes");
    if (glBufferStorage == nullptr || glMapBufferRange == nullptr || glFenceSync == nullptr) {
        fallback_ = Buffer(bytes);
        fallback_bytes_.resize(bytes);
        return;
    }
    glGenBuffers(1, &buffer_);
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer_);
    const GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    glBufferStorage(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, flags);
    mapped_ = glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), flags);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    if (mapped_ == nullptr) {
        release();
        throw Error("could not map a " + std::to_string(bytes) + "-byte readback buffer");
    }
}

Readback::Readback(Readback&& other) noexcept { *this = std::move(other); }

Readback& Readback::operator=(Readback&& other) noexcept {
    if (this != &other) {
        release();
        bytes_ = std::exchange(other.bytes_, 0);
        buffer_ = std::exchange(other.buffer_, 0);
        mapped_ = std::exchange(other.mapped_, nullptr);
        fence_ = std::exchange(other.fence_, nullptr);
        fallback_ = std::move(other.fallback_);
        fallback_bytes_ = std::move(other.fallback_bytes_);
    }
    return *this;
}

Readback::~Readback() { release(); }

void Readback::release() {
    if (fence_ != nullptr) glDeleteSync(static_cast<GLsync>(fence_));
    fence_ = nullptr;
    if (buffer_ != 0) {
        if (mapped_ != nullptr) {
            glBindBuffer(GL_COPY_WRITE_BUFFER, buffer_);
            glUnmapBuffer(GL_COPY_WRITE_BUFFER);
            glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        }
        glDeleteBuffers(1, &buffer_);
    }
    buffer_ = 0;
    mapped_ = nullptr;
}

void Readback::bind_storage(unsigned index) const {
    if (buffer_ == 0) return fallback_.bind_storage(index);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, index, buffer_);
}

void Readback::fence() {
    if (buffer_ == 0) return;
    glMemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    if (fence_ != nullptr) glDeleteSync(static_cast<GLsync>(fence_));
    fence_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

const void* Readback::wait() {
    if (buffer_ == 0) {
        fallback_.download(0, bytes_, fallback_bytes_.data());
        return fallback_bytes_.data();
    }
    if (fence_ == nullptr) fence();
    // The first wait flushes the queue so that the fence can signal at all.
    GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
    for (;;) {
        const GLenum status =
            glClientWaitSync(static_cast<GLsync>(fence_), flags, 1000000000ull);
        if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) break;
        if (status == GL_WAIT_FAILED) throw Error("glClientWaitSync failed on a readback");
        flags = 0;
    }
    glDeleteSync(static_cast<GLsync>(fence_));
    fence_ = nullptr;
    return mapped_;
}

}  // namespace adilab::gl
