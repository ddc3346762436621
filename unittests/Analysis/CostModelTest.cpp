//===- CostModelTest.cpp - Roofline predictions computed by hand ----------===//
//
// A target with round numbers makes every expectation checkable on paper:
// 1 TB/s HBM, 4 TB/s L2 (1 MiB of it), 10 TFLOP/s FP32, 100 TFLOP/s
// tensor, 100 GB/s links, 5 us per launch, efficiency 1.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/CostModel.h"

#include "../Dialect/FuseTestUtils.h"

using namespace opfuse;
using namespace mlir;
using namespace opfuse::fuse;

namespace {

GpuTarget roundTarget() {
  GpuTarget t;
  t.name = "round";
  t.hbmBandwidth = 1e12;
  t.l2Bandwidth = 4e12;
  t.l2Bytes = 1 << 20;
  t.linkBandwidth = 100e9;
  t.fp32Flops = 10e12;
  t.tf32TensorFlops = 50e12;
  t.fp16TensorFlops = 100e12;
  t.launchOverhead = 5e-6;
  return t;
}

class CostModelTest : public opfuse::test::FuseTest {
protected:
  CostModel model{roundTarget()};

  Prediction predictFirst(llvm::StringRef source) {
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    GraphAnalysis graph = analyzeFunction(func, model);
    EXPECT_EQ(graph.kernels.size(), 1u);
    return graph.kernels.empty() ? Prediction() : graph.kernels[0].prediction;
  }
};

TEST_F(CostModelTest, MemoryBoundElementwise) {
  // 1M f32 in, 1M f32 out: 8 MiB from HBM (more than the 1 MiB L2) at
  // 1 TB/s; 1M FLOPs at 10 TFLOP/s is 0.1 us, hidden under 8.39 us.
  Prediction p = predictFirst(R"(
    func.func @f(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
      %0 = fuse.exp %x : tensor<1048576xf32>
      return %0 : tensor<1048576xf32>
    })");
  EXPECT_EQ(p.bound, BoundKind::Memory);
  EXPECT_FALSE(p.fitsInL2);
  EXPECT_NEAR(p.memorySeconds, 8388608 / 1e12, 1e-15);
  EXPECT_NEAR(p.computeSeconds, 1048576 / 10e12, 1e-15);
  // The launch overhead and the latency every kernel pays beyond it.
  EXPECT_NEAR(p.seconds(),
              8388608 / 1e12 + 5e-6 + GpuTarget::kDefaultKernelLatency, 1e-15);
}

TEST_F(CostModelTest, SmallKernelStreamsFromL2) {
  // 64K f32 in and out: 512 KiB fit the 1 MiB L2, at 4 TB/s.
  Prediction p = predictFirst(R"(
    func.func @f(%x: tensor<65536xf32>) -> tensor<65536xf32> {
      %0 = fuse.relu %x : tensor<65536xf32>
      return %0 : tensor<65536xf32>
    })");
  EXPECT_TRUE(p.fitsInL2);
  EXPECT_NEAR(p.memorySeconds, 524288 / 4e12, 1e-15);
}

TEST_F(CostModelTest, MatmulBoundDependsOnShape) {
  // bf16 1x1024 by 1024x1024: 2 MFLOP over 2 MiB + 4 KiB: 1 FLOP/B,
  // memory-bound although a matmul is compute-class.
  Prediction gemv = predictFirst(R"(
    func.func @f(%a: tensor<1x1024xbf16>, %w: tensor<1024x1024xbf16>) -> tensor<1x1024xbf16> {
      %0 = fuse.matmul %a, %w : (tensor<1x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1x1024xbf16>
      return %0 : tensor<1x1024xbf16>
    })");
  EXPECT_EQ(gemv.bound, BoundKind::Memory);
  // bf16 4096^3: 137 GFLOP at 100 TFLOP/s (tensor cores) = 1.374 ms,
  // against 96 MiB at 1 TB/s = 0.1 ms: compute-bound.
  Prediction gemm = predictFirst(R"(
    func.func @f(%a: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
      %0 = fuse.matmul %a, %w : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
      return %0 : tensor<4096x4096xbf16>
    })");
  EXPECT_EQ(gemm.bound, BoundKind::Compute);
  EXPECT_NEAR(gemm.computeSeconds, 2.0 * 4096 * 4096 * 4096 / 100e12, 1e-12);
}

TEST_F(CostModelTest, F32MatmulRunsOnFmasAtAShareOfTheFp32Rate) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"(
    func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
      %0 = fuse.matmul %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
      return %0 : tensor<64x64xf32>
    })");
  // An f32 GEMM on FMAs reaches 39% of the FP32 ceiling (fitted on
  // bench/graphs/matmul_f32_4096.mlir, docs/cost-model.md).
  Operation *matmul = &func.getBody().front().front();
  EXPECT_DOUBLE_EQ(model.flopsCeiling(matmul), 0.39 * 10e12);
  EXPECT_DOUBLE_EQ(model.ridge(matmul), 0.39 * 10.0);
}

