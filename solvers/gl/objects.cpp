#include "solvers/gl/objects.hpp"

#include <glad/gl.h>

#include <cstring>
#include <glm/gtc/type_ptr.hpp>

#include "solvers/gl/capacity.hpp"
#include "solvers/gl/commands.hpp"
#include "solvers/gl/error.hpp"
#include "solvers/gl/frame_timer.hpp"

namespace adilab::gl {

void delete_buffer(Id id) {
    glDeleteBuffers(1, &id);
}
void delete_texture(Id id) {
    glDeleteTextures(1, &id);
}
void delete_program(Id id) {
    glDeleteProgram(id);
}
void delete_query(Id id) {
    glDeleteQueries(1, &id);
}
void delete_framebuffer(Id id) {
    glDeleteFramebuffers(1, &id);
}
void delete_vertex_array(Id id) {
    glDeleteVertexArrays(1, &id);
}

// ---- Buffer ----------------------------------------------------------------------------------

namespace {

// A new buffer object of `bytes` (at least one word: zero-sized buffers are legal GL but cannot
// be bound as storage ranges). The callers have checked that the GPU holds it.
std::shared_ptr<const UniqueId<delete_buffer>> allocate_buffer(std::size_t bytes,
                                                               const void* data) {
    Id id = 0;
    glGenBuffers(1, &id);
    auto storage = std::make_shared<const UniqueId<delete_buffer>>(id);
    while (glGetError() != GL_NO_ERROR) {
    }
    glBindBuffer(GL_COPY_WRITE_BUFFER, id);
    glBufferData(GL_COPY_WRITE_BUFFER, static_cast<GLsizeiptr>(bytes == 0 ? 4 : bytes), data,
                 GL_DYNAMIC_COPY);
    GLenum status = glGetError();
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    if (status == GL_OUT_OF_MEMORY)
        throw Error("the GPU cannot allocate a buffer of " + std::to_string(bytes) + " bytes");
    if (status != GL_NO_ERROR)
        throw Error("glBufferData failed for " + std::to_string(bytes) + " bytes (GL error " +
                    std::to_string(status) + ")");
    return storage;
}

}  // namespace

Buffer::Buffer(std::size_t bytes, const void* data) : size_(bytes) {
    check_buffer_fits(bytes);  // before the driver is asked (solvers/gl/capacity.hpp says why)
    storage_ = allocate_buffer(bytes, data);
}

std::array<Buffer, 2> Buffer::pair(std::size_t bytes) {
    if (bytes == 0) throw Error("Buffer::pair of zero bytes");
    // Each part is bound on its own, so each meets the storage-block limit; the free memory
    // must hold both.
    check_buffers_fit({BufferNeed{"a buffer", bytes}, BufferNeed{"a buffer", bytes}});
    constexpr std::size_t kAlignment = 256;
    const std::size_t second = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    std::array<Buffer, 2> parts;
    parts[0].storage_ = allocate_buffer(second + bytes, nullptr);
    parts[1].storage_ = parts[0].storage_;
    parts[1].offset_ = second;
    for (Buffer& part : parts) {
        part.size_ = bytes;
        part.part_ = true;
    }
    return parts;
}

void Buffer::upload(std::size_t offset, std::size_t bytes, const void* data) {
    if (offset + bytes > size_) throw Error("Buffer::upload past the end of the buffer");
    if (bytes == 0) return;
    // Ordered after earlier shader writes to the buffer (a clear by a kernel, say): without the
    // barrier GL lets those land after this upload (GL 4.6 §7.13.2, BUFFER_UPDATE_BARRIER_BIT).
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (transfer_written_) {
        // NVIDIA's driver (580, H200) let a glBufferSubData land BEFORE an earlier
        // glClearBufferData (64 KiB..~1 MiB) or glCopyBufferSubData (64 KiB..4 MiB and more)
        // into the same buffer: the next kernel read the cleared or copied words (a model's
        // set_field after reset(); tests/gl/test_gl_runtime.cpp,
        // UploadAfterGpuWritesReachesTheNextKernel, alone in its process). Through a staging
        // buffer and a GPU copy the upload is ordered like every other GPU command (measured:
        // those tests then pass). Uploads after a kernel's stores were seen in order, so only
        // buffers a transfer wrote pay for this.
        Buffer staging(bytes, data);
        glBindBuffer(GL_COPY_READ_BUFFER, staging.id());
        glBindBuffer(GL_COPY_WRITE_BUFFER, id());
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0,
                            static_cast<GLintptr>(offset_ + offset),
                            static_cast<GLsizeiptr>(bytes));
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        return;
    }
    glBindBuffer(GL_COPY_WRITE_BUFFER, id());
    glBufferSubData(GL_COPY_WRITE_BUFFER, static_cast<GLintptr>(offset_ + offset),
                    static_cast<GLsizeiptr>(bytes), data);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
}

