//===- RowCombine.cpp - A row's partials combined across its threads ------===//
//
// Xor shuffles within a warp, then one shared-memory slot per warp and one
// barrier for every reduction of a level; in the strided layout a row's
// threads are one lane of each warp and meet in shared memory.
//
//===----------------------------------------------------------------------===//

#include "RowKernelEmitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace opfuse::row_kernel {

Value RowKernelEmitter::identity(Combine kind, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(type,
                       kind == Combine::Sum
                           ? APFloat::getZero(floatType.getFloatSemantics())
                           : APFloat::getInf(floatType.getFloatSemantics(),
                                             /*Negative=*/true)));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(type, kind == Combine::Sum
                                 ? APInt::getZero(width)
                                 : APInt::getSignedMinValue(width)));
}

Value RowKernelEmitter::combine(Combine kind, Value lhs, Value rhs) {
  const bool isFloat = isa<FloatType>(lhs.getType());
  if (kind == Combine::Sum)
    return isFloat ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                   : Value(arith::AddIOp::create(b, loc, lhs, rhs));
  return isFloat ? Value(arith::MaximumFOp::create(b, loc, lhs, rhs))
                 : Value(arith::MaxSIOp::create(b, loc, lhs, rhs));
}

/// Pairwise: shorter dependency chains, and a sum's rounding error grows
/// with the log of the count instead of the count.
Value RowKernelEmitter::combineAll(Combine kind, SmallVector<Value> values) {
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(combine(kind, values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

Value RowKernelEmitter::shuffleXor(Value value, int64_t offset) {
  Type type = value.getType();
  if (type.getIntOrFloatBitWidth() == 32)
    return gpu::ShuffleOp::create(b, loc, value, offset, kWarpSize,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  // 64-bit integers travel as two 32-bit halves.
  Type i32 = b.getI32Type();
  Value low = arith::TruncIOp::create(b, loc, i32, value);
  Value high = arith::TruncIOp::create(
      b, loc, i32,
      arith::ShRUIOp::create(
          b, loc, value,
          arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 32))));
  auto shuffle = [&](Value half) {
    return gpu::ShuffleOp::create(b, loc, half, offset, kWarpSize,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  Value newLow = arith::ExtUIOp::create(b, loc, type, shuffle(low));
  Value newHigh = arith::ShLIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, type, shuffle(high)),
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 32)));
  return arith::OrIOp::create(b, loc, newLow, newHigh);
}

SmallVector<Value>
RowKernelEmitter::combineAcrossThreads(ArrayRef<Combine> kinds,
                                       ArrayRef<Value> partials) {
  if (layout.strided)
    return combineAcrossWarps(kinds, partials);
  const int64_t segment = layout.threadsPerRow;
  SmallVector<Value> values(partials.begin(), partials.end());
  // Within a warp: segments are aligned, so xor offsets below the segment
  // size stay inside it.
  for (auto [kind, value] : llvm::zip(kinds, values))
    for (int64_t offset = std::min(segment, kWarpSize) / 2; offset >= 1;
         offset /= 2)
      value = combine(kind, value, shuffleXor(value, offset));
  if (segment <= kWarpSize)
    return values;

  // Across the warps of a row: one slot per warp in shared memory, a fresh
  // array per reduction, so one barrier suffices for all of them.
  const int64_t warps = segment / kWarpSize;
  Type index = b.getIndexType();
  Value warpInRow =
      arith::DivUIOp::create(b, loc, laneInRow, kb.constant(kWarpSize));
  Value laneInWarp =
      arith::RemUIOp::create(b, loc, laneInRow, kb.constant(kWarpSize));
  Value base = arith::MulIOp::create(b, loc, rowInBlock, kb.constant(warps));
  SmallVector<Value> slotArrays;
  for (Value value : values)
    slotArrays.push_back(func.addWorkgroupAttribution(
        MemRefType::get({layout.rowsPerBlock * warps}, value.getType(),
                        AffineMap(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup)),
        loc));
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        laneInWarp, kb.constant(0));
  auto store = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    Value slot = arith::IndexCastUIOp::create(
        b, loc, index, arith::AddIOp::create(b, loc, base, warpInRow));
    for (auto [value, slots] : llvm::zip(values, slotArrays))
      memref::StoreOp::create(b, loc, value, slots, ValueRange{slot});
  }
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> totals;
  for (auto [kind, slots] : llvm::zip(kinds, slotArrays)) {
    SmallVector<Value> perWarp;
    for (int64_t w = 0; w < warps; ++w) {
      Value slot = arith::IndexCastUIOp::create(
          b, loc, index, arith::AddIOp::create(b, loc, base, kb.constant(w)));
      perWarp.push_back(
          memref::LoadOp::create(b, loc, slots, ValueRange{slot}));
    }
    totals.push_back(combineAll(kind, perWarp));
  }
  return totals;
}

SmallVector<Value>
RowKernelEmitter::combineAcrossWarps(ArrayRef<Combine> kinds,
                                     ArrayRef<Value> partials) {
  if (layout.threadsPerRow == 1)
    return SmallVector<Value>(partials.begin(), partials.end());
  const int64_t rowsPerBlock = layout.rowsPerBlock;
  // A warp holds rowsPerBlock rows (lanes apart by 1) times lanesPerWarp
  // threads of each (lanes apart by rowsPerBlock): xor shuffles by
  // multiples of rowsPerBlock combine a row within the warp.
  const int64_t lanesPerWarp = std::max<int64_t>(1, kWarpSize / rowsPerBlock);
  SmallVector<Value> values(partials.begin(), partials.end());
  for (auto [kind, value] : llvm::zip(kinds, values))
    for (int64_t offset = kWarpSize / 2; offset >= rowsPerBlock; offset /= 2)
      value = combine(kind, value, shuffleXor(value, offset));
  const int64_t warps = layout.threadsPerRow / lanesPerWarp;
  if (warps <= 1)
    return values;

  // Across warps: one shared-memory slot per warp and row.
  Type index = b.getIndexType();
  auto slotOf = [&](Value warp) {
    return arith::IndexCastUIOp::create(
        b, loc, index,
        arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, warp, kb.constant(rowsPerBlock)),
            rowInBlock));
  };
  Value warp = lanesPerWarp == 1
                   ? laneInRow
                   : Value(arith::DivUIOp::create(b, loc, laneInRow,
                                                  kb.constant(lanesPerWarp)));
  SmallVector<Value> slotArrays;
  for (Value value : values)
    slotArrays.push_back(func.addWorkgroupAttribution(
        MemRefType::get({rowsPerBlock * warps}, value.getType(), AffineMap(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup)),
        loc));
  {
    OpBuilder::InsertionGuard insertion(b);
    if (lanesPerWarp > 1) {
      Value first = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, loc, laneInRow, kb.constant(lanesPerWarp)),
          kb.constant(0));
      auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    Value mySlot = slotOf(warp);
    for (auto [value, slots] : llvm::zip(values, slotArrays))
      memref::StoreOp::create(b, loc, value, slots, ValueRange{mySlot});
  }
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> totals;
  for (auto [kind, slots] : llvm::zip(kinds, slotArrays)) {
    SmallVector<Value> perWarp;
    for (int64_t w = 0; w < warps; ++w)
      perWarp.push_back(memref::LoadOp::create(
          b, loc, slots, ValueRange{slotOf(kb.constant(w))}));
    totals.push_back(combineAll(kind, perWarp));
  }
  return totals;
}

} // namespace opfuse::row_kernel
