#pragma once
// The shader registry. Every file under shaders/ is embedded into the binary at build time
// (solvers/gl/embed_shaders.cmake) and compiled on first use for the current context.
//
// A shader file has no #version line: the registry writes `#version 430 core`, then the
// variant's #defines (the prelude), then a #line directive whose number encodes the file and its
// line, so that the driver's error log can be rewritten to `shaders/<file>:<line>: <message>`. A
// line `#include "other.glsl"` (path relative to shaders/) pastes that file in, with #line
// directives around it.
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "solvers/gl/objects.hpp"

namespace adilab::gl {

struct EmbeddedShader {
    std::string_view path;  // relative to shaders/, e.g. "tridiagonal/cr_reduce.comp"
    std::string_view text;
};
std::span<const EmbeddedShader> embedded_shaders();
// The text of an embedded file; throws adilab::Error naming the path if there is none.
std::string_view shader_source(std::string_view path);

// #define NAME VALUE lines put before the shader, in order. Values are GLSL tokens ("256",
// "float", "1.0e-6").
using Defines = std::vector<std::pair<std::string, std::string>>;

// The full source handed to the driver for one stage, after the prelude and #include expansion.
std::string assemble_source(std::string_view path, const Defines& defines);
// Rewrites a driver's info log ("0:12(5): error: ..." from Mesa, "0(12) : error C1234: ..."
// from NVIDIA) so each line names the shader file and its line.
std::string rewrite_log(std::string_view log);

// Compiles and links. Throws adilab::Error with the rewritten log on any failure.
Program compile_compute(std::string_view path, const Defines& defines = {});
Program compile_graphics(std::string_view vertex_path, std::string_view fragment_path,
                         const Defines& defines = {});

// Programs compiled once per context and kept: one per (files, defines).
class ShaderCache {
  public:
    const Program& compute(std::string_view path, const Defines& defines = {});
    const Program& graphics(std::string_view vertex_path, std::string_view fragment_path,
                            const Defines& defines = {});
    std::size_t size() const { return programs_.size(); }
    void clear() { programs_.clear(); }

  private:
    std::map<std::string, Program> programs_;
};

// The current context's cached compute / graphics program (compiled on first use).
const Program& compute_program(std::string_view path, const Defines& defines = {});
const Program& graphics_program(std::string_view vertex_path, std::string_view fragment_path,
                                const Defines& defines = {});

}  // namespace adilab::gl
