//===- RowKernelTest.cpp - What forms one row-reduction kernel ------------===//
//
// The row shape of reductions, the per-row broadcast rule, and the value
// kinds and refusals of analyzeRowKernel on small function bodies.
//
//===----------------------------------------------------------------------===//

#include "FuseTestUtils.h"

#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace {

class RowKernelTest : public opfuse::test::FuseTest {
protected:
  /// Analyses the body of the first function of `source`, its returned
  /// values as the outputs.
  std::optional<RowKernelInfo> analyze(llvm::StringRef source) {
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    if (!func)
      return std::nullopt;
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front().without_terminator())
      ops.push_back(&op);
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    why.clear();
    return analyzeRowKernel(ops, llvm::to_vector(ret.getOperands()), why);
  }

  std::string why;
};

TEST(BroadcastsPerRow, LeadingDimensionsAreTheRow) {
  EXPECT_TRUE(broadcastsPerRow({8, 1}, {8, 16}, 8));
  EXPECT_TRUE(broadcastsPerRow({4, 2, 1}, {4, 2, 16}, 8));
  EXPECT_TRUE(broadcastsPerRow({8, 1, 1}, {8, 4, 4}, 8));
  // [8] aligns with the columns of [8, 8]: across rows, not along them.
  EXPECT_FALSE(broadcastsPerRow({8}, {8, 8}, 8));
  // One value for all rows is not per row.
  EXPECT_FALSE(broadcastsPerRow({1, 1}, {8, 16}, 8));
  // Rows of 1: the value is the whole tensor.
  EXPECT_TRUE(broadcastsPerRow({8, 1}, {8, 1}, 8));
}

TEST_F(RowKernelTest, SoftmaxKinds) {
  std::optional<RowKernelInfo> info = analyze(R"mlir(
    func.func @f(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
      %m = fuse.reduce_max %x axes = [1] keepdims : tensor<4x64xf32> -> tensor<4x1xf32>
      %d = fuse.sub %x, %m : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
      %e = fuse.exp %d : tensor<4x64xf32>
      %s = fuse.reduce_sum %e axes = [1] keepdims : tensor<4x64xf32> -> tensor<4x1xf32>
      %r = fuse.reciprocal %s : tensor<4x1xf32>
      %p = fuse.mul %e, %r : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
      return %p : tensor<4x64xf32>
    })mlir");
  ASSERT_TRUE(info) << why;
  EXPECT_EQ(info->shape.rows, 4);
  EXPECT_EQ(info->shape.rowLength, 64);
  func::FuncOp func = *module->getOps<func::FuncOp>().begin();
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front().without_terminator())
    ops.push_back(&op);
  EXPECT_EQ(info->kinds.lookup(func.getArgument(0)), RowValueKind::Element);
  EXPECT_EQ(info->kinds.lookup(ops[0]->getResult(0)), RowValueKind::Row);
  EXPECT_EQ(info->kinds.lookup(ops[2]->getResult(0)), RowValueKind::Element);
  EXPECT_EQ(info->kinds.lookup(ops[4]->getResult(0)), RowValueKind::Row);
  EXPECT_EQ(info->kinds.lookup(ops[5]->getResult(0)), RowValueKind::Element);
}

TEST_F(RowKernelTest, BroadcastInputsAndMultiDimRows) {
  std::optional<RowKernelInfo> info = analyze(R"mlir(
    func.func @f(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2xf32>) {
      %s = fuse.reduce_sum %x axes = [1, 2] : tensor<2x4x8xf32> -> tensor<2xf32>
      %k = fuse.reduce_mean %x axes = [1, 2] keepdims : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
      %n = fuse.neg %g : tensor<4x8xf32>
      %d = fuse.sub %x, %k : (tensor<2x4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
      %y = fuse.mul %d, %n : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
      return %y, %s : tensor<2x4x8xf32>, tensor<2xf32>
    })mlir");
  ASSERT_TRUE(info) << why;
  EXPECT_EQ(info->shape.rows, 2);
  EXPECT_EQ(info->shape.rowLength, 32);
  func::FuncOp func = *module->getOps<func::FuncOp>().begin();
  EXPECT_EQ(info->kinds.lookup(func.getArgument(1)), RowValueKind::Broadcast);
}

TEST_F(RowKernelTest, LeadingAxesAreStridedRows) {
  std::optional<RowKernelInfo> info = analyze(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
      %e = fuse.exp %x : tensor<4x8xf32>
      %s = fuse.reduce_sum %e axes = [0] keepdims : tensor<4x8xf32> -> tensor<1x8xf32>
      %d = fuse.div %e, %s : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
      return %d : tensor<4x8xf32>
    })mlir");
  ASSERT_TRUE(info) << why;
  EXPECT_TRUE(info->shape.strided);
  EXPECT_EQ(info->shape.rows, 8);
  EXPECT_EQ(info->shape.rowLength, 4);
  EXPECT_EQ(info->shape.inputShape, (llvm::SmallVector<int64_t>{4, 8}));
  EXPECT_EQ(info->shape.axes, (llvm::SmallVector<int64_t>{0}));
}

