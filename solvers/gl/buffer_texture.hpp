#pragma once
// A buffer texture (GL_TEXTURE_BUFFER): a view of a Buffer that shaders read with texelFetch
// through the texture path instead of a storage-buffer load. The power method's SpMV reads its
// randomly gathered x this way as an option (--x-texture). Added by the power-method work.
#include "solvers/gl/objects.hpp"

namespace adilab::gl {

enum class BufferTextureFormat { rg32ui };  // one float64 as two 32-bit words

class BufferTexture {
  public:
    BufferTexture() = default;
    // Views `buffer` (which must outlive this object). Throws adilab::Error when the buffer has
    // more texels than GL_MAX_TEXTURE_BUFFER_SIZE.
    BufferTexture(const Buffer& buffer, BufferTextureFormat format);
    Id id() const { return id_.get(); }
    bool empty() const { return id_.get() == 0; }
    void bind(unsigned unit) const;  // to texture unit `unit` (a usamplerBuffer uniform's unit)

  private:
    UniqueId<delete_texture> id_;
};

}  // namespace adilab::gl
