//===- PrecisionDemandTest.cpp - What a group value is rounded to ---------===//
//
// Which f32 values of a group body are only ever rounded to f16 or bf16
// (so exp and the row division may take their cheaper forms) and which
// reach an f32 output or a cancelling op.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Conversion/FuseToGPU/PrecisionDemand.h"
#include "../Dialect/FuseTestUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace opfuse;

namespace {

class PrecisionDemandTest : public test::FuseTest {
protected:
  /// What the first exp of `function` is rounded to.
  Type expRoundedTo(llvm::StringRef function) {
    fuse::ExpOp exp = parseFirst<fuse::ExpOp>(function);
    if (!exp)
      return Type();
    return demand.roundedTo(exp);
  }

  PrecisionDemand demand;
};

TEST_F(PrecisionDemandTest, SixteenBitSoftmaxIsRoundedToItsType) {
  // fuse.softmax on bf16 as fuse-decompose writes it: f32 inside, one cast.
  Type type = expRoundedTo(R"mlir(
    func.func @f(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
      %0 = fuse.cast %x : tensor<4x8xbf16> to tensor<4x8xf32>
      %1 = fuse.reduce_max %0 axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
      %2 = fuse.sub %0, %1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
      %3 = fuse.exp %2 : tensor<4x8xf32>
      %4 = fuse.reduce_sum %3 axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
      %5 = fuse.div %3, %4 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
      %6 = fuse.cast %5 : tensor<4x8xf32> to tensor<4x8xbf16>
      return %6 : tensor<4x8xbf16>
    })mlir");
  ASSERT_TRUE(type);
  EXPECT_TRUE(type.isBF16());
  fuse::DivOp div;
  module->walk([&](fuse::DivOp op) { div = op; });
  ASSERT_TRUE(div);
  EXPECT_TRUE(demand.roundedTo(div).isBF16());
}

TEST_F(PrecisionDemandTest, SixteenBitResultIsItsOwnType) {
  Type type = expRoundedTo(R"mlir(
    func.func @f(%x: tensor<8xf16>) -> tensor<8xf32> {
      %0 = fuse.exp %x : tensor<8xf16>
      %1 = fuse.cast %0 : tensor<8xf16> to tensor<8xf32>
      return %1 : tensor<8xf32>
    })mlir");
  ASSERT_TRUE(type);
  EXPECT_TRUE(type.isF16());
}

TEST_F(PrecisionDemandTest, F32OutputNeedsF32) {
  EXPECT_FALSE(expRoundedTo(R"mlir(
    func.func @f(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xbf16>) {
      %0 = fuse.exp %x : tensor<8xf32>
      %1 = fuse.cast %0 : tensor<8xf32> to tensor<8xbf16>
      return %0, %1 : tensor<8xf32>, tensor<8xbf16>
    })mlir"));
}

TEST_F(PrecisionDemandTest, CancellationNeedsF32) {
  // exp(x) - 1 near 0 magnifies exp's relative error: not relaxed.
  EXPECT_FALSE(expRoundedTo(R"mlir(
    func.func @f(%x: tensor<8xf32>, %one: tensor<8xf32>) -> tensor<8xbf16> {
      %0 = fuse.exp %x : tensor<8xf32>
      %1 = fuse.sub %0, %one : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %2 = fuse.cast %1 : tensor<8xf32> to tensor<8xbf16>
      return %2 : tensor<8xbf16>
    })mlir"));
}

TEST_F(PrecisionDemandTest, SumOfSignedTermsNeedsF32) {
  // A sum of x exp(x) may cancel; a sum of exps may not.
  func::FuncOp function = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> (tensor<4x1xbf16>, tensor<4x1xbf16>) {
      %0 = fuse.exp %x : tensor<4x8xf32>
      %1 = fuse.mul %0, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
      %2 = fuse.reduce_sum %1 axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
      %3 = fuse.cast %2 : tensor<4x1xf32> to tensor<4x1xbf16>
      %4 = fuse.reduce_sum %0 axes = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
      %5 = fuse.cast %4 : tensor<4x1xf32> to tensor<4x1xbf16>
      return %3, %5 : tensor<4x1xbf16>, tensor<4x1xbf16>
    })mlir");
  ASSERT_TRUE(function);
  SmallVector<fuse::MulOp> muls;
  function.walk([&](fuse::MulOp op) { muls.push_back(op); });
  ASSERT_EQ(muls.size(), 1u);
  EXPECT_FALSE(demand.roundedTo(muls[0]));
  fuse::ExpOp exp;
  function.walk([&](fuse::ExpOp op) { exp = op; });
  // The exp itself feeds the cancelling sum through the product.
  EXPECT_FALSE(demand.roundedTo(exp));
  EXPECT_TRUE(isNonNegativeByConstruction(exp));
  EXPECT_FALSE(isNonNegativeByConstruction(muls[0]));
}

TEST_F(PrecisionDemandTest, BF16WinsOverF16) {
  Type type = expRoundedTo(R"mlir(
    func.func @f(%x: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xbf16>) {
      %0 = fuse.exp %x : tensor<8xf32>
      %1 = fuse.cast %0 : tensor<8xf32> to tensor<8xf16>
      %2 = fuse.cast %0 : tensor<8xf32> to tensor<8xbf16>
      return %1, %2 : tensor<8xf16>, tensor<8xbf16>
    })mlir");
  ASSERT_TRUE(type);
  EXPECT_TRUE(type.isBF16());
}

} // namespace
