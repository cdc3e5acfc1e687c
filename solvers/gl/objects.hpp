#pragma once
// Move-only owners of OpenGL objects. Copying is deleted; a moved-from or default-constructed
// object holds id 0 and destroys nothing. Every object needs a current context when it is
// created, used or destroyed (the context that created it).
//
// Buffers use bind-to-edit through GL_COPY_WRITE_BUFFER rather than direct state access, so
// that the code runs on GL 4.3, the oldest version adilab accepts.
#include <array>
#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace adilab::gl {

using Id = unsigned int;

// The common part: owns one id, frees it with Deleter. Each kind below adds its operations.
template <void (*Deleter)(Id)>
class UniqueId {
  public:
    UniqueId() = default;
    explicit UniqueId(Id id) : id_(id) {}
    UniqueId(const UniqueId&) = delete;
    UniqueId& operator=(const UniqueId&) = delete;
    UniqueId(UniqueId&& other) noexcept : id_(std::exchange(other.id_, 0)) {}
    UniqueId& operator=(UniqueId&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, 0);
        }
        return *this;
    }
    ~UniqueId() { reset(); }
    void reset() {
        if (id_ != 0) Deleter(std::exchange(id_, 0));
    }
    Id get() const { return id_; }

  private:
    Id id_ = 0;
};

void delete_buffer(Id);
void delete_texture(Id);
void delete_program(Id);
void delete_query(Id);
void delete_framebuffer(Id);
void delete_vertex_array(Id);

// A GPU memory block, used as a shader storage buffer, vertex buffer or uniform buffer.
class Buffer {
  public:
    Buffer() = default;
    // Allocates `bytes` (contents undefined unless `data` is given). Throws adilab::Error when
    // the driver cannot allocate it.
    explicit Buffer(std::size_t bytes, const void* data = nullptr);
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&&) noexcept = default;
    Buffer& operator=(Buffer&&) noexcept = default;
    // Two buffers of `bytes` each (more than 0), the parts of one allocation: the first at its
    // start, the second at the next multiple of 256 bytes (GL's largest storage-offset
    // alignment) after it. Each part is a buffer like any other (bound as a range of the
    // allocation, every operation within its own bytes); the allocation lives while either does.
    //
    // Why: a simulation's two fields, which its sweeps read from and write to in turn, ran at
    // a rate that depended on where the driver placed each of them when they were allocated
    // apart. On an H200 the vortex at 8192^2 ran at 1,551 to 2,062 steps a second by the grids
    // the process had allocated before, reproducibly for each order; as one allocation, at
    // 1,796 to 2,042 in the same orders (docs/performance.md, "2026-11-29 (morning)").
    static std::array<Buffer, 2> pair(std::size_t bytes);
    template <class T>
    static Buffer from(std::span<const T> values) {
        return Buffer(values.size_bytes(), values.data());
    }
    template <class T>
    static Buffer from(const std::vector<T>& values) {
        return from(std::span<const T>(values));
    }

    Id id() const { return storage_ == nullptr ? 0 : storage_->get(); }
    // Where the buffer starts in its allocation: 0 but for the second part of a pair.
    std::size_t offset() const { return offset_; }
    std::size_t size() const { return size_; }
    bool empty() const { return id() == 0; }

    void upload(std::size_t offset, std::size_t bytes, const void* data);
    void download(std::size_t offset, std::size_t bytes, void* out) const;
    template <class T>
    void write(std::span<const T> values, std::size_t first = 0) {
        upload(first * sizeof(T), values.size_bytes(), values.data());
    }
    template <class T>
    void write(const std::vector<T>& values, std::size_t first = 0) {
        write(std::span<const T>(values), first);
    }
    template <class T>
    std::vector<T> read(std::size_t count, std::size_t first = 0) const {
        std::vector<T> out(count);
        download(first * sizeof(T), count * sizeof(T), out.data());
        return out;
    }
    template <class T>
    std::vector<T> read_all() const {
        return read<T>(size_ / sizeof(T));
    }

    // Sets every 32-bit word to `word` (on the GPU, no upload).
    void fill_words(std::uint32_t word);
    void fill(float value);
    void fill(std::int32_t value) { fill_words(static_cast<std::uint32_t>(value)); }
    void zero() { fill_words(0); }
    // All bits set: a NaN read as float and as double. Tests poison outputs with it so that an
    // element a kernel forgot to write fails the comparison.
    void poison() { fill_words(0xFFFFFFFFu); }
    // Copies `bytes` from `source` on the GPU.
    void copy_from(const Buffer& source, std::size_t bytes, std::size_t source_offset = 0,
                   std::size_t offset = 0);

    void bind_storage(unsigned index) const;
    void bind_storage(unsigned index, std::size_t offset, std::size_t bytes) const;  // of its bytes
    void bind_uniform(unsigned index) const;

  private:
    // The allocation, shared by the two parts of a pair (pair()).
    std::shared_ptr<const UniqueId<delete_buffer>> storage_;
    std::size_t offset_ = 0;
    std::size_t size_ = 0;
    bool part_ = false;  // a part of a pair: bound as its range of the allocation
    // Whether a GL transfer (fill_words' clear, copy_from) has written the buffer: its uploads
    // then go through a GPU copy (upload() says why).
    bool transfer_written_ = false;
};

