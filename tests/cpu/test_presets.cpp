// The viewer's presets (app/gui/presets.hpp) without a window: "Save as preset" writes what the
// panel had, and the list reads it back, the user's presets after the shipped ones.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/gui/presets.hpp"
#include "solvers/gl/error.hpp"

namespace adilab::gui {
namespace {

TEST(Presets, SavedPresetsAreReadBackExactlyAfterTheShippedOnes) {
    const auto folder =
        std::filesystem::temp_directory_path() / ("adilab-presets-" + std::to_string(::getpid()));
    std::filesystem::remove_all(folder);
    Preset p;
    p.name = "my-river_2";
    p.model = "advection";
    p.scenario = "river";
    p.solver = "fused";
    p.grid = 96;
    p.steps_per_frame = 3;
    p.colormap = "turbo";
    p.params = {{"dt", 0.1}, {"u", 1.0 / 3.0}, {"scheme", 1}};
    const auto path = save_preset(folder, p);
    EXPECT_EQ(path, folder / "my-river_2.preset");
    const std::vector<Preset> all = load_presets(folder);
    ASSERT_FALSE(all.empty());
    const Preset& back = all.back();
    EXPECT_TRUE(back.user);
    EXPECT_TRUE(back.problem.empty()) << back.problem;
    EXPECT_EQ(back.name, "my-river_2");
    EXPECT_EQ(back.model, "advection");
    EXPECT_EQ(back.scenario, "river");
    EXPECT_EQ(back.grid, 96);
    EXPECT_EQ(back.steps_per_frame, 3);
    EXPECT_EQ(back.colormap, "turbo");
    EXPECT_EQ(back.params, p.params) << "every digit of each double";
    for (std::size_t k = 0; k + 1 < all.size(); ++k) EXPECT_FALSE(all[k].user) << all[k].name;
    std::filesystem::remove_all(folder);
}

TEST(Presets, NamesAreFileNamesWithoutSurprises) {
    EXPECT_TRUE(preset_name_problem("warm-plate.2").empty());
    EXPECT_FALSE(preset_name_problem("").empty());
    EXPECT_FALSE(preset_name_problem("../escape").empty());
    EXPECT_FALSE(preset_name_problem(".hidden").empty());
    EXPECT_FALSE(preset_name_problem("a b").empty());
    EXPECT_FALSE(preset_name_problem(std::string(65, 'x')).empty());
    Preset p;
    p.name = "a/b";
    p.model = "heat";
    EXPECT_THROW(save_preset(std::filesystem::temp_directory_path(), p), Error);
}

}  // namespace
}  // namespace adilab::gui
