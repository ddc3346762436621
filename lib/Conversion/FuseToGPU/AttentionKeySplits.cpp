//===- AttentionKeySplits.cpp - Combining split-key attention blocks ------===//
//
// A decode step has a handful of query rows per (batch, head): one block
// each would leave most SMs idle while the KV cache streams through the
// few that run. Split keys (flash-decoding) give each query tile several
// blocks, each over a contiguous share of the key tiles. A block ends
// with its rows' output unnormalised, and its running maxima and sums;
// it stores them in the workspace (only the rows that exist: one row per
// block for a one-token decode step) and counts itself done. The last of
// a tile's blocks, told by the counter, combines the splits in split order
// (so the result does not depend on which block finished last):
// m = max m_s, l = sum l_s 2^(m_s - m), O = sum O_s 2^(m_s - m) / l, a
// split with no visible key (m_s = -inf) weighing nothing. It puts the
// counter back to zero for the next launch and runs the one epilogue, as
// the split-K GEMM does (GemmSplitK.cpp).
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <limits>

using namespace mlir;

namespace opfuse::attention {

Value AttentionKernel::rescaleFactor(Value m, Value reference) {
  Value difference = fsub(m, reference);
  // Folded maxima are of the raw scores (onlineSoftmax).
  return exp2(foldsScale() ? fmul(difference, f32(p.scale * kLog2e))
                           : difference);
}

Value AttentionKernel::splitRow(int64_t r) {
  return gb.add(warpRow, gb.add(gb.i32((r / 2) * 16 + (r % 2) * 8), group8));
}

Value AttentionKernel::splitElement(Value block, Value row, int64_t column) {
  // The workspace in f32: block s's row r (of R) is slot s R + r; its
  // outputs at slot Dv + column, and after all outputs its maximum and
  // sum at blocks R Dv + 2 slot (+ 1), column -1 and -2 here. Offsets in
  // i64.
  Type i64 = b.getI64Type();
  auto wide = [&](Value v32) -> Value {
    return arith::ExtUIOp::create(b, loc, i64, v32);
  };
  auto constant64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  const int64_t rowsPerBlock = splitRowsPerBlock(p, t);
  const int64_t blocks = countQueryTiles(p, t) * t.keySplits;
  Value slot = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, wide(block), constant64(rowsPerBlock)),
      wide(row));
  Value index;
  if (column >= 0) {
    Value first = gb.add(gb.i32(column), gb.mul(quad, gb.i32(2)));
    index = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, slot, constant64(p.dv)),
        wide(first));
  } else {
    index = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, slot, constant64(2)),
        constant64(blocks * rowsPerBlock * p.dv - column - 1));
  }
  return LLVM::GEPOp::create(b, loc, workspace.getType(), b.getF32Type(),
                             workspace, ValueRange{index});
}

