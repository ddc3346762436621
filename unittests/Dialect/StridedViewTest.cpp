//===- StridedViewTest.cpp - View chains as strided layouts ---------------===//
//
// The layouts getStridedView composes for the views a GEMM reads through:
// heads split out of a fused QKV projection, K transposed, a batch
// transpose with contiguous rows, and the merges of dimensions it refuses;
// and the store layouts of getStoreLayout through slices.
//
//===----------------------------------------------------------------------===//

#include "FuseTestUtils.h"

#include "opfuse/Dialect/Fuse/IR/StridedView.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace {

class StridedViewTest : public opfuse::test::FuseTest {
protected:
  /// The layout in which the first returned value of the first function
  /// reads its base (getStridedView).
  std::optional<StridedView> view(llvm::StringRef source) {
    return layoutOf(source, getStridedView);
  }

  /// The layout in which a kernel writes its base so that the first
  /// returned value is row-major (getStoreLayout).
  std::optional<StridedView> layout(llvm::StringRef source) {
    return layoutOf(source, getStoreLayout);
  }

  std::string why;

private:
  using Compose = std::optional<StridedView> (*)(
      Value, llvm::function_ref<bool(Operation *)>, std::string &);

  std::optional<StridedView> layoutOf(llvm::StringRef source, Compose compose) {
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    if (!func)
      return std::nullopt;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    why.clear();
    return compose(ret.getOperand(0), [](Operation *) { return true; }, why);
  }
};

TEST_F(StridedViewTest, KeyHeadsOutOfFusedQkv) {
  // K = qkv[:, :, 128:256] as [B, S, H, D], then [B, H, D, S].
  std::optional<StridedView> v = view(R"mlir(
    func.func @f(%qkv: tensor<2x70x384xbf16>) -> tensor<2x2x64x70xbf16> {
      %k0 = fuse.slice %qkv offsets = [0, 0, 128] sizes = [2, 70, 128] strides = [1, 1, 1] : tensor<2x70x384xbf16> -> tensor<2x70x128xbf16>
      %k1 = fuse.reshape %k0 : tensor<2x70x128xbf16> -> tensor<2x70x2x64xbf16>
      %k = fuse.transpose %k1 permutation = [0, 2, 3, 1] : tensor<2x70x2x64xbf16> -> tensor<2x2x64x70xbf16>
      return %k : tensor<2x2x64x70xbf16>
    })mlir");
  ASSERT_TRUE(v) << why;
  EXPECT_TRUE(isa<BlockArgument>(v->base));
  EXPECT_EQ(v->offset, 128);
  EXPECT_EQ(v->strides, (llvm::SmallVector<int64_t>{70 * 384, 64, 1, 384}));
}

TEST_F(StridedViewTest, StridedSliceMultipliesStrides) {
  std::optional<StridedView> v = view(R"mlir(
    func.func @f(%x: tensor<8x10xf32>) -> tensor<3x4xf32> {
      %s = fuse.slice %x offsets = [1, 2] sizes = [3, 4] strides = [2, 1] : tensor<8x10xf32> -> tensor<3x4xf32>
      return %s : tensor<3x4xf32>
    })mlir");
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->offset, 12);
  EXPECT_EQ(v->strides, (llvm::SmallVector<int64_t>{20, 1}));
}

