#include "solvers/gl/shaders.hpp"

#include <glad/gl.h>

#include <regex>
#include <sstream>

#include "solvers/gl/context.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gl {

namespace {

int file_number(std::string_view path) {
    auto shaders = embedded_shaders();
    for (std::size_t i = 0; i < shaders.size(); ++i)
        if (shaders[i].path == path) return static_cast<int>(i);
    throw Error("no shader file shaders/" + std::string(path) + " is embedded in adilab");
}

// Line numbers carry the file: `#line (file + 1) * kLinesPerFile + line`. GLSL's own
// source-string number would be the natural place, but Mesa ignores it in its logs.
constexpr long kLinesPerFile = 100000;

std::string line_directive(int file, int line) {
    return "#line " + std::to_string((file + 1) * kLinesPerFile + line) + "\n";
}

// Appends `path` to `out` with its #include lines expanded; `depth` stops include cycles.
void append_expanded(std::string& out, std::string_view path, int depth) {
    if (depth > 16) throw Error("shaders/" + std::string(path) + ": #include nested too deeply");
    const int number = file_number(path);
    std::string_view text = shader_source(path);
    out += line_directive(number, 1);
    int line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        ++line_number;
        std::size_t first = line.find_first_not_of(" \t");
        if (first != std::string_view::npos && line.substr(first).starts_with("#include")) {
            std::size_t open = line.find('"'), close = line.rfind('"');
            if (open == std::string_view::npos || close <= open)
                throw Error("shaders/" + std::string(path) + ":" + std::to_string(line_number) +
                            ": malformed #include");
            append_expanded(out, line.substr(open + 1, close - open - 1), depth + 1);
            out += line_directive(number, line_number + 1);
        } else {
            out.append(line);
            out += '\n';
        }
        start = end + 1;
    }
}

GLuint compile_stage(GLenum stage, std::string_view path, const Defines& defines) {
    const std::string source = assemble_source(path, defines);
    GLuint shader = glCreateShader(stage);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        GLint length = 0;
        glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<std::size_t>(length > 0 ? length : 1), '\0');
        glGetShaderInfoLog(shader, length, nullptr, log.data());
        glDeleteShader(shader);
        throw Error("shader compile failed:\n" + rewrite_log(log.c_str()));
    }
    return shader;
}

std::string describe_defines(const Defines& defines) {
    std::string out;
    for (const auto& [name, value] : defines) out += " " + name + "=" + value;
    return out;
}

Program link(std::initializer_list<GLuint> stages, std::string label) {
    GLuint program = glCreateProgram();
    for (GLuint s : stages) glAttachShader(program, s);
    glLinkProgram(program);
    for (GLuint s : stages) {
        glDetachShader(program, s);
        glDeleteShader(s);
    }
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        GLint length = 0;
        glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
        std::string log(static_cast<std::size_t>(length > 0 ? length : 1), '\0');
        glGetProgramInfoLog(program, length, nullptr, log.data());
        glDeleteProgram(program);
        throw Error("shader link failed for " + label + ":\n" + rewrite_log(log.c_str()));
    }
    return Program(program, std::move(label));
}

}  // namespace

std::string_view shader_source(std::string_view path) {
    for (const EmbeddedShader& shader : embedded_shaders())
        if (shader.path == path) return shader.text;
    throw Error("no shader file shaders/" + std::string(path) + " is embedded in adilab");
}

std::string assemble_source(std::string_view path, const Defines& defines) {
    std::string out = "#version 430 core\n";
    for (const auto& [name, value] : defines) out += "#define " + name + " " + value + "\n";
    append_expanded(out, path, 0);
    return out;
}

std::string rewrite_log(std::string_view log) {
    // Mesa: "0:12(5): error: ...", NVIDIA: "0(12) : error C0000: ...".
    static const std::regex location(R"(^\s*(\d+)(?::(\d+)\((\d+)\)|\((\d+)\))\s*:\s*)");
    auto shaders = embedded_shaders();
    std::istringstream lines{std::string(log)};
    std::string line, out;
    while (std::getline(lines, line)) {
        std::smatch m;
        if (std::regex_search(line, m, location)) {
            const long encoded = std::stol(m[2].matched ? m[2].str() : m[4].str());
            const long file = encoded / kLinesPerFile - 1;
            std::string where = file >= 0 && file < static_cast<long>(shaders.size())
                                    ? "shaders/" + std::string(shaders[file].path) + ":" +
                                          std::to_string(encoded % kLinesPerFile)
                                    : "prelude:" + std::to_string(encoded);
            out += where + ": " + m.suffix().str() + "\n";
        } else if (!line.empty()) {
            out += line + "\n";
        }
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

Program compile_compute(std::string_view path, const Defines& defines) {
    GLuint stage = compile_stage(GL_COMPUTE_SHADER, path, defines);
    return link({stage}, "shaders/" + std::string(path) + describe_defines(defines));
}

Program compile_graphics(std::string_view vertex_path, std::string_view fragment_path,
                         const Defines& defines) {
    GLuint vertex = compile_stage(GL_VERTEX_SHADER, vertex_path, defines);
    GLuint fragment = 0;
    try {
        fragment = compile_stage(GL_FRAGMENT_SHADER, fragment_path, defines);
    } catch (...) {
        glDeleteShader(vertex);
        throw;
    }
    return link({vertex, fragment}, "shaders/" + std::string(vertex_path) + " + shaders/" +
                                        std::string(fragment_path) + describe_defines(defines));
}

const Program& ShaderCache::compute(std::string_view path, const Defines& defines) {
    std::string key = std::string(path) + describe_defines(defines);
    auto found = programs_.find(key);
    if (found != programs_.end()) return found->second;
    return programs_.emplace(key, compile_compute(path, defines)).first->second;
}

const Program& ShaderCache::graphics(std::string_view vertex_path, std::string_view fragment_path,
                                     const Defines& defines) {
    std::string key =
        std::string(vertex_path) + "+" + std::string(fragment_path) + describe_defines(defines);
    auto found = programs_.find(key);
    if (found != programs_.end()) return found->second;
    return programs_.emplace(key, compile_graphics(vertex_path, fragment_path, defines))
        .first->second;
}

const Program& compute_program(std::string_view path, const Defines& defines) {
    return Context::current().shaders().compute(path, defines);
}

const Program& graphics_program(std::string_view vertex_path, std::string_view fragment_path,
                                const Defines& defines) {
    return Context::current().shaders().graphics(vertex_path, fragment_path, defines);
}

}  // namespace adilab::gl
