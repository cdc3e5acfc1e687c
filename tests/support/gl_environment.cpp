#include "tests/support/gl_environment.hpp"

#include <cstdlib>
#include <memory>

#include "solvers/gl/error.hpp"

namespace adilab::test {

namespace {
struct Shared {
    std::unique_ptr<gl::HeadlessContext> context;
    std::string why;
    bool tried = false;
};
Shared& shared() {
    static Shared s;
    return s;
}
}  // namespace

gl::HeadlessContext* gl_context(std::string* why) {
    Shared& s = shared();
    if (!s.tried) {
        s.tried = true;
        try {
            s.context = gl::HeadlessContext::create();
        } catch (const Error& e) {
            s.why = e.what();
        }
    }
    if (why) *why = s.why;
    return s.context.get();
}

bool gl_required() {
    const char* value = std::getenv("ADILAB_REQUIRE_GL");
    return value != nullptr && std::string(value) == "1";
}

}  // namespace adilab::test

