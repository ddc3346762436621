//===- StreamScheduleTest.cpp - Collectives beside the kernels ------------===//
//
// Which collective steps run on the second stream, and before which later
// steps the kernels' stream waits for them: on shared memory (the same
// buffer or intersecting arena ranges), not only on the values read.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/StreamSchedule.h"

#include <gtest/gtest.h>

using namespace opfuse;

namespace {

/// A plan of f32 buffers of 256 elements (1024 bytes) at `offsets` (-1:
/// allocated on its own).
LaunchPlan planWithBuffers(const std::vector<int64_t> &offsets) {
  LaunchPlan plan;
  plan.function = "f";
  for (size_t id = 0; id < offsets.size(); ++id) {
    PlanBuffer buffer;
    buffer.id = id;
    buffer.name = "b" + std::to_string(id);
    buffer.shape = {256};
    buffer.offset = offsets[id];
    buffer.role =
        offsets[id] < 0 ? BufferRole::Input : BufferRole::Intermediate;
    plan.buffers.push_back(buffer);
  }
  return plan;
}

void addKernel(LaunchPlan &plan, std::vector<int> args) {
  PlanKernel kernel;
  kernel.name = "k" + std::to_string(plan.kernels.size());
  kernel.args = std::move(args);
  kernel.numInputs = kernel.args.size() - 1;
  appendKernelStep(plan, std::move(kernel));
}

void addAllReduce(LaunchPlan &plan, int input, int output, int overlapSms,
                  int devices = 2) {
  plan.steps.push_back({StepKind::Collective, plan.collectives.size()});
  plan.collectives.push_back(
      {CollectiveKind::AllReduce, "sum", input, output, devices, overlapSms});
}

// Two windowed chunks as fuse-window-collectives and the planner leave
// them: each all_reduce in place over its GEMM's output, the next GEMM
// writing elsewhere, and the epilogue reading both reduced chunks.
TEST(StreamScheduleTest, ChunksOverlapTheNextGemmAndJoinAtTheirReader) {
  // 0: input; 1/2 chunk 0 (in place at 0); 3/4 chunk 1 (in place at
  // 1024); 5: the result.
  LaunchPlan plan = planWithBuffers({-1, 0, 0, 1024, 1024, -1});
  addKernel(plan, {0, 1});
  addAllReduce(plan, 1, 2, 16);
  addKernel(plan, {0, 3});
  addAllReduce(plan, 3, 4, 16);
  addKernel(plan, {2, 4, 5});
  StreamSchedule schedule = scheduleStreams(plan);
  EXPECT_TRUE(schedule.overlaps());
  EXPECT_EQ(schedule.beside,
            (std::vector<bool>{false, true, false, true, false}));
  EXPECT_TRUE(schedule.waits[2].empty()) << "chunk 1's GEMM must not wait";
  EXPECT_EQ(schedule.waits[4], (std::vector<size_t>{1, 3}));
  EXPECT_TRUE(schedule.joinAtEnd.empty());
  EXPECT_EQ(overlapCtas(plan), 16);
}

// The arena reused chunk 0's bytes for the next kernel's output: that
// kernel waits for chunk 0's all_reduce although it reads nothing of it.
TEST(StreamScheduleTest, AKernelOverReusedBytesWaits) {
  LaunchPlan plan = planWithBuffers({-1, 0, 0, 512, -1});
  addKernel(plan, {0, 1});
  addAllReduce(plan, 1, 2, 8);
  addKernel(plan, {0, 3});
  addKernel(plan, {3, 4});
  StreamSchedule schedule = scheduleStreams(plan);
  EXPECT_EQ(schedule.waits[2], (std::vector<size_t>{1}));
  EXPECT_TRUE(schedule.waits[3].empty()) << "waited for once is enough";
  EXPECT_TRUE(schedule.joinAtEnd.empty());
}

// Nothing after it touches the all_reduce's memory: the run's end joins
// it, so that the run is timed and its outputs copied whole.
TEST(StreamScheduleTest, UnreadCollectivesJoinAtTheEnd) {
  LaunchPlan plan = planWithBuffers({-1, 0, 0, 2048});
  addKernel(plan, {0, 1});
  addAllReduce(plan, 1, 2, 16);
  addKernel(plan, {0, 3});
  StreamSchedule schedule = scheduleStreams(plan);
  EXPECT_TRUE(schedule.waits[2].empty());
  EXPECT_EQ(schedule.joinAtEnd, (std::vector<size_t>{1}));
}

// A collective on the kernels' stream waits for every one beside them
// first: NCCL runs a communicator's calls in the order they are made.
TEST(StreamScheduleTest, ACollectiveOnTheKernelsStreamJoinsAll) {
  LaunchPlan plan = planWithBuffers({-1, 0, 0, 1024, 1024, 2048, 2048});
  addKernel(plan, {0, 1});
  addAllReduce(plan, 1, 2, 16);
  addKernel(plan, {0, 3});
  addAllReduce(plan, 3, 4, 16);
  addKernel(plan, {0, 5});
  addAllReduce(plan, 5, 6, /*overlapSms=*/0);
  StreamSchedule schedule = scheduleStreams(plan);
  EXPECT_FALSE(schedule.beside[5]);
  EXPECT_TRUE(schedule.waits[4].empty());
  EXPECT_EQ(schedule.waits[5], (std::vector<size_t>{1, 3}));
  EXPECT_TRUE(schedule.joinAtEnd.empty());
}

// Without overlap_sms every step stays on the kernels' stream and NCCL
// keeps its CTAs.
TEST(StreamScheduleTest, NoOverlapWithoutSms) {
  LaunchPlan plan = planWithBuffers({-1, 0, 0, 1024, 1024});
  addKernel(plan, {0, 1});
  addAllReduce(plan, 1, 2, /*overlapSms=*/0);
  addKernel(plan, {0, 3});
  addAllReduce(plan, 3, 4, /*overlapSms=*/0, /*devices=*/1);
  StreamSchedule schedule = scheduleStreams(plan);
  EXPECT_FALSE(schedule.overlaps());
  for (const std::vector<size_t> &waits : schedule.waits)
    EXPECT_TRUE(waits.empty());
  EXPECT_EQ(overlapCtas(plan), 0);
}

// A collective of one device marked overlap_sms runs beside the kernels
// too (NCCL copies): how one GPU exercises the two streams.
TEST(StreamScheduleTest, OneDeviceRunsBesideWhenMarked) {
  LaunchPlan plan = planWithBuffers({-1, 0, 0, 1024});
  addKernel(plan, {0, 1});
  addAllReduce(plan, 1, 2, 4, /*devices=*/1);
  addKernel(plan, {2, 3});
  StreamSchedule schedule = scheduleStreams(plan);
  EXPECT_TRUE(schedule.beside[1]);
  EXPECT_EQ(schedule.waits[2], (std::vector<size_t>{1}));
  EXPECT_EQ(overlapCtas(plan), 4);
}

// overlap_sms travels with the plan and is checked where it is read.
TEST(StreamScheduleTest, OverlapSmsRoundTripsAndIsChecked) {
  LaunchPlan plan = planWithBuffers({-1, 0, 0});
  plan.buffers[0].role = BufferRole::Input;
  plan.inputs = {0};
  plan.outputs = {2};
  plan.buffers[2].role = BufferRole::Output;
  plan.buffers[2].offset = -1;
  plan.arena.bytes = plan.arena.lowerBound = plan.arena.naiveBytes = 1024;
  addKernel(plan, {0, 1});
  addAllReduce(plan, 1, 2, 12);
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  EXPECT_NE(text.find("\"overlap_sms\": 12"), std::string::npos) << text;
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->collectives[0].overlapSms, 12);

  for (const char *bad : {"\"overlap_sms\": 65", "\"overlap_sms\": -1",
                          "\"overlap_sms\": \"many\""}) {
    std::string broken = text;
    broken.replace(broken.find("\"overlap_sms\": 12"), 17, bad);
    llvm::Expected<LaunchPlan> rejected = parsePlanJson(broken);
    ASSERT_FALSE(bool(rejected)) << bad;
    EXPECT_NE(llvm::toString(rejected.takeError()).find("overlap_sms"),
              std::string::npos)
        << bad;
  }
}

} // namespace
