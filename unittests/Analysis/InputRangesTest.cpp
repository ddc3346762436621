//===- InputRangesTest.cpp - Weights are seeded at initialisation scale ---===//

#include "../Dialect/FuseTestUtils.h"

#include "opfuse/Analysis/InputRanges.h"

#include <cmath>

using namespace mlir;
using namespace opfuse;

namespace {

class InputRangesTest : public opfuse::test::FuseTest {};

TEST_F(InputRangesTest, MatmulWeightsThroughViewsGetFanInScale) {
  // %w reaches the right-hand side of x @ w (K = 64) through a transpose
  // and a cast; %v feeds two matmuls (K = 64 and K = 16): the smaller
  // range wins. %x is an activation, %b a bias: both keep the default.
  auto func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<8x64xf32>, %w: tensor<32x64xbf16>, %b: tensor<32xf32>, %v: tensor<64x16xf32>, %y: tensor<4x16xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>, tensor<4x64xf32>) {
      %t = fuse.transpose %w permutation = [1, 0] : tensor<32x64xbf16> -> tensor<64x32xbf16>
      %c = fuse.cast %t : tensor<64x32xbf16> to tensor<64x32xf32>
      %m = fuse.matmul %x, %c : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
      %r = fuse.add %m, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
      %n = fuse.matmul %x, %v : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
      %p = fuse.matmul %y, %v transpose_b : (tensor<4x16xf32>, tensor<64x16xf32>) -> tensor<4x64xf32>
      return %r, %n, %p : tensor<8x32xf32>, tensor<8x16xf32>, tensor<4x64xf32>
    })");
  ASSERT_TRUE(func);
  SmallVector<double> ranges = seededInputRanges(func);
  ASSERT_EQ(ranges.size(), 5u);
  EXPECT_EQ(ranges[0], kDefaultInputRange);
  EXPECT_DOUBLE_EQ(ranges[1], std::sqrt(3.0 / 64));
  EXPECT_EQ(ranges[2], kDefaultInputRange);
  EXPECT_DOUBLE_EQ(ranges[3], std::sqrt(3.0 / 64));
  EXPECT_EQ(ranges[4], kDefaultInputRange);
}

TEST_F(InputRangesTest, ConvFiltersUseTheirTapsTimesChannels) {
  // K = 3 * 3 * 64 = 576 for the filter; the image keeps the default.
  auto func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<2x14x14x64xbf16>, %w: tensor<64x3x3x64xbf16>) -> tensor<2x14x14x64xbf16> {
      %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
          : (tensor<2x14x14x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<2x14x14x64xbf16>
      return %0 : tensor<2x14x14x64xbf16>
    })");
  ASSERT_TRUE(func);
  SmallVector<double> ranges = seededInputRanges(func);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0], kDefaultInputRange);
  EXPECT_DOUBLE_EQ(ranges[1], std::sqrt(3.0 / 576));
}

} // namespace
