#include "solvers/gl/buffer_texture.hpp"

#include <glad/gl.h>

#include <string>

#include "solvers/gl/error.hpp"

namespace adilab::gl {

BufferTexture::BufferTexture(const Buffer& buffer, BufferTextureFormat) {
    GLint max_texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
    const std::size_t texels = buffer.size() / 8;
    if (texels > static_cast<std::size_t>(max_texels))
        throw Error("a buffer texture of " + std::to_string(texels) +
                    " texels exceeds GL_MAX_TEXTURE_BUFFER_SIZE (" + std::to_string(max_texels) +
                    ")");
    Id id = 0;
    glGenTextures(1, &id);
    id_ = UniqueId<delete_texture>(id);
    glBindTexture(GL_TEXTURE_BUFFER, id);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RG32UI, buffer.id());
    glBindTexture(GL_TEXTURE_BUFFER, 0);
}

void BufferTexture::bind(unsigned unit) const {
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_BUFFER, id_.get());
}

}  // namespace adilab::gl
