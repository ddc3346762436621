//===- MatmulTilingChoiceTest.cpp - The tile model's ranking --------------===//
//
// What the tile model may offer (every candidate a valid tiling that fits
// the target's shared memory, of the chip's instruction), how it orders
// them, and the picks the docs quote for the benchmark shapes.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <set>
#include <tuple>

using namespace mlir;
using namespace opfuse;

namespace {

class MatmulTilingChoiceTest : public test::FuseTest {
protected:
  /// The matmul of an MxK @ KxN function in `element`.
  Operation *matmul(int64_t m, int64_t n, int64_t k,
                    llvm::StringRef element = "bf16") {
    std::string source = llvm::formatv(R"mlir(
      func.func @f(%a: tensor<{0}x{2}x{3}>, %b: tensor<{2}x{1}x{3}>) -> tensor<{0}x{1}x{3}> {
        %m = fuse.matmul %a, %b : (tensor<{0}x{2}x{3}>, tensor<{2}x{1}x{3}>) -> tensor<{0}x{1}x{3}>
        return %m : tensor<{0}x{1}x{3}>
      })mlir",
                                       m, n, k, element);
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    return func ? &func.getBody().front().front() : nullptr;
  }

  static GpuTarget target(llvm::StringRef name) {
    return *findBuiltinTarget(name);
  }
};

TEST_F(MatmulTilingChoiceTest, CandidatesAreValidAndSorted) {
  Operation *op = matmul(8192, 11008, 4096);
  ASSERT_TRUE(op);
  std::vector<TilingEstimate> ranked =
      rankMatmulTilings(op, "sm_90", target("h200"));
  ASSERT_GE(ranked.size(), 8u);
  for (size_t i = 0; i < ranked.size(); ++i) {
    const TilingEstimate &estimate = ranked[i];
    std::string error;
    EXPECT_TRUE(parseMatmulTiling(formatMatmulTiling(estimate.tiling), error))
        << formatMatmulTiling(estimate.tiling) << ": " << error;
    EXPECT_EQ(estimate.tiling.instruction, MmaInstruction::Warpgroup);
    EXPECT_GE(estimate.blocksPerSm, 1);
    EXPECT_GT(estimate.seconds, 0);
    if (i > 0) {
      EXPECT_LE(ranked[i - 1].seconds, estimate.seconds * (1 + 1e-6));
    }
  }
}

TEST_F(MatmulTilingChoiceTest, BenchmarkPicks) {
  // docs/cost-model.md compares these with the measured best.
  auto pick = [&](int64_t m, int64_t n, int64_t k) {
    Operation *op = matmul(m, n, k);
    std::vector<TilingEstimate> ranked =
        op ? rankMatmulTilings(op, "sm_90", target("h200"))
           : std::vector<TilingEstimate>();
    return ranked.empty() ? std::string()
                          : formatMatmulTiling(ranked.front().tiling);
  };
  // The measured best of eight tilings each (H200, sustained clocks).
  EXPECT_EQ(pick(8192, 8192, 8192), "wgmma:128x256x64/2x1/4");
  EXPECT_EQ(pick(8192, 11008, 4096), "wgmma:128x256x64/2x1/4");
  EXPECT_EQ(pick(8192, 4096, 11008), "wgmma:128x256x64/2x1/4");
  // 192 columns only when N needs no more.
  auto widths = [&](int64_t n) {
    std::set<int64_t> result;
    for (const TilingEstimate &e :
         rankMatmulTilings(matmul(4096, n, 4096), "sm_90", target("h200")))
      result.insert(e.tiling.blockN);
    return result;
  };
  EXPECT_EQ(widths(4096), (std::set<int64_t>{64, 128, 256}));
  EXPECT_EQ(widths(130), (std::set<int64_t>{64, 128, 192}));
  // No wgmma candidate is wider than N (rounded up to 64) or, with more
  // than one warpgroup, taller than M; the skinny mma.sync ones have one
  // tile row of M rounded up to 16.
  for (const TilingEstimate &e :
       rankMatmulTilings(matmul(40, 64, 512), "sm_90", target("h200"))) {
    if (e.tiling.instruction == MmaInstruction::Warpgroup) {
      EXPECT_EQ(e.tiling.blockN, 64);
      EXPECT_EQ(e.tiling.blockM, 64);
    } else {
      EXPECT_EQ(e.tiling.blockM, 48) << formatMatmulTiling(e.tiling);
      EXPECT_EQ(e.tiling.warpsM, 1) << formatMatmulTiling(e.tiling);
    }
  }
}

