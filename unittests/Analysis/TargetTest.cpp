//===- TargetTest.cpp - Built-in targets and target files -----------------===//
//
// The datasheet numbers are restated here from the datasheets, so a typo in
// Target.cpp fails; files round-trip through write and parse.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/Target.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace opfuse;

namespace {

TEST(TargetTest, BuiltinsCarryTheirDatasheetFigures) {
  std::optional<GpuTarget> h200 = findBuiltinTarget("H200");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->chip, "sm_90");
  EXPECT_DOUBLE_EQ(h200->hbmBandwidth, 4.8e12);
  EXPECT_DOUBLE_EQ(h200->fp32Flops, 67e12);
  EXPECT_DOUBLE_EQ(h200->fp16TensorFlops, 989.5e12);
  EXPECT_DOUBLE_EQ(h200->tf32TensorFlops, 494.5e12);
  EXPECT_EQ(h200->smCount, 132);
  EXPECT_EQ(h200->l2Bytes, 60ll << 20);

  std::optional<GpuTarget> h100 = findBuiltinTarget("h100");
  ASSERT_TRUE(h100);
  EXPECT_DOUBLE_EQ(h100->hbmBandwidth, 3.35e12);
  EXPECT_EQ(h100->l2Bytes, 50ll << 20);

  std::optional<GpuTarget> a100 = findBuiltinTarget("a100");
  ASSERT_TRUE(a100);
  EXPECT_EQ(a100->chip, "sm_80");
  EXPECT_DOUBLE_EQ(a100->hbmBandwidth, 2.039e12);
  EXPECT_DOUBLE_EQ(a100->fp32Flops, 19.5e12);
  EXPECT_DOUBLE_EQ(a100->fp16TensorFlops, 312e12);
  EXPECT_DOUBLE_EQ(a100->linkBandwidth, 300e9);

  EXPECT_FALSE(findBuiltinTarget("b200"));
  EXPECT_EQ(listBuiltinTargets(), "a100, h100, h200");
}

TEST(TargetTest, WrittenFileParsesBackToTheSameTarget) {
  GpuTarget original = *findBuiltinTarget("a100");
  original.source = "calibrated on test";
  original.launchOverhead = 5.86e-6;
  original.kernelLatency = 0.41e-6;
  std::string text;
  llvm::raw_string_ostream os(text);
  writeTargetJson(original, os);
  llvm::Expected<GpuTarget> parsed = parseTargetJson(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->name, original.name);
  EXPECT_EQ(parsed->source, original.source);
  EXPECT_EQ(parsed->chip, original.chip);
  EXPECT_EQ(parsed->smCount, original.smCount);
  EXPECT_EQ(parsed->l2Bytes, original.l2Bytes);
  EXPECT_DOUBLE_EQ(parsed->hbmBandwidth, original.hbmBandwidth);
  EXPECT_DOUBLE_EQ(parsed->fp16TensorFlops, original.fp16TensorFlops);
  EXPECT_NEAR(parsed->launchOverhead, original.launchOverhead, 1e-12);
  EXPECT_NEAR(parsed->kernelLatency, original.kernelLatency, 1e-12);
  EXPECT_DOUBLE_EQ(parsed->memoryEfficiency, original.memoryEfficiency);
}

TEST(TargetTest, BaseTargetIsOverriddenFieldByField) {
  llvm::Expected<GpuTarget> parsed = parseTargetJson(
      R"({"format": "opfuse-target", "version": 1, "base": "h100",
          "hbm_gb_per_s": 3000, "launch_overhead_us": 4.5})");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_DOUBLE_EQ(parsed->hbmBandwidth, 3000e9);
  EXPECT_DOUBLE_EQ(parsed->launchOverhead, 4.5e-6);
  EXPECT_DOUBLE_EQ(parsed->fp32Flops, 67e12); // from h100
  EXPECT_EQ(parsed->source, "file based on h100");
}

/// The message of a parse that must fail, or "" when it succeeded.
std::string parseError(llvm::StringRef text) {
  llvm::Expected<GpuTarget> parsed = parseTargetJson(text, "t.json");
  if (parsed)
    return "";
  return llvm::toString(parsed.takeError());
}

TEST(TargetTest, InvalidFilesSayWhatIsWrong) {
  EXPECT_EQ(parseError("[]"), "target file 't.json': the top level must be an "
                              "object");
  EXPECT_EQ(parseError(R"({"format": "opfuse-target", "version": 1,
                           "base": "h200", "l2_bytes": 0})"),
            "target file 't.json': \"l2_bytes\" must be a positive integer");
  EXPECT_EQ(parseError(R"({"format": "opfuse-target", "version": 1,
                           "base": "h200", "name": 7})"),
            "target file 't.json': \"name\" must be a string");
  EXPECT_EQ(parseError(R"({"format": "opfuse-target", "version": 1,
                           "base": "h200", "tensor_efficiency": 0})"),
            "target file 't.json': \"tensor_efficiency\" must be a number "
            "in (0, 1]");
  EXPECT_EQ(parseError(R"({"format": "opfuse-target", "version": 1,
                           "base": "h200", "fp32": 1})"),
            "target file 't.json': unknown key \"fp32\" (see "
            "docs/target-format.md)");
}

TEST(TargetTest, FilesWithoutKernelLatencyKeepTheDefault) {
  // A complete file as --calibrate wrote it before kernel_latency_us.
  llvm::Expected<GpuTarget> parsed = parseTargetJson(
      R"({"format": "opfuse-target", "version": 1, "name": "h200",
          "description": "NVIDIA H200", "chip": "sm_90", "source": "old",
          "sm_count": 132, "l2_bytes": 62914560,
          "shared_memory_per_sm_bytes": 233472, "hbm_gb_per_s": 4202.45,
          "l2_gb_per_s": 7519.37, "link_gb_per_s": 450,
          "fp32_tflops": 63.3773, "tf32_tensor_tflops": 316.506,
          "fp16_tensor_tflops": 632.527, "launch_overhead_us": 5.856,
          "memory_efficiency": 1, "compute_efficiency": 1,
          "tensor_efficiency": 1})");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_DOUBLE_EQ(parsed->kernelLatency, GpuTarget::kDefaultKernelLatency);
  EXPECT_EQ(parseError(R"({"format": "opfuse-target", "version": 1,
                           "base": "h200", "kernel_latency_us": -1})"),
            "target file 't.json': \"kernel_latency_us\" must be a "
            "positive number");
}

TEST(TargetTest, LoadTargetTellsNamesFromFiles) {
  llvm::Expected<GpuTarget> unknown = loadTarget("h300");
  ASSERT_FALSE(bool(unknown));
  bool unknownName = false;
  llvm::handleAllErrors(unknown.takeError(), [&](const TargetError &error) {
    unknownName = error.kind == TargetError::Kind::UnknownName;
  });
  EXPECT_TRUE(unknownName);

  llvm::Expected<GpuTarget> missing = loadTarget("/nonexistent/t.json");
  ASSERT_FALSE(bool(missing));
  bool unreadable = false;
  llvm::handleAllErrors(missing.takeError(), [&](const TargetError &error) {
    unreadable = error.kind == TargetError::Kind::Unreadable;
  });
  EXPECT_TRUE(unreadable);
}

} // namespace