void Buffer::download(std::size_t offset, std::size_t bytes, void* out) const {
    if (offset + bytes > size_) throw Error("Buffer::download past the end of the buffer");
    if (bytes == 0) return;
    // Reads must see shader writes that came before.
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_COPY_READ_BUFFER, id());
    glGetBufferSubData(GL_COPY_READ_BUFFER, static_cast<GLintptr>(offset_ + offset),
                       static_cast<GLsizeiptr>(bytes), out);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
}

void Buffer::fill_words(std::uint32_t word) {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);  // after earlier shader writes, as upload()
    glBindBuffer(GL_COPY_WRITE_BUFFER, id());
    if (part_)
        glClearBufferSubData(GL_COPY_WRITE_BUFFER, GL_R32UI, static_cast<GLintptr>(offset_),
                             static_cast<GLsizeiptr>(size_), GL_RED_INTEGER, GL_UNSIGNED_INT,
                             &word);
    else
        glClearBufferData(GL_COPY_WRITE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &word);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    transfer_written_ = true;
}

void Buffer::fill(float value) {
    std::uint32_t word;
    std::memcpy(&word, &value, sizeof word);
    fill_words(word);
}

void Buffer::copy_from(const Buffer& source, std::size_t bytes, std::size_t source_offset,
                       std::size_t offset) {
    if (source_offset + bytes > source.size() || offset + bytes > size_)
        throw Error("Buffer::copy_from past the end of a buffer");
    if (bytes == 0) return;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);  // after earlier shader writes, as upload()
    glBindBuffer(GL_COPY_READ_BUFFER, source.id());
    glBindBuffer(GL_COPY_WRITE_BUFFER, id());
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER,
                        static_cast<GLintptr>(source.offset_ + source_offset),
                        static_cast<GLintptr>(offset_ + offset), static_cast<GLsizeiptr>(bytes));
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    transfer_written_ = true;
}

void Buffer::bind_storage(unsigned index) const {
    if (part_)
        bind_storage(index, 0, size_);
    else
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, index, id());
}
void Buffer::bind_storage(unsigned index, std::size_t offset, std::size_t bytes) const {
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, index, id(),
                      static_cast<GLintptr>(offset_ + offset), static_cast<GLsizeiptr>(bytes));
}
void Buffer::bind_uniform(unsigned index) const {
    if (part_)
        glBindBufferRange(GL_UNIFORM_BUFFER, index, id(), static_cast<GLintptr>(offset_),
                          static_cast<GLsizeiptr>(size_));
    else
        glBindBufferBase(GL_UNIFORM_BUFFER, index, id());
}

// ---- Program ---------------------------------------------------------------------------------

Program::Program(Id id, std::string label) : id_(id), label_(std::move(label)) {}

void Program::use() const {
    glUseProgram(id());
    // Names the phase of the next dispatches for the viewer's DispatchProfiler.
    detail::current_program_label = &label_;
}

int Program::location(std::string_view name) const {
    auto found = locations_.find(std::string(name));
    if (found != locations_.end()) return found->second;
    int loc = glGetUniformLocation(id(), std::string(name).c_str());
    locations_.emplace(std::string(name), loc);
    return loc;
}

void Program::set(std::string_view name, int value) const {
    if (int loc = location(name); loc >= 0) glProgramUniform1i(id(), loc, value);
}
void Program::set(std::string_view name, unsigned value) const {
    if (int loc = location(name); loc >= 0) glProgramUniform1ui(id(), loc, value);
}
void Program::set(std::string_view name, float value) const {
    if (int loc = location(name); loc >= 0) glProgramUniform1f(id(), loc, value);
}
void Program::set(std::string_view name, double value) const {
    if (int loc = location(name); loc >= 0) glProgramUniform1d(id(), loc, value);
}
void Program::set(std::string_view name, glm::vec2 value) const {
    if (int loc = location(name); loc >= 0) glProgramUniform2f(id(), loc, value.x, value.y);
}
void Program::set(std::string_view name, glm::vec3 value) const {
    if (int loc = location(name); loc >= 0)
        glProgramUniform3f(id(), loc, value.x, value.y, value.z);
}
void Program::set(std::string_view name, glm::vec4 value) const {
    if (int loc = location(name); loc >= 0)
        glProgramUniform4f(id(), loc, value.x, value.y, value.z, value.w);
}
void Program::set(std::string_view name, glm::ivec2 value) const {
    if (int loc = location(name); loc >= 0) glProgramUniform2i(id(), loc, value.x, value.y);
}
void Program::set(std::string_view name, const glm::mat4& value) const {
    if (int loc = location(name); loc >= 0)
        glProgramUniformMatrix4fv(id(), loc, 1, GL_FALSE, glm::value_ptr(value));
}