TEST_F(CostModelTest, FewRowsComputeTheirTilesPadding) {
  // 8 rows of bf16 against a 512x512 weight: a 16-row skinny tile, twice
  // the MMAs; 8 rows of f32 fill an eighth of a 64-row tile.
  auto computeSeconds = [&](llvm::StringRef element) {
    std::string source = (llvm::Twine(R"(
      func.func @f(%a: tensor<8x512x)") +
                          element + R"(>, %b: tensor<512x512x)" + element +
                          R"(>) -> tensor<8x512x)" + element + R"(> {
        %0 = fuse.matmul %a, %b : (tensor<8x512x)" +
                          element + R"(>, tensor<512x512x)" + element +
                          R"(>) -> tensor<8x512x)" + element + R"(>
        return %0 : tensor<8x512x)" +
                          element + R"(>
      })")
                             .str();
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    Operation *matmul = &func.getBody().front().front();
    return std::make_pair(model.work(matmul).computeSeconds,
                          2.0 * 8 * 512 * 512 / model.flopsCeiling(matmul));
  };
  auto [bf16, bf16Unpadded] = computeSeconds("bf16");
  EXPECT_DOUBLE_EQ(bf16, 2 * bf16Unpadded);
  auto [f32, f32Unpadded] = computeSeconds("f32");
  EXPECT_DOUBLE_EQ(f32, 8 * f32Unpadded);
}

TEST_F(CostModelTest, PersistentAttentionBlocksPayHalfTheBlockTerm) {
  // 64 x 4 query tiles of 128 rows on a target of 132 SMs: without a
  // causal mask and at 512 keys the blocks persist and each pays half the
  // per-block term; under a causal mask a block each pays all of it.
  auto equivalent = [&](bool causal) {
    std::string source =
        (llvm::Twine("func.func @f(%q: tensor<4x16x512x64xbf16>, %k: "
                     "tensor<4x16x512x64xbf16>, %v: tensor<4x16x512x64xbf16>) "
                     "-> tensor<4x16x512x64xbf16> {\n"
                     "  %0 = fuse.attention %q, %k, %v scale = 1.25e-01 ") +
         (causal ? "causal " : "") +
         ": (tensor<4x16x512x64xbf16>, tensor<4x16x512x64xbf16>, "
         "tensor<4x16x512x64xbf16>) -> tensor<4x16x512x64xbf16>\n"
         "  return %0 : tensor<4x16x512x64xbf16>\n}")
            .str();
    GpuTarget hopper = roundTarget();
    hopper.chip = "sm_90";
    hopper.smCount = 132;
    CostModel sm90{hopper};
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    auto attention = cast<AttentionOp>(&func.getBody().front().front());
    return attention.getFlops() / sm90.flopsCeiling(attention) * 100e12;
  };
  const double scores = 64.0 * 512 * 512, blocks = 64 * 4;
  EXPECT_NEAR(equivalent(false),
              0.545 * scores * 256 + 215.3 * scores + 0.5 * 12640324.0 * blocks,
              1.0);
  // Causal: the diagonal's tiles are computed whole (10 of 16 per head).
  const double causalScores = 64.0 * 10 * 128 * 128;
  EXPECT_NEAR(equivalent(true),
              0.545 * causalScores * 256 + 215.3 * causalScores +
                  12640324.0 * blocks,
              1.0);
}

