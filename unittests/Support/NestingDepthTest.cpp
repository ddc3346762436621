//===- NestingDepthTest.cpp - Bounded bracket nesting of text input -------===//

#include "opfuse/Support/NestingDepth.h"

#include "gtest/gtest.h"

#include <string>

using opfuse::findExcessiveNesting;
using opfuse::TextSyntax;

namespace {

std::string nested(char open, char close, unsigned depth) {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(NestingDepth, AtTheLimitPassesAndOneDeeperIsLocated) {
  EXPECT_FALSE(findExcessiveNesting(nested('[', ']', 4), TextSyntax::Json, 4));
  std::optional<size_t> at =
      findExcessiveNesting(nested('[', ']', 5), TextSyntax::Json, 4);
  ASSERT_TRUE(at);
  EXPECT_EQ(*at, 4u);
}

TEST(NestingDepth, SiblingsDoNotAddUp) {
  std::string text;
  for (int i = 0; i < 100; ++i)
    text += "{[()]}";
  EXPECT_FALSE(findExcessiveNesting(text, TextSyntax::Mlir, 4));
}

TEST(NestingDepth, StringsAndCommentsDoNotCount) {
  const std::string quoted = "\"" + std::string(50, '[') + "\\\"(\"";
  EXPECT_FALSE(findExcessiveNesting(quoted, TextSyntax::Json, 2));
  EXPECT_FALSE(findExcessiveNesting("// " + std::string(50, '(') + "\n()",
                                    TextSyntax::Mlir, 2));
  // In JSON a / is not a comment: the brackets after it count.
  EXPECT_TRUE(findExcessiveNesting("/ [[[", TextSyntax::Json, 2));
}

TEST(NestingDepth, MlirCountsTypesButNotArrows) {
  // Each -> would otherwise close a level and hide the nesting after it.
  const std::string arrows = "(tensor<2xf32>) -> tensor<2xf32> -> -> -> <<<";
  std::optional<size_t> at = findExcessiveNesting(arrows, TextSyntax::Mlir, 2);
  ASSERT_TRUE(at);
  EXPECT_EQ(arrows[*at], '<');
  EXPECT_EQ(*at, arrows.size() - 1);
  // JSON does not nest parentheses or angle brackets.
  EXPECT_FALSE(findExcessiveNesting(nested('(', ')', 10), TextSyntax::Json, 2));
}

TEST(NestingDepth, StrayClosersDoNotHideDepth) {
  EXPECT_TRUE(findExcessiveNesting("]]]]]]" + std::string(3, '['),
                                   TextSyntax::Json, 2));
}

} // namespace
