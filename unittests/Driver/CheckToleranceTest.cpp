//===- CheckToleranceTest.cpp - The precision and scales of --check -------===//
//
// Which type an output's tolerance follows, and which addends widen its
// element scale.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "../../lib/Driver/CheckTolerance.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

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

TEST_F(CheckToleranceTest, AddendsAndMatmulsOfTheOutputShapeOnly) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%a: tensor<4x8xbf16>, %w: tensor<8x8xbf16>, %b: tensor<8xbf16>, %x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
      %h = fuse.relu %a : tensor<4x8xbf16>
      %m = fuse.matmul %h, %w : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xbf16>
      %s = fuse.add %m, %b : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
      %r = fuse.sub %s, %x : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
      %g = fuse.gelu %r approximate = tanh : tensor<4x8xbf16>
      return %g : tensor<4x8xbf16>
    })mlir");
  ASSERT_TRUE(func);
  SmallVector<opfuse::ScaleSource> sources = opfuse::scaleSources(func, 0);
  Block &body = func.getBody().front();
  Value m = std::next(body.begin())->getResult(0);
  Value s = std::next(body.begin(), 2)->getResult(0);
  auto find = [&](Value value) -> const opfuse::ScaleSource * {
    for (const opfuse::ScaleSource &source : sources)
      if (source.value == value)
        return &source;
    return nullptr;
  };
  // The sub's operands and the matmul's products; the matmul result as an
  // addend too; not the smaller bias, and nothing behind the matmul.
  ASSERT_EQ(sources.size(), 4u);
  ASSERT_TRUE(find(s));
  EXPECT_FALSE(find(s)->ofMagnitudes);
  ASSERT_TRUE(find(body.getArgument(3)));
  ASSERT_TRUE(find(m));
  EXPECT_EQ(llvm::count_if(sources,
                           [&](const opfuse::ScaleSource &source) {
                             return source.value == m && source.ofMagnitudes;
                           }),
            1);
}

TEST_F(CheckToleranceTest, MatmulOfInputsIsNoSource) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%a: tensor<4x8xbf16>, %w: tensor<8x8xbf16>) -> tensor<4x8xbf16> {
      %m = fuse.matmul %a, %w : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xbf16>
      %g = fuse.gelu %m approximate = tanh : tensor<4x8xbf16>
      return %g : tensor<4x8xbf16>
    })mlir");
  ASSERT_TRUE(func);
  EXPECT_TRUE(opfuse::scaleSources(func, 0).empty());
}

TEST_F(CheckToleranceTest, F32MatmulOfInputsAndTF32) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%a: tensor<4x8xf32>, %w: tensor<8x8xf32>, %c: tensor<4x8xbf16>, %v: tensor<8x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xbf16>) {
      %m = fuse.matmul %a, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %n = fuse.matmul %c, %v : (tensor<4x8xbf16>, tensor<8x8xbf16>) -> tensor<4x8xbf16>
      return %m, %n : tensor<4x8xf32>, tensor<4x8xbf16>
    })mlir");
  ASSERT_TRUE(func);
  // f32 accumulation order matters at f32 bounds; bf16 of inputs: no.
  ASSERT_EQ(opfuse::scaleSources(func, 0).size(), 1u);
  EXPECT_TRUE(opfuse::scaleSources(func, 0).front().ofMagnitudes);
  EXPECT_TRUE(opfuse::scaleSources(func, 1).empty());
  EXPECT_EQ(opfuse::scaleSources(func, 1, /*roundedInputs=*/true).size(), 1u);
  EXPECT_TRUE(opfuse::throughF32Contraction(func, 0));
  EXPECT_FALSE(opfuse::throughF32Contraction(func, 1));
}

TEST_F(CheckToleranceTest, F32SumsAreMeasuredAgainstTheirMagnitudes) {
  // A column sum in f32 is only as exact as the sum of |x|; a bf16 sum
  // accumulates in f32 far below its own rounding, and a maximum is exact.
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%x: tensor<16x8xf32>, %y: tensor<16x8xbf16>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf32>) {
      %s = fuse.reduce_sum %x axes = [0] : tensor<16x8xf32> -> tensor<8xf32>
      %m = fuse.reduce_mean %x axes = [0] : tensor<16x8xf32> -> tensor<8xf32>
      %e = fuse.exp %m : tensor<8xf32>
      %b = fuse.reduce_sum %y axes = [0] : tensor<16x8xbf16> -> tensor<8xbf16>
      %x2 = fuse.reduce_max %x axes = [0] : tensor<16x8xf32> -> tensor<8xf32>
      return %s, %e, %b, %x2 : tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf32>
    })mlir");
  ASSERT_TRUE(func);
  SmallVector<opfuse::ScaleSource> sum = opfuse::scaleSources(func, 0);
  ASSERT_EQ(sum.size(), 1u);
  EXPECT_TRUE(sum.front().ofMagnitudes);
  EXPECT_TRUE(
      isa<opfuse::fuse::ReduceSumOp>(sum.front().value.getDefiningOp()));
  SmallVector<opfuse::ScaleSource> mean = opfuse::scaleSources(func, 1);
  ASSERT_EQ(mean.size(), 1u);
  EXPECT_TRUE(
      isa<opfuse::fuse::ReduceMeanOp>(mean.front().value.getDefiningOp()));
  EXPECT_TRUE(opfuse::scaleSources(func, 2).empty());
  EXPECT_TRUE(opfuse::scaleSources(func, 3).empty());
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
  EXPECT_TRUE(opfuse::scaleSources(func, 0).empty());
  EXPECT_TRUE(opfuse::scaleSources(func, 1).empty());
}

} // namespace
