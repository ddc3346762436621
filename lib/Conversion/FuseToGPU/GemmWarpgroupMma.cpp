//===- GemmWarpgroupMma.cpp - Pieces of the wgmma kernels -----------------===//
//
// What every warpgroup-MMA schedule is built from: wgmma batches read
// from swizzled shared memory through descriptors, the persistent tile
// loop, the wait for a TMA slice, and the operands' batch strides and
// copy widths.
//
//===----------------------------------------------------------------------===//

#include "GemmBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

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

Value wgmmaDescriptor(GemmBuilder &gb, Value address, int64_t leading,
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
  Value barrier = gb.sharedPointer(
      smem, gb.add(gb.i32(barrierOffset), gb.mul(stage, gb.i32(8))));
  NVVM::MBarrierTryWaitParityOp::create(gb.b, gb.loc, barrier, phase,
                                        gb.i32(kTryWaitTicks));
}

SmallVector<Value> issueWgmmaBatch(GemmBuilder &gb, const MatmulTiling &t,
                                   const Operand &a, const Operand &bOp,
                                   Value smem, Value ring, ArrayRef<Value> accs,
                                   Value firstRowBlock) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  MLIRContext *context = b.getContext();
  const int64_t stageBytes = (t.blockM + t.blockN) * t.blockK * 2;
  Value base = arith::TruncIOp::create(
      b, loc, b.getI32Type(),
      LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), smem));
  Value stageBase =
      gb.add(base, gb.mul(gb.remu(ring, t.stages), gb.i32(stageBytes)));
  // Row block r multiplies rows 64r..64r+63: 64 rows of 128 bytes into a
  // K-contiguous tile, or panel r of an M-contiguous one (BK = 64 rows of
  // 128 bytes: the same 8 KiB). By default the warpgroup's own block.
  if (!firstRowBlock)
    firstRowBlock =
        gb.divu(gb.divu(arith::IndexCastUIOp::create(
                            b, loc, b.getI32Type(),
                            gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x)),
                        32),
                4);
  Value aBlocks = gb.add(gb.add(stageBase, gb.i32(a.stageOffset)),
                         gb.mul(firstRowBlock, gb.i32(64 * 128)));
  Value bBase = gb.add(stageBase, gb.i32(bOp.stageOffset));
  const int64_t panel = t.blockK * 128;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  NVVM::WGMMATypes type =
      gb.elementType.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  SmallVector<Value> results(accs);
  for (int64_t kk = 0; kk < t.blockK / 16; ++kk) {
    // K-contiguous: 16 more elements along the 128-byte row (32 bytes).
    // M/N-contiguous: 16 more rows (2048 bytes).
    auto stepOf = [&](const Operand &op) {
      return op.kContiguous ? kk * 32 : kk * 16 * 128;
    };
    Value descB;
    for (auto [r, acc] : llvm::enumerate(results)) {
      Value aBase = r == 0 ? aBlocks : gb.add(aBlocks, gb.i32(r * 64 * 128));
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

/// Elements per copy: 16 bytes when the contiguous dimension allows, else
/// 8 or 4 (cp.async's sizes), else one 2-byte element.
int64_t chunkFor(int64_t leading, int64_t elementBytes) {
  for (int64_t bytes : {16, 8, 4})
    if (leading % (bytes / elementBytes) == 0)
      return bytes / elementBytes;
  return 1;
}

} // namespace opfuse::gemm
