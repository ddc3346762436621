//===- RuntimeTest.cpp - Runtime pieces that need no GPU ------------------===//
//
// Half-float encoding (what the GPU and the reference both see), latency
// percentiles, seeded inputs and the launch-plan JSON round trip.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Executor.h"
#include "opfuse/Runtime/HalfFloat.h"
#include "opfuse/Runtime/LaunchPlan.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace opfuse;

namespace {

TEST(HalfFloatTest, Bf16RoundsToNearestEven) {
  EXPECT_EQ(encodeBF16(1.0f), 0x3f80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(encodeBF16(1.0f + 1.0f / 256), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties to even.
  EXPECT_EQ(encodeBF16(1.0f + 3.0f / 256), 0x3f82);
  EXPECT_EQ(decodeBF16(0xc000), -2.0f);
  EXPECT_TRUE(std::isnan(decodeBF16(encodeBF16(NAN))));
  EXPECT_EQ(decodeBF16(encodeBF16(INFINITY)), INFINITY);
}

TEST(HalfFloatTest, F16CoversNormalsSubnormalsAndOverflow) {
  EXPECT_EQ(encodeF16(1.0f), 0x3c00);
  EXPECT_EQ(encodeF16(-2.5f), 0xc100);
  EXPECT_EQ(encodeF16(65504.0f), 0x7bff); // the largest f16
  EXPECT_EQ(encodeF16(1e6f), 0x7c00);     // overflows to infinity
  // 2^-24 is the smallest subnormal; half of it ties to even (zero).
  EXPECT_EQ(encodeF16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(encodeF16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(decodeF16(0x0001), std::ldexp(1.0f, -24));
  // 1 + 2^-11 ties to even (1.0); 1 + 3 * 2^-11 rounds up to 1 + 2^-9.
  EXPECT_EQ(encodeF16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(encodeF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_TRUE(std::isnan(decodeF16(encodeF16(NAN))));
}

TEST(LatencyStatsTest, PercentilesAreNearestRank) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i)
    samples.push_back(i);
  LatencyStats stats = summarize(samples);
  EXPECT_EQ(stats.p50, 50);
  EXPECT_EQ(stats.p99, 99);
  EXPECT_EQ(stats.min, 1);
  EXPECT_DOUBLE_EQ(stats.mean, 50.5);
  // One sample is every percentile.
  stats = summarize({7.5});
  EXPECT_EQ(stats.p50, 7.5);
  EXPECT_EQ(stats.p99, 7.5);
}

LaunchPlan samplePlan() {
  LaunchPlan plan;
  plan.function = "f";
  plan.buffers = {
      {0, "arg0", DType::BF16, {4, 8}, BufferRole::Input, {}},
      {1,
       "const1",
       DType::I32,
       {2},
       BufferRole::Constant,
       {1, 0, 0, 0, 2, 0, 0, 0}},
      {2, "f_k0.out0", DType::BF16, {4, 8}, BufferRole::Output, {}}};
  PlanKernel kernel;
  kernel.name = "f_k0";
  kernel.grid = {3, 1, 1};
  kernel.block = {256, 1, 1};
  kernel.args = {0, 1, 2};
  kernel.numInputs = 2;
  kernel.bytes = 136;
  kernel.flops = 32;
  kernel.numOps = 2;
  appendKernelStep(plan, kernel);
  plan.inputs = {0};
  plan.outputs = {2};
  return plan;
}

TEST(LaunchPlanTest, TilingOnlyForGemmKernels) {
  // A kernel without a tiling writes none and reads back without one.
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(samplePlan(), os);
  EXPECT_EQ(text.find("tiling"), std::string::npos);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_TRUE(parsed->kernels[0].tiling.empty());
  EXPECT_EQ(text.find("schedule"), std::string::npos);
  EXPECT_TRUE(parsed->kernels[0].schedule.empty());
}

TEST(LaunchPlanTest, JsonRoundTrip) {
  LaunchPlan plan = samplePlan();
  plan.kernels[0].sharedBytes = 196608;
  plan.kernels[0].tiling = "wgmma:128x256x64/2x1/4";
  plan.kernels[0].schedule = "warp-specialized";
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  ASSERT_EQ(parsed->buffers.size(), 3u);
  EXPECT_EQ(parsed->buffers[0].dtype, DType::BF16);
  EXPECT_EQ(parsed->buffers[0].bytes(), 64);
  EXPECT_EQ(parsed->buffers[1].role, BufferRole::Constant);
  EXPECT_EQ(parsed->buffers[1].data, plan.buffers[1].data);
  EXPECT_EQ(parsed->buffers[2].role, BufferRole::Output);
  ASSERT_EQ(parsed->kernels.size(), 1u);
  EXPECT_EQ(parsed->kernels[0].name, "f_k0");
  EXPECT_EQ(parsed->kernels[0].grid[0], 3);
  EXPECT_EQ(parsed->kernels[0].args, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parsed->kernels[0].numInputs, 2);
  EXPECT_EQ(parsed->kernels[0].sharedBytes, 196608);
  EXPECT_EQ(parsed->kernels[0].tiling, "wgmma:128x256x64/2x1/4");
  EXPECT_EQ(parsed->kernels[0].schedule, "warp-specialized");
  EXPECT_EQ(parsed->inputs, (std::vector<int>{0}));
  EXPECT_EQ(parsed->outputs, (std::vector<int>{2}));
}

TEST(LaunchPlanTest, SplitKRoundTripAndChecks) {
  LaunchPlan plan = samplePlan();
  plan.kernels[0].grid = {12, 1, 1};
  plan.kernels[0].tiling = "64x64x32/2x2/3/k4";
  plan.kernels[0].splitK = 4;
  plan.kernels[0].splitCounters = 3;
  plan.kernels[0].workspaceBytes = 12 * 64 * 64 * 4;
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->kernels[0].splitK, 4);
  EXPECT_EQ(parsed->kernels[0].splitCounters, 3);
  EXPECT_EQ(parsed->kernels[0].workspaceBytes, 12 * 64 * 64 * 4);
  // A kernel without split_k reads back as whole K.
  std::string plain;
  llvm::raw_string_ostream plainOs(plain);
  writePlanJson(samplePlan(), plainOs);
  EXPECT_EQ(plain.find("split_k"), std::string::npos);
  // More counters than the grid's tiles, one split, a workspace too small.
  for (auto [splits, counters, bytes] :
       {std::tuple<int64_t, int64_t, int64_t>{4, 4, 1 << 20},
        {1, 3, 1 << 20},
        {4, 3, 8},
        {300, 1, 1 << 20}}) {
    LaunchPlan bad = plan;
    bad.kernels[0].splitK = splits;
    bad.kernels[0].splitCounters = counters;
    bad.kernels[0].workspaceBytes = bytes;
    std::string badText;
    llvm::raw_string_ostream badOs(badText);
    writePlanJson(bad, badOs);
    // splitK 1 writes no split_k at all; write the field by hand.
    if (splits == 1) {
      size_t at = badText.find("\"tiling\"");
      ASSERT_NE(at, std::string::npos);
      badText.insert(at, "\"split_k\": {\"splits\": 1, \"workspace_bytes\": "
                         "1048576, \"counters\": 3}, ");
    }
    llvm::Expected<LaunchPlan> refused = parsePlanJson(badText);
    ASSERT_FALSE(bool(refused)) << splits << " " << counters << " " << bytes;
    EXPECT_NE(llvm::toString(refused.takeError()).find("split_k"),
              std::string::npos);
  }
}

TEST(LaunchPlanTest, TensorMapsRoundTrip) {
  LaunchPlan plan = samplePlan();
  // arg0 is 4 x 8 bf16: rows of 16 bytes, a box of one 8-wide row pair.
  plan.kernels[0].tensorMaps = {{0, {8, 4}, {16}, {8, 2}}};
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->version, LaunchPlan::kFormatVersion);
  ASSERT_EQ(parsed->kernels[0].tensorMaps.size(), 1u);
  const PlanTensorMap &map = parsed->kernels[0].tensorMaps[0];
  EXPECT_EQ(map.buffer, 0);
  EXPECT_EQ(map.dims, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(map.strides, (std::vector<int64_t>{16}));
  EXPECT_EQ(map.box, (std::vector<int64_t>{8, 2}));
}

TEST(LaunchPlanTest, TensorMapsStayInsideTheirBuffer) {
  const PlanBuffer buffer{0, "arg0", DType::BF16, {4, 8}, BufferRole::Input,
                          {}};
  EXPECT_EQ(checkTensorMap({0, {8, 4}, {16}, {8, 2}}, buffer), std::nullopt);
  // One row more than the buffer holds reads past its 64 bytes.
  EXPECT_EQ(checkTensorMap({0, {8, 5}, {16}, {8, 2}}, buffer),
            "it reaches byte 78 of buffer #0, which holds 64");
  EXPECT_EQ(checkTensorMap({0, {8, 4}, {12}, {8, 2}}, buffer),
            "stride 0 must be a positive multiple of 16 below 2^40");
  EXPECT_EQ(checkTensorMap({0, {8, 4}, {16}, {8, 300}}, buffer),
            "box size 1 must be in [1, 256]");
  EXPECT_EQ(checkTensorMap({0, {8, 4}, {}, {8, 2}}, buffer),
            "needs 2 to 5 dims, as many box sizes and one stride fewer");
  EXPECT_EQ(
      checkTensorMap({0, {128, 1}, {256}, {128, 1}},
                     {0, "wide", DType::BF16, {1, 128}, BufferRole::Input, {}}),
      "the innermost box dimension exceeds 128 bytes");
  EXPECT_EQ(checkTensorMap({0, {2, 1}, {16}, {2, 1}},
                           {0, "ints", DType::I32, {2}, BufferRole::Input, {}}),
            "tensor maps view f16 or bf16 buffers, not i32");
}

TEST(LaunchPlanTest, RejectsTensorMapsOfNonInputs) {
  // Buffer 2 is the kernel's output: a map may only view an input.
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(
      R"({"format": "opfuse-launch-plan", "version": 2, "buffers": [
            {"id": 0, "dtype": "bf16", "shape": [4, 8], "role": "input"},
            {"id": 1, "dtype": "bf16", "shape": [4, 8], "role": "output"}],
          "kernels": [{"name": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
                       "args": [0, 1], "num_inputs": 1,
                       "tensor_maps": [{"buffer": 1, "dims": [8, 4],
                                        "strides": [16], "box": [8, 2]}]}],
          "inputs": [0], "outputs": [1]})");
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(llvm::toString(parsed.takeError()),
            "invalid launch plan: a tensor map of kernel 'k' views buffer 1, "
            "which is not one of its inputs");
}

TEST(LaunchPlanTest, RejectsIncompleteOrInvalidTensorMaps) {
  auto parseWithMap = [](llvm::StringRef map) {
    std::string text =
        (R"({"format": "opfuse-launch-plan", "version": 2, "buffers": [
               {"id": 0, "dtype": "bf16", "shape": [4, 8], "role": "input"},
               {"id": 1, "dtype": "bf16", "shape": [4, 8], "role": "output"}],
             "kernels": [{"name": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
                          "args": [0, 1], "num_inputs": 1,
                          "tensor_maps": [)" +
         map + R"(]}], "inputs": [0], "outputs": [1]})")
            .str();
    llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
    return parsed ? std::string("parsed") : llvm::toString(parsed.takeError());
  };
  EXPECT_EQ(parseWithMap(R"({"buffer": 0, "dims": [8, 4], "box": [8, 2]})"),
            "invalid launch plan: tensor map #0 of kernel 'k' needs buffer, "
            "dims, strides and box");
  EXPECT_EQ(
      parseWithMap(
          R"({"buffer": 0, "dims": [8, 5], "strides": [16], "box": [8, 2]})"),
      "invalid launch plan: tensor map #0 of kernel 'k': it reaches "
      "byte 78 of buffer #0, which holds 64");
  EXPECT_EQ(
      parseWithMap(
          R"({"buffer": 0, "dims": [8, 4], "strides": [16], "box": [8, 2]})"),
      "parsed");
  // A map that starts inside its buffer (a slice): the offset counts
  // towards the last byte, and must keep the start 16-byte aligned.
  EXPECT_EQ(parseWithMap(R"({"buffer": 0, "dims": [8, 3], "strides": [16],
                             "box": [8, 2], "offset": 16})"),
            "parsed");
  EXPECT_EQ(parseWithMap(R"({"buffer": 0, "dims": [8, 4], "strides": [16],
                             "box": [8, 2], "offset": 16})"),
            "invalid launch plan: tensor map #0 of kernel 'k': it reaches "
            "byte 78 of buffer #0, which holds 64");
  EXPECT_EQ(parseWithMap(R"({"buffer": 0, "dims": [8, 2], "strides": [16],
                             "box": [8, 2], "offset": 8})"),
            "invalid launch plan: tensor map #0 of kernel 'k': offset must "
            "be a non-negative multiple of 16");
  EXPECT_EQ(parseWithMap(R"({"buffer": 0, "dims": [8, 2], "strides": [16],
                             "box": [8, 2], "offset": "16"})"),
            "invalid launch plan: tensor map #0 of kernel 'k' has an "
            "\"offset\" that is not an integer");
}