// A compiled and linked program. Made by the shader registry (shaders.hpp), not by hand.
class Program {
  public:
    Program() = default;
    Program(Id id, std::string label);

    Id id() const { return id_.get(); }
    const std::string& label() const { return label_; }
    void use() const;

    // Uniform setters. A name the compiler optimised away is ignored, as GL itself does.
    void set(std::string_view name, int value) const;
    void set(std::string_view name, unsigned value) const;
    void set(std::string_view name, float value) const;
    void set(std::string_view name, double value) const;
    void set(std::string_view name, glm::vec2 value) const;
    void set(std::string_view name, glm::vec3 value) const;
    void set(std::string_view name, glm::vec4 value) const;
    void set(std::string_view name, glm::ivec2 value) const;
    void set(std::string_view name, const glm::mat4& value) const;
    int location(std::string_view name) const;
    // The work-group size the shader declares (compute programs).
    glm::uvec3 work_group_size() const;

    // Who set the program's uniforms last, as a tag its users agree on (0: nobody). A program
    // is shared by every user of its source and defines in one context (the shader registry
    // caches it), so a user that sets many uniforms can skip them while the tag is still its
    // own, and must set them all when another user has been there.
    std::uint64_t uniforms_owner() const { return uniforms_owner_; }
    void set_uniforms_owner(std::uint64_t tag) const { uniforms_owner_ = tag; }

  private:
    UniqueId<delete_program> id_;
    std::string label_;
    mutable std::unordered_map<std::string, int> locations_;
    mutable std::uint64_t uniforms_owner_ = 0;
};

enum class TextureFormat { r32f, rgba8, rgba32f, depth24 };

class Texture2D {
  public:
    Texture2D() = default;
    Texture2D(int width, int height, TextureFormat format);
    Id id() const { return id_.get(); }
    int width() const { return width_; }
    int height() const { return height_; }
    TextureFormat format() const { return format_; }
    void upload(const void* pixels);  // whole image, in the format's natural layout
    void set_linear_filtering(bool linear);
    void bind(unsigned unit) const;
    void bind_image(unsigned unit, bool write) const;

  private:
    UniqueId<delete_texture> id_;
    int width_ = 0, height_ = 0;
    TextureFormat format_ = TextureFormat::rgba8;
};

class Framebuffer {
  public:
    Framebuffer() = default;
    // A colour (rgba8) and depth framebuffer of the given size, for offscreen rendering.
    Framebuffer(int width, int height);
    Id id() const { return id_.get(); }
    int width() const { return colour_.width(); }
    int height() const { return colour_.height(); }
    const Texture2D& colour() const { return colour_; }
    void bind() const;  // binds it as the draw framebuffer and sets the viewport to its size
    static void bind_default(int width, int height);
    // Reads the colour attachment as tightly packed RGBA8 rows, top row first.
    std::vector<std::uint8_t> read_rgba() const;

  private:
    UniqueId<delete_framebuffer> id_;
    Texture2D colour_, depth_;
};

class VertexArray {
  public:
    VertexArray();
    Id id() const { return id_.get(); }
    void bind() const;

  private:
    UniqueId<delete_vertex_array> id_;
};

class Query {
  public:
    Query() = default;
    static Query create();
    Id id() const { return id_.get(); }

  private:
    explicit Query(Id id) : id_(id) {}
    UniqueId<delete_query> id_;
};

}  // namespace adilab::gl
