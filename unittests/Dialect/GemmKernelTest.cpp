//===- GemmKernelTest.cpp - What forms one GEMM kernel --------------------===//
//
// The GEMM shape of matmuls (a weight's batch folded into rows), the
// epilogue rules and refusals of analyzeGemmKernel, and the tiling
// option's parser and checks.
//
//===----------------------------------------------------------------------===//

#include "FuseTestUtils.h"

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace {

class GemmKernelTest : public opfuse::test::FuseTest {
protected:
  /// Analyses the body of the first function of `source`.
  Operation *analyze(llvm::StringRef source) {
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    if (!func)
      return nullptr;
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front().without_terminator())
      ops.push_back(&op);
    why.clear();
    return analyzeGemmKernel(ops, why);
  }

  std::string why;
};

TEST_F(GemmKernelTest, BatchedShape) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%a: tensor<3x4x64x32xbf16>, %b: tensor<4x48x32xbf16>) -> tensor<3x4x64x48xbf16> {
      %m = fuse.matmul %a, %b transpose_b : (tensor<3x4x64x32xbf16>, tensor<4x48x32xbf16>) -> tensor<3x4x64x48xbf16>
      return %m : tensor<3x4x64x48xbf16>
    })mlir");
  ASSERT_TRUE(func);
  auto matmul = cast<MatmulOp>(&func.getBody().front().front());
  GemmShape shape = getGemmShape(matmul);
  EXPECT_EQ(shape.batch, 12);
  EXPECT_EQ(shape.m, 64);
  EXPECT_EQ(shape.n, 48);
  EXPECT_EQ(shape.k, 32);
}

// Against a weight (B without batch, or with batch dimensions of size 1)
// a batched A is one GEMM of the batch's rows; a transposed A, an A of
// lower rank than the output, or a batched B keeps the batch.
TEST_F(GemmKernelTest, BatchFoldsIntoRowsAgainstAWeight) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%x: tensor<8x1x1024xbf16>, %w: tensor<1024x768xbf16>,
                 %y: tensor<2x3x37x64xbf16>, %v: tensor<1x1x64x40xbf16>,
                 %t: tensor<4x64x10xbf16>, %a2: tensor<5x64xbf16>,
                 %w3: tensor<1x64x40xbf16>)
        -> (tensor<8x1x768xbf16>, tensor<2x3x37x40xbf16>, tensor<4x10x40xbf16>, tensor<1x5x40xbf16>) {
      %0 = fuse.matmul %x, %w : (tensor<8x1x1024xbf16>, tensor<1024x768xbf16>) -> tensor<8x1x768xbf16>
      %1 = fuse.matmul %y, %v : (tensor<2x3x37x64xbf16>, tensor<1x1x64x40xbf16>) -> tensor<2x3x37x40xbf16>
      %2 = fuse.matmul %t, %w3 transpose_a : (tensor<4x64x10xbf16>, tensor<1x64x40xbf16>) -> tensor<4x10x40xbf16>
      %3 = fuse.matmul %a2, %w3 : (tensor<5x64xbf16>, tensor<1x64x40xbf16>) -> tensor<1x5x40xbf16>
      return %0, %1, %2, %3 : tensor<8x1x768xbf16>, tensor<2x3x37x40xbf16>, tensor<4x10x40xbf16>, tensor<1x5x40xbf16>
    })mlir");
  ASSERT_TRUE(func);
  SmallVector<MatmulOp> matmuls(func.getBody().front().getOps<MatmulOp>());
  ASSERT_EQ(matmuls.size(), 4u);
  EXPECT_TRUE(foldsBatchIntoRows(matmuls[0]));
  GemmShape decode = getGemmShape(matmuls[0]);
  EXPECT_EQ(decode.batch, 1);
  EXPECT_EQ(decode.m, 8);
  EXPECT_TRUE(isSkinnyGemm(decode));
  GemmShape ragged = getGemmShape(matmuls[1]);
  EXPECT_EQ(ragged.batch, 1);
  EXPECT_EQ(ragged.m, 2 * 3 * 37);
  EXPECT_FALSE(foldsBatchIntoRows(matmuls[2]));
  EXPECT_EQ(getGemmShape(matmuls[2]).batch, 4);
  EXPECT_FALSE(foldsBatchIntoRows(matmuls[3]));
}