TEST(LaunchPlanTest, ReadsVersionOnePlans) {
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(
      R"({"format": "opfuse-launch-plan", "version": 1, "buffers": [],
          "kernels": [], "inputs": [], "outputs": []})");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->version, 1);
}

TEST(LaunchPlanTest, RejectsIdsOutOfPlace) {
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(
      R"({"format": "opfuse-launch-plan", "version": 1, "buffers": [
            {"id": 3, "dtype": "f32", "shape": [1], "role": "input"}],
          "kernels": [], "inputs": [], "outputs": []})");
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(llvm::toString(parsed.takeError()),
            "invalid launch plan: buffer #0 needs id (its position), dtype, "
            "shape and role");
}

TEST(LaunchPlanTest, RejectsNegativeSharedMemory) {
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(
      R"({"format": "opfuse-launch-plan", "version": 1, "buffers": [
            {"id": 0, "dtype": "f32", "shape": [1], "role": "input"}],
          "kernels": [{"name": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
                       "args": [0], "shared_bytes": -4}],
          "inputs": [0], "outputs": []})");
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(llvm::toString(parsed.takeError()),
            "invalid launch plan: kernel 'k' asks for -4 bytes of "
            "\"shared_bytes\"; a block has 0 to 232448");
}

TEST(LaunchPlanTest, StepsRoundTrip) {
  LaunchPlan plan = samplePlan();
  // f_k0.out0 (buffer 2) is copied into buffer 3, buffer 4 is zeroed, and
  // both are reduced across 2 devices.
  plan.buffers.push_back(
      {3, "copy", DType::BF16, {4, 8}, BufferRole::Output, {}});
  plan.buffers.push_back(
      {4, "zeros", DType::BF16, {4, 8}, BufferRole::Output, {}});
  plan.steps.push_back({StepKind::Copy, plan.copies.size()});
  plan.copies.push_back({2, 3});
  plan.steps.push_back({StepKind::Memset, plan.memsets.size()});
  plan.memsets.push_back({4, 0});
  plan.steps.push_back({StepKind::Collective, plan.collectives.size()});
  plan.collectives.push_back({CollectiveKind::AllReduce, "max", 3, 4, 2});
  plan.outputs = {2, 3, 4};
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  ASSERT_EQ(parsed->steps.size(), 4u);
  EXPECT_EQ(parsed->steps[0].kind, StepKind::Kernel);
  EXPECT_EQ(parsed->steps[1].kind, StepKind::Copy);
  EXPECT_EQ(parsed->steps[2].kind, StepKind::Memset);
  EXPECT_EQ(parsed->steps[3].kind, StepKind::Collective);
  ASSERT_EQ(parsed->copies.size(), 1u);
  EXPECT_EQ(parsed->copies[0].src, 2);
  EXPECT_EQ(parsed->copies[0].dst, 3);
  ASSERT_EQ(parsed->memsets.size(), 1u);
  EXPECT_EQ(parsed->memsets[0].buffer, 4);
  ASSERT_EQ(parsed->collectives.size(), 1u);
  EXPECT_EQ(parsed->collectives[0].kind, CollectiveKind::AllReduce);
  EXPECT_EQ(parsed->collectives[0].reduce, "max");
  EXPECT_EQ(parsed->collectives[0].devices, 2);
}

