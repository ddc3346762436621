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

SmallVector<Value> AttentionKernel::combineKeySplits(SmallVector<Value> o,
                                                     ValueRange maxima,
                                                     ValueRange sums) {
  Type f32Type = b.getF32Type(), i32 = b.getI32Type(), i64 = b.getI64Type();
  const int64_t splits = t.keySplits;
  const int64_t rowsPerBlock = splitRowsPerBlock(p, t);
  const int64_t blocks =
      p.batch * p.heads * llvm::divideCeil(p.sq, t.blockM) * splits;
  const int64_t rows = mTiles * 2;
  auto wide = [&](Value v32) -> Value {
    return arith::ExtUIOp::create(b, loc, i64, v32);
  };
  auto constant64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  auto add64 = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul64 = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, constant64(y));
  };
  auto element = [&](Value index) -> Value {
    return LLVM::GEPOp::create(b, loc, workspace.getType(), f32Type, workspace,
                               ValueRange{index});
  };
  // The workspace in f32: block s's row r (of rowsPerBlock) at slot
  // s R + r; its outputs at slot Dv + column, after all outputs its
  // maximum and sum at blocks R Dv + 2 slot (+ 1). Offsets in i64.
  auto slotOf = [&](Value block, Value row) {
    return add64(mul64(wide(block), rowsPerBlock), wide(row));
  };
  auto outputAt = [&](Value slot, int64_t j, int64_t e) {
    Value column = gb.add(gb.i32(j * 8 + e), gb.mul(quad, gb.i32(2)));
    return element(add64(mul64(slot, p.dv), wide(column)));
  };
  auto statAt = [&](Value slot, int64_t which) {
    return element(add64(constant64(blocks * rowsPerBlock * p.dv),
                         add64(mul64(slot, 2), constant64(which))));
  };
  auto outputIndex = [&](int64_t r, int64_t j, int64_t e) {
    return ((r / 2) * oTiles + j) * 4 + (r % 2) * 2 + e;
  };
  // This thread's rows in the tile: those of its accumulator fragments.
  SmallVector<Value> rowInTile, exists;
  for (int64_t r = 0; r < rows; ++r) {
    Value row =
        gb.add(warpRow, gb.add(gb.i32((r / 2) * 16 + (r % 2) * 8), group8));
    rowInTile.push_back(row);
    exists.push_back(gb.lt(gb.add(mStart, row), gb.i32(p.sq)));
  }

  for (int64_t r = 0; r < rows; ++r) {
    // The whole row's sum: every lane takes part in the shuffles.
    Value rowSum = quadReduce(sums[r], /*sum=*/true);
    auto store = scf::IfOp::create(b, loc, exists[r], /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    Value slot = slotOf(blockId, rowInTile[r]);
    for (int64_t j = 0; j < oTiles; ++j)
      for (int64_t e = 0; e < 2; ++e)
        LLVM::StoreOp::create(b, loc, o[outputIndex(r, j, e)],
                              outputAt(slot, j, e), 4);
    // The quad's four threads store the same two values.
    LLVM::StoreOp::create(b, loc, maxima[r], statAt(slot, 0), 4);
    LLVM::StoreOp::create(b, loc, rowSum, statAt(slot, 1), 4);
  }
  // The partials are visible GPU-wide before the counter says so; the
  // barrier also ends every warp's reads of the Q tile, whose first bytes
  // carry the count to the block (the epilogue uses no shared memory).
  auto fence = [&] { NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU); };
  fence();
  gpu::BarrierOp::create(b, loc);
  Value counter = LLVM::GEPOp::create(b, loc, counters.getType(), i32, counters,
                                      ValueRange{queryTile});
  Value flag = gb.sharedPointer(smem, gb.i32(0));
  Value first = gb.eq(thread, gb.i32(0));
  {
    auto count = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&count.getThenRegion().front());
    Value before =
        LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, counter,
                                  gb.i32(1), LLVM::AtomicOrdering::acq_rel);
    LLVM::StoreOp::create(b, loc, before, flag, 4);
  }
  gpu::BarrierOp::create(b, loc);
  Value before = LLVM::LoadOp::create(b, loc, i32, flag, 4);
  auto combine = scf::IfOp::create(b, loc, gb.eq(before, gb.i32(splits - 1)),
                                   /*withElse=*/false);
  b.setInsertionPointToStart(&combine.getThenRegion().front());
  fence();

  Value minusInfinity = f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> init(o.size(), f32(0.0));
  init.append(rows, minusInfinity);
  init.append(rows, f32(0.0));
  auto loop =
      scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                         arith::ConstantIndexOp::create(b, loc, splits),
                         arith::ConstantIndexOp::create(b, loc, 1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = loop.getBody();
    if (!body->empty())
      body->getTerminator()->erase();
    b.setInsertionPointToStart(body);
    Value split = gb.toI32(loop.getInductionVar());
    Value block = gb.add(gb.mul(queryTile, gb.i32(splits)), split);
    SmallVector<Value> next(body->getArguments().drop_front());
    MutableArrayRef<Value> combined(next.data(), o.size());
    MutableArrayRef<Value> top(next.data() + o.size(), rows);
    MutableArrayRef<Value> total(next.data() + o.size() + rows, rows);
    // Volatile loads: this SM's L1 holds nothing of the other blocks'
    // stores, but must not be asked. Rows past the sequence read the
    // last stored row (their results are never stored).
    auto load = [&](Value pointer) -> Value {
      return LLVM::LoadOp::create(b, loc, f32Type, pointer, 4,
                                  /*isVolatile=*/true);
    };
    for (int64_t r = 0; r < rows; ++r) {
      Value slot =
          slotOf(block, arith::MinUIOp::create(b, loc, rowInTile[r],
                                               gb.i32(rowsPerBlock - 1)));
      Value m = load(statAt(slot, 0)), l = load(statAt(slot, 1));
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
          x = math::FmaOp::create(b, loc, x, earlier,
                                  fmul(load(outputAt(slot, j, e)), mine));
        }
      top[r] = largest;
    }
    scf::YieldOp::create(b, loc, next);
  }
  {
    // Zero again for the next launch; this kernel reads it no more.
    auto reset = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&reset.getThenRegion().front());
    LLVM::StoreOp::create(b, loc, gb.i32(0), counter, 4);
  }
  ValueRange results = loop.getResults();
  o.assign(results.begin(), results.begin() + o.size());
  normalize(o, results.take_back(rows), /*rowSums=*/true);
  return o;
}

} // namespace opfuse::attention
