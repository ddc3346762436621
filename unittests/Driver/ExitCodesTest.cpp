//===- ExitCodesTest.cpp - Which errors are compiler bugs -----------------===//
//
// An error that begins "internal error" makes opt-fuse exit with
// ExitInternalError (8) instead of ExitUnsupported (4): a compiler bug is
// never reported as an unsupported model.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/ExitCodes.h"
#include "opfuse/Runtime/Nccl.h"
#include "opfuse/Runtime/Spmd.h"

#include "gtest/gtest.h"

#include <string>

namespace {

TEST(ExitCodes, InternalErrorsAreRecognisedByTheirPrefix) {
  EXPECT_TRUE(opfuse::isInternalError(
      "internal error: fuse-elementwise produced a cyclic graph; please "
      "report this compiler bug"));
  EXPECT_TRUE(opfuse::isInternalError(
      "internal error: fuse-plan-memory made an invalid plan: x"));
  EXPECT_FALSE(opfuse::isInternalError(
      "'fuse.all_reduce' is not yet supported for GPU emission"));
  EXPECT_FALSE(opfuse::isInternalError("not one GEMM kernel: internal error"));
}

TEST(ExitCodes, HelpListsEveryCode) {
  const std::string help = opfuse::describeExitCodes();
  for (int code = opfuse::ExitSuccess; code <= opfuse::ExitNoCollectives;
       ++code)
    EXPECT_NE(help.find("  " + std::to_string(code) + "  "), std::string::npos)
        << "exit code " << code;
  EXPECT_NE(help.find("8  internal error: a compiler bug"), std::string::npos);
}

TEST(ExitCodes, RunFailuresHaveTheirOwnCodes) {
  using opfuse::RunFailure;
  EXPECT_EQ(opfuse::exitCodeOf(RunFailure::Gpu), opfuse::ExitGpuError);
  EXPECT_EQ(opfuse::exitCodeOf(RunFailure::UnsupportedPlan),
            opfuse::ExitUnsupported);
  EXPECT_EQ(opfuse::exitCodeOf(RunFailure::CollectivesUnavailable),
            opfuse::ExitNoCollectives);
  llvm::Error missing =
      llvm::make_error<opfuse::CollectivesUnavailableError>("no NCCL");
  EXPECT_EQ(opfuse::classifyRunFailure(missing),
            RunFailure::CollectivesUnavailable);
  llvm::consumeError(std::move(missing));
  llvm::Error other = llvm::createStringError("CUDA_ERROR_LAUNCH_FAILED");
  EXPECT_EQ(opfuse::classifyRunFailure(other), RunFailure::Gpu);
  llvm::consumeError(std::move(other));
}

TEST(ExitCodes, AStoppedRunIsReportedWithItsCode) {
  testing::internal::CaptureStderr();
  const int code = opfuse::reportRunError(
      "opt-fuse", llvm::make_error<opfuse::CollectivesUnavailableError>(
                      "--devices=2, and this machine has 1 GPU(s)"));
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "opt-fuse: error: --devices=2, and this machine has 1 GPU(s)\n");
  EXPECT_EQ(code, opfuse::ExitNoCollectives);
}

TEST(ExitCodes, AnSpmdRunExitsWithItsFirstFailedDevice) {
  // GPU 0 ran; GPU 1 found no NCCL, GPU 2 a CUDA error: exit 9, both said.
  std::vector<opfuse::DeviceRun> runs(3);
  runs[0].result = std::make_unique<opfuse::BenchResult>();
  runs[1].error = "no NCCL";
  runs[1].failure = opfuse::RunFailure::CollectivesUnavailable;
  runs[2].error = "CUDA_ERROR_LAUNCH_FAILED";
  testing::internal::CaptureStderr();
  const int code = opfuse::reportDeviceFailures("opfuse-run", runs);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, opfuse::ExitNoCollectives);
  EXPECT_EQ(said, "opfuse-run: error: GPU 1: no NCCL\n"
                  "opfuse-run: error: GPU 2: CUDA_ERROR_LAUNCH_FAILED\n");
  runs.resize(1);
  EXPECT_EQ(opfuse::reportDeviceFailures("opfuse-run", runs),
            opfuse::ExitSuccess);
}

TEST(ExitCodes, AnSpmdRunAsOneJsonDocument) {
  // Two devices without NCCL (no collectives): ranks in order, no "nccl".
  opfuse::LaunchPlan plan;
  plan.function = "f";
  opfuse::DeviceSet devices;
  std::vector<opfuse::DeviceRun> runs(2);
  for (opfuse::DeviceRun &run : runs) {
    run.result = std::make_unique<opfuse::BenchResult>();
    run.result->device = "GPU";
  }
  llvm::json::Object root =
      opfuse::spmdRunToJson(plan, devices, runs, /*bench=*/false,
                            [](size_t device, llvm::json::Object &object) {
                              object["extra"] =
                                  static_cast<int64_t>(10 + device);
                            });
  EXPECT_EQ(root.get("nccl"), nullptr);
  const llvm::json::Array *perDevice = root.getArray("devices");
  ASSERT_NE(perDevice, nullptr);
  ASSERT_EQ(perDevice->size(), 2u);
  for (int64_t device = 0; device < 2; ++device) {
    const llvm::json::Object *object = (*perDevice)[device].getAsObject();
    ASSERT_NE(object, nullptr);
    EXPECT_EQ(object->getInteger("rank"), device);
    EXPECT_EQ(object->getInteger("extra"), 10 + device);
    EXPECT_EQ(object->getString("function"), llvm::StringRef("f"));
  }
  EXPECT_EQ(opfuse::spmdRunHeading(devices, 2), "SPMD run on 2 GPU(s)");
}

} // namespace
