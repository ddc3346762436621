//===- OutputCheckTest.cpp - --check results as lines and as JSON --------===//

#include "opfuse/Report/OutputCheck.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opfuse;

namespace {

OutputCheck failing() {
  OutputCheck c;
  c.index = 1;
  c.dtype = "f32 via bf16";
  c.elements = 8;
  c.maxAbs = INFINITY;
  c.maxScaled = INFINITY;
  c.elementTolerance = 6.25e-2;
  c.relativeL2 = 0.5;
  c.l2Tolerance = 1e-2;
  c.worst = 3;
  c.got = INFINITY;
  c.expected = 2;
  return c;
}

TEST(OutputCheckTest, LinesNameTheWorstElementOfAFailure) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printOutputChecks(os, {failing()});
  EXPECT_EQ(text, "check output #1 (f32 via bf16, 8 elements): max abs INF, "
                  "max abs/scale INF (tolerance 6.25e-02), relative L2 "
                  "5.000e-01 (tolerance 1.00e-02): FAIL\n"
                  "  worst element 3: got INF, expected 2.00\n");
}

TEST(OutputCheckTest, JsonWritesInfinityAsNull) {
  OutputCheck pass;
  pass.dtype = "i32";
  pass.elements = 4;
  pass.pass = true;
  llvm::json::Array array = outputChecksToJson({pass, failing()});
  std::string text =
      llvm::formatv("{0}", llvm::json::Value(std::move(array))).str();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Array &checks = *parsed->getAsArray();
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].getAsObject()->getBoolean("pass"), true);
  EXPECT_EQ(checks[0].getAsObject()->get("worst"), nullptr);
  const llvm::json::Object &bad = *checks[1].getAsObject();
  EXPECT_EQ(bad.getBoolean("pass"), false);
  EXPECT_EQ(bad.getString("dtype"), "f32 via bf16");
  EXPECT_EQ(bad.get("max_abs")->kind(), llvm::json::Value::Null);
  EXPECT_EQ(bad.getObject("worst")->getInteger("element"), 3);
}

TEST(OutputCheckTest, StrictChecksShowUlps) {
  OutputCheck c;
  c.dtype = "bf16";
  c.elements = 4;
  c.maxAbs = 7.8125e-3;
  c.maxScaled = 7.8125e-3;
  c.elementTolerance = 6.25e-2;
  c.maxUlps = 3;
  c.ulpTolerance = 2;
  c.worst = 2;
  c.got = 1.0078125;
  c.expected = 1;
  std::string text;
  llvm::raw_string_ostream os(text);
  printOutputChecks(os, {c});
  EXPECT_NE(text.find(", max 3.0 ulps (tolerance 2): FAIL"), std::string::npos)
      << text;
  llvm::json::Array array = outputChecksToJson({c});
  const llvm::json::Object &object = *array[0].getAsObject();
  EXPECT_EQ(object.getNumber("max_ulps"), 3.0);
  EXPECT_EQ(object.getNumber("ulp_tolerance"), 2.0);
  // Not measured (default mode): neither key, nor the text.
  c.maxUlps = -1;
  text.clear();
  printOutputChecks(os, {c});
  EXPECT_EQ(text.find("ulps"), std::string::npos) << text;
  llvm::json::Array plain = outputChecksToJson({c});
  EXPECT_EQ(plain[0].getAsObject()->get("max_ulps"), nullptr);
}

} // namespace
