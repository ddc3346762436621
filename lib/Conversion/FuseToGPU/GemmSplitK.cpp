//===- GemmSplitK.cpp - Summing the partial tiles of a split-K GEMM -------===//
//
// A GEMM with too few output tiles to fill the SMs (a skinny M, a conv of
// a small image with a long K) splits K among several blocks per tile.
// Each stores its f32 partial accumulators in a workspace the runtime
// provides; the last of a tile's blocks to finish, told by an atomic
// counter per tile, adds the partials in split order (so the result does
// not depend on which block finished last), puts the counter back to zero
// for the next launch, and runs the one epilogue. Nothing but the last
// block touches the outputs, so the fused epilogue is unchanged.
//
//===----------------------------------------------------------------------===//

#include "GemmEmission.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

namespace opfuse::gemm {

void emitSplitKReduction(GemmKernelEmission &k, MainLoop &loop, Value workspace,
                         Value counters) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  GemmBuilder &gb = k.gb;
  const int64_t splits = k.t.splitK, threads = k.threads;
  const int64_t accumulators = loop.acc.size();
  Type i64 = b.getI64Type(), f32 = b.getF32Type(), i32 = b.getI32Type();
  // Workspace offsets in i64: a split tiling forced on a large GEMM may
  // need more than 2^31 partial values.
  auto wide = [&](Value v32) -> Value {
    return arith::ExtUIOp::create(b, loc, i64, v32);
  };
  auto constant64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value thread = wide(k.thread), tile = wide(loop.tileId);
  // Partial `i` of a thread: [tile][split][i][thread], so that a warp's
  // stores and loads of one accumulator are contiguous.
  auto partial = [&](Value split, int64_t i) -> Value {
    Value block = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tile, constant64(splits)), split);
    Value index = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, block,
                              constant64(accumulators * threads)),
        arith::AddIOp::create(b, loc, constant64(i * threads), thread));
    return LLVM::GEPOp::create(b, loc, workspace.getType(), f32, workspace,
                               ValueRange{index});
  };
  auto fence = [&] { NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU); };

  Value split = wide(loop.split);
  for (int64_t i = 0; i < accumulators; ++i)
    LLVM::StoreOp::create(b, loc, loop.acc[i], partial(split, i), 4);
  // The partials are visible GPU-wide before the counter says so; the
  // barrier also ends every warp's reads of the stages, whose first bytes
  // carry the count to the block.
  fence();
  Value counter = LLVM::GEPOp::create(b, loc, counters.getType(), i32, counters,
                                      ValueRange{tile});
  Value first = gb.eq(k.thread, gb.i32(0));
  Value last =
      gb.isLastSplit(counter, gb.sharedPointer(k.smem, gb.i32(0)), k.thread,
                     splits, [&] { gpu::BarrierOp::create(b, loc); });
  auto reduce = scf::IfOp::create(b, loc, last, /*withElse=*/false);
  b.setInsertionPointToStart(&reduce.getThenRegion().front());
  fence();
  // Volatile loads: the L1 of this SM may hold nothing of the other
  // blocks' stores, but it must not be asked.
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> init(accumulators, zero);
  auto sum =
      scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                         arith::ConstantIndexOp::create(b, loc, splits),
                         arith::ConstantIndexOp::create(b, loc, 1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = openLoopBody(b, sum);
    Value s = arith::IndexCastUIOp::create(b, loc, i64, sum.getInductionVar());
    SmallVector<Value> next;
    for (int64_t i = 0; i < accumulators; ++i) {
      Value value = LLVM::LoadOp::create(b, loc, f32, partial(s, i), 4,
                                         /*isVolatile=*/true);
      next.push_back(
          arith::AddFOp::create(b, loc, body->getArgument(1 + i), value));
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
  loop.acc.assign(sum.getResults().begin(), sum.getResults().end());
}

} // namespace opfuse::gemm
