//===- MemoryPlanTest.cpp - Order, liveness, in-place and placement -------===//
//
// Small graphs whose plans are worked out by hand, then thousands of random
// graphs whose plans must pass the verifier and stay between the lower
// bound and one allocation per buffer.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/MemoryPlan.h"

#include <gtest/gtest.h>

using namespace opfuse;

namespace {

constexpr int64_t MiB = 1 << 20;

/// Appends a buffer and returns its id.
int buffer(KernelGraph &graph, int64_t bytes, bool inArena = true) {
  graph.buffers.push_back(
      {bytes, inArena, "b" + std::to_string(graph.buffers.size()), false});
  return graph.buffers.size() - 1;
}

TEST(MemoryPlanTest, ElementwiseChainRunsInOneBuffer) {
  // x -> k0 -> a -> k1 -> b -> k2 -> c -> k3 -> out: each elementwise
  // kernel writes over the input that dies in it, so a, b and c share one
  // 4 MiB storage; naive is 12 MiB.
  KernelGraph g;
  int x = buffer(g, 4 * MiB, false), a = buffer(g, 4 * MiB),
      b = buffer(g, 4 * MiB), c = buffer(g, 4 * MiB),
      out = buffer(g, 4 * MiB, false);
  g.kernels = {{{x}, {a}, {}},
               {{a}, {b}, {{b, a}}},
               {{b}, {c}, {{c, b}}},
               {{c}, {out}, {}}};
  MemoryPlan plan = planMemory(g);
  EXPECT_EQ(plan.inPlaceHits, 2);
  EXPECT_EQ(plan.lowerBound, 4 * MiB);
  EXPECT_EQ(plan.arenaBytes, 4 * MiB);
  EXPECT_EQ(plan.naiveBytes, 12 * MiB);
  EXPECT_EQ(plan.offset[x], -1);
  EXPECT_EQ(plan.offset[out], -1);
  EXPECT_EQ(plan.storage[a], plan.storage[c]);
  EXPECT_FALSE(verifyMemoryPlan(g, plan));
}

TEST(MemoryPlanTest, OrderWithTheLowestBoundIsKept) {
  // Two independent branches from x, each a 16 MiB buffer reduced to a
  // small one, then joined. Program order starts both big buffers before
  // either is reduced (32 MiB live); finishing one branch first needs
  // 16 MiB + the small result.
  KernelGraph g;
  int x = buffer(g, MiB, false);
  int big1 = buffer(g, 16 * MiB), big2 = buffer(g, 16 * MiB);
  int small1 = buffer(g, MiB), small2 = buffer(g, MiB);
  int out = buffer(g, MiB, false);
  g.kernels = {{{x}, {big1}, {}},
               {{x}, {big2}, {}},
               {{big1}, {small1}, {}},
               {{big2}, {small2}, {}},
               {{small1, small2}, {out}, {}}};
  MemoryPlan plan = planMemory(g);
  EXPECT_NE(plan.orderName, "program");
  EXPECT_EQ(plan.lowerBound, 17 * MiB + 1 * MiB);
  EXPECT_EQ(plan.arenaBytes, plan.lowerBound);
  EXPECT_FALSE(verifyMemoryPlan(g, plan));
  // The order is topological.
  std::vector<int> step(g.kernels.size());
  for (size_t i = 0; i < plan.order.size(); ++i)
    step[plan.order[i]] = i;
  EXPECT_LT(step[0], step[2]);
  EXPECT_LT(step[1], step[3]);
  EXPECT_LT(step[2], step[4]);
  EXPECT_LT(step[3], step[4]);
}

TEST(MemoryPlanTest, InputStillReadLaterIsNotOverwritten) {
  // k1 could write b over a, but k2 reads a afterwards: no in-place.
  KernelGraph g;
  int x = buffer(g, MiB, false), a = buffer(g, MiB), b = buffer(g, MiB);
  int out = buffer(g, MiB, false);
  g.kernels = {{{x}, {a}, {}}, {{a}, {b}, {{b, a}}}, {{a, b}, {out}, {}}};
  MemoryPlan plan = planMemory(g);
  EXPECT_EQ(plan.inPlaceHits, 0);
  EXPECT_NE(plan.offset[a], plan.offset[b]);
  EXPECT_EQ(plan.arenaBytes, 2 * MiB);
}

TEST(MemoryPlanTest, SizesAreAlignedTo256Bytes) {
  KernelGraph g;
  int x = buffer(g, 100, false), a = buffer(g, 100), b = buffer(g, 300);
  int out = buffer(g, 4, false);
  g.kernels = {{{x}, {a}, {}}, {{x}, {b}, {}}, {{a, b}, {out}, {}}};
  MemoryPlan plan = planMemory(g);
  EXPECT_EQ(plan.lowerBound, 256 + 512);
  EXPECT_EQ(plan.arenaBytes, 256 + 512);
  EXPECT_EQ(plan.offset[a] % kArenaAlignment, 0);
  EXPECT_EQ(plan.offset[b] % kArenaAlignment, 0);
}

TEST(MemoryPlanTest, OutputsInTheArenaLiveToTheEnd) {
  // With --plan-outputs an output is in the arena; the caller reads it after
  // the last kernel, so a later buffer may not take its place.
  KernelGraph g;
  int x = buffer(g, MiB, false), out1 = buffer(g, MiB), a = buffer(g, MiB);
  int out2 = buffer(g, MiB);
  g.buffers[out1].liveToEnd = g.buffers[out2].liveToEnd = true;
  g.kernels = {{{x}, {out1}, {}}, {{x}, {a}, {}}, {{a}, {out2}, {{out2, a}}}};
  MemoryPlan plan = planMemory(g);
  EXPECT_EQ(plan.lifetime[out1].second, 2);
  EXPECT_EQ(plan.lowerBound, 2 * MiB);
  EXPECT_EQ(plan.arenaBytes, 2 * MiB);
  EXPECT_NE(plan.offset[out1], plan.offset[out2]);
  EXPECT_FALSE(verifyMemoryPlan(g, plan));
}

TEST(MemoryPlanTest, VerifierNamesOverlappingBuffers) {
  KernelGraph g;
  int x = buffer(g, MiB, false), a = buffer(g, MiB), b = buffer(g, MiB);
  int out = buffer(g, MiB, false);
  g.kernels = {{{x}, {a}, {}}, {{x}, {b}, {}}, {{a, b}, {out}, {}}};
  MemoryPlan plan = planMemory(g);
  ASSERT_FALSE(verifyMemoryPlan(g, plan));
  plan.offset[b] = plan.offset[a];
  std::optional<std::string> error = verifyMemoryPlan(g, plan);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("'b1'"), std::string::npos) << *error;
  EXPECT_NE(error->find("'b2'"), std::string::npos) << *error;
  EXPECT_NE(error->find("alive together and overlap"), std::string::npos);
  plan.offset[b] = plan.arenaBytes;
  error = verifyMemoryPlan(g, plan);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("outside the arena"), std::string::npos) << *error;
}

TEST(MemoryPlanTest, ThousandsOfRandomGraphsPlanSafely) {
  // 3,000 random graphs of 5 to 300 kernels: every plan verifies, and its
  // arena lies between the lower bound and one allocation per buffer.
  double worst = 1.0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    KernelGraph g = randomKernelGraph(5 + seed % 296, seed);
    PlanOptions options;
    options.searchMilliseconds = 2;
    MemoryPlan plan = planMemory(g, options);
    std::optional<std::string> error = verifyMemoryPlan(g, plan);
    ASSERT_FALSE(error) << "seed " << seed << ": " << *error;
    ASSERT_GE(plan.arenaBytes, plan.lowerBound) << "seed " << seed;
    ASSERT_LE(plan.arenaBytes, plan.naiveBytes) << "seed " << seed;
    ASSERT_EQ(plan.order.size(), g.kernels.size());
    worst = std::max(worst, double(plan.arenaBytes) / plan.lowerBound);
  }
  RecordProperty("worst_arena_over_bound", std::to_string(worst));
}

} // namespace