TEST(LaunchPlanTest, VersionTwoKernelsBecomeSteps) {
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(
      R"({"format": "opfuse-launch-plan", "version": 2, "buffers": [
            {"id": 0, "dtype": "f32", "shape": [1], "role": "input"},
            {"id": 1, "dtype": "f32", "shape": [1], "role": "output"}],
          "kernels": [{"name": "a", "grid": [1, 1, 1], "block": [1, 1, 1],
                       "args": [0, 1], "num_inputs": 1},
                      {"name": "b", "grid": [1, 1, 1], "block": [1, 1, 1],
                       "args": [1], "num_inputs": 1}],
          "inputs": [0], "outputs": [1]})");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  ASSERT_EQ(parsed->steps.size(), 2u);
  EXPECT_EQ(parsed->steps[1].kind, StepKind::Kernel);
  EXPECT_EQ(parsed->kernels[parsed->steps[1].index].name, "b");
}

TEST(LaunchPlanTest, AStepLaunchesItsEntry) {
  // fuse-dedup-kernels: step f_k5 launches f_k0's function; the plan keeps
  // both names through JSON, and the PTX must hold the entry.
  LaunchPlan plan = samplePlan();
  plan.kernels[0].entry = plan.kernels[0].name;
  plan.kernels[0].name = "f_k5";
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->kernels[0].name, "f_k5");
  EXPECT_EQ(parsed->kernels[0].entryName(), "f_k0");
  EXPECT_EQ(checkPlanKernels(*parsed, ".visible .entry f_k0(\n"), std::nullopt);
  EXPECT_EQ(checkPlanKernels(*parsed, ".visible .entry f_k5(\n"),
            "kernel 'f_k5' launches 'f_k0', which is not an .entry of the "
            "PTX");
  // Without an entry a step launches its own name, and none is written.
  plan.kernels[0].entry.clear();
  text.clear();
  writePlanJson(plan, os);
  EXPECT_EQ(text.find("\"entry\""), std::string::npos);
}

