//===- GemmWarpSpecialized.cpp - Producer and consumers of a TMA GEMM -----===//
//
// The warp-specialised persistent kernel: one thread of an extra warpgroup
// streams every K slice of the block's tiles through the stage ring with
// TMA, and the MMA warpgroups only wait, multiply and release. Each stage
// has a full barrier (the copies' bytes) and an empty one (one arrival per
// MMA thread once its warpgroup's wgmma batch on the stage has completed),
// so the producer refills a stage as soon as the warpgroups are done with
// it and runs ahead into the next tile while they compute the epilogue;
// no barrier of the whole block is left in the loop. With ping-pong
// consumers each MMA warpgroup owns every other tile, and named barriers
// pass the K loop from one to the other.
//
// No branch on the thread index may surround the wgmma loop, or ptxas
// serialises its wgmma instructions (info C7520): the roles are decided
// on a warp index shuffled from lane 0, and every MMA thread arrives on
// the empty barrier instead of one per warpgroup.
//
//===----------------------------------------------------------------------===//

#include "GemmEmission.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

namespace opfuse::gemm {

namespace {

Value barrierAt(GemmBuilder &gb, Value smem, int64_t offset, Value stage) {
  return gb.sharedPointer(smem,
                          gb.add(gb.i32(offset), gb.mul(stage, gb.i32(8))));
}

} // namespace

void emitTmaProducer(GemmBuilder &gb, const MatmulTiling &t, int64_t slices,
                     int64_t totalTiles, Value smem, int64_t emptyOffset,
                     llvm::function_ref<void(Value, Value, Value)> issue) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  OpBuilder::InsertionGuard guard(b);
  TileLoop tiles = openTileLoop(gb, totalTiles, slices);
  Value tile = tiles.tile, ringBase = tiles.ringBase;
  auto loop =
      scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                         arith::ConstantIndexOp::create(b, loc, slices),
                         arith::ConstantIndexOp::create(b, loc, 1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value slice = gb.toI32(loop.getInductionVar());
  Value ring = gb.add(ringBase, slice);
  // The stage's previous use (ring - stages) must be released: a fresh
  // barrier counts its phase "before 0" as complete, so the first round
  // of the ring does not wait.
  Value stage = gb.remu(ring, t.stages);
  Value parity = arith::XOrIOp::create(
      b, loc, gb.remu(gb.divu(ring, t.stages), 2), gb.i32(1));
  NVVM::MBarrierTryWaitParityOp::create(b, loc,
                                        barrierAt(gb, smem, emptyOffset, stage),
                                        parity, gb.i32(kTryWaitTicks));
  issue(tile, slice, ring);
}

SmallVector<Value> emitConsumerLoop(GemmBuilder &gb, const MatmulTiling &t,
                                    const Operand &a, const Operand &bOp,
                                    int64_t slices, int64_t nTiles, Value smem,
                                    int64_t fullOffset, int64_t emptyOffset,
                                    Value ringBase, Value pingPongWarpgroup,
                                    SliceRewrite rewrite,
                                    Value warpgroupIndex) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  MLIRContext *context = b.getContext();
  SmallVector<Type> fields(nTiles * 4, b.getF32Type());
  auto accType = LLVM::LLVMStructType::getLiteral(context, fields);
  // Every MMA thread releases the stages its warpgroup's batches have read
  // (where `condition`, warp-uniform, holds when it is given).
  auto release = [&](Value condition, Value ring) {
    std::optional<OpBuilder::InsertionGuard> inner;
    if (condition) {
      auto guard = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
      inner.emplace(b);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
    }
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(),
        barrierAt(gb, smem, emptyOffset, gb.remu(ring, t.stages)), Value(),
        NVVM::MemScopeKindAttr::get(context, NVVM::MemScopeKind::CTA));
  };
  // Ping-pong: the warpgroups' K loops take turns (GemmPingPong.cpp).
  Value warpgroup = pingPongWarpgroup;
  const int64_t rowBlocks = warpgroup ? 2 : 1;
  if (warpgroup)
    waitForPingPongTurn(gb, ringBase, warpgroup);
  Value zero = LLVM::ZeroOp::create(b, loc, accType);
  auto loop =
      scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                         arith::ConstantIndexOp::create(b, loc, slices),
                         arith::ConstantIndexOp::create(b, loc, 1),
                         SmallVector<Value>(rowBlocks, zero));
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = openLoopBody(b, loop);
    Value slice = gb.toI32(loop.getInductionVar());
    Value ring = gb.add(ringBase, slice);
    waitForTmaSlice(gb, t, smem, fullOffset, ring);
    if (rewrite) {
      // The warpgroup rewrites the rows it multiplies; its stores reach
      // the tensor cores through the async proxy once all 128 threads
      // have fenced (named barrier 3 + warpgroup: 1 and 2 pass the
      // ping-pong turns).
      rewrite(slice, ring);
      gb.fenceAsyncProxy();
      NVVM::BarrierOp::create(b, loc, TypeRange{},
                              gb.add(gb.i32(3), warpgroupIndex), gb.i32(128),
                              {}, Value());
    }
    SmallVector<Value> acc =
        issueWgmmaBatch(gb, t, a, bOp, smem, ring,
                        SmallVector<Value>(body->getArguments().drop_front()),
                        warpgroup ? gb.i32(0) : Value());
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // The batch before this one has completed: its stage is free.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    Value notFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                           slice, gb.i32(0));
    release(notFirst, arith::SubIOp::create(b, loc, ring, gb.i32(1)));
    scf::YieldOp::create(b, loc, acc);
  }
  // Every slice of this tile has landed: the other warpgroup's turn.
  if (warpgroup)
    passPingPongTurn(gb, warpgroup);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  release(Value(), gb.add(ringBase, gb.i32(slices - 1)));
  SmallVector<Value> values;
  for (Value acc : loop.getResults())
    for (int64_t i = 0; i < nTiles * 4; ++i)
      values.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  return values;
}