TEST_F(CostModelTest, AttentionKernelTimeOnSm90AndShareElsewhere) {
  // bf16, B x H = 1 x 2, 256 queries and keys, head dims 64: 131072
  // visible scores, 131072 x (2 x 64 + 2 x 64 + 5) FLOPs. On sm_90 the
  // kernel takes 0.545 x 131072 x 256 (the products) + 215.3 x 131072
  // (the softmax) + 12640324 x 4 blocks of 128 rows, in FLOPs at the 100
  // TFLOP/s ceiling; before sm_90, 0.42 of the ceiling.
  const char *source = R"(
    func.func @f(%q: tensor<1x2x256x64xbf16>, %k: tensor<1x2x256x64xbf16>, %v: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
      %0 = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16>
      return %0 : tensor<1x2x256x64xbf16>
    })";
  const double scores = 131072, flops = scores * 261;
  GpuTarget hopper = roundTarget();
  hopper.chip = "sm_90";
  CostModel sm90{hopper};
  func::FuncOp func = parseFirst<func::FuncOp>(source);
  Operation *attention = &func.getBody().front().front();
  const double equivalent =
      0.545 * scores * 256 + 215.3 * scores + 12640324.0 * 4;
  EXPECT_NEAR(flops / sm90.flopsCeiling(attention), equivalent / 100e12, 1e-15);
  // --no-tma: the cp.async-fed kernel, 1.2x the TMA-fed one's time.
  CostModel noTma{hopper};
  noTma.setAttentionTma(false);
  EXPECT_NEAR(flops / noTma.flopsCeiling(attention), 1.2 * equivalent / 100e12,
              1e-15);
  GpuTarget ampere = roundTarget();
  ampere.chip = "sm_80";
  CostModel sm80{ampere};
  EXPECT_NEAR(flops / sm80.flopsCeiling(attention), flops / (0.42 * 100e12),
              1e-15);
}

TEST_F(CostModelTest, AttentionCountsTheScoresOfWholeTiles) {
  // Causal, 256 queries and 200 keys: query tile 0 computes its diagonal
  // key tile whole, tile 1 both key tiles (the second 128 keys wide
  // though 72 exist): 3 tiles of 128 x 128 a head, 98304 scores for two
  // heads, where 2 x 31300 pairs are visible.
  func::FuncOp func = parseFirst<func::FuncOp>(R"(
    func.func @f(%q: tensor<1x2x256x64xbf16>, %k: tensor<1x2x200x64xbf16>, %v: tensor<1x2x200x64xbf16>) -> tensor<1x2x256x64xbf16> {
      %0 = fuse.attention %q, %k, %v scale = 1.250000e-01 causal : (tensor<1x2x256x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>) -> tensor<1x2x256x64xbf16>
      return %0 : tensor<1x2x256x64xbf16>
    })");
  auto attention = cast<AttentionOp>(func.getBody().front().front());
  GpuTarget hopper = roundTarget();
  hopper.chip = "sm_90";
  CostModel sm90{hopper};
  const double scores = 98304;
  const double equivalent =
      0.545 * scores * 256 + 215.3 * scores + 12640324.0 * 4;
  EXPECT_NEAR(attention.getFlops() / sm90.flopsCeiling(attention),
              equivalent / 100e12, 1e-15);
}

