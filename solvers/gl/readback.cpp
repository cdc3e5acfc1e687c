#include "solvers/gl/readback.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "solvers/gl/commands.hpp"
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
    // With the read lagging behind, the fence has usually signalled already.
    wait_for_fence(fences_.front(), "on a readback");
    glDeleteSync(static_cast<GLsync>(fences_.front()));
    fences_.pop_front();
    return mapped_;
}

// ---- FramebufferReader ----------------------------------------------------------------------

FramebufferReader::FramebufferReader(int depth)
    : slots_(static_cast<std::size_t>(depth < 1 ? 1 : depth)) {}

FramebufferReader::~FramebufferReader() {
    for (Slot& slot : slots_) {
        if (slot.fence != nullptr) glDeleteSync(static_cast<GLsync>(slot.fence));
        if (slot.buffer != 0) glDeleteBuffers(1, &slot.buffer);
    }
}

std::size_t FramebufferReader::pending() const {
    std::size_t n = ready_.size();
    for (const Slot& slot : slots_) n += slot.fence != nullptr;
    return n;
}

void FramebufferReader::queue(const Framebuffer& source) {
    // A free slot, else the oldest one, read out now (a wait only when the GPU is that far
    // behind; the image is kept, not lost).
    Slot* slot = nullptr;
    for (Slot& s : slots_)
        if (s.fence == nullptr) slot = &s;
    if (slot == nullptr) {
        slot = &slots_.front();
        for (Slot& s : slots_)
            if (s.order < slot->order) slot = &s;
        read_slot(*slot, true, ready_);
    }
    const int width = source.width(), height = source.height();
    const std::size_t bytes =
        static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4;
    GLint previous_read = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
    if (slot->buffer == 0) glGenBuffers(1, &slot->buffer);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, slot->buffer);
    if (slot->bytes != bytes) {
        glBufferData(GL_PIXEL_PACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_READ);
        slot->bytes = bytes;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, source.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous_read));
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    slot->fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    slot->width = width;
    slot->height = height;
    slot->order = next_order_++;
    glFlush();  // the fence reaches the GPU now, so that a later non-waiting take() can see it
}

bool FramebufferReader::read_slot(Slot& slot, bool wait, std::vector<Image>& out) {
    if (slot.fence == nullptr) return false;
    const GLsync fence = static_cast<GLsync>(slot.fence);
    const GLenum state = glClientWaitSync(fence, wait ? GL_SYNC_FLUSH_COMMANDS_BIT : 0,
                                          wait ? GLuint64(60'000'000'000) : GLuint64(0));
    if (state != GL_ALREADY_SIGNALED && state != GL_CONDITION_SATISFIED) return false;
    glDeleteSync(fence);
    slot.fence = nullptr;
    Image image;
    image.width = slot.width;
    image.height = slot.height;
    image.rgba.resize(slot.bytes);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer);
    const void* mapped = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0,
                                          static_cast<GLsizeiptr>(slot.bytes), GL_MAP_READ_BIT);
    if (mapped != nullptr) {
        // GL's rows run bottom-up; images are written top-down.
        const std::size_t row = static_cast<std::size_t>(slot.width) * 4;
        const auto* bytes = static_cast<const unsigned char*>(mapped);
        for (int j = 0; j < slot.height; ++j)
            std::memcpy(image.rgba.data() + static_cast<std::size_t>(j) * row,
                        bytes + static_cast<std::size_t>(slot.height - 1 - j) * row, row);
        glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (mapped == nullptr) throw Error("could not map the pixel buffer of a frame read-back");
    out.push_back(std::move(image));
    return true;
}

std::vector<FramebufferReader::Image> FramebufferReader::take(bool wait) {
    std::vector<Image> out = std::move(ready_);
    ready_.clear();
    // Oldest first; without waiting, stop at the first copy not yet done (they finish in order).
    std::vector<Slot*> order;
    for (Slot& s : slots_)
        if (s.fence != nullptr) order.push_back(&s);
    std::sort(order.begin(), order.end(),
              [](const Slot* a, const Slot* b) { return a->order < b->order; });
    for (Slot* slot : order)
        if (!read_slot(*slot, wait, out)) break;
    return out;
}

}  // namespace adilab::gl
