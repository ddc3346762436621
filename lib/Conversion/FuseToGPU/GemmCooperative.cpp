//===- GemmCooperative.cpp - The wgmma and cooperative schedules ----------===//
//
// Warpgroup MMA whose MMA warpgroups also issue the copies (by every
// thread with cp.async, or by thread 0 with TMA): one tile per block
// (wgmma), or persistent (cooperative), when each block walks every
// gridDim-th tile and, after a tile's last MMA and a barrier, issues its
// next tile's first slices before running the current tile's epilogue, so
// that they land while the epilogue computes and stores. A one-tile block
// may also compute one of a tile's equal K splits (GemmSplitK.cpp sums
// them). Copies run
// `stages - 2` slices ahead: one more stage than mma.sync holds the slice
// the previous, still running wgmma batch reads.
//
//===----------------------------------------------------------------------===//

#include "GemmEmission.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

namespace opfuse::gemm {

void issueWarpgroupPrologue(GemmBuilder &gb, const MatmulTiling &t,
                            int64_t slices, const SliceFeed &feed,
                            Value ringBase) {
  for (int64_t s = 0; s + 2 < t.stages; ++s) {
    if (s < slices)
      feed.issue(gb.i32(s), gb.add(ringBase, gb.i32(s)));
    if (!feed.tma)
      NVVM::CpAsyncCommitGroupOp::create(gb.b, gb.loc);
  }
}

/// The K loop of the warpgroup-MMA kernel; returns the accumulators in the
/// m16n8 order of the mma.sync kernel (nTiles tiles of 4 per thread).
SmallVector<Value> emitWarpgroupLoop(GemmBuilder &gb, const MatmulTiling &t,
                                     const Operand &a, const Operand &bOp,
                                     int64_t slices, int64_t nTiles, Value smem,
                                     const SliceFeed &feed, Value ringBase,
                                     SliceRewrite rewrite) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  MLIRContext *context = b.getContext();
  auto f32 = b.getF32Type();
  SmallVector<Type> fields(nTiles * 4, f32);
  auto accType = LLVM::LLVMStructType::getLiteral(context, fields);
  Value init = LLVM::ZeroOp::create(b, loc, accType);
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, slices);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, lower, upper, step, ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = openLoopBody(b, loop);
    Value slice = arith::IndexCastUIOp::create(b, loc, b.getI32Type(),
                                               loop.getInductionVar());
    Value ring = gb.add(ringBase, slice);
    if (feed.tma) {
      // The stage's barrier completes when the TMA copies of the slice
      // have landed; after the CTA barrier every warpgroup has also
      // finished the wgmma batch of slice - 2, whose stage is refilled.
      waitForTmaSlice(gb, t, smem, feed.barrierOffset, ring);
    } else {
      // Slice `slice` has landed; the proxy fence makes the copies
      // visible to the tensor cores' reads; after the barrier every
      // warpgroup has also finished the wgmma batch of slice - 2, whose
      // stage is refilled.
      NVVM::CpAsyncWaitGroupOp::create(b, loc, t.stages - 3);
      gb.fenceAsyncProxy();
    }
    gpu::BarrierOp::create(b, loc);
    {
      Value next = gb.add(slice, gb.i32(t.stages - 2));
      auto guard = scf::IfOp::create(b, loc, gb.lt(next, gb.i32(slices)),
                                     /*withElse=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
      feed.issue(next, gb.add(ring, gb.i32(t.stages - 2)));
    }
    // Group counts stay in step with slices: one group per slice, empty
    // past the last.
    if (!feed.tma)
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    if (rewrite) {
      // The prologue's stores reach the tensor cores through the async
      // proxy: a proxy fence, then a barrier before any warpgroup's MMAs.
      rewrite(slice, ring);
      gb.fenceAsyncProxy();
      gpu::BarrierOp::create(b, loc);
    }

    SmallVector<Value> acc =
        issueWgmmaBatch(gb, t, a, bOp, smem, ring, body->getArgument(1));
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  if (!feed.tma)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  SmallVector<Value> values;
  for (int64_t i = 0; i < nTiles * 4; ++i)
    values.push_back(
        LLVM::ExtractValueOp::create(b, loc, loop.getResult(0), i));
  return values;
}

MainLoop emitCooperativeMainLoop(GemmKernelEmission &k) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  GemmBuilder &gb = k.gb;
  auto toI32 = [&](Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  Value ringBase = k.initialRingBase, nextRingBase = k.initialNextRingBase;
  MainLoop result;
  TileCoordinates &current = result.current;
  if (k.persistent) {
    // A block past the last tile (a grid larger than the plan's) copies
    // nothing and skips the loop.
    k.issuePrologueOf(k.blockId, ringBase);
    TileLoop tiles = openTileLoop(gb, k.totalTiles, k.slices);
    current = k.coordinatesOf(tiles.tile);
    // cp.async needs no ring count: its stages restart with each tile.
    if (k.tma) {
      ringBase = tiles.ringBase;
      nextRingBase = gb.add(ringBase, gb.i32(k.slices));
    }
  } else {
    result.tileId = k.blockId;
    if (k.t.splitK > 1) {
      // Split-K: block b computes split b % splitK of tile b / splitK,
      // the equal K range [split * slices, (split + 1) * slices).
      result.split = gb.remu(k.blockId, k.t.splitK);
      result.tileId = gb.divu(k.blockId, k.t.splitK);
    }
    current = k.coordinatesOf(result.tileId);
  }
  // The loop counts the split's slices; the copies and the prologue take
  // them from its first.
  const int64_t slices = k.slices / k.t.splitK;
  Value firstSlice =
      result.split ? gb.mul(result.split, gb.i32(slices)) : Value();
  auto globalSlice = [&](Value local) {
    return firstSlice ? gb.add(firstSlice, local) : local;
  };

  auto issueCurrent = [&](Value slice, Value ring) {
    k.issueInto(current, globalSlice(slice), ring);
  };
  SliceFeed feed{issueCurrent, k.tma, k.barrierOffset};
  if (!k.persistent)
    issueWarpgroupPrologue(gb, k.t, slices, feed, ringBase);
  auto rewrite = [&](Value slice, Value ring) {
    result.failed |= failed(emitPrologueSlice(
        k, current, globalSlice(slice), gb.remu(ring, k.t.stages), gb.i32(0),
        k.t.blockM, k.thread, k.threads));
  };
  result.acc = emitWarpgroupLoop(
      gb, k.t, k.problem.a, k.problem.b, slices, k.nTiles, k.smem, feed,
      ringBase, k.problem.prologue.ops.empty() ? SliceRewrite() : rewrite);
  if (k.persistent) {
    // Every warpgroup is done reading the stages the next copies fill.
    gpu::BarrierOp::create(b, loc);
    auto tiles = cast<scf::ForOp>(b.getInsertionBlock()->getParentOp());
    k.issuePrologueOf(
        gb.add(toI32(tiles.getInductionVar()), toI32(tiles.getStep())),
        nextRingBase);
  }
  return result;
}

} // namespace opfuse::gemm
