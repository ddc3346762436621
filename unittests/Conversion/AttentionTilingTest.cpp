//===- AttentionTilingTest.cpp - The attention kernel's tiling and launch -===//
//
// --attention-tiling's syntax, when auto splits a query tile's keys among
// blocks (decode steps whose few query tiles leave SMs idle), the launch
// and workspace such a split kernel asks the runtime for, how many
// heads' query tiles run together (the block order's sections), and when
// blocks persist over several query tiles.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Conversion/FuseToGPU/AttentionEmission.h"
#include "../Dialect/FuseTestUtils.h"

#include "opfuse/Analysis/Target.h"

using namespace mlir;
using namespace opfuse;
using namespace opfuse::attention;

namespace {

class AttentionTilingTest : public test::FuseTest {
protected:
  /// q [b, h, sq, d] against k and v [b, hkv, sk, d], all contiguous.
  AttentionProblem problem(int64_t b, int64_t h, int64_t hkv, int64_t sq,
                           int64_t sk, int64_t d) {
    AttentionProblem p;
    p.elementType = BFloat16Type::get(&context);
    p.batch = b;
    p.heads = h;
    p.kvHeads = hkv;
    p.sq = sq;
    p.sk = sk;
    p.d = p.dv = d;
    auto operand = [&](unsigned input, int64_t heads, int64_t rows) {
      AttentionOperand o;
      AttentionPiece piece;
      piece.input = input;
      piece.strides = {heads * rows * d, rows * d, d, 1};
      piece.rows = rows;
      o.pieces.push_back(piece);
      return o;
    };
    p.q = operand(0, h, sq);
    p.k = operand(1, hkv, sk);
    p.v = operand(2, hkv, sk);
    return p;
  }

  static GpuTarget h200() { return *findBuiltinTarget("h200"); }

  static AttentionTiling autoTiling(const AttentionProblem &p) {
    return chooseAttentionTiling(p, "auto", /*useTma=*/true, h200());
  }
};

TEST_F(AttentionTilingTest, ParsesKeySplits) {
  std::string error;
  std::optional<AttentionTiling> t =
      parseAttentionTiling("wgmma:64x64/k4", error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->keySplits, 4);
  EXPECT_TRUE(t->warpgroup);
  EXPECT_FALSE(t->tma);
  t = parseAttentionTiling("64x32/k64", error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->keySplits, 64);
  EXPECT_FALSE(t->warpgroup);
  t = parseAttentionTiling("tma:128x128", error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->keySplits, 1);
  t = parseAttentionTiling("tma:64x128/k2", error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->keySplits, 2);
  EXPECT_TRUE(t->tma);
  // 192 query rows: three consumer warpgroups, TMA-fed only.
  t = parseAttentionTiling("tma:192x128", error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->warps, 12);
  EXPECT_EQ(t->consumers(), 3);
  EXPECT_EQ(t->threads(), 512);
  for (const char *bad : {"wgmma:192x128", "192x64"}) {
    error.clear();
    EXPECT_FALSE(parseAttentionTiling(bad, error)) << bad;
    EXPECT_NE(error.find("192 with tma tiles"), std::string::npos) << error;
  }
  for (const char *bad :
       {"64x64/k0", "64x64/k65", "64x64/", "64x64/4", "64x64/kk"}) {
    error.clear();
    EXPECT_FALSE(parseAttentionTiling(bad, error)) << bad;
    EXPECT_NE(error.find(bad), std::string::npos) << error;
  }
}

TEST_F(AttentionTilingTest, DecodeSplitsTheKeysToFillTheSms) {
  // llama_decode's attention: 4 x 16 heads, one query, 1025 keys of 128.
  // TMA-fed (128 keys a step, as deep a ring as fits).
  AttentionProblem p = problem(4, 16, 16, 1, 1025, 128);
  AttentionTiling t = autoTiling(p);
  EXPECT_TRUE(t.warpgroup);
  EXPECT_TRUE(t.tma);
  EXPECT_EQ(t.blockM, 64);
  EXPECT_EQ(t.blockN, 128);
  EXPECT_GE(t.stages, 3);
  ASSERT_GE(t.keySplits, 2);
  EXPECT_FALSE(whyNoKeySplits(p, t));
  // Every split keeps two key tiles or more, and the blocks fit the SMs
  // at once.
  EXPECT_GE(llvm::divideCeil(p.sk, t.blockN) / t.keySplits, 2);
  const int64_t perSm =
      h200().sharedMemoryPerSm / (attentionSharedBytes(p, t) + 1024);
  LaunchConfig launch = attentionLaunch(p, t);
  EXPECT_LE(launch.grid, h200().smCount * perSm);
  EXPECT_GT(launch.grid, h200().smCount / 2);
  EXPECT_EQ(launch.grid, 64 * t.keySplits);
  EXPECT_EQ(launch.splits, t.keySplits);
  EXPECT_EQ(launch.splitCounters, 64);
  // One row a block: its 128 outputs, its maximum and its sum.
  EXPECT_EQ(launch.workspaceBytes, launch.grid * 1 * 130 * 4);
  EXPECT_EQ(launch.tensorMaps.size(), 3u);
  // Without TMA: the cp.async-fed kernel, 64 keys a step so that two
  // blocks fit an SM, and more splits.
  AttentionTiling noTma =
      chooseAttentionTiling(p, "auto", /*useTma=*/false, h200());
  EXPECT_FALSE(noTma.tma);
  EXPECT_EQ(noTma.blockN, 64);
  EXPECT_GT(noTma.keySplits, t.keySplits);
}

TEST_F(AttentionTilingTest, CausalDecodeSplitsOnCpAsyncOnly) {
  AttentionProblem p = problem(1, 4, 4, 16, 300, 64);
  p.causal = true;
  AttentionTiling t = autoTiling(p);
  EXPECT_FALSE(t.tma);
  EXPECT_GE(t.keySplits, 2);
  EXPECT_FALSE(whyNoKeySplits(p, t));
  std::string error;
  std::optional<AttentionTiling> forced =
      parseAttentionTiling("tma:64x64/k2", error);
  ASSERT_TRUE(forced) << error;
  std::optional<std::string> why = whyNoKeySplits(p, *forced);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("causal"), std::string::npos) << *why;
  // More TMA splits than key tiles leave one without.
  p.causal = false;
  forced = parseAttentionTiling("tma:64x128/k4", error);
  ASSERT_TRUE(forced) << error;
  why = whyNoKeySplits(p, *forced);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "4 splits of 3 key tiles of 128: a TMA-fed kernel needs a "
                  "key tile for every split");
}

