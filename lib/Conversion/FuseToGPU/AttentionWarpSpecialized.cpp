//===- AttentionWarpSpecialized.cpp - TMA producer, ping-pong consumers ---===//
//
// The warp-specialised attention kernel (sm_90). One thread of an extra
// producer warpgroup copies the block's Q tile once, then K and V tiles
// by TMA through rings of `stages` slots, each slot with a full mbarrier
// (the copy's bytes) and an empty one (every consumer thread's arrival).
// K and V have rings of their own because they are consumed at different
// times: in step j a consumer warpgroup issues S_j = Q K_jᵀ and then
// O += P_{j-1} V_{j-1} as two wgmma groups, waits for S_j only and
// computes its softmax while the tensor cores run the second product
// (intra-warpgroup overlap); K_j's slot is free as soon as S_j is done,
// V_{j-1}'s once O is. The producer copies in that order: K_0, then K_j
// and V_{j-1}, then the last V.
//
// With two or three consumer warpgroups (64 query rows each) the issue of
// each step's products is a turn passed round them through named barriers
// (ping-pong), so one warpgroup's softmax runs while another's products
// occupy the tensor cores. P never leaves registers: the scores'
// accumulator fragment, rounded in pairs, is the register A operand of
// the product with V (written out as PTX: MLIR's wgmma op reads A from
// shared memory only).
//
// Persistent blocks take query tiles in turn: the rings' positions and
// the turn go on from one tile to the next, and Q has an empty barrier
// too, released once each warpgroup's last S = Q Kᵀ is done, so the
// producer copies the next Q tile (and its first K tiles) while the
// consumers finish the softmax, the last P V and the epilogue.
//
// As in the GEMM, no branch on the thread index surrounds a wgmma (ptxas
// would serialise them): the roles are decided on a warp index shuffled
// from lane 0.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <limits>

using namespace mlir;

