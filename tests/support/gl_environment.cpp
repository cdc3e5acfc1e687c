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

// Destroys the shared context when the tests are done, inside RUN_ALL_TESTS. Left to the static
// destructor it would be torn down during exit(), after the GL driver's own exit handlers may
// have run (a process that passed every test then crashed on exit on the NVIDIA driver).
class ContextTeardown : public ::testing::Environment {
  public:
    void TearDown() override { shared().context.reset(); }
};
[[maybe_unused]] ::testing::Environment* const kContextTeardown =
    ::testing::AddGlobalTestEnvironment(new ContextTeardown);
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
