//===- AttentionKernelTest.cpp - What the fused attention kernel runs -----===//
//
// whyNoAttentionKernel's limits, an attention's GEMM shape, and which ops
// form one attention kernel with it (analyzeGemmKernel).
//
//===----------------------------------------------------------------------===//

#include "FuseTestUtils.h"

#include "opfuse/Dialect/Fuse/IR/AttentionKernel.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace {

class AttentionKernelTest : public opfuse::test::FuseTest {
protected:
  /// The first attention of the first function of `source`.
  AttentionOp attentionOf(llvm::StringRef source) {
    func = parseFirst<func::FuncOp>(source);
    if (!func)
      return nullptr;
    AttentionOp found;
    func.walk([&](AttentionOp op) { found = op; });
    return found;
  }

  /// analyzeGemmKernel on the body of the parsed function.
  Operation *analyze() {
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front().without_terminator())
      ops.push_back(&op);
    why.clear();
    return analyzeGemmKernel(ops, why);
  }

  func::FuncOp func;
  std::string why;
};

std::string attention(llvm::StringRef q, llvm::StringRef kv,
                      llvm::StringRef out) {
  return ("func.func @f(%q: " + q + ", %k: " + kv + ", %v: " + kv + ") -> " +
          out + " {\n  %o = fuse.attention %q, %k, %v scale = 1.0 : (" + q +
          ", " + kv + ", " + kv + ") -> " + out + "\n  return %o : " + out +
          "\n}")
      .str();
}

TEST_F(AttentionKernelTest, RunsBf16AndF16HeadDimsUpTo128) {
  for (const char *type : {"bf16", "f16"})
    for (int d : {16, 64, 128}) {
      std::string t =
          "tensor<2x4x33x" + std::to_string(d) + "x" + std::string(type) + ">";
      AttentionOp op = attentionOf(attention(t, t, t));
      ASSERT_TRUE(op);
      EXPECT_EQ(whyNoAttentionKernel(op), std::nullopt) << type << " " << d;
    }
}

TEST_F(AttentionKernelTest, RefusesF32AndOtherHeadDims) {
  AttentionOp f32 = attentionOf(attention(
      "tensor<1x2x8x64xf32>", "tensor<1x2x8x64xf32>", "tensor<1x2x8x64xf32>"));
  ASSERT_TRUE(f32);
  EXPECT_EQ(whyNoAttentionKernel(f32).value_or(""),
            "the fused attention kernel takes bf16 or f16 operands, not f32");
  AttentionOp narrow =
      attentionOf(attention("tensor<1x2x8x24xbf16>", "tensor<1x2x8x24xbf16>",
                            "tensor<1x2x8x24xbf16>"));
  ASSERT_TRUE(narrow);
  EXPECT_EQ(whyNoAttentionKernel(narrow).value_or(""),
            "the fused attention kernel takes head dimensions that are "
            "multiples of 16 up to 128; D is 24");
  AttentionOp wide =
      attentionOf(attention("tensor<1x2x8x256xbf16>", "tensor<1x2x8x256xbf16>",
                            "tensor<1x2x8x256xbf16>"));
  ASSERT_TRUE(wide);
  EXPECT_NE(whyNoAttentionKernel(wide), std::nullopt);
  AttentionOp empty =
      attentionOf(attention("tensor<1x2x0x64xbf16>", "tensor<1x2x8x64xbf16>",
                            "tensor<1x2x0x64xbf16>"));
  ASSERT_TRUE(empty);
  EXPECT_EQ(whyNoAttentionKernel(empty).value_or(""),
            "an operand of the attention is empty");
}

TEST_F(AttentionKernelTest, GemmShapeIsTheSecondProduct) {
  AttentionOp op = attentionOf(R"mlir(
    func.func @f(%q: tensor<2x8x100x64xbf16>, %k: tensor<2x2x300x64xbf16>, %v: tensor<2x2x300x32xbf16>) -> tensor<2x8x100x32xbf16> {
      %o = fuse.attention %q, %k, %v scale = 1.0 : (tensor<2x8x100x64xbf16>, tensor<2x2x300x64xbf16>, tensor<2x2x300x32xbf16>) -> tensor<2x8x100x32xbf16>
      return %o : tensor<2x8x100x32xbf16>
    })mlir");
  ASSERT_TRUE(op);
  EXPECT_TRUE(isContraction(op));
  EXPECT_FALSE(isGemmContraction(op));
  GemmShape shape = getGemmShape(op);
  EXPECT_EQ(shape.batch, 16);
  EXPECT_EQ(shape.m, 100);
  EXPECT_EQ(shape.n, 32);
  EXPECT_EQ(shape.k, 64);
}

TEST_F(AttentionKernelTest, ReadsHeadsThroughViewsAndStoresThroughTheMerge) {
  ASSERT_TRUE(attentionOf(R"mlir(
    func.func @f(%qkv: tensor<1x16x192xbf16>) -> tensor<1x16x64xbf16> {
      %qs = fuse.slice %qkv offsets = [0, 0, 0] sizes = [1, 16, 64] strides = [1, 1, 1] : tensor<1x16x192xbf16> -> tensor<1x16x64xbf16>
      %qr = fuse.reshape %qs : tensor<1x16x64xbf16> -> tensor<1x16x1x64xbf16>
      %q = fuse.transpose %qr permutation = [0, 2, 1, 3] : tensor<1x16x1x64xbf16> -> tensor<1x1x16x64xbf16>
      %o = fuse.attention %q, %q, %q scale = 1.0 : (tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16>
      %ot = fuse.transpose %o permutation = [0, 2, 1, 3] : tensor<1x1x16x64xbf16> -> tensor<1x16x1x64xbf16>
      %om = fuse.reshape %ot : tensor<1x16x1x64xbf16> -> tensor<1x16x64xbf16>
      return %om : tensor<1x16x64xbf16>
    })mlir"));
  Operation *contraction = analyze();
  EXPECT_TRUE(contraction && isa<AttentionOp>(contraction)) << why;
}

TEST_F(AttentionKernelTest, RefusesAMaskComputedInTheKernel) {
  ASSERT_TRUE(attentionOf(R"mlir(
    func.func @f(%q: tensor<1x1x16x64xbf16>, %m: tensor<16x16xbf16>) -> tensor<1x1x16x64xbf16> {
      %n = fuse.neg %m : tensor<16x16xbf16>
      %o = fuse.attention %q, %q, %q mask %n scale = 1.0 : (tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<16x16xbf16>) -> tensor<1x1x16x64xbf16>
      return %o : tensor<1x1x16x64xbf16>
    })mlir"));
  EXPECT_EQ(analyze(), nullptr);
  EXPECT_NE(why.find("produces the mask of 'fuse.attention'"),
            std::string::npos)
      << why;
}

TEST_F(AttentionKernelTest, RefusesAStridedHeadDimension) {
  ASSERT_TRUE(attentionOf(R"mlir(
    func.func @f(%q: tensor<1x1x16x64xbf16>, %kt: tensor<1x1x64x16xbf16>) -> tensor<1x1x16x64xbf16> {
      %k = fuse.transpose %kt permutation = [0, 1, 3, 2] : tensor<1x1x64x16xbf16> -> tensor<1x1x16x64xbf16>
      %o = fuse.attention %q, %k, %q scale = 1.0 : (tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16>) -> tensor<1x1x16x64xbf16>
      return %o : tensor<1x1x16x64xbf16>
    })mlir"));
  EXPECT_EQ(analyze(), nullptr);
  EXPECT_NE(why.find("head dimension"), std::string::npos) << why;
}

} // namespace