namespace opfuse::attention {

namespace {
enum BarrierKind : int64_t { QFull, KFull, VFull, KEmpty, VEmpty, QEmpty };
} // namespace

Value AttentionKernel::barrier(int64_t kind, Value stage) {
  const int64_t first = kind == QFull    ? 0
                        : kind == QEmpty ? 1 + 4 * t.stages
                                         : 1 + (kind - 1) * t.stages;
  return gb.sharedPointer(smem, gb.add(gb.i32(barriersOffset() + 8 * first),
                                       gb.mul(stage, gb.i32(8))));
}

void AttentionKernel::initBarriers() {
  auto first = scf::IfOp::create(b, loc, gb.eq(thread, gb.i32(0)),
                                 /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    auto init = [&](int64_t kind, int64_t stage, int64_t arrivals) {
      NVVM::MBarrierInitOp::create(b, loc, barrier(kind, gb.i32(stage)),
                                   gb.i32(arrivals), Value());
    };
    // A full barrier completes on its one arrive.expect_tx and the bytes;
    // an empty one on every consumer thread's arrival.
    init(QFull, 0, 1);
    if (t.persistentBlocks)
      init(QEmpty, 0, 128 * t.consumers());
    for (int64_t s = 0; s < t.stages; ++s) {
      init(KFull, s, 1);
      init(VFull, s, 1);
      init(KEmpty, s, 128 * t.consumers());
      init(VEmpty, s, 128 * t.consumers());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  gpu::BarrierOp::create(b, loc);
}

SmallVector<Value> AttentionKernel::outerCoordinates(int64_t heads,
                                                     Value head) {
  SmallVector<Value> coordinates;
  if (heads > 1)
    coordinates.push_back(head);
  if (p.batch > 1)
    coordinates.push_back(batchIndex);
  return coordinates;
}

void AttentionKernel::copyPanels(Value map, SmallVector<Value> coordinates,
                                 int64_t panels, int64_t panelBytes,
                                 Value target, Value full) {
  auto generic = LLVM::LLVMPointerType::get(b.getContext());
  Value descriptor = LLVM::AddrSpaceCastOp::create(b, loc, generic, map);
  for (int64_t panel = 0; panel < panels; ++panel) {
    coordinates[0] = gb.i32(64 * panel);
    Value at =
        gb.sharedPointer(smem, gb.add(target, gb.i32(panel * panelBytes)));
    // A block is a cluster of one: its shared memory is the cluster's.
    at = LLVM::AddrSpaceCastOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), at);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, at, descriptor, coordinates, full,
        /*im2colOffsets=*/ValueRange(), /*multicastMask=*/Value(),
        /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
  }
}

void AttentionKernel::emitProducer(ArrayRef<Value> maps) {
  ArrayRef<Value> kMaps = maps.slice(p.q.pieces.size(), p.k.pieces.size());
  ArrayRef<Value> vMaps = maps.take_back(p.v.pieces.size());
  auto expect = [&](Value full, int64_t bytes) {
    NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), full, gb.i32(bytes),
                                           NVVM::MemScopeKind::CTA,
                                           /*relaxed=*/false, Value());
  };
  Value qFull = barrier(QFull, gb.i32(0));
  if (qPhase)
    // The previous query tile's Q is free (a fresh barrier's phase
    // "before 0" counts as complete for the first).
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, barrier(QEmpty, gb.i32(0)),
        arith::XOrIOp::create(b, loc, qPhase, gb.i32(1)),
        gb.i32(gemm::kTryWaitTicks));
  expect(qFull, qBytes);
  SmallVector<Value> q = {Value(), mStart};
  llvm::append_range(q, outerCoordinates(p.heads, headIndex));
  copyPanels(maps[0], q, p.d / 64, t.blockM * 128, gb.i32(0), qFull);

  // Key tile `tile` of K (`value` false) or V into its ring slot, once
  // the consumers have released the slot's previous tile (a fresh
  // barrier's phase "before 0" counts as complete).
  auto load = [&](Value tile, bool value) {
    Value position = ringPosition(tile);
    Value stage = gb.remu(position, t.stages);
    Value parity = arith::XOrIOp::create(
        b, loc, gb.remu(gb.divu(position, t.stages), 2), gb.i32(1));
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, barrier(value ? VEmpty : KEmpty, stage), parity,
        gb.i32(gemm::kTryWaitTicks));
    Value full = barrier(value ? VFull : KFull, stage);
    const int64_t bytes = value ? vBytes : kBytes;
    expect(full, bytes);
    // The tile lies in one piece (whyNoTmaAttention): the last that starts
    // at or before it, at its row there.
    const AttentionOperand &operand = value ? p.v : p.k;
    ArrayRef<Value> pieceMaps = value ? vMaps : kMaps;
    Value row = gb.mul(tile, gb.i32(t.blockN));
    Value map = pieceMaps.front(), rowInPiece = row;
    for (auto [piece, pieceMap] :
         llvm::drop_begin(llvm::zip(operand.pieces, pieceMaps))) {
      Value inPiece = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                            row, gb.i32(piece.firstRow));
      map = arith::SelectOp::create(b, loc, inPiece, pieceMap, map);
      rowInPiece = arith::SelectOp::create(
          b, loc, inPiece,
          arith::SubIOp::create(b, loc, row, gb.i32(piece.firstRow)),
          rowInPiece);
    }
    SmallVector<Value> at = {Value(), rowInPiece};
    llvm::append_range(at, outerCoordinates(p.kvHeads, kvHead));
    Value target =
        value ? gb.add(gb.i32(vTilesOffset()), gb.mul(stage, gb.i32(vBytes)))
              : gb.add(gb.i32(kTileOffset(0)), gb.mul(stage, gb.i32(kBytes)));
    copyPanels(map, at, (value ? p.dv : p.d) / 64, t.blockN * 128, target,
               full);
  };
  load(firstTile, /*value=*/false);
  auto loop = scf::ForOp::create(
      b, loc,
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                   gb.add(firstTile, gb.i32(1))),
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(), keyTiles),
      arith::ConstantIndexOp::create(b, loc, 1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value tile = gb.toI32(loop.getInductionVar());
    load(tile, /*value=*/false);
    load(arith::SubIOp::create(b, loc, tile, gb.i32(1)), /*value=*/true);
  }
  load(arith::SubIOp::create(b, loc, keyTiles, gb.i32(1)), /*value=*/true);
}