TEST_F(GemmKernelTest, BiasGeluResidualCastEpilogue) {
  Operation *matmul = analyze(R"mlir(
    func.func @f(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %bias: tensor<48xbf16>, %r: tensor<64x48xbf16>) -> tensor<64x48xf32> {
      %m = fuse.matmul %a, %b : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
      %c = fuse.constant dense<2.0> : tensor<64x48xbf16>
      %s = fuse.mul %m, %c : (tensor<64x48xbf16>, tensor<64x48xbf16>) -> tensor<64x48xbf16>
      %x = fuse.add %s, %bias : (tensor<64x48xbf16>, tensor<48xbf16>) -> tensor<64x48xbf16>
      %g = fuse.gelu %x approximate = tanh : tensor<64x48xbf16>
      %y = fuse.add %g, %r : (tensor<64x48xbf16>, tensor<64x48xbf16>) -> tensor<64x48xbf16>
      %z = fuse.cast %y : tensor<64x48xbf16> to tensor<64x48xf32>
      return %z : tensor<64x48xf32>
    })mlir");
  ASSERT_TRUE(matmul) << why;
  EXPECT_TRUE(isa<MatmulOp>(matmul));
  EXPECT_EQ(getGemmShape(matmul).k, 32);
}

TEST_F(GemmKernelTest, ConvIsAnImplicitGemm) {
  Operation *conv = analyze(R"mlir(
    func.func @f(%x: tensor<2x10x12x16xbf16>, %w: tensor<32x3x3x16xbf16>, %b: tensor<32xbf16>) -> tensor<2x5x6x32xbf16> {
      %c = fuse.conv2d %x, %w strides = [2, 2] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
          : (tensor<2x10x12x16xbf16>, tensor<32x3x3x16xbf16>) -> tensor<2x5x6x32xbf16>
      %y = fuse.add %c, %b : (tensor<2x5x6x32xbf16>, tensor<32xbf16>) -> tensor<2x5x6x32xbf16>
      %r = fuse.relu %y : tensor<2x5x6x32xbf16>
      return %r : tensor<2x5x6x32xbf16>
    })mlir");
  ASSERT_TRUE(conv) << why;
  ASSERT_TRUE(isa<Conv2DOp>(conv));
  GemmShape shape = getGemmShape(conv);
  EXPECT_EQ(shape.batch, 1);
  EXPECT_EQ(shape.m, 2 * 5 * 6);
  EXPECT_EQ(shape.n, 32);
  EXPECT_EQ(shape.k, 3 * 3 * 16);
}

TEST_F(GemmKernelTest, PrologueComputesA) {
  // A norm's second half: the copied input, a per-row statistic and a
  // per-column scale cast to f32 inside the prologue.
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%x: tensor<64x32xbf16>, %r: tensor<64x1xf32>, %g: tensor<32xbf16>, %b: tensor<32x48xbf16>) -> tensor<64x48xbf16> {
      %c = fuse.cast %x : tensor<64x32xbf16> to tensor<64x32xf32>
      %n = fuse.mul %c, %r : (tensor<64x32xf32>, tensor<64x1xf32>) -> tensor<64x32xf32>
      %g32 = fuse.cast %g : tensor<32xbf16> to tensor<32xf32>
      %s = fuse.mul %n, %g32 : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
      %y = fuse.cast %s : tensor<64x32xf32> to tensor<64x32xbf16>
      %m = fuse.matmul %y, %b : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
      return %m : tensor<64x48xbf16>
    })mlir");
  ASSERT_TRUE(func);
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front().without_terminator())
    ops.push_back(&op);
  Operation *matmul = analyzeGemmKernel(ops, why);
  ASSERT_TRUE(matmul) << why;
  std::optional<GemmPrologue> prologue = getGemmPrologue(
      matmul, [&](Operation *op) { return llvm::is_contained(ops, op); }, why);
  ASSERT_TRUE(prologue) << why;
  EXPECT_EQ(prologue->source, func.getArgument(0));
  EXPECT_EQ(prologue->ops.size(), 5u);
}

