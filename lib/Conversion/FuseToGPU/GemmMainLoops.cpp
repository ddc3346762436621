//===- GemmMainLoops.cpp - K loops of the GEMM kernels --------------------===//
//
// The warpgroup-MMA main loop (wgmma from swizzled shared memory through
// descriptors), the f32 K step (TF32 mma.sync or FMAs), and the helpers
// the emitter shares with them.
//
//===----------------------------------------------------------------------===//

#include "GemmBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace opfuse::gemm {

/// The per-batch-dimension element strides of a matmul operand whose batch
/// dimensions (all but the last two) broadcast to `batchShape`.
SmallVector<int64_t> batchStridesOf(RankedTensorType type,
                                    ArrayRef<int64_t> batchShape) {
  SmallVector<int64_t> strides(batchShape.size(), 0);
  const int64_t rank = type.getRank();
  int64_t stride = type.getDimSize(rank - 1) * type.getDimSize(rank - 2);
  for (int64_t d = rank - 3, o = batchShape.size() - 1; d >= 0; --d, --o) {
    if (type.getDimSize(d) != 1)
      strides[o] = stride;
    stride *= type.getDimSize(d);
  }
  return strides;
}

/// One K step of 8 for f32 operands in the mma.sync kernel's fragment
/// layout: thread (group8, quad) of a warp holds A rows group8 and
/// group8 + 8 at columns quad and quad + 4 of each m16 tile, and B rows quad
/// and quad + 4 at column group8 of each n8 tile; its accumulators are
/// rows group8 and group8 + 8 at columns 2 quad and 2 quad + 1. With TF32
/// the fragments go to mma.sync m16n8k8 (rounded to TF32 first); without,
/// the thread computes its accumulators itself with f32 FMAs, reading the
/// A and B elements they need.
void emitF32Step(GemmBuilder &gb, const Operand &a, const Operand &bOp,
                 Value aBase, Value bBase, Value smem, Value warpRow,
                 Value warpCol, Value quad, Value group8, int64_t kk,
                 int64_t mTiles, int64_t nTiles, bool tf32,
                 SmallVector<Value> &acc) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  auto load = [&](const Operand &op, Value base, Value mn, Value k) {
    Value row = op.kContiguous ? mn : k, col = op.kContiguous ? k : mn;
    Value offset = gb.add(base, gb.tileOffset(op, row, col));
    return LLVM::LoadOp::create(b, loc, b.getF32Type(),
                                gb.sharedPointer(smem, offset), 4)
        .getResult();
  };
  auto f32 = b.getF32Type();
  if (tf32) {
    auto toTF32 = [&](Value x) {
      return LLVM::InlineAsmOp::create(
                 b, loc, b.getI32Type(), ValueRange{x},
                 "cvt.rna.tf32.f32 $0, $1;", "=r,f",
                 /*has_side_effects=*/false, /*is_align_stack=*/false,
                 LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                 ArrayAttr())
          .getResult(0);
    };
    SmallVector<SmallVector<Value>> aFragments, bFragments;
    for (int64_t i = 0; i < mTiles; ++i) {
      Value m = gb.add(warpRow, gb.add(gb.i32(i * 16), group8));
      Value m8 = gb.add(m, gb.i32(8));
      Value k = gb.add(gb.i32(kk), quad), k4 = gb.add(k, gb.i32(4));
      aFragments.push_back({toTF32(load(a, aBase, m, k)),
                            toTF32(load(a, aBase, m8, k)),
                            toTF32(load(a, aBase, m, k4)),
                            toTF32(load(a, aBase, m8, k4))});
    }
    for (int64_t j = 0; j < nTiles; ++j) {
      Value n = gb.add(warpCol, gb.add(gb.i32(j * 8), group8));
      Value k = gb.add(gb.i32(kk), quad), k4 = gb.add(k, gb.i32(4));
      bFragments.push_back({toTF32(load(bOp, bBase, n, k)),
                            toTF32(load(bOp, bBase, n, k4))});
    }
    auto structType =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t j = 0; j < nTiles; ++j) {
        MutableArrayRef<Value> c(&acc[(i * nTiles + j) * 4], 4);
        Value d = NVVM::MmaOp::create(
            b, loc, structType, aFragments[i], bFragments[j], c, {16, 8, 8},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                          NVVM::MMATypes::tf32},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t e = 0; e < 4; ++e)
          c[e] = LLVM::ExtractValueOp::create(b, loc, d, e);
      }
    return;
  }
  // SIMT: A rows group8 and group8 + 8 of each m16 tile, B columns 2 quad
  // and 2 quad + 1 of each n8 tile, over the 8 K of this step.
  SmallVector<SmallVector<Value>> aRows, bCols;
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t half = 0; half < 2; ++half) {
      Value m = gb.add(warpRow, gb.add(gb.i32(i * 16 + half * 8), group8));
      SmallVector<Value> row;
      for (int64_t k = 0; k < 8; ++k)
        row.push_back(load(a, aBase, m, gb.i32(kk + k)));
      aRows.push_back(std::move(row));
    }
  for (int64_t j = 0; j < nTiles; ++j)
    for (int64_t pair = 0; pair < 2; ++pair) {
      Value n = gb.add(warpCol, gb.add(gb.i32(j * 8 + pair),
                                       gb.mul(quad, gb.i32(2))));
      SmallVector<Value> col;
      for (int64_t k = 0; k < 8; ++k)
        col.push_back(load(bOp, bBase, n, gb.i32(kk + k)));
      bCols.push_back(std::move(col));
    }
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t j = 0; j < nTiles; ++j)
      for (int64_t e = 0; e < 4; ++e) {
        Value &c = acc[(i * nTiles + j) * 4 + e];
        ArrayRef<Value> row = aRows[i * 2 + e / 2], col = bCols[j * 2 + e % 2];
        for (int64_t k = 0; k < 8; ++k)
          c = math::FmaOp::create(b, loc, row[k], col[k], c);
      }
}

