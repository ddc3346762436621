//===- CostInterfaceTest.cpp - FLOP and byte formulas of every op kind ----===//
//
// Each expectation is computed by hand from the formula in the op's
// description (docs/cost-model.md), not read back from the implementation.
//
//===----------------------------------------------------------------------===//

#include "FuseTestUtils.h"

using namespace opfuse;
using namespace opfuse::fuse;
using opfuse::test::Cost;
using opfuse::test::costOf;

namespace {

class CostInterfaceTest : public opfuse::test::FuseTest {
protected:
  /// Wraps `body` (ops using %x..) in a function with `args` and returns the
  /// cost of its first `OpTy`.
  template <typename OpTy>
  Cost cost(llvm::StringRef args, llvm::StringRef body) {
    std::string source =
        ("func.func @f(" + args + ") {\n" + body + "\n  return\n}\n").str();
    OpTy op = parseFirst<OpTy>(source);
    if (!op)
      return {-1, -1, -1, -1};
    return costOf(llvm::cast<CostInterface>(op.getOperation()));
  }
};

TEST_F(CostInterfaceTest, UnaryCountsPerElement) {
  // 32 f32 elements: 128 bytes in, 128 bytes out.
  EXPECT_EQ((cost<ExpOp>("%x: tensor<4x8xf32>",
                         "%0 = fuse.exp %x : tensor<4x8xf32>")),
            (Cost{32, 128, 128, 0}));
  EXPECT_EQ((cost<SigmoidOp>("%x: tensor<4x8xf32>",
                             "%0 = fuse.sigmoid %x : tensor<4x8xf32>")),
            (Cost{4 * 32, 128, 128, 0}));
  EXPECT_EQ((cost<SiluOp>("%x: tensor<4x8xbf16>",
                          "%0 = fuse.silu %x : tensor<4x8xbf16>")),
            (Cost{5 * 32, 64, 64, 0}));
  EXPECT_EQ(
      (cost<NegOp>("%x: tensor<10xi64>", "%0 = fuse.neg %x : tensor<10xi64>")),
      (Cost{10, 80, 80, 0}));
}

TEST_F(CostInterfaceTest, GeluDependsOnApproximation) {
  EXPECT_EQ((cost<GeluOp>("%x: tensor<4x8xf32>",
                          "%0 = fuse.gelu %x approximate = none : "
                          "tensor<4x8xf32>")),
            (Cost{5 * 32, 128, 128, 0}));
  EXPECT_EQ((cost<GeluOp>("%x: tensor<4x8xf32>",
                          "%0 = fuse.gelu %x approximate = tanh : "
                          "tensor<4x8xf32>")),
            (Cost{9 * 32, 128, 128, 0}));
}

TEST_F(CostInterfaceTest, CastMovesBytesWithoutArithmetic) {
  // f32 -> bf16 halves the bytes written.
  EXPECT_EQ((cost<CastOp>("%x: tensor<4x8xf32>",
                          "%0 = fuse.cast %x : tensor<4x8xf32> to "
                          "tensor<4x8xbf16>")),
            (Cost{0, 128, 64, 0}));
}

TEST_F(CostInterfaceTest, BinaryCountsResultElementsAndReadsBothOperands) {
  // [4,8] + [8]: 32 adds; reads 128 + 32 bytes, writes 128.
  EXPECT_EQ((cost<AddOp>("%x: tensor<4x8xf32>, %b: tensor<8xf32>",
                         "%0 = fuse.add %x, %b : (tensor<4x8xf32>, "
                         "tensor<8xf32>) -> tensor<4x8xf32>")),
            (Cost{32, 160, 128, 0}));
  // Both operands broadcast: [4,1] * [8] makes 32 elements from 16+32 bytes.
  EXPECT_EQ((cost<MulOp>("%x: tensor<4x1xf32>, %b: tensor<8xf32>",
                         "%0 = fuse.mul %x, %b : (tensor<4x1xf32>, "
                         "tensor<8xf32>) -> tensor<4x8xf32>")),
            (Cost{32, 48, 128, 0}));
  // x * x reads x once: 128 bytes, not 256.
  EXPECT_EQ((cost<MulOp>("%x: tensor<4x8xf32>",
                         "%0 = fuse.mul %x, %x : (tensor<4x8xf32>, "
                         "tensor<4x8xf32>) -> tensor<4x8xf32>")),
            (Cost{32, 128, 128, 0}));
}

TEST_F(CostInterfaceTest, CompareWritesOneBytePerBool) {
  EXPECT_EQ((cost<CompareOp>("%x: tensor<4x8xf32>, %t: tensor<f32>",
                             "%0 = fuse.compare gt, %x, %t : (tensor<4x8xf32>, "
                             "tensor<f32>) -> tensor<4x8xi1>")),
            (Cost{32, 132, 32, 0}));
}

TEST_F(CostInterfaceTest, SelectIsNotArithmetic) {
  EXPECT_EQ((cost<SelectOp>(
                "%c: tensor<4x8xi1>, %x: tensor<4x8xf32>, %z: tensor<f32>",
                "%0 = fuse.select %c, %x, %z : (tensor<4x8xi1>, "
                "tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>")),
            (Cost{0, 32 + 128 + 4, 128, 0}));
}

TEST_F(CostInterfaceTest, ConstantsCostNothing) {
  EXPECT_EQ((cost<ConstantOp>(
                "", "%0 = fuse.constant dense<1.0> : tensor<1024xf32>")),
            (Cost{0, 0, 0, 0}));
}

TEST_F(CostInterfaceTest, Reductions) {
  // [4,8,16] over axis 2: 512 inputs fold into 32 outputs, 480 adds.
  const char *args = "%x: tensor<4x8x16xf32>";
  EXPECT_EQ((cost<ReduceSumOp>(args, "%0 = fuse.reduce_sum %x axes = [2] "
                                     "keepdims : tensor<4x8x16xf32> -> "
                                     "tensor<4x8x1xf32>")),
            (Cost{480, 2048, 128, 0}));
  EXPECT_EQ((cost<ReduceMaxOp>(args, "%0 = fuse.reduce_max %x axes = [0, 2] "
                                     ": tensor<4x8x16xf32> -> tensor<8xf32>")),
            (Cost{504, 2048, 32, 0}));
  // The mean adds one division per output.
  EXPECT_EQ((cost<ReduceMeanOp>(args, "%0 = fuse.reduce_mean %x axes = [2] "
                                      ": tensor<4x8x16xf32> -> "
                                      "tensor<4x8xf32>")),
            (Cost{480 + 32, 2048, 128, 0}));
}

TEST_F(CostInterfaceTest, Softmax) {
  // 16 x 1024 f32: 5 operations per element.
  EXPECT_EQ((cost<SoftmaxOp>("%x: tensor<16x1024xf32>",
                             "%0 = fuse.softmax %x axis = 1 : "
                             "tensor<16x1024xf32>")),
            (Cost{5 * 16384, 65536, 65536, 0}));
}

TEST_F(CostInterfaceTest, LayerNormCountsAffineAndRows) {
  // 16 rows of 4096 f32: (5 + scale + bias) per element + 4 per row; reads
  // the input and both 4096-element parameters.
  EXPECT_EQ((cost<LayerNormOp>(
                "%x: tensor<16x4096xf32>, %g: tensor<4096xf32>, "
                "%b: tensor<4096xf32>",
                "%0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = "
                "1.0e-05 : (tensor<16x4096xf32>, tensor<4096xf32>, "
                "tensor<4096xf32>) -> tensor<16x4096xf32>")),
            (Cost{7 * 65536 + 4 * 16, 262144 + 2 * 16384, 262144, 0}));
  EXPECT_EQ((cost<LayerNormOp>("%x: tensor<16x4096xf32>",
                               "%0 = fuse.layer_norm %x axis = 1 epsilon = "
                               "1.0e-05 : (tensor<16x4096xf32>) -> "
                               "tensor<16x4096xf32>")),
            (Cost{5 * 65536 + 4 * 16, 262144, 262144, 0}));
}

TEST_F(CostInterfaceTest, RmsNorm) {
  // bf16: 3 + scale per element, 3 per row.
  EXPECT_EQ((cost<RmsNormOp>("%x: tensor<16x4096xbf16>, %g: tensor<4096xbf16>",
                             "%0 = fuse.rms_norm %x scale %g axis = 1 epsilon "
                             "= 1.0e-06 : (tensor<16x4096xbf16>, "
                             "tensor<4096xbf16>) -> tensor<16x4096xbf16>")),
            (Cost{4 * 65536 + 3 * 16, 131072 + 8192, 131072, 0}));
}

TEST_F(CostInterfaceTest, DataMovement) {
  // A reshape relabels contiguous data: nothing moves.
  EXPECT_EQ((cost<ReshapeOp>("%x: tensor<4x8xf32>",
                             "%0 = fuse.reshape %x : tensor<4x8xf32> -> "
                             "tensor<32xf32>")),
            (Cost{0, 0, 0, 0}));
  EXPECT_EQ((cost<TransposeOp>("%x: tensor<4x8xf32>",
                               "%0 = fuse.transpose %x permutation = [1, 0] : "
                               "tensor<4x8xf32> -> tensor<8x4xf32>")),
            (Cost{0, 128, 128, 0}));
  EXPECT_EQ((cost<BroadcastToOp>("%b: tensor<8xf32>",
                                 "%0 = fuse.broadcast_to %b : tensor<8xf32> "
                                 "-> tensor<4x8xf32>")),
            (Cost{0, 32, 128, 0}));
  // A slice reads only the 12 selected elements.
  EXPECT_EQ((cost<SliceOp>("%x: tensor<4x8xf32>",
                           "%0 = fuse.slice %x offsets = [0, 2] sizes = [4, 3] "
                           "strides = [1, 2] : tensor<4x8xf32> -> "
                           "tensor<4x3xf32>")),
            (Cost{0, 48, 48, 0}));
  EXPECT_EQ((cost<ConcatOp>("%x: tensor<4x8xf32>, %y: tensor<4x2xf32>",
                            "%0 = fuse.concat %x, %y axis = 1 : "
                            "(tensor<4x8xf32>, tensor<4x2xf32>) -> "
                            "tensor<4x10xf32>")),
            (Cost{0, 160, 160, 0}));
  // A gather reads its 6 i32 indices and the 6 x 16 bf16 rows they pick.
  EXPECT_EQ((cost<GatherOp>("%t: tensor<100x16xbf16>, %i: tensor<2x3xi32>",
                            "%0 = fuse.gather %t, %i axis = 0 : "
                            "(tensor<100x16xbf16>, tensor<2x3xi32>) -> "
                            "tensor<2x3x16xbf16>")),
            (Cost{0, 24 + 192, 192, 0}));
}

TEST_F(CostInterfaceTest, MatmulIsTwoMNK) {
  // The seed's 1024^3 f32 matmul: 2.147 GFLOP, 8 MiB in, 4 MiB out.
  EXPECT_EQ((cost<MatmulOp>("%a: tensor<1024x1024xf32>, "
                            "%b: tensor<1024x1024xf32>",
                            "%0 = fuse.matmul %a, %b : (tensor<1024x1024xf32>, "
                            "tensor<1024x1024xf32>) -> tensor<1024x1024xf32>")),
            (Cost{2147483648LL, 8388608, 4194304, 0}));
  // Batched with transpose_b: 2 * 8 * 128 * 128 * 64.
  EXPECT_EQ((cost<MatmulOp>("%q: tensor<8x128x64xf16>, "
                            "%k: tensor<8x128x64xf16>",
                            "%0 = fuse.matmul %q, %k transpose_b : "
                            "(tensor<8x128x64xf16>, tensor<8x128x64xf16>) -> "
                            "tensor<8x128x128xf16>"))
                .flops,
            16777216);
  // transpose_a takes K from the leading dimension: 2 * 64 * 16 * 32.
  EXPECT_EQ((cost<MatmulOp>("%a: tensor<32x64xf32>, %b: tensor<32x16xf32>",
                            "%0 = fuse.matmul %a, %b transpose_a : "
                            "(tensor<32x64xf32>, tensor<32x16xf32>) -> "
                            "tensor<64x16xf32>"))
                .flops,
            65536);
}

TEST_F(CostInterfaceTest, AttentionCountsVisiblePairs) {
  // B = 2, H = 4 (2 key/value heads), Sq = Sk = 8, D = 16, Dv = 8: per
  // (query, key) pair 2 D + 2 Dv + 5 = 53 FLOPs; 64 pairs a head, 36 with
  // causal (1 + 2 + ... + 8). Bytes: q 2048, k 1024, v 512, out 1024 (f16).
  const char *args = "%q: tensor<2x4x8x16xf16>, %k: tensor<2x2x8x16xf16>, "
                     "%v: tensor<2x2x8x8xf16>";
  const char *types = ": (tensor<2x4x8x16xf16>, tensor<2x2x8x16xf16>, "
                      "tensor<2x2x8x8xf16>) -> tensor<2x4x8x8xf16>";
  EXPECT_EQ(
      (cost<AttentionOp>(args, std::string("%0 = fuse.attention %q, %k, %v "
                                           "scale = 2.500000e-01 ") +
                                   types)),
      (Cost{8 * 64 * 53, 2048 + 1024 + 512, 1024, 0}));
  EXPECT_EQ(
      (cost<AttentionOp>(args, std::string("%0 = fuse.attention %q, %k, %v "
                                           "scale = 2.500000e-01 causal ") +
                                   types))
          .flops,
      8 * 36 * 53);
}

TEST_F(CostInterfaceTest, Conv2D) {
  // ResNet 3x3, N=32, 56x56, 64 -> 64: 2 * (32*56*56*64) * (3*3*64).
  const int64_t outputs = 32LL * 56 * 56 * 64;
  EXPECT_EQ(
      (cost<Conv2DOp>("%x: tensor<32x56x56x64xbf16>, "
                      "%w: tensor<64x3x3x64xbf16>",
                      "%0 = fuse.conv2d %x, %w strides = [1, 1] padding "
                      "= [1, 1, 1, 1] dilation = [1, 1] groups = 1 : "
                      "(tensor<32x56x56x64xbf16>, "
                      "tensor<64x3x3x64xbf16>) -> "
                      "tensor<32x56x56x64xbf16>")),
      (Cost{2 * outputs * 576, 2 * outputs + 2 * 64 * 576, 2 * outputs, 0}));
  // Depthwise: each output sums 3*3*1 products.
  EXPECT_EQ((cost<Conv2DOp>("%x: tensor<32x56x56x64xbf16>, "
                            "%w: tensor<64x3x3x1xbf16>",
                            "%0 = fuse.conv2d %x, %w strides = [1, 1] padding "
                            "= [1, 1, 1, 1] dilation = [1, 1] groups = 64 : "
                            "(tensor<32x56x56x64xbf16>, "
                            "tensor<64x3x3x1xbf16>) -> "
                            "tensor<32x56x56x64xbf16>"))
                .flops,
            2 * outputs * 9);
}

TEST_F(CostInterfaceTest, CollectivesUseRingTraffic) {
  // 8192 x 4096 bf16 = 64 MiB over 8 devices.
  const int64_t bytes = 8192LL * 4096 * 2, elements = 8192LL * 4096;
  EXPECT_EQ((cost<AllReduceOp>("%x: tensor<8192x4096xbf16>",
                               "%0 = fuse.all_reduce sum, %x devices = 8 : "
                               "tensor<8192x4096xbf16>")),
            (Cost{elements * 7 / 8, bytes, bytes, 2 * bytes * 7 / 8}));
  EXPECT_EQ((cost<ReduceScatterOp>("%x: tensor<8192x4096xbf16>",
                                   "%0 = fuse.reduce_scatter sum, %x axis = 0 "
                                   "devices = 8 : tensor<8192x4096xbf16> -> "
                                   "tensor<1024x4096xbf16>")),
            (Cost{elements * 7 / 8, bytes, bytes / 8, bytes * 7 / 8}));
  // All-gather of a 128 KiB shard into 1 MiB.
  EXPECT_EQ(
      (cost<AllGatherOp>("%x: tensor<128x512xbf16>",
                         "%0 = fuse.all_gather %x axis = 1 devices = 8 : "
                         "tensor<128x512xbf16> -> tensor<128x4096xbf16>")),
      (Cost{0, 131072, 1048576, 1048576 * 7 / 8}));
  // One device: nothing crosses a link.
  EXPECT_EQ((cost<AllReduceOp>("%x: tensor<64xf32>",
                               "%0 = fuse.all_reduce max, %x devices = 1 : "
                               "tensor<64xf32>")),
            (Cost{0, 256, 256, 0}));
}

TEST_F(CostInterfaceTest, GroupIsOneKernel) {
  // add + relu fused: FLOPs of both, but only the group's inputs are read
  // and its result written; the intermediate never reaches memory.
  EXPECT_EQ((cost<GroupOp>(
                "%x: tensor<4x8xf32>, %b: tensor<8xf32>",
                "%r = fuse.group (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) "
                "-> tensor<4x8xf32> {\n"
                "^bb0(%a: tensor<4x8xf32>, %c: tensor<8xf32>):\n"
                "  %0 = fuse.add %a, %c : (tensor<4x8xf32>, tensor<8xf32>) -> "
                "tensor<4x8xf32>\n"
                "  %1 = fuse.relu %0 : tensor<4x8xf32>\n"
                "  fuse.yield %1 : tensor<4x8xf32>\n}")),
            (Cost{64, 160, 128, 0}));
}

} // namespace
