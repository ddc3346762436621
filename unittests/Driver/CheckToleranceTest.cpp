//===- CheckToleranceTest.cpp - The precision and scales of --check -------===//
//
// Which type an output's tolerance follows, and which addends widen its
// element scale.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "../../lib/Driver/CheckTolerance.h"

using namespace mlir;

namespace {

class CheckToleranceTest : public opfuse::test::FuseTest {};

TEST_F(CheckToleranceTest, PrecisionFollowsOpResultsNotInputs) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%x: tensor<8xbf16>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
      %c = fuse.cast %x : tensor<8xbf16> to tensor<8xf32>
      %a = fuse.add %c, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %e = fuse.exp %x : tensor<8xbf16>
      %f = fuse.cast %e : tensor<8xbf16> to tensor<8xf32>
      return %a, %f : tensor<8xf32>, tensor<8xf32>
    })mlir");
  ASSERT_TRUE(func);
  // A bf16 input cast to f32 is exact: the sum is computed in f32.
  EXPECT_TRUE(opfuse::computedPrecision(func, 0).isF32());
  // exp rounds to bf16 before the cast.
  EXPECT_TRUE(opfuse::computedPrecision(func, 1).isBF16());
}

TEST_F(CheckToleranceTest, AddendsOfTheOutputShapeOnly) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%h: tensor<4x8xbf16>, %w: tensor<8x8xbf16>, %b: tensor<8xbf16>, %x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
      %m = fuse.matmul %h, %w : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xbf16>
      %s = fuse.add %m, %b : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
      %r = fuse.sub %s, %x : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
      %g = fuse.gelu %r approximate = tanh : tensor<4x8xbf16>
      return %g : tensor<4x8xbf16>
    })mlir");
  ASSERT_TRUE(func);
  SmallVector<Value> addends = opfuse::cancellationOperands(func, 0);
  Block &body = func.getBody().front();
  Value m = body.front().getResult(0);
  Value s = std::next(body.begin())->getResult(0);
  // The sub's operands and the matmul result added to the bias; not the
  // smaller bias, and nothing behind the matmul.
  ASSERT_EQ(addends.size(), 3u);
  EXPECT_TRUE(llvm::is_contained(addends, s));
  EXPECT_TRUE(llvm::is_contained(addends, body.getArgument(3)));
  EXPECT_TRUE(llvm::is_contained(addends, m));
}

TEST_F(CheckToleranceTest, NoAddendsForIntegersOrPlainChains) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%x: tensor<8xf32>, %i: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
      %e = fuse.exp %x : tensor<8xf32>
      %t = fuse.tanh %e : tensor<8xf32>
      %j = fuse.add %i, %i : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
      return %t, %j : tensor<8xf32>, tensor<8xi32>
    })mlir");
  ASSERT_TRUE(func);
  EXPECT_TRUE(opfuse::cancellationOperands(func, 0).empty());
  EXPECT_TRUE(opfuse::cancellationOperands(func, 1).empty());
}

} // namespace
