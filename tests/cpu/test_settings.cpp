// The viewer's settings file (app/gui/settings.hpp) reads numbers with the command line's strict
// parsers: a value is used only when the whole text is a number within the key's range; anything
// else (blanks, trailing letters, a number that would wrap, Inf or NaN) falls back to the default
// and is listed as a problem naming the key and the text.
#include <gtest/gtest.h>

#include <string>

#include "app/gui/settings.hpp"

namespace adilab::gui {
namespace {

TEST(ViewerSettings, NumbersAreReadStrictlyAndRefusedValuesAreNamed) {
    Settings settings;
    struct Case {
        const char* text;
        bool used;
    } const integers[] = {
        {"512", true},    {"-3", false},         {" 512", false}, {"512 ", false},
        {"512px", false}, {"4294967808", false}, {"5e2", false},  {"99999999999999999999", false}};
    for (const Case& c : integers) {
        settings.set("grid", c.text);
        EXPECT_EQ(settings.get_int("grid", 7, 4, 8192), c.used ? 512 : 7) << c.text;
        const auto problems = settings.take_problems();
        ASSERT_EQ(problems.size(), c.used ? 0u : 1u) << c.text;
        if (!c.used) {
            EXPECT_EQ(problems[0].find(std::string("grid = ") + c.text), 0u);
        }
    }
    struct RealCase {
        const char* text;
        bool used;
    } const reals[] = {{"0.25", true},   {"2.5e-1", true}, {"nan", false},   {"inf", false},
                       {"1e400", false}, {"0.25x", false}, {" 0.25", false}, {"", false}};
    for (const RealCase& c : reals) {
        settings.set("view_zoom", c.text);
        EXPECT_EQ(settings.get_float("view_zoom", 1.0f, 0.01f, 100.0f), c.used ? 0.25f : 1.0f)
            << c.text;
        EXPECT_EQ(settings.take_problems().size(), c.used ? 0u : 1u) << c.text;
    }
}

}  // namespace
}  // namespace adilab::gui