TEST_F(GemmKernelTest, RefusesPrologue) {
  // Two inputs of A's shape: the kernel copies one.
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%a: tensor<64x32xbf16>, %z: tensor<64x32xbf16>, %b: tensor<32x48xbf16>) -> tensor<64x48xbf16> {
      %s = fuse.add %a, %z : (tensor<64x32xbf16>, tensor<64x32xbf16>) -> tensor<64x32xbf16>
      %m = fuse.matmul %s, %b : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
      return %m : tensor<64x48xbf16>
    })mlir"));
  EXPECT_NE(why.find("reads 2 inputs of A's shape [64, 32]; the kernel copies "
                     "exactly one"),
            std::string::npos)
      << why;
  // A stored as K x M: the slice's rows are not A's rows.
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%a: tensor<32x64xbf16>, %b: tensor<32x48xbf16>) -> tensor<64x48xbf16> {
      %r = fuse.relu %a : tensor<32x64xbf16>
      %m = fuse.matmul %r, %b transpose_a : (tensor<32x64xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
      return %m : tensor<64x48xbf16>
    })mlir"));
  EXPECT_NE(why.find("a prologue needs A row-major"), std::string::npos) << why;
  // A prologue value is never stored.
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%a: tensor<64x48xbf16>, %b: tensor<48x48xbf16>) -> tensor<64x48xbf16> {
      %r = fuse.relu %a : tensor<64x48xbf16>
      %m = fuse.matmul %r, %b : (tensor<64x48xbf16>, tensor<48x48xbf16>) -> tensor<64x48xbf16>
      %s = fuse.add %m, %r : (tensor<64x48xbf16>, tensor<64x48xbf16>) -> tensor<64x48xbf16>
      return %s : tensor<64x48xbf16>
    })mlir"));
  EXPECT_NE(why.find("a prologue value is computed per K slice, never stored"),
            std::string::npos)
      << why;
}

TEST_F(GemmKernelTest, RefusesTwoMatmuls) {
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x32xbf16>) -> tensor<64x48xbf16> {
      %m = fuse.matmul %a, %b : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
      %n = fuse.matmul %c, %b : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
      %s = fuse.add %m, %n : (tensor<64x48xbf16>, tensor<64x48xbf16>) -> tensor<64x48xbf16>
      return %s : tensor<64x48xbf16>
    })mlir"));
  EXPECT_NE(why.find("would be the second"), std::string::npos) << why;
}

TEST_F(GemmKernelTest, RefusesOtherShapesAndOps) {
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %y: tensor<2x64x48xbf16>) -> tensor<2x64x48xbf16> {
      %m = fuse.matmul %a, %b : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
      %s = fuse.add %m, %y : (tensor<64x48xbf16>, tensor<2x64x48xbf16>) -> tensor<2x64x48xbf16>
      return %s : tensor<2x64x48xbf16>
    })mlir"));
  EXPECT_NE(why.find("has shape [2, 64, 48] but the matmul's output is "
                     "[64, 48]"),
            std::string::npos)
      << why;
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>) -> tensor<64xbf16> {
      %m = fuse.matmul %a, %b : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
      %s = fuse.reduce_sum %m axes = [1] : tensor<64x48xbf16> -> tensor<64xbf16>
      return %s : tensor<64xbf16>
    })mlir"));
  EXPECT_NE(why.find("cannot run in a GEMM epilogue"), std::string::npos)
      << why;
  EXPECT_FALSE(analyze(R"mlir(
    func.func @f(%a: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
      %e = fuse.exp %a : tensor<64x32xbf16>
      return %e : tensor<64x32xbf16>
    })mlir"));
  EXPECT_EQ(why, "the kernel holds no matmul or conv2d");
}