TEST_F(RowKernelTest, StridedRowsRefuseBroadcastAlongTheReducedAxis) {
  // A per-column sum of shape [8, 1] (keepdims over axis 1 would be a row
  // sum) read as if it were per column: a column kernel's per-result value
  // must be size 1 on the reduced axis and full on the kept one.
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %s = fuse.reduce_sum %x axes = [0] : tensor<8x8xf32> -> tensor<8xf32>
      %r = fuse.reshape %s : tensor<8xf32> -> tensor<8x1xf32>
      %d = fuse.div %x, %r : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
      return %d : tensor<8x8xf32>
    })mlir"));
  EXPECT_NE(why.find("broadcasts a per-row value of shape [8, 1] across rows"),
            std::string::npos)
      << why;
}

TEST_F(RowKernelTest, StridedRowsRefuseReshapedElements) {
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<8xf32> {
      %r = fuse.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
      %e = fuse.exp %r : tensor<32xf32>
      %b = fuse.reshape %e : tensor<32xf32> -> tensor<4x8xf32>
      %s = fuse.reduce_sum %b axes = [0] : tensor<4x8xf32> -> tensor<8xf32>
      return %s : tensor<8xf32>
    })mlir"));
  EXPECT_NE(why.find("reshapes a per-element value of a kernel that reduces "
                     "leading axes"),
            std::string::npos)
      << why;
}

TEST_F(RowKernelTest, RefusesDifferentRows) {
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
      %a = fuse.reduce_sum %x axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
      %r = fuse.reshape %x : tensor<8x16xf32> -> tensor<4x32xf32>
      %b = fuse.reduce_sum %r axes = [1] : tensor<4x32xf32> -> tensor<4xf32>
      return %a, %b : tensor<8xf32>, tensor<4xf32>
    })mlir"));
  EXPECT_NE(why.find("reduces rows of 32 elements (4 rows), but the kernel's "
                     "rows have 16 (8 rows)"),
            std::string::npos)
      << why;
}

TEST_F(RowKernelTest, RefusesBroadcastAcrossRows) {
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %s = fuse.reduce_sum %x axes = [1] : tensor<8x8xf32> -> tensor<8xf32>
      %d = fuse.div %x, %s : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
      return %d : tensor<8x8xf32>
    })mlir"));
  EXPECT_NE(why.find("across rows, not along them"), std::string::npos) << why;
}

TEST_F(RowKernelTest, RefusesSmallerOutputs) {
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<8x16xf32>, %g: tensor<16xf32>) -> (tensor<8xf32>, tensor<16xf32>) {
      %s = fuse.reduce_sum %x axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
      %n = fuse.neg %g : tensor<16xf32>
      return %s, %n : tensor<8xf32>, tensor<16xf32>
    })mlir"));
  EXPECT_NE(why.find("neither per element nor per row"), std::string::npos)
      << why;
}

TEST_F(RowKernelTest, RefusesPerRowValuesInOtherShapes) {
  // [8,1] + [1,4] is neither one value per row (8) nor per element (128).
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<8x16xf32>, %c: tensor<1x4xf32>) -> tensor<8x4xf32> {
      %s = fuse.reduce_sum %x axes = [1] keepdims : tensor<8x16xf32> -> tensor<8x1xf32>
      %t = fuse.add %s, %c : (tensor<8x1xf32>, tensor<1x4xf32>) -> tensor<8x4xf32>
      return %t : tensor<8x4xf32>
    })mlir"));
  EXPECT_NE(why.find("combines a per-row value into a shape of 32 elements, "
                     "neither per row (8) nor per element"),
            std::string::npos)
      << why;
  // A value of 8 elements computed from [2,1] and [1,4] has one element
  // per row only by coincidence of its count: it is not read at the row.
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<8x16xf32>, %p: tensor<2x1xf32>, %q: tensor<1x4xf32>) -> tensor<2x4xf32> {
      %s = fuse.reduce_sum %x axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
      %r = fuse.reshape %s : tensor<8xf32> -> tensor<2x4xf32>
      %a = fuse.add %p, %q : (tensor<2x1xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
      %t = fuse.add %r, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
      return %t : tensor<2x4xf32>
    })mlir"));
  EXPECT_NE(why.find("combines a per-row value with a value that is not one "
                     "per row"),
            std::string::npos)
      << why;
}

TEST_F(RowKernelTest, RefusesOtherOps) {
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x1xf32> {
      %m = fuse.matmul %x, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
      %s = fuse.reduce_sum %m axes = [1] keepdims : tensor<8x16xf32> -> tensor<8x1xf32>
      return %s : tensor<8x1xf32>
    })mlir"));
  EXPECT_NE(why.find("'fuse.matmul' at 3:12 is neither elementwise nor a "
                     "row reduction"),
            std::string::npos)
      << why;
}

TEST_F(RowKernelTest, RefusesWithoutReduction) {
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
      %n = fuse.neg %x : tensor<8x16xf32>
      return %n : tensor<8x16xf32>
    })mlir"));
  EXPECT_EQ(why, "it contains no reduction");
}

} // namespace