MainLoop emitWarpSpecializedMainLoop(GemmKernelEmission &k) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  GemmBuilder &gb = k.gb;
  const MatmulTiling &t = k.t;
  Value warp = k.warp, thread = k.thread, smem = k.smem;
  const int64_t threads = k.threads;
  MainLoop result;
  // The warp's index as ptxas can see it is the same in every lane (a
  // shuffle from lane 0): branches on it are warp-uniform. A role branch
  // on the thread index is divergent to ptxas, which then serialises the
  // wgmma instructions inside it (C7520, "compiler-inserted WG.AR in
  // divergent path").
  Value uniformWarp =
      NVVM::ShflOp::create(b, loc, b.getI32Type(), gb.i32(-1), warp, gb.i32(0),
                           gb.i32(0x1f), NVVM::ShflKind::idx, UnitAttr());
  // The producer warpgroup (the last) against the MMA warpgroups.
  auto roles = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, uniformWarp,
                            gb.i32(threads / 32)),
      /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(roles.thenBlock()->getTerminator());
    gb.setMaxRegisters(GemmBuilder::kProducerRegisters,
                       NVVM::SetMaxRegisterAction::decrease);
    auto first = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread,
                              gb.i32(threads)),
        /*withElse=*/false);
    b.setInsertionPoint(first.thenBlock()->getTerminator());
    emitTmaProducer(gb, t, k.slices, k.totalTiles, smem, k.emptyOffset,
                    [&](Value tile, Value slice, Value ring) {
                      TileCoordinates c = k.coordinatesOf(tile);
                      k.tmaCopies[0].tileStart = c.tileM;
                      k.tmaCopies[1].tileStart = c.tileN;
                      issueTmaSlice(gb, k.tmaCopies, smem, k.barrierOffset,
                                    Value(), slice, ring, c.batchIndices);
                    });
  }
  b.setInsertionPoint(roles.elseBlock()->getTerminator());
  gb.setMaxRegisters(GemmBuilder::kConsumerRegisters,
                     NVVM::SetMaxRegisterAction::increase);
  Value pingPongWarpgroup;
  TileLoop tiles;
  if (k.pingPonged)
    std::tie(pingPongWarpgroup, tiles) = openPingPongTileLoop(k, uniformWarp);
  else
    tiles = openTileLoop(gb, k.totalTiles, k.slices);
  result.current = k.coordinatesOf(tiles.tile);
  // A ping-pong warpgroup multiplies all the tile's rows, a cooperative
  // one its own 64.
  Value warpgroup = gb.divu(uniformWarp, 4);
  Value firstRow = k.pingPonged ? gb.i32(0) : gb.mul(warpgroup, gb.i32(64));
  const int64_t rows = k.pingPonged ? t.blockM : 64;
  auto rewrite = [&](Value slice, Value ring) {
    result.failed |= failed(emitPrologueSlice(k, result.current, slice,
                                              gb.remu(ring, t.stages), firstRow,
                                              rows, gb.remu(thread, 128), 128));
  };
  result.acc = emitConsumerLoop(
      gb, t, k.problem.a, k.problem.b, k.slices, k.nTiles, smem,
      k.barrierOffset, k.emptyOffset, tiles.ringBase, pingPongWarpgroup,
      k.problem.prologue.ops.empty() ? SliceRewrite() : rewrite, warpgroup);
  return result;
}

} // namespace opfuse::gemm