void AttentionKernel::storeKeySplit(ArrayRef<Value> o, ValueRange maxima,
                                    ValueRange sums) {
  for (int64_t r = 0; r < mTiles * 2; ++r) {
    // The whole row's sum: every lane takes part in the shuffles.
    Value rowSum = quadReduce(sums[r], /*sum=*/true);
    Value row = splitRow(r);
    auto store = scf::IfOp::create(
        b, loc, gb.lt(gb.add(mStart, row), gb.i32(p.sq)), /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    for (int64_t j = 0; j < oTiles; ++j)
      for (int64_t e = 0; e < 2; ++e)
        LLVM::StoreOp::create(b, loc, o[outputIndex(r, j, e)],
                              splitElement(blockId, row, j * 8 + e), 4);
    // The quad's four threads store the same two values.
    LLVM::StoreOp::create(b, loc, maxima[r], splitElement(blockId, row, -1), 4);
    LLVM::StoreOp::create(b, loc, rowSum, splitElement(blockId, row, -2), 4);
  }
}

void AttentionKernel::syncComputeThreads() {
  if (!t.tma) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  // Named barrier 3: 0 is the whole block's, 1 and 2 the ping-pong turns.
  NVVM::BarrierOp::create(b, loc, TypeRange{}, gb.i32(3), gb.i32(t.warps * 32),
                          {}, Value());
}

Value AttentionKernel::countKeySplit() {
  Type i32 = b.getI32Type();
  // The partials are visible GPU-wide before the counter says so; the
  // barrier also ends every warp's reads of the Q tile, whose first bytes
  // carry the count to the block (the epilogue uses no shared memory).
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  Value counter = LLVM::GEPOp::create(b, loc, counters.getType(), i32, counters,
                                      ValueRange{queryTile});
  Value isLast =
      gb.isLastSplit(counter, gb.sharedPointer(smem, gb.i32(0)), thread,
                     t.keySplits, [&] { syncComputeThreads(); });
  auto last = scf::IfOp::create(b, loc, isLast, /*withElse=*/false);
  b.setInsertionPointToStart(&last.getThenRegion().front());
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  return counter;
}

SmallVector<Value> AttentionKernel::sumKeySplits(int64_t outputs) {
  const int64_t rows = mTiles * 2;
  Value minusInfinity = f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> init(outputs, f32(0.0));
  init.append(rows, minusInfinity);
  init.append(rows, f32(0.0));
  auto loop =
      scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                         arith::ConstantIndexOp::create(b, loc, t.keySplits),
                         arith::ConstantIndexOp::create(b, loc, 1), init);
  OpBuilder::InsertionGuard guard(b);
  Block *body = openLoopBody(b, loop);
  Value block = gb.add(gb.mul(queryTile, gb.i32(t.keySplits)),
                       gb.toI32(loop.getInductionVar()));
  SmallVector<Value> next(body->getArguments().drop_front());
  MutableArrayRef<Value> combined(next.data(), outputs);
  MutableArrayRef<Value> top(next.data() + outputs, rows);
  MutableArrayRef<Value> total(next.data() + outputs + rows, rows);
  // Volatile loads: this SM's L1 holds nothing of the other blocks'
  // stores, but must not be asked. Rows past the sequence read the last
  // stored row (their results are never stored).
  auto load = [&](Value pointer) -> Value {
    return LLVM::LoadOp::create(b, loc, b.getF32Type(), pointer, 4,
                                /*isVolatile=*/true);
  };
  for (int64_t r = 0; r < rows; ++r) {
    Value row = arith::MinUIOp::create(b, loc, splitRow(r),
                                       gb.i32(splitRowsPerBlock(p, t) - 1));
    Value m = load(splitElement(block, row, -1));
    Value l = load(splitElement(block, row, -2));
    Value largest = fmax(top[r], m);
    // Against 0 while every split so far saw no key: no -inf - -inf.
    Value reference = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, largest,
                              minusInfinity),
        f32(0.0), largest);
    Value earlier = rescaleFactor(top[r], reference);
    Value mine = rescaleFactor(m, reference);
    total[r] = math::FmaOp::create(b, loc, total[r], earlier, fmul(l, mine));
    for (int64_t j = 0; j < oTiles; ++j)
      for (int64_t e = 0; e < 2; ++e) {
        Value &x = combined[outputIndex(r, j, e)];
        x = math::FmaOp::create(
            b, loc, x, earlier,
            fmul(load(splitElement(block, row, j * 8 + e)), mine));
      }
    top[r] = largest;
  }
  scf::YieldOp::create(b, loc, next);
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> AttentionKernel::combineKeySplits(SmallVector<Value> o,
                                                     ValueRange maxima,
                                                     ValueRange sums) {
  storeKeySplit(o, maxima, sums);
  Value counter = countKeySplit();
  SmallVector<Value> results = sumKeySplits(o.size());
  {
    // Zero again for the next launch; this kernel reads it no more.
    auto reset = scf::IfOp::create(b, loc, gb.eq(thread, gb.i32(0)),
                                   /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&reset.getThenRegion().front());
    LLVM::StoreOp::create(b, loc, gb.i32(0), counter, 4);
  }
  o.assign(results.begin(), results.begin() + o.size());
  normalize(o, ArrayRef<Value>(results).take_back(mTiles * 2),
            /*rowSums=*/true);
  return o;
}

} // namespace opfuse::attention