TEST_F(StridedViewTest, ReshapeSplitsAndMergesContiguousDimensions) {
  // A transpose moves the batch outermost; merging the two inner
  // dimensions, still contiguous with each other, is one stride.
  std::optional<StridedView> v = view(R"mlir(
    func.func @f(%x: tensor<4x3x5xf32>) -> tensor<3x20xf32> {
      %t = fuse.transpose %x permutation = [1, 0, 2] : tensor<4x3x5xf32> -> tensor<3x4x5xf32>
      %r = fuse.reshape %t : tensor<3x4x5xf32> -> tensor<3x20xf32>
      return %r : tensor<3x20xf32>
    })mlir");
  EXPECT_FALSE(v) << "dims 4 (stride 15) and 5 (stride 1) are not contiguous";
  EXPECT_NE(why.find("merges dimensions that are not contiguous"),
            std::string::npos)
      << why;

  v = view(R"mlir(
    func.func @f(%x: tensor<4x3x5xf32>) -> tensor<4x3x5x1xf32> {
      %r = fuse.reshape %x : tensor<4x3x5xf32> -> tensor<12x5xf32>
      %s = fuse.reshape %r : tensor<12x5xf32> -> tensor<4x3x5x1xf32>
      return %s : tensor<4x3x5x1xf32>
    })mlir");
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(v->strides, (llvm::SmallVector<int64_t>{15, 5, 1, 0}));
}

TEST_F(StridedViewTest, MergeOfHeadsIsRefused) {
  // [B, H, S, D] -> [B, S, H, D] -> [B, S, H*D]: H and D are not adjacent
  // in the buffer.
  std::optional<StridedView> v = view(R"mlir(
    func.func @f(%o: tensor<2x4x8x16xf32>) -> tensor<2x8x64xf32> {
      %t = fuse.transpose %o permutation = [0, 2, 1, 3] : tensor<2x4x8x16xf32> -> tensor<2x8x4x16xf32>
      %r = fuse.reshape %t : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
      return %r : tensor<2x8x64xf32>
    })mlir");
  EXPECT_FALSE(v);
}

TEST_F(StridedViewTest, StoreLayoutOfKeyOutOfQkvIsABoxOfTheResult) {
  // K = qkv[:, 128:256], split into heads: element (s, c) of qkv with c in
  // [128, 256) goes to (s, c - 128) of K, whose rows are 128 long.
  std::optional<StridedView> l = layout(R"mlir(
    func.func @f(%qkv: tensor<70x384xbf16>) -> tensor<70x2x64xbf16> {
      %k0 = fuse.slice %qkv offsets = [0, 128] sizes = [70, 128] strides = [1, 1] : tensor<70x384xbf16> -> tensor<70x128xbf16>
      %k = fuse.reshape %k0 : tensor<70x128xbf16> -> tensor<70x2x64xbf16>
      return %k : tensor<70x2x64xbf16>
    })mlir");
  ASSERT_TRUE(l) << why;
  EXPECT_TRUE(isa<BlockArgument>(l->base));
  EXPECT_EQ(l->strides, (llvm::SmallVector<int64_t>{128, 1}));
  EXPECT_EQ(l->offset, -128);
  EXPECT_EQ(l->lower, (llvm::SmallVector<int64_t>{0, 128}));
  EXPECT_EQ(l->upper, (llvm::SmallVector<int64_t>{70, 256}));
}

TEST_F(StridedViewTest, StoreLayoutRefusesSlicesWithStepsOrAfterViews) {
  EXPECT_FALSE(layout(R"mlir(
    func.func @f(%x: tensor<8x10xf32>) -> tensor<3x4xf32> {
      %s = fuse.slice %x offsets = [1, 2] sizes = [3, 4] strides = [2, 1] : tensor<8x10xf32> -> tensor<3x4xf32>
      return %s : tensor<3x4xf32>
    })mlir"));
  EXPECT_NE(why.find("has steps"), std::string::npos) << why;
  EXPECT_FALSE(layout(R"mlir(
    func.func @f(%x: tensor<8x10xf32>) -> tensor<4x8xf32> {
      %t = fuse.transpose %x permutation = [1, 0] : tensor<8x10xf32> -> tensor<10x8xf32>
      %s = fuse.slice %t offsets = [0, 0] sizes = [4, 8] strides = [1, 1] : tensor<10x8xf32> -> tensor<4x8xf32>
      return %s : tensor<4x8xf32>
    })mlir"));
  EXPECT_NE(why.find("slices the result of other views"), std::string::npos)
      << why;
}

} // namespace