TEST_F(MatmulTilingChoiceTest, SkinnyGemmsStreamTheWeight) {
  // A decode step: 8 tokens through a 4096x4096 bf16 weight. One 16-row
  // tile row, K split so that the weight streams through every SM (the
  // weight comes from HBM: no other tile row reads it).
  auto best = [&](int64_t m, int64_t n, int64_t k) {
    std::vector<TilingEstimate> ranked =
        rankMatmulTilings(matmul(m, n, k), "sm_90", target("h200"));
    return ranked.empty() ? MatmulTiling() : ranked.front().tiling;
  };
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{8, 4096, 4096},
                         {1, 14336, 4096},
                         {16, 4096, 14336},
                         {64, 1024, 8192}}) {
    MatmulTiling t = best(m, n, k);
    EXPECT_EQ(t.instruction, MmaInstruction::Sync) << m << "x" << n;
    EXPECT_EQ(t.blockM, std::max<int64_t>(16, m)) << formatMatmulTiling(t);
    EXPECT_EQ(t.warpsM, 1) << formatMatmulTiling(t);
    EXPECT_GT(t.splitK, 1) << formatMatmulTiling(t);
  }
  // Past 64 rows, or with a K of fewer than four 64-wide slices, the
  // ordinary tiles only.
  auto instructions = [&](int64_t m, int64_t n, int64_t k) {
    std::set<MmaInstruction> result;
    for (const TilingEstimate &e :
         rankMatmulTilings(matmul(m, n, k), "sm_90", target("h200")))
      result.insert(e.tiling.instruction);
    return result;
  };
  EXPECT_EQ(instructions(65, 4096, 4096),
            std::set<MmaInstruction>{MmaInstruction::Warpgroup});
  EXPECT_EQ(instructions(8, 4096, 192),
            std::set<MmaInstruction>{MmaInstruction::Warpgroup});
  EXPECT_EQ(instructions(8, 4096, 256).count(MmaInstruction::Sync), 1u);
  // Slices of 128 K take the model's ties with slices of 64 (measured
  // faster on the H200), with four stages only: 256 columns of them do not
  // fit, and are not offered with three.
  EXPECT_EQ(formatMatmulTiling(best(8, 4096, 4096)), "16x128x128/1x4/4/k4");
  EXPECT_EQ(formatMatmulTiling(best(4, 2048, 5632)), "16x64x128/1x2/4/k4");
  EXPECT_EQ(formatMatmulTiling(best(1, 14336, 4096)), "16x256x64/1x8/4/k2");
  for (const TilingEstimate &e :
       rankMatmulTilings(matmul(4, 8192, 8192), "sm_90", target("h200")))
    if (e.tiling.instruction == MmaInstruction::Sync && e.tiling.blockK == 128)
      EXPECT_EQ(e.tiling.stages, 4) << formatMatmulTiling(e.tiling);
}

TEST_F(MatmulTilingChoiceTest, ProducerWarpgroupSharesTheRegisters) {
  // wgmma:128x64x64/2x1/4 on the H200: 98 KiB of stages and barriers fit
  // twice, and 256 threads of 104 registers fit twice; a producer
  // warpgroup (--warp-specialize) makes 384 threads, which fit once: the
  // warp-specialised kernel's persistent grid is one block per SM.
  std::string error;
  std::optional<MatmulTiling> tiling =
      parseMatmulTiling("wgmma:128x64x64/2x1/4", error);
  ASSERT_TRUE(tiling) << error;
  EXPECT_EQ(tiling->sharedBytes(2), 4 * 192 * 64 * 2 + 16 * 4);
  EXPECT_EQ(residentBlocksPerSm(*tiling, 2, target("h200")), 2);
  EXPECT_EQ(residentBlocksPerSm(*tiling, 2, target("h200"), 128), 1);
}

TEST_F(MatmulTilingChoiceTest, WaveQuantization) {
  // The busiest SM's tiles count: with 128x256 tiles, 132 tiles (one per
  // H200 SM) take one tile's time, 133 take two, 528 take four.
  auto seconds = [&](int64_t tilesM) {
    Operation *op = matmul(tilesM * 128, 256, 4096);
    for (const TilingEstimate &e :
         rankMatmulTilings(op, "sm_90", target("h200")))
      if (formatMatmulTiling(e.tiling) == "wgmma:128x256x64/2x1/4")
        return e.seconds;
    return 0.0;
  };
  const double one = seconds(132);
  ASSERT_GT(one, 0);
  EXPECT_DOUBLE_EQ(seconds(133), 2 * one);
  EXPECT_DOUBLE_EQ(seconds(528), 4 * one);
}