void AttentionKernel::waitForTurn(Value warpgroup, Value when) {
  const int64_t n = t.consumers();
  if (n < 2)
    return;
  OpBuilder::InsertionGuard guard(b);
  if (when) {
    auto turn = scf::IfOp::create(b, loc, when, /*withElse=*/false);
    b.setInsertionPointToStart(&turn.getThenRegion().front());
  }
  // Warpgroup wg's turn is named barrier 1 + (wg + n - 1) % n: the one its
  // predecessor passes the turn on (passTurn).
  NVVM::BarrierOp::create(
      b, loc, TypeRange{},
      gb.add(gb.i32(1), gb.remu(gb.add(warpgroup, gb.i32(n - 1)), n)),
      gb.i32(256), {}, Value());
}

void AttentionKernel::passTurn(Value warpgroup, Value when) {
  if (t.consumers() < 2)
    return;
  OpBuilder::InsertionGuard guard(b);
  auto turn = scf::IfOp::create(b, loc, when, /*withElse=*/false);
  b.setInsertionPointToStart(&turn.getThenRegion().front());
  NVVM::BarrierArriveOp::create(b, loc, gb.add(gb.i32(1), warpgroup),
                                gb.i32(256));
}

SmallVector<Value> AttentionKernel::emitConsumer(Value warpgroup) {
  auto waitFor = [&](int64_t kind, Value tile) {
    Value position = ringPosition(tile);
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, barrier(kind, gb.remu(position, t.stages)),
        gb.remu(gb.divu(position, t.stages), 2), gb.i32(gemm::kTryWaitTicks));
  };
  auto release = [&](int64_t kind, Value tile) {
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), barrier(kind, gb.remu(ringPosition(tile), t.stages)),
        Value(),
        NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA));
  };
  auto kTile = [&](Value tile) {
    return gb.add(
        gb.i32(kTileOffset(0)),
        gb.mul(gb.remu(ringPosition(tile), t.stages), gb.i32(kBytes)));
  };
  auto vTile = [&](Value tile) {
    return gb.add(
        gb.i32(vTilesOffset()),
        gb.mul(gb.remu(ringPosition(tile), t.stages), gb.i32(vBytes)));
  };
  Value lastTile = arith::SubIOp::create(b, loc, keyTiles, gb.i32(1));
  // The last warpgroup passes no turn after its last step (of a persistent
  // block's last query tile): warpgroup 0 waits for none then.
  auto passesAfter = [&](Value tile) {
    Value passes = arith::OrIOp::create(
        b, loc, gb.ne(warpgroup, gb.i32(t.consumers() - 1)),
        gb.ne(tile, lastTile));
    if (moreQueryTiles)
      passes = arith::OrIOp::create(b, loc, passes, moreQueryTiles);
    return passes;
  };
  // A persistent block's Q is free for the next query tile once the last
  // S = Q Kᵀ has completed.
  auto releaseQueryAfter = [&](Value tile) {
    if (!t.persistentBlocks)
      return;
    OpBuilder::InsertionGuard guard(b);
    auto last = scf::IfOp::create(b, loc, gb.eq(tile, lastTile),
                                  /*withElse=*/false);
    b.setInsertionPointToStart(&last.getThenRegion().front());
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), barrier(QEmpty, gb.i32(0)), Value(),
        NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA));
  };
  const int64_t rows = mTiles * 2;
  Value minusInfinity = f32(-std::numeric_limits<double>::infinity());
  SmallVector<Value> maxima(rows, minusInfinity), sums(rows, f32(0.0));

  // Step 0: S_0 alone (warpgroup 0 takes a block's first turn unasked).
  NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier(QFull, gb.i32(0)),
                                        qPhase ? qPhase : gb.i32(0),
                                        gb.i32(gemm::kTryWaitTicks));
  Value first = firstTile;
  waitFor(KFull, first);
  Value asksTurn = gb.ne(warpgroup, gb.i32(0));
  if (earlierQueryTiles)
    asksTurn = arith::OrIOp::create(b, loc, asksTurn, earlierQueryTiles);
  waitForTurn(warpgroup, asksTurn);
  Value scores = issueScores(kTile(first), /*wait=*/false);
  passTurn(warpgroup, passesAfter(first));
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> s = fencedFields(scores);
  release(KEmpty, first);
  releaseQueryAfter(first);
  logits(s, first);
  onlineSoftmax(s, maxima, sums);
  SmallVector<Value> words = packProbabilities(s);
  const int64_t wordCount = words.size();

  // Carried: O, P_{j-1} (packed), the row maxima and sums.
  SmallVector<Value> init(p.dv / 2, f32(0.0));
  llvm::append_range(init, words);
  llvm::append_range(init, maxima);
  llvm::append_range(init, sums);
  scf::ForOp loop;
  {
    OpBuilder::InsertionGuard guard(b);
    Value tile;
    ValueRange carried;
    loop = openKeyLoop(gb.add(firstTile, gb.i32(1)), init, tile, carried);
    Value previous = arith::SubIOp::create(b, loc, tile, gb.i32(1));
    SmallVector<Value> o(carried.take_front(p.dv / 2));
    SmallVector<Value> previousWords(carried.slice(p.dv / 2, wordCount));
    SmallVector<Value> stepMaxima(carried.slice(p.dv / 2 + wordCount, rows));
    SmallVector<Value> stepSums(carried.take_back(rows));

    waitFor(KFull, tile);
    waitFor(VFull, previous);
    waitForTurn(warpgroup, Value());
    Value stepScores = issueScores(kTile(tile), /*wait=*/false);
    Value output = issueAccumulateFromRegisters(toStruct(o), previousWords,
                                                vTile(previous));
    passTurn(warpgroup, passesAfter(tile));
    // S_j is done; P_{j-1} V_{j-1} still runs under the softmax.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    SmallVector<Value> step = fencedFields(stepScores);
    release(KEmpty, tile);
    releaseQueryAfter(tile);
    logits(step, tile);
    SmallVector<Value> corrections = onlineSoftmax(step, stepMaxima, stepSums);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    o = fencedFields(output);
    keepAlive(previousWords);
    release(VEmpty, previous);
    scaleRows(o, corrections);
    SmallVector<Value> yielded(o);
    llvm::append_range(yielded, packProbabilities(step));
    llvm::append_range(yielded, stepMaxima);
    llvm::append_range(yielded, stepSums);
    scf::YieldOp::create(b, loc, yielded);
  }
  ValueRange results = loop.getResults();
  // The last P V; its slot is released only where the ring goes on (a
  // persistent block's next query tile).
  waitFor(VFull, lastTile);
  SmallVector<Value> lastWords(results.slice(p.dv / 2, wordCount));
  Value output = issueAccumulateFromRegisters(
      toStruct(SmallVector<Value>(results.take_front(p.dv / 2))), lastWords,
      vTile(lastTile));
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> o = fencedFields(output);
  keepAlive(lastWords);
  if (t.persistentBlocks)
    release(VEmpty, lastTile);
  if (t.keySplits > 1)
    return combineKeySplits(o, results.slice(p.dv / 2 + wordCount, rows),
                            results.take_back(rows));
  normalize(o, results.take_back(rows));
  return o;
}

} // namespace opfuse::attention