TEST(LaunchPlanTest, InputAndOutputNamesTravelWithThePlan) {
  LaunchPlan plan = samplePlan();
  EXPECT_EQ(plan.inputName(0), "arg0");
  EXPECT_EQ(plan.outputName(0), "result0");
  plan.inputNames.assign(plan.inputs.size(), "pixels");
  plan.outputNames.assign(plan.outputs.size(), "logits");
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->inputName(0), "pixels");
  EXPECT_EQ(parsed->outputName(0), "logits");
  // One name per input, or the plan is refused.
  size_t at = text.find("\"pixels\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"extra\", ");
  llvm::Expected<LaunchPlan> wrong = parsePlanJson(text);
  ASSERT_FALSE(bool(wrong));
  EXPECT_NE(llvm::toString(wrong.takeError())
                .find("\"input_names\" must hold one name for each input"),
            std::string::npos);
}

TEST(LaunchPlanTest, InputShardsTravelWithThePlan) {
  LaunchPlan plan = samplePlan();
  EXPECT_EQ(plan.inputShard(0), -1);
  EXPECT_EQ(plan.devicesSpanned(), 1);
  plan.inputShards = {1};
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->inputShards, (std::vector<int64_t>{1}));
  // An axis the input does not have (arg0 is 2-d) is refused.
  size_t at = text.find("\"input_shards\"");
  ASSERT_NE(at, std::string::npos);
  std::string badAxis = text;
  badAxis.replace(badAxis.find("1", badAxis.find("[", at)), 1, "2");
  llvm::Expected<LaunchPlan> wrong = parsePlanJson(badAxis);
  ASSERT_FALSE(bool(wrong));
  EXPECT_NE(llvm::toString(wrong.takeError())
                .find("input #0's shard axis 2 is not -1 or an axis of its "
                      "2-d buffer"),
            std::string::npos);
  // Only replicated inputs: no input_shards at all.
  plan.inputShards = {-1};
  std::string replicated;
  llvm::raw_string_ostream os2(replicated);
  writePlanJson(plan, os2);
  EXPECT_EQ(replicated.find("input_shards"), std::string::npos);
}