glm::uvec3 Program::work_group_size() const {
    GLint size[3] = {0, 0, 0};
    glGetProgramiv(id(), GL_COMPUTE_WORK_GROUP_SIZE, size);
    return {static_cast<unsigned>(size[0]), static_cast<unsigned>(size[1]),
            static_cast<unsigned>(size[2])};
}

// ---- Texture2D -------------------------------------------------------------------------------

namespace {
struct FormatInfo {
    GLenum internal, format, type;
};
FormatInfo format_info(TextureFormat format) {
    switch (format) {
        case TextureFormat::r32f:
            return {GL_R32F, GL_RED, GL_FLOAT};
        case TextureFormat::rgba8:
            return {GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE};
        case TextureFormat::rgba32f:
            return {GL_RGBA32F, GL_RGBA, GL_FLOAT};
        case TextureFormat::depth24:
            return {GL_DEPTH_COMPONENT24, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT};
    }
    return {GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE};
}
}  // namespace

Texture2D::Texture2D(int width, int height, TextureFormat format)
    : width_(width), height_(height), format_(format) {
    if (width <= 0 || height <= 0)
        throw Error("texture size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is not positive");
    Id id = 0;
    glGenTextures(1, &id);
    id_ = UniqueId<delete_texture>(id);
    FormatInfo info = format_info(format);
    glBindTexture(GL_TEXTURE_2D, id);
    glTexStorage2D(GL_TEXTURE_2D, 1, info.internal, width, height);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void Texture2D::upload(const void* pixels) {
    FormatInfo info = format_info(format_);
    glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT);  // after earlier image stores to it
    glBindTexture(GL_TEXTURE_2D, id());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, info.format, info.type, pixels);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void Texture2D::set_linear_filtering(bool linear) {
    glBindTexture(GL_TEXTURE_2D, id());
    GLint filter = linear ? GL_LINEAR : GL_NEAREST;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void Texture2D::bind(unsigned unit) const {
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_2D, id());
}

void Texture2D::bind_image(unsigned unit, bool write) const {
    glBindImageTexture(unit, id(), 0, GL_FALSE, 0, write ? GL_READ_WRITE : GL_READ_ONLY,
                       format_info(format_).internal);
}

// ---- Framebuffer -----------------------------------------------------------------------------

Framebuffer::Framebuffer(int width, int height)
    : colour_(width, height, TextureFormat::rgba8), depth_(width, height, TextureFormat::depth24) {
    Id id = 0;
    glGenFramebuffers(1, &id);
    id_ = UniqueId<delete_framebuffer>(id);
    GLint previous = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous);
    glBindFramebuffer(GL_FRAMEBUFFER, id);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, colour_.id(), 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, depth_.id(), 0);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
    if (status != GL_FRAMEBUFFER_COMPLETE)
        throw Error("offscreen framebuffer " + std::to_string(width) + "x" +
                    std::to_string(height) + " is incomplete");
}

void Framebuffer::bind() const {
    glBindFramebuffer(GL_FRAMEBUFFER, id());
    glViewport(0, 0, width(), height());
}

void Framebuffer::bind_default(int width, int height) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, width, height);
}

std::vector<std::uint8_t> Framebuffer::read_rgba() const {
    GLint previous = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, id());
    auto pixels = read_pixels_rgba(0, 0, width(), height());
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous));
    return pixels;
}

// ---- VertexArray, Query ------------------------------------------------------------------------

VertexArray::VertexArray() {
    Id id = 0;
    glGenVertexArrays(1, &id);
    id_ = UniqueId<delete_vertex_array>(id);
}

void VertexArray::bind() const {
    glBindVertexArray(id());
}

Query Query::create() {
    Id id = 0;
    glGenQueries(1, &id);
    return Query(id);
}

}  // namespace adilab::gl