/// A wgmma shared-memory descriptor: the operand's start address, the
/// leading and stride byte offsets and the 128-byte swizzle mode.
static Value wgmmaDescriptor(GemmBuilder &gb, Value address, int64_t leading,
                      int64_t stride) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  Value encoded = gb.remu(gb.divu(address, 16), 1 << 14);
  Value low = arith::ExtUIOp::create(b, loc, b.getI64Type(), encoded);
  const uint64_t high = (uint64_t(leading >> 4) << 16) |
                        (uint64_t(stride >> 4) << 32) | (uint64_t(1) << 62);
  Value constant = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(static_cast<int64_t>(high)));
  return arith::OrIOp::create(b, loc, low, constant);
}

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

TileLoop openTileLoop(GemmBuilder &gb, int64_t totalTiles, int64_t slices,
                      Value firstOrdinal, int64_t ordinalStep) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value gridDim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value first = blockId, step = gridDim;
  if (firstOrdinal)
    first = arith::AddIOp::create(
        b, loc, blockId, arith::MulIOp::create(b, loc, gridDim, firstOrdinal));
  if (ordinalStep != 1)
    step = arith::MulIOp::create(
        b, loc, gridDim, arith::ConstantIndexOp::create(b, loc, ordinalStep));
  TileLoop result;
  result.loop = scf::ForOp::create(
      b, loc, first, arith::ConstantIndexOp::create(b, loc, totalTiles), step);
  b.setInsertionPoint(result.loop.getBody()->getTerminator());
  result.tile = gb.toI32(result.loop.getInductionVar());
  Value ordinal = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, result.tile, gb.toI32(blockId)),
      gb.toI32(gridDim));
  result.ringBase = gb.mul(ordinal, gb.i32(slices));
  return result;
}

void waitForTmaSlice(GemmBuilder &gb, const MatmulTiling &t, Value smem,
                     int64_t barrierOffset, Value ring) {
  Value stage = gb.remu(ring, t.stages);
  Value phase = gb.remu(gb.divu(ring, t.stages), 2);
  Value barrier =
      gb.sharedPointer(smem, gb.add(gb.i32(barrierOffset),
                                    gb.mul(stage, gb.i32(8))));
  NVVM::MBarrierTryWaitParityOp::create(gb.b, gb.loc, barrier, phase,
                                        gb.i32(kTryWaitTicks));
}