TEST(LaunchPlanTest, KernelsMustBeEntriesOfThePtx) {
  LaunchPlan plan = samplePlan();
  EXPECT_EQ(checkPlanKernels(plan, ".visible .entry f_k0(\n"), std::nullopt);
  // A prefix of another entry's name is not the entry.
  EXPECT_EQ(checkPlanKernels(plan, ".visible .entry f_k01(\n"),
            "kernel 'f_k0' is not an .entry of the PTX");
  EXPECT_EQ(checkPlanSharedMemory(plan, 1024), std::nullopt);
  plan.kernels[0].sharedBytes = 4096;
  EXPECT_EQ(checkPlanSharedMemory(plan, 1024),
            "kernel 'f_k0' needs 4096 bytes of shared memory per block; this "
            "device allows 1024");
}

TEST(LaunchPlanTest, EarlyLaunchRoundTripsAndNeedsTheWait) {
  LaunchPlan plan = samplePlan();
  std::string plain;
  llvm::raw_string_ostream plainOs(plain);
  writePlanJson(plan, plainOs);
  EXPECT_EQ(plain.find("early_launch"), std::string::npos);
  plan.kernels[0].earlyLaunch = true;
  std::string text;
  llvm::raw_string_ostream os(text);
  writePlanJson(plan, os);
  llvm::Expected<LaunchPlan> parsed = parsePlanJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_TRUE(parsed->kernels[0].earlyLaunch);
  // Launched early, a kernel whose PTX never waits would race the kernel
  // before it: the wait must be in its own entry, not in the next one.
  const std::string waits = ".visible .entry f_k0(\n{\n\tgriddepcontrol.wait;\n"
                            "}\n";
  EXPECT_EQ(checkPlanKernels(*parsed, waits), std::nullopt);
  const std::string waitsElsewhere = ".visible .entry f_k0(\n{\n}\n"
                                     ".visible .entry g(\n{\n\t"
                                     "griddepcontrol.wait;\n}\n";
  EXPECT_EQ(checkPlanKernels(*parsed, waitsElsewhere),
            "kernel 'f_k0' has early_launch but its PTX 'f_k0' never waits "
            "for the kernels before it (griddepcontrol.wait)");
  parsed->kernels[0].earlyLaunch = false;
  EXPECT_EQ(checkPlanKernels(*parsed, waitsElsewhere), std::nullopt);
  // Only true or false.
  size_t at = text.find("true");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 4, "1");
  llvm::Expected<LaunchPlan> refused = parsePlanJson(text);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError())
                .find("kernel 'f_k0': early_launch must be true or false"),
            std::string::npos);
}