TEST_F(CostModelTest, AttentionOfFewerBlocksThanSmsTakesItsLongestBlock) {
  // The 4 blocks of 128 query rows of the first test on 100 SMs: the
  // kernel takes as long as one block's 2 key tiles (32768 scores) at a
  // hundredth of the ceiling, more than the 4 blocks' sum at all of it.
  func::FuncOp func = parseFirst<func::FuncOp>(R"(
    func.func @f(%q: tensor<1x2x256x64xbf16>, %k: tensor<1x2x256x64xbf16>, %v: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16> {
      %0 = fuse.attention %q, %k, %v scale = 1.250000e-01 : (tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xbf16>
      return %0 : tensor<1x2x256x64xbf16>
    })");
  auto attention = cast<AttentionOp>(func.getBody().front().front());
  GpuTarget hopper = roundTarget();
  hopper.chip = "sm_90";
  hopper.smCount = 100;
  CostModel sm90{hopper};
  const double block = 0.545 * 32768 * 256 + 215.3 * 32768 + 12640324.0;
  EXPECT_NEAR(attention.getFlops() / sm90.flopsCeiling(attention),
              100 * block / 100e12, 1e-15);
}

TEST_F(CostModelTest, RingAllReduceIsLinkBound) {
  // 4 devices, 1 MiB of f32 each: a ring sends 2 x 1 MiB x 3/4 = 1.5 MiB
  // per device, 15.7 us at 100 GB/s.
  Prediction p = predictFirst(R"(
    func.func @f(%x: tensor<262144xf32>) -> tensor<262144xf32> {
      %0 = fuse.all_reduce sum, %x devices = 4 : tensor<262144xf32>
      return %0 : tensor<262144xf32>
    })");
  EXPECT_EQ(p.bound, BoundKind::Communication);
  EXPECT_NEAR(p.linkSeconds, 1572864 / 100e9, 1e-15);
}

TEST(ScheduleSecondsTest, ChunksBesideTheKernelsPipeline) {
  // GEMM chunks of 10 us, each followed by its all_reduce of 15 us beside
  // the kernels: 0-10 g0, 10-25 c0, 10-20 g1, 25-40 c1 (it waits for c0).
  std::vector<ScheduledStep> steps = {{10, false, false, {}},
                                      {15, true, false, {0}},
                                      {10, false, false, {}},
                                      {15, true, false, {2}}};
  EXPECT_DOUBLE_EQ(scheduleSeconds(steps), 40);
  // A kernel reading both reduced chunks starts at 40.
  steps.push_back({5, false, false, {1, 3}});
  EXPECT_DOUBLE_EQ(scheduleSeconds(steps), 45);
  // On one stream the same steps take their sum.
  for (ScheduledStep &step : steps)
    step.beside = false;
  EXPECT_DOUBLE_EQ(scheduleSeconds(steps), 55);
}

TEST(ScheduleSecondsTest, ACollectiveOnTheKernelsStreamWaitsForThoseBeside) {
  // c0 beside (0-30) while k1 runs (0-10); c1 on the kernels' stream joins
  // the streams first: 30-35, then k2 35-36.
  std::vector<ScheduledStep> steps = {{30, true, false, {}},
                                      {10, false, false, {}},
                                      {5, false, true, {}},
                                      {1, false, false, {}}};
  EXPECT_DOUBLE_EQ(scheduleSeconds(steps), 36);
}

TEST_F(CostModelTest, WindowedChunksHideTheirAllReducesBehindTheNextGemm) {
  GpuTarget target = roundTarget();
  target.smCount = 100;
  CostModel windowed(target);
  // Two chunks of a row-parallel layer as fuse-window-collectives leaves
  // them: each GEMM leaves 20 of the 100 SMs to NCCL, so it computes
  // 100 / 80 slower; chunk 0's all_reduce runs beside chunk 1's GEMM.
  func::FuncOp func = parseFirst<func::FuncOp>(R"(
    func.func @f(%a: tensor<512x1024xbf16>, %b: tensor<512x1024xbf16>, %w: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
      %p0 = fuse.matmul %a, %w {fuse.overlap_sms = 20 : i64} : (tensor<512x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<512x1024xbf16>
      %r0 = fuse.all_reduce sum, %p0 devices = 2 {fuse.overlap_sms = 20 : i64} : tensor<512x1024xbf16>
      %p1 = fuse.matmul %b, %w {fuse.overlap_sms = 20 : i64} : (tensor<512x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<512x1024xbf16>
      %r1 = fuse.all_reduce sum, %p1 devices = 2 {fuse.overlap_sms = 20 : i64} : tensor<512x1024xbf16>
      %j = fuse.concat %r0, %r1 axis = 0 : (tensor<512x1024xbf16>, tensor<512x1024xbf16>) -> tensor<1024x1024xbf16>
      return %j : tensor<1024x1024xbf16>
    })");
  GraphAnalysis graph = analyzeFunction(func, windowed);
  ASSERT_EQ(graph.kernels.size(), 5u);
  const double flops = 2.0 * 512 * 1024 * 1024;
  EXPECT_NEAR(graph.kernels[0].prediction.computeSeconds,
              flops / 100e12 * 100 / 80, 1e-12);
  EXPECT_TRUE(graph.kernels[1].beside);
  EXPECT_FALSE(graph.kernels[2].beside);
  EXPECT_EQ(graph.kernels[4].reads, (std::vector<size_t>{1, 3}));
  EXPECT_EQ(graph.overlappedSteps(), 2);
  const double g = graph.kernels[0].prediction.seconds();
  const double c = graph.kernels[1].prediction.seconds();
  const double join = graph.kernels[4].prediction.seconds();
  // g0, then c0 beside g1, then c1, then the concat's kernel.
  EXPECT_NEAR(graph.seconds(), g + std::max(g, c) + c + join, 1e-12);
  EXPECT_NEAR(graph.serialSeconds(), 2 * g + 2 * c + join, 1e-12);
  EXPECT_NEAR(graph.hiddenSeconds(), std::min(g, c), 1e-12);
}

TEST_F(CostModelTest, GroupCostsItsBoundaryOnly) {
  // add + exp on 1M f32 in one kernel: reads x (4 MiB) and the 1024-float
  // bias (4 KiB), writes 4 MiB; the intermediate never reaches memory.
  func::FuncOp func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
      %0 = fuse.group(%x, %b) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32> {
      ^bb0(%a: tensor<1024x1024xf32>, %c: tensor<1024xf32>):
        %1 = fuse.add %a, %c : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
        %2 = fuse.exp %1 : tensor<1024x1024xf32>
        fuse.yield %2 : tensor<1024x1024xf32>
      }
      return %0 : tensor<1024x1024xf32>
    })");
  GraphAnalysis graph = analyzeFunction(func, model);
  ASSERT_EQ(graph.kernels.size(), 1u);
  const KernelAnalysis &kernel = graph.kernels[0];
  EXPECT_EQ(kernel.work.bytes, 2 * 4194304 + 4096);
  EXPECT_DOUBLE_EQ(kernel.work.flops, 2.0 * 1048576);
  EXPECT_EQ(kernel.ops, (std::vector<std::string>{"add", "exp"}));
  EXPECT_EQ(kernel.opClass, "memory");
  EXPECT_EQ(kernel.name, "f_k0");
}

TEST_F(CostModelTest, WindowsKernelIsBoundByIssuingItsOpsAndReadingWindows) {
  // Three windows of x along its rows, summed: 8192 f32 outputs. Each of
  // the 5 ops costs a lane instruction an element and each window its 4
  // bytes an element through L1 (a byte a lane cycle), all at half the
  // FP32 FLOP rate: (5 + 3 * 4) * 8192 lane cycles at 5e12/s = 27.9 ns,
  // above the adds' 16384 FLOPs (1.6 ns) and the 69760 bytes from the L2
  // (17.4 ns).
  Prediction p = predictFirst(R"(
    func.func @f(%x: tensor<1x34x34x8xf32>) -> tensor<1x32x32x8xf32> {
      %0 = fuse.group(%x) : (tensor<1x34x34x8xf32>) -> tensor<1x32x32x8xf32> {
      ^bb0(%a: tensor<1x34x34x8xf32>):
        %1 = fuse.slice %a offsets = [0, 0, 0, 0] sizes = [1, 32, 32, 8] strides = [1, 1, 1, 1] : tensor<1x34x34x8xf32> -> tensor<1x32x32x8xf32>
        %2 = fuse.slice %a offsets = [0, 0, 1, 0] sizes = [1, 32, 32, 8] strides = [1, 1, 1, 1] : tensor<1x34x34x8xf32> -> tensor<1x32x32x8xf32>
        %3 = fuse.slice %a offsets = [0, 0, 2, 0] sizes = [1, 32, 32, 8] strides = [1, 1, 1, 1] : tensor<1x34x34x8xf32> -> tensor<1x32x32x8xf32>
        %4 = fuse.add %1, %2 : (tensor<1x32x32x8xf32>, tensor<1x32x32x8xf32>) -> tensor<1x32x32x8xf32>
        %5 = fuse.add %4, %3 : (tensor<1x32x32x8xf32>, tensor<1x32x32x8xf32>) -> tensor<1x32x32x8xf32>
        fuse.yield %5 : tensor<1x32x32x8xf32>
      }
      return %0 : tensor<1x32x32x8xf32>
    })");
  EXPECT_EQ(p.bound, BoundKind::Compute);
  EXPECT_NEAR(p.computeSeconds, (5 + 3 * 4) * 8192 / 5e12, 1e-15);
  EXPECT_NEAR(p.memorySeconds, (34 * 34 * 8 + 32 * 32 * 8) * 4 / 4e12, 1e-15);
}

TEST_F(CostModelTest, NeighbouringRowsShareTheirWindows) {
  // A row of three bf16 windows of stride 2 (offsets 0-2 along the row)
  // and a lone window one row down, summed, each thread computing 4
  // neighbouring outputs of a row (--window-rows): the row of taps is 9
  // distinct windows for 4 outputs (columns 0-8), so each of its slices
  // costs 9/12 of its lane cycles (an element and its 2 bytes); the lone
  // window costs them all; the 3 adds an element each:
  // (3 * 3 * 0.75 + 3 + 3) * 8192 lane cycles at 5e12/s = 20.9 ns, above
  // the 51744 bytes from the L2 (12.9 ns).
  model.setWindowRowsOf([](Operation *) -> int64_t { return 4; });
  Prediction p = predictFirst(R"(
    func.func @f(%x: tensor<1x34x65x8xbf16>) -> tensor<1x32x32x8xbf16> {
      %0 = fuse.group(%x) : (tensor<1x34x65x8xbf16>) -> tensor<1x32x32x8xbf16> {
      ^bb0(%a: tensor<1x34x65x8xbf16>):
        %1 = fuse.slice %a offsets = [0, 0, 0, 0] sizes = [1, 32, 32, 8] strides = [1, 1, 2, 1] : tensor<1x34x65x8xbf16> -> tensor<1x32x32x8xbf16>
        %2 = fuse.slice %a offsets = [0, 0, 1, 0] sizes = [1, 32, 32, 8] strides = [1, 1, 2, 1] : tensor<1x34x65x8xbf16> -> tensor<1x32x32x8xbf16>
        %3 = fuse.add %1, %2 : (tensor<1x32x32x8xbf16>, tensor<1x32x32x8xbf16>) -> tensor<1x32x32x8xbf16>
        %4 = fuse.slice %a offsets = [0, 0, 2, 0] sizes = [1, 32, 32, 8] strides = [1, 1, 2, 1] : tensor<1x34x65x8xbf16> -> tensor<1x32x32x8xbf16>
        %5 = fuse.slice %a offsets = [0, 1, 0, 0] sizes = [1, 32, 32, 8] strides = [1, 1, 2, 1] : tensor<1x34x65x8xbf16> -> tensor<1x32x32x8xbf16>
        %6 = fuse.add %4, %5 : (tensor<1x32x32x8xbf16>, tensor<1x32x32x8xbf16>) -> tensor<1x32x32x8xbf16>
        %7 = fuse.add %3, %6 : (tensor<1x32x32x8xbf16>, tensor<1x32x32x8xbf16>) -> tensor<1x32x32x8xbf16>
        fuse.yield %7 : tensor<1x32x32x8xbf16>
      }
      return %0 : tensor<1x32x32x8xbf16>
    })");
  EXPECT_EQ(p.bound, BoundKind::Compute);
  EXPECT_NEAR(p.computeSeconds, (3 * 3 * 0.75 + 3 + 3) * 8192 / 5e12, 1e-15);
}

TEST_F(CostModelTest, GraphSumsKernelsAndSkipsFreeOps) {
  // The reshape and the constant launch nothing: two kernels, each 5 us of
  // launch plus its bytes.
  func::FuncOp func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<4x8xf32>) -> tensor<32xf32> {
      %c = fuse.constant dense<2.0> : tensor<f32>
      %0 = fuse.mul %x, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
      %1 = fuse.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
      %2 = fuse.relu %1 : tensor<32xf32>
      return %2 : tensor<32xf32>
    })");
  GraphAnalysis graph = analyzeFunction(func, model);
  ASSERT_EQ(graph.kernels.size(), 2u);
  EXPECT_EQ(graph.kernels[1].name, "f_k1");
  EXPECT_NEAR(graph.seconds(),
              graph.kernels[0].prediction.seconds() +
                  graph.kernels[1].prediction.seconds(),
              1e-18);
  EXPECT_GT(graph.seconds(), 10e-6);
}

TEST_F(CostModelTest, WorkSecondsLeavesOutTheLaunch) {
  Work work;
  work.bytes = 2 << 20; // beyond the L2
  EXPECT_NEAR(model.workSeconds(work), (2 << 20) / 1e12, 1e-15);
  work.computeSeconds = 1e-3;
  EXPECT_NEAR(model.workSeconds(work), 1e-3, 1e-15);
  EXPECT_EQ(model.predict(work).bound, BoundKind::Compute);
}

} // namespace