TEST(MatmulTiling, ParsesAndFormats) {
  std::string error;
  std::optional<opfuse::MatmulTiling> tiling =
      opfuse::parseMatmulTiling("128x256x64/2x4/3", error);
  ASSERT_TRUE(tiling.has_value()) << error;
  EXPECT_EQ(tiling->blockM, 128);
  EXPECT_EQ(tiling->blockN, 256);
  EXPECT_EQ(tiling->blockK, 64);
  EXPECT_EQ(tiling->warpsM, 2);
  EXPECT_EQ(tiling->warpsN, 4);
  EXPECT_EQ(tiling->stages, 3);
  EXPECT_EQ(tiling->sharedBytes(), 3 * (128 + 256) * 64 * 2);
  EXPECT_EQ(opfuse::formatMatmulTiling(*tiling), "128x256x64/2x4/3");
  EXPECT_EQ(opfuse::formatMatmulTiling(opfuse::MatmulTiling()),
            "128x128x32/2x2/4");
}

TEST(MatmulTiling, RejectsWhatTheKernelCannotRun) {
  auto rejects = [](llvm::StringRef text, llvm::StringRef reason) {
    std::string error;
    EXPECT_FALSE(opfuse::parseMatmulTiling(text, error).has_value())
        << text.str();
    EXPECT_NE(error.find(reason.str()), std::string::npos) << error;
  };
  rejects("128x128x32", "is not [wgmma:]BMxBNxBK/WMxWN/S");
  rejects("128x128x32/2x2/0", "positive integers");
  rejects("128xAx32/2x2/4", "positive integers");
  rejects("96x128x32/4x2/4", "multiple of 16");
  rejects("128x128x24/2x2/4", "BK must be a multiple of 16");
  rejects("512x512x32/8x8/2", "at most 32 warps");
  rejects("128x128x32/2x2/1", "at least 2 stages");
  rejects("256x256x64/2x2/4", "bytes of shared memory");
  rejects("wgmma:128x256x64/2x2/4", "WN must be 1 and BM = 64 x WM");
  rejects("wgmma:128x320x64/2x1/3", "BN must be a multiple of 64, at most 256");
  rejects("wgmma:128x256x32/2x1/4", "BK must be 64");
  rejects("wgmma:128x256x64/2x1/2", "at least 3 stages");
  rejects("wgmma:320x64x64/5x1/3", "at most 4 warpgroups");
  rejects("wgmma:256x256x64/4x1/4", "bytes of shared memory");
  std::string error;
  EXPECT_FALSE(
      opfuse::resolveMatmulTiling("wgmma:128x256x64/2x1/4", "sm_80", error));
  EXPECT_NE(error.find("wgmma needs sm_90"), std::string::npos) << error;
  std::optional<opfuse::MatmulTiling> hopper =
      opfuse::resolveMatmulTiling("auto", "sm_90", error);
  ASSERT_TRUE(hopper);
  EXPECT_EQ(opfuse::formatMatmulTiling(*hopper), "wgmma:128x256x64/2x1/4");
  EXPECT_EQ(hopper->threads(), 256);
  std::optional<opfuse::MatmulTiling> ampere =
      opfuse::resolveMatmulTiling("auto", "sm_80", error);
  ASSERT_TRUE(ampere);
  EXPECT_EQ(opfuse::formatMatmulTiling(*ampere), "128x128x32/2x2/4");
  EXPECT_EQ(ampere->threads(), 128);
}

} // namespace