TEST_F(MatmulTilingChoiceTest, ChipAndElementType) {
  Operation *op = matmul(4096, 4096, 4096);
  ASSERT_TRUE(op);
  std::vector<TilingEstimate> ampere =
      rankMatmulTilings(op, "sm_80", target("a100"));
  ASSERT_FALSE(ampere.empty());
  for (const TilingEstimate &e : ampere) {
    EXPECT_EQ(e.tiling.instruction, MmaInstruction::Sync);
    // An A100 block has at most 163 KiB of shared memory.
    EXPECT_LE(e.tiling.sharedBytes(), 163 * 1024);
  }
  // f32 operands: mma.sync tilings of 32x32 warps and three stages, on
  // sm_90 too.
  Operation *f32 = matmul(4096, 4096, 4096, "f32");
  ASSERT_TRUE(f32);
  std::vector<TilingEstimate> ranked =
      rankMatmulTilings(f32, "sm_90", target("h200"));
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(formatMatmulTiling(ranked.front().tiling), "128x128x32/4x4/3");
  for (const TilingEstimate &e : ranked) {
    EXPECT_EQ(e.tiling.instruction, MmaInstruction::Sync);
    EXPECT_EQ(e.tiling.blockM / e.tiling.warpsM, 32);
    EXPECT_EQ(e.tiling.blockN / e.tiling.warpsN, 32);
    EXPECT_EQ(e.tiling.stages, 3);
  }
}

TEST_F(MatmulTilingChoiceTest, SplitKFillsIdleSms) {
  // GPT-2's MLP down-projection at 128 tokens: 24 tiles of 64x64 for 132
  // SMs and 96 K slices; K split in four puts 96 blocks to work.
  Operation *skinny = matmul(128, 768, 3072, "f32");
  ASSERT_TRUE(skinny);
  std::vector<TilingEstimate> ranked =
      rankMatmulTilings(skinny, "sm_90", target("h200"));
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(formatMatmulTiling(ranked.front().tiling), "64x64x32/2x2/3/k4");
  for (const TilingEstimate &e : ranked) {
    const MatmulTiling &t = e.tiling;
    if (t.splitK == 1)
      continue;
    // Every split has at least four of the 96 slices, none is empty, and
    // the splits of all tiles fit in two blocks per SM.
    const int64_t perSplit = (96 + t.splitK - 1) / t.splitK;
    EXPECT_GE(perSplit, 4) << formatMatmulTiling(t);
    EXPECT_EQ((96 + perSplit - 1) / perSplit, t.splitK)
        << formatMatmulTiling(t);
    EXPECT_LE(e.tiles * t.splitK, 2 * 132) << formatMatmulTiling(t);
  }
  // Enough tiles for every SM: never split.
  for (const TilingEstimate &e : rankMatmulTilings(
           matmul(4096, 4096, 4096, "f32"), "sm_90", target("h200"))) {
    if (e.tiles >= 132) {
      EXPECT_EQ(e.tiling.splitK, 1) << formatMatmulTiling(e.tiling);
    }
  }
  // A wgmma tiling is split only when its tiles leave half of the SMs
  // idle, and into equal parts (the kernel has one trip count).
  bool warpgroupSplit = false;
  for (const TilingEstimate &e :
       rankMatmulTilings(matmul(128, 768, 3072), "sm_90", target("h200"))) {
    const MatmulTiling &t = e.tiling;
    if (t.instruction != MmaInstruction::Warpgroup || t.splitK == 1)
      continue;
    warpgroupSplit = true;
    EXPECT_LE(2 * e.tiles, 132) << formatMatmulTiling(t);
    EXPECT_EQ((3072 / t.blockK) % t.splitK, 0) << formatMatmulTiling(t);
  }
  EXPECT_TRUE(warpgroupSplit);
  // 2048^3 in bf16: 128 tiles of 128x256 fill the SMs, no split.
  for (const TilingEstimate &e :
       rankMatmulTilings(matmul(2048, 2048, 2048), "sm_90", target("h200"))) {
    if (e.tiling.instruction == MmaInstruction::Warpgroup &&
        e.tiles * 2 > 132) {
      EXPECT_EQ(e.tiling.splitK, 1) << formatMatmulTiling(e.tiling);
    }
  }
}

TEST_F(MatmulTilingChoiceTest, SplitKSyntax) {
  std::string error;
  std::optional<MatmulTiling> split =
      parseMatmulTiling("64x64x32/2x2/3/k8", error);
  ASSERT_TRUE(split) << error;
  EXPECT_EQ(split->splitK, 8);
  EXPECT_EQ(formatMatmulTiling(*split), "64x64x32/2x2/3/k8");
  std::optional<MatmulTiling> whole =
      parseMatmulTiling("64x64x32/2x2/3/k1", error);
  ASSERT_TRUE(whole) << error;
  EXPECT_EQ(formatMatmulTiling(*whole), "64x64x32/2x2/3");
  EXPECT_NE(*split, *whole);
  for (const char *bad : {"64x64x32/2x2/3/k0", "64x64x32/2x2/3/k257",
                          "64x64x32/2x2/3/8", "64x64x32/2x2/3/k8/k2"})
    EXPECT_FALSE(parseMatmulTiling(bad, error)) << bad;
  std::optional<MatmulTiling> wgmma =
      parseMatmulTiling("wgmma:128x128x64/2x1/4/k2", error);
  ASSERT_TRUE(wgmma) << error;
  EXPECT_EQ(formatMatmulTiling(*wgmma), "wgmma:128x128x64/2x1/4/k2");
}

} // namespace
