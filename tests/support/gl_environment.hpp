#pragma once
// One headless GL context for a whole test binary. GL tests start with ADILAB_NEED_GL(), which
// skips with the reason when no GL 4.3 context can be made, unless ADILAB_REQUIRE_GL=1 is set
// (CI sets it), in which case the missing context is a failure.
#include <gtest/gtest.h>

#include <string>

#include "solvers/gl/context.hpp"

namespace adilab::test {

// The shared context, or nullptr with `why` set.
gl::HeadlessContext* gl_context(std::string* why = nullptr);
bool gl_required();

}  // namespace adilab::test

#define ADILAB_NEED_GL()                                                                  \
    do {                                                                                  \
        std::string adilab_why;                                                           \
        if (::adilab::test::gl_context(&adilab_why) == nullptr) {                         \
            if (::adilab::test::gl_required()) FAIL() << "no GL context: " << adilab_why; \
            GTEST_SKIP() << "no GL 4.3 context: " << adilab_why;                          \
        }                                                                                 \
    } while (0)