TEST_F(AttentionTilingTest, GroupedQueryChunksSplitOnMmaSyncToo) {
  // Head dim 80 is not wgmma's: mma.sync tiles, split all the same; the
  // workspace holds the 16 rows of each block.
  AttentionProblem p = problem(1, 8, 2, 16, 4000, 80);
  AttentionTiling t = autoTiling(p);
  EXPECT_FALSE(t.warpgroup);
  ASSERT_GE(t.keySplits, 2);
  LaunchConfig launch = attentionLaunch(p, t);
  EXPECT_EQ(launch.workspaceBytes, launch.grid * 16 * 82 * 4);
}

TEST_F(AttentionTilingTest, KeepsTheTilingWhereSplittingDoesNotPay) {
  // Longer query sequences: their blocks do more work per key.
  EXPECT_EQ(autoTiling(problem(1, 8, 8, 65, 4096, 128)).keySplits, 1);
  // Query tiles enough for every SM.
  AttentionProblem full = problem(16, 16, 16, 1, 4096, 128);
  AttentionTiling t = autoTiling(full);
  EXPECT_EQ(t.keySplits, 1);
  EXPECT_TRUE(t.tma);
  // Too few keys for two tiles a split.
  EXPECT_EQ(autoTiling(problem(2, 4, 4, 1, 100, 128)).keySplits, 1);
  // An unsplit launch asks for no workspace.
  LaunchConfig launch = attentionLaunch(full, t);
  EXPECT_EQ(launch.splits, 1);
  EXPECT_EQ(launch.workspaceBytes, 0);
}

TEST_F(AttentionTilingTest, HeadsRunOneAtATimeWithoutACausalMask) {
  // Every query tile has the same work: one head's tiles together share
  // its K and V in the L2, whatever the size.
  for (int64_t s : {512, 2048, 16384}) {
    AttentionProblem p = problem(16384 / s, 16, 16, s, s, 128);
    EXPECT_EQ(autoTiling(p).headsPerSection, 1) << s;
    // An explicit tiling orders its blocks the same way.
    EXPECT_EQ(
        chooseAttentionTiling(p, "tma:128x128", true, h200()).headsPerSection,
        1);
  }
}

TEST_F(AttentionTilingTest, CausalSectionsHoldWhatHalfTheL2Holds) {
  // Half the H200's 60 MiB L2 over each head's K and V, rounded down to a
  // divisor of the (batch, head) pairs.
  AttentionProblem p = problem(1, 16, 16, 16384, 16384, 128);
  p.causal = true;
  // 8 MiB of K and V a head: 3 fit, 2 divides 16.
  EXPECT_EQ(autoTiling(p).headsPerSection, 2);
  p = problem(4, 16, 16, 4096, 4096, 128);
  p.causal = true;
  // 2 MiB a head: 15 fit, 8 divides 64.
  EXPECT_EQ(autoTiling(p).headsPerSection, 8);
  p = problem(32, 16, 16, 512, 512, 64);
  p.causal = true;
  // 128 KiB a head: 240 fit, 128 divides 512.
  EXPECT_EQ(autoTiling(p).headsPerSection, 128);
  // Grouped-query heads share their group's K and V: 32 heads over 8 K/V
  // heads read 1 MiB each at 8k keys, 30 fit, 16 divides 128.
  p = problem(4, 32, 8, 8192, 8192, 128);
  p.causal = true;
  EXPECT_EQ(autoTiling(p).headsPerSection, 16);
}

