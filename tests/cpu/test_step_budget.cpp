// The viewer's cap on steps per frame (app/gui/step_budget.hpp): how it falls when frames run
// over kFrameBudget_ms, grows when they are fast, and ignores the frames after a reset.
#include <gtest/gtest.h>

#include "app/gui/step_budget.hpp"

namespace adilab::gui {
namespace {

// The two frames after a start or reset compile shaders and are not measured.
void settle(StepBudget& budget) {
    budget.adapt(10 * kFrameBudget_ms, budget.cap(), kMaxStepsPerFrame);
    budget.adapt(10 * kFrameBudget_ms, budget.cap(), kMaxStepsPerFrame);
}

TEST(StepBudget, SettlingFramesAreNotMeasured) {
    StepBudget budget;
    settle(budget);
    EXPECT_EQ(budget.cap(), 8);
    EXPECT_FALSE(budget.limits(kMaxStepsPerFrame));
}

TEST(StepBudget, TwoSlowFramesInARowCutTheCapInProportion) {
    StepBudget budget;
    settle(budget);
    budget.adapt(4 * kFrameBudget_ms, 8, 100);
    EXPECT_EQ(budget.cap(), 8) << "one slow frame can be the system's doing";
    budget.adapt(4 * kFrameBudget_ms, 8, 100);
    EXPECT_EQ(budget.cap(), 2);  // 8 steps took 4 budgets: a quarter of them fit
    EXPECT_TRUE(budget.limits(100));
    EXPECT_DOUBLE_EQ(budget.capped_frame_ms(), 4 * kFrameBudget_ms);
    EXPECT_FALSE(budget.limits(2)) << "the user asked for no more than the cap";
}

TEST(StepBudget, FastFramesDoubleTheCapUpToTheMostAFrameMayAsk) {
    StepBudget budget;
    settle(budget);
    int last = budget.cap();
    for (int frame = 0; frame < 40; ++frame) {
        budget.adapt(0.1 * kFrameBudget_ms, budget.cap(), kMaxStepsPerFrame);
        EXPECT_LE(budget.cap(), 2 * last);
        last = budget.cap();
    }
    EXPECT_EQ(budget.cap(), kMaxStepsPerFrame);
}

TEST(StepBudget, PausedFramesAndASingleSlowFrameLeaveTheCap) {
    StepBudget budget;
    settle(budget);
    for (int frame = 0; frame < 5; ++frame) budget.adapt(10 * kFrameBudget_ms, 0, 100);
    EXPECT_EQ(budget.cap(), 8);
    budget.adapt(3 * kFrameBudget_ms, 8, 100);
    budget.adapt(0.9 * kFrameBudget_ms, 8, 100);
    budget.adapt(3 * kFrameBudget_ms, 8, 100);
    EXPECT_EQ(budget.cap(), 8);
}

TEST(StepBudget, RestartStartsLowAndForgetsTheSlowFrames) {
    StepBudget budget;
    settle(budget);
    for (int frame = 0; frame < 40; ++frame)
        budget.adapt(0.1 * kFrameBudget_ms, budget.cap(), kMaxStepsPerFrame);
    budget.adapt(2 * kFrameBudget_ms, budget.cap(), kMaxStepsPerFrame);
    budget.adapt(2 * kFrameBudget_ms, budget.cap(), kMaxStepsPerFrame);
    EXPECT_TRUE(budget.limits(kMaxStepsPerFrame));
    budget.restart();
    EXPECT_EQ(budget.cap(), 8);
    EXPECT_FALSE(budget.limits(kMaxStepsPerFrame));
    budget.adapt(10 * kFrameBudget_ms, 8, kMaxStepsPerFrame);  // settling again
    budget.adapt(10 * kFrameBudget_ms, 8, kMaxStepsPerFrame);
    EXPECT_EQ(budget.cap(), 8);
}

}  // namespace
}  // namespace adilab::gui
