//===- GemmTma.cpp - TMA copies of the warpgroup-MMA kernel's operands ----===//
//
// With the tensor-memory accelerator one thread copies a whole K slice: a
// tensor map (encoded on the host, docs/plan-format.md) describes each
// operand, and cp.async.bulk.tensor writes the box into shared memory in
// the 128-byte-swizzle layout the wgmma descriptors read, zero-filling
// what lies outside the matrix. Each stage has an mbarrier; the issuing
// thread announces the stage's bytes and the copies complete them.
//
//===----------------------------------------------------------------------===//

#include "GemmBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

namespace opfuse::gemm {

std::optional<TmaOperand>
tmaOperandFor(const Operand &op, const MatmulTiling &t, int64_t elementBytes,
              ArrayRef<int64_t> batchShape, unsigned input) {
  // The box's rows must be the 128 bytes one swizzle line holds, and every
  // row of the matrix (the view's first element too) must start 16-byte
  // aligned.
  if (op.im2col || t.blockK * elementBytes != 128 ||
      (op.rowPitch() * elementBytes) % 16 != 0 ||
      (op.offset * elementBytes) % 16 != 0 || op.tileMN % 64 != 0)
    return std::nullopt;
  TmaOperand tma;
  // 64 elements (128 bytes) along the contiguous dimension per box: a K
  // slice of a K-contiguous operand, one 64-wide panel of an M/N-contiguous
  // one (tileMN / 64 boxes per slice).
  const int64_t inner = op.kContiguous ? op.k : op.mn;
  const int64_t outer = op.kContiguous ? op.mn : op.k;
  tma.map.input = input;
  tma.map.dims = {inner, outer};
  tma.map.strides = {op.rowPitch() * elementBytes};
  tma.map.box = {64, op.kContiguous ? op.tileMN : t.blockK};
  tma.map.offset = op.offset * elementBytes;
  tma.panels = op.kContiguous ? 1 : op.tileMN / 64;
  // The batch dimensions the operand moves along, innermost first: one
  // broadcast over a dimension has no coordinate in it, and an outer
  // dimension whose stride continues the one inside merges with it.
  int64_t size = 0, stride = 0;
  for (int64_t d = batchShape.size() - 1; d >= 0; --d) {
    const int64_t dimStride = op.batchStrides[d];
    if (batchShape[d] == 1 || dimStride == 0)
      continue;
    if (!tma.batchDims.empty() && dimStride == stride * size) {
      tma.batchDims.back().terms.push_back({unsigned(d), size});
      size *= batchShape[d];
      tma.map.dims.back() = size;
      continue;
    }
    if ((dimStride * elementBytes) % 16 != 0)
      return std::nullopt;
    size = batchShape[d];
    stride = dimStride;
    tma.batchDims.push_back({{{unsigned(d), 1}}});
    tma.map.dims.push_back(size);
    tma.map.strides.push_back(stride * elementBytes);
    tma.map.box.push_back(1);
  }
  if (tma.map.dims.size() > 5)
    return std::nullopt;
  return tma;
}

void initTmaBarriers(GemmBuilder &gb, Value smem, int64_t barrierOffset,
                     int64_t stages, Value thread, int64_t emptyArrivals) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  auto first =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              thread, gb.i32(0)),
                        /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    // One arrival per phase: the issuing thread's arrive.expect_tx.
    for (int64_t s = 0; s < stages; ++s)
      NVVM::MBarrierInitOp::create(
          b, loc, gb.sharedPointer(smem, gb.i32(barrierOffset + 8 * s)),
          gb.i32(1), Value());
    for (int64_t s = 0; emptyArrivals > 0 && s < stages; ++s)
      NVVM::MBarrierInitOp::create(
          b, loc,
          gb.sharedPointer(smem, gb.i32(barrierOffset + 8 * (stages + s))),
          gb.i32(emptyArrivals), Value());
    // The initialised barriers must be visible to the TMA unit (the async
    // proxy) before the first copy signals them.
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  gpu::BarrierOp::create(b, loc);
}

void issueTmaSlice(GemmBuilder &gb, ArrayRef<TmaCopy> copies, Value smem,
                   int64_t barrierOffset, Value issuer, Value slice, Value ring,
                   ArrayRef<Value> batchIndices) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  const MatmulTiling &t = gb.t;
  OpBuilder::InsertionGuard guard(b);
  if (issuer) {
    auto first = scf::IfOp::create(b, loc, issuer, /*withElse=*/false);
    b.setInsertionPointToStart(&first.getThenRegion().front());
  }
  Value stage = gb.remu(ring, t.stages);
  Value barrier = gb.sharedPointer(
      smem, gb.add(gb.i32(barrierOffset), gb.mul(stage, gb.i32(8))));
  // Every box counts in full, zero-filled parts included.
  const int64_t stageBytes = (t.blockM + t.blockN) * t.blockK * gb.elementBytes;
  NVVM::MBarrierArriveExpectTxOp::create(
      b, loc, Type(), barrier, gb.i32(stageBytes), NVVM::MemScopeKind::CTA,
      /*relaxed=*/false, Value());
  Value stageBase = gb.mul(stage, gb.i32(stageBytes));
  Value kStart = gb.mul(slice, gb.i32(t.blockK));
  auto genericPointer = LLVM::LLVMPointerType::get(b.getContext());
  // Each map's batch coordinates, computed once for its panels.
  SmallVector<SmallVector<Value, 3>, 2> batchCoordinates;
  for (const TmaCopy &copy : copies) {
    SmallVector<Value, 3> &values = batchCoordinates.emplace_back();
    for (const TmaBatchDim &dim : copy.tma.batchDims) {
      Value sum;
      for (auto [d, multiplier] : dim.terms) {
        Value term = gb.fromIndexType(batchIndices[d]);
        if (multiplier != 1)
          term = gb.mul(term, gb.i32(multiplier));
        sum = sum ? gb.add(sum, term) : term;
      }
      values.push_back(sum);
    }
  }
  for (const TmaCopy &copy : copies) {
    const TmaOperand &tma = copy.tma;
    Value descriptor =
        LLVM::AddrSpaceCastOp::create(b, loc, genericPointer, copy.descriptor);
    for (int64_t p = 0; p < tma.panels; ++p) {
      // Panel p of an M/N-contiguous tile: 64 more M/N elements, BK rows
      // of 128 bytes further on in the stage.
      Value mn = gb.add(copy.tileStart, gb.i32(64 * p));
      SmallVector<Value, 5> coordinates;
      if (copy.op->kContiguous)
        coordinates = {kStart, copy.tileStart};
      else
        coordinates = {mn, kStart};
      llvm::append_range(coordinates, batchCoordinates[&copy - copies.data()]);
      Value target = gb.sharedPointer(
          smem,
          gb.add(stageBase, gb.i32(copy.op->stageOffset + p * t.blockK * 128)));
      // A block is a cluster of one: its shared memory is the cluster's.
      target = LLVM::AddrSpaceCastOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), target);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, target, descriptor, coordinates, barrier,
          /*im2colOffsets=*/ValueRange(), /*multicastMask=*/Value(),
          /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
    }
  }
}

} // namespace opfuse::gemm