TEST_F(AttentionTilingTest, HeadDim64TakesThreeConsumersWhereTheyPay) {
  auto rows = [&](int64_t b, int64_t h, int64_t s, int64_t d, bool causal) {
    AttentionProblem p = problem(b, h, h, s, s, d);
    p.causal = causal;
    return autoTiling(p).blockM;
  };
  // Long sequences: 192 rows (three consumer warpgroups, 512 threads).
  EXPECT_EQ(rows(1, 16, 16384, 64, false), 192);
  EXPECT_EQ(rows(4, 16, 4096, 64, false), 192);
  EXPECT_EQ(rows(2, 16, 8192, 64, true), 192);
  AttentionProblem p = problem(1, 16, 16, 16384, 16384, 64);
  EXPECT_EQ(autoTiling(p).threads(), 512);
  // 16 waves of 128-row blocks against 12 of 192 at 1k tokens; the
  // diagonal's extra key tiles under a causal mask at 1k and 2k.
  EXPECT_EQ(rows(16, 16, 1024, 64, false), 128);
  EXPECT_EQ(rows(16, 16, 1024, 64, true), 128);
  EXPECT_EQ(rows(8, 16, 2048, 64, true), 128);
  // Head dim 128 keeps two consumer warpgroups.
  EXPECT_EQ(rows(1, 16, 16384, 128, false), 128);
}

TEST_F(AttentionTilingTest, PersistentBlocksOnlyWhereTheTilesOutnumberTheSms) {
  std::string error;
  std::optional<AttentionTiling> t =
      parseAttentionTiling("tma:192x128/persistent", error);
  ASSERT_TRUE(t) << error;
  EXPECT_TRUE(t->persistent);
  EXPECT_EQ(t->keySplits, 1);
  for (const char *bad : {"wgmma:128x128/persistent", "128x64/persistent"}) {
    error.clear();
    EXPECT_FALSE(parseAttentionTiling(bad, error)) << bad;
    EXPECT_NE(error.find("only tma tiles persist"), std::string::npos) << error;
  }
  auto blocks = [&](int64_t b, int64_t h, int64_t s, int64_t d,
                    const char *tiling) {
    AttentionProblem p = problem(b, h, h, s, s, d);
    return chooseAttentionTiling(p, tiling, /*useTma=*/true, h200())
        .persistentBlocks;
  };
  // 1408 query tiles of 192 rows: one block an SM.
  EXPECT_EQ(blocks(4, 16, 4096, 64, "tma:192x128/persistent"), 132);
  EXPECT_EQ(blocks(4, 16, 4096, 128, "tma:128x128/persistent"), 132);
  // Not asked for, or fewer query tiles than SMs: a block each.
  EXPECT_EQ(blocks(4, 16, 4096, 64, "tma:192x128"), 0);
  EXPECT_EQ(blocks(1, 8, 1024, 64, "tma:128x128/persistent"), 0);
  // One consumer warpgroup does not hold an SM alone.
  AttentionProblem p = problem(4, 16, 16, 4096, 4096, 64);
  AttentionTiling one =
      chooseAttentionTiling(p, "tma:64x128/persistent", true, h200());
  EXPECT_EQ(one.persistentBlocks, 0);
  ASSERT_TRUE(whyNoPersistence(p, one));
  EXPECT_NE(whyNoPersistence(p, one)->find("128 or 192 query rows"),
            std::string::npos);
  // Auto: without a causal or additive mask, up to 4096 keys.
  EXPECT_EQ(autoTiling(p).persistentBlocks, 132);
  AttentionProblem masked = p;
  masked.maskInput = 3;
  EXPECT_EQ(autoTiling(masked).persistentBlocks, 0);
  AttentionProblem causal = p;
  causal.causal = true;
  EXPECT_EQ(autoTiling(causal).persistentBlocks, 0);
  EXPECT_EQ(autoTiling(problem(1, 16, 16, 8192, 8192, 64)).persistentBlocks, 0);
  // The launch: as many blocks as SMs, and the Q tile's empty barrier.
  AttentionTiling persistent =
      chooseAttentionTiling(p, "tma:192x128/persistent", true, h200());
  AttentionTiling plain = chooseAttentionTiling(p, "tma:192x128", true, h200());
  EXPECT_EQ(attentionLaunch(p, persistent).grid, 132);
  EXPECT_EQ(attentionLaunch(p, plain).grid, 1408);
  EXPECT_EQ(attentionSharedBytes(p, persistent),
            attentionSharedBytes(p, plain) + 8);
}

} // namespace
