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
    // Zeroed: a host that polls a word here must never read garbage.
    const std::vector<unsigned char> zeros(bytes, 0);
    glBufferStorage(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes), zeros.data(), flags);
    mapped_ = glMapBufferRange(GL_COPY_WRITE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), flags);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    if (mapped_ == nullptr) {
        release();
        throw Error("could not map a " + std::to_string(bytes) + "-byte readback buffer");
    }
}

Readback::Readback(Readback&& other) noexcept {
    *this = std::move(other);
}

Readback& Readback::operator=(Readback&& other) noexcept {
    if (this != &other) {
        release();
        bytes_ = std::exchange(other.bytes_, 0);
        buffer_ = std::exchange(other.buffer_, 0);
        mapped_ = std::exchange(other.mapped_, nullptr);
        fences_ = std::exchange(other.fences_, {});
        fallback_ = std::move(other.fallback_);
        fallback_bytes_ = std::move(other.fallback_bytes_);
    }
    return *this;
}

Readback::~Readback() {
    release();
}

void Readback::release() {
    forget();
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
    fences_.push_back(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
}

void Readback::forget() {
    for (void* f : fences_) glDeleteSync(static_cast<GLsync>(f));
    fences_.clear();
}

const void* Readback::drain() {
    if (buffer_ == 0) {
        fallback_.download(0, bytes_, fallback_bytes_.data());
        return fallback_bytes_.data();
    }
    forget();
    glMemoryBarrier(GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    glFinish();
    return mapped_;
}

const void* Readback::wait(std::size_t keep) {
    if (buffer_ == 0) {
        fallback_.download(0, bytes_, fallback_bytes_.data());
        return fallback_bytes_.data();
    }
    if (fences_.size() <= keep) fence();
    while (fences_.size() > keep + 1) {  // older than the one waited for: done before it
        glDeleteSync(static_cast<GLsync>(fences_.front()));
        fences_.pop_front();
    }
    GLsync fence = static_cast<GLsync>(fences_.front());
    // Look first without flushing: with the read lagging behind, the fence has usually
    // signalled already. Otherwise flush the queue so that it can signal at all, and wait.
    GLenum status = glClientWaitSync(fence, 0, 0);
    GLbitfield flags = GL_SYNC_FLUSH_COMMANDS_BIT;
    while (status != GL_ALREADY_SIGNALED && status != GL_CONDITION_SATISFIED) {
        if (status == GL_WAIT_FAILED) throw Error("glClientWaitSync failed on a readback");
        status = glClientWaitSync(fence, flags, 1000000000ull);
        flags = 0;
    }
    glDeleteSync(fence);
    fences_.pop_front();
    return mapped_;
}

}  // namespace adilab::gl