SmallVector<Value> issueWgmmaBatch(GemmBuilder &gb, const MatmulTiling &t,
                                   const Operand &a, const Operand &bOp,
                                   Value smem, Value ring,
                                   ArrayRef<Value> accs,
                                   Value firstRowBlock) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  MLIRContext *context = b.getContext();
  const int64_t stageBytes = (t.blockM + t.blockN) * t.blockK * 2;
  Value base = arith::TruncIOp::create(
      b, loc, b.getI32Type(),
      LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), smem));
  Value stageBase = gb.add(base, gb.mul(gb.remu(ring, t.stages),
                                        gb.i32(stageBytes)));
  // Row block r multiplies rows 64r..64r+63: 64 rows of 128 bytes into a
  // K-contiguous tile, or panel r of an M-contiguous one (BK = 64 rows of
  // 128 bytes: the same 8 KiB). By default the warpgroup's own block.
  if (!firstRowBlock)
    firstRowBlock = gb.divu(gb.divu(
        arith::IndexCastUIOp::create(
            b, loc, b.getI32Type(),
            gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x)),
        32), 4);
  Value aBlocks = gb.add(gb.add(stageBase, gb.i32(a.stageOffset)),
                         gb.mul(firstRowBlock, gb.i32(64 * 128)));
  Value bBase = gb.add(stageBase, gb.i32(bOp.stageOffset));
  const int64_t panel = t.blockK * 128;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  NVVM::WGMMATypes type = gb.elementType.isF16() ? NVVM::WGMMATypes::f16
                                                 : NVVM::WGMMATypes::bf16;
  SmallVector<Value> results(accs);
  for (int64_t kk = 0; kk < t.blockK / 16; ++kk) {
    // K-contiguous: 16 more elements along the 128-byte row (32 bytes).
    // M/N-contiguous: 16 more rows (2048 bytes).
    auto stepOf = [&](const Operand &op) {
      return op.kContiguous ? kk * 32 : kk * 16 * 128;
    };
    Value descB;
    for (auto [r, acc] : llvm::enumerate(results)) {
      Value aBase =
          r == 0 ? aBlocks : gb.add(aBlocks, gb.i32(r * 64 * 128));
      Value descA = wgmmaDescriptor(gb, gb.add(aBase, gb.i32(stepOf(a))),
                                    a.kContiguous ? 16 : panel, 1024);
      if (!descB)
        descB = wgmmaDescriptor(gb, gb.add(bBase, gb.i32(stepOf(bOp))),
                                bOp.kContiguous ? 16 : panel, 1024);
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, acc.getType(), acc, descA, descB,
          NVVM::MMAShapeAttr::get(context, 64, t.blockN, 16), type, type,
          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          a.kContiguous ? NVVM::MMALayout::row : NVVM::MMALayout::col,
          bOp.kContiguous ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::MMAIntOverflowAttr());
    }
  }
  return results;
}

/// The K loop of the warpgroup-MMA kernel; returns the accumulators in the
/// m16n8 order of the mma.sync kernel (nTiles tiles of 4 per thread).
SmallVector<Value>
emitWarpgroupLoop(GemmBuilder &gb, const MatmulTiling &t, const Operand &a,
                  const Operand &bOp, int64_t slices, int64_t nTiles,
                  Value smem, const SliceFeed &feed, Value ringBase) {
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
    Block *body = loop.getBody();
    if (!body->empty())
      body->getTerminator()->erase();
    b.setInsertionPointToStart(body);
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
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
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

    SmallVector<Value> acc = issueWgmmaBatch(gb, t, a, bOp, smem, ring,
                                             body->getArgument(1));
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

/// Elements per copy: 16 bytes when the contiguous dimension allows, else
/// 8 or 4 (cp.async's sizes), else one 2-byte element.
int64_t chunkFor(int64_t leading, int64_t elementBytes) {
  for (int64_t bytes : {16, 8, 4})
    if (leading % (bytes / elementBytes) == 0)
      return bytes / elementBytes;
  return 1;
}

} // namespace opfuse::gemm
