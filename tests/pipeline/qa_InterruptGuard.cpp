// InterruptGuard: a signal stops the innermost guard's token, and a nested guard (the opening
// of one input inside a batch's run) hands the stop on to the guard around it when it ends.
#include <csignal>

#include <gtest/gtest.h>

#include "pipeline/stop_token.hpp"

namespace prism {
namespace {

TEST(InterruptGuard, SignalStopsTheToken) {
  StopToken stop;
  {
    InterruptGuard guard(stop);
    std::raise(SIGINT);
    EXPECT_TRUE(stop.stop_requested());
    EXPECT_TRUE(InterruptGuard::interrupted());
  }
}

TEST(InterruptGuard, NestedGuardStopsItsTokenThenTheOuterOne) {
  StopToken outer, inner;
  InterruptGuard outer_guard(outer);
  EXPECT_FALSE(InterruptGuard::interrupted());
  {
    InterruptGuard inner_guard(inner);
    std::raise(SIGTERM);
    EXPECT_TRUE(inner.stop_requested());
    EXPECT_FALSE(outer.stop_requested());
  }
  EXPECT_TRUE(outer.stop_requested());
  EXPECT_TRUE(InterruptGuard::interrupted());
}

TEST(InterruptGuard, NestedGuardWithoutSignalLeavesTheOuterRouting) {
  StopToken outer, inner;
  InterruptGuard outer_guard(outer);
  { InterruptGuard inner_guard(inner); }
  EXPECT_FALSE(outer.stop_requested());
  std::raise(SIGINT);  // routed to the outer token again, not lost
  EXPECT_TRUE(outer.stop_requested());
  EXPECT_FALSE(inner.stop_requested());
}

}  // namespace
}  // namespace prism
