//===- ExitCodesTest.cpp - Which errors are compiler bugs -----------------===//
//
// An error that begins "internal error" makes opt-fuse exit with
// ExitInternalError (8) instead of ExitUnsupported (4): a compiler bug is
// never reported as an unsupported model.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/ExitCodes.h"

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

} // namespace