TEST(InputGeneratorTest, SeededAndInRange) {
  LaunchPlan plan = samplePlan();
  std::vector<HostBuffer> a = generateInputs(plan, 1);
  std::vector<HostBuffer> b = generateInputs(plan, 1);
  std::vector<HostBuffer> c = generateInputs(plan, 2);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].bytes, b[0].bytes);
  EXPECT_NE(a[0].bytes, c[0].bytes);
  for (int64_t i = 0; i < a[0].elements(); ++i) {
    EXPECT_GE(a[0].get(i), -2.0);
    EXPECT_LE(a[0].get(i), 2.0);
  }
}

TEST(InputGeneratorTest, AWeightsRangeScalesTheSameDraws) {
  // A weight's range (InputRanges.h) scales the same uniform draws, so a
  // plan with ranges stays reproducible and its values stay inside them.
  LaunchPlan plan = samplePlan();
  plan.buffers[plan.inputs[0]].dtype = DType::F32;
  std::vector<HostBuffer> wide = generateInputs(plan, 3);
  plan.buffers[plan.inputs[0]].seedRange = 0.25;
  std::vector<HostBuffer> narrow = generateInputs(plan, 3);
  double largest = 0;
  for (int64_t i = 0; i < wide[0].elements(); ++i) {
    EXPECT_FLOAT_EQ(narrow[0].get(i), wide[0].get(i) / 8);
    largest = std::max(largest, std::fabs(narrow[0].get(i)));
  }
  EXPECT_LE(largest, 0.25);
  EXPECT_GT(largest, 0.2);
}

} // namespace
