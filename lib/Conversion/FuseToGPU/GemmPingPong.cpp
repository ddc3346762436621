//===- GemmPingPong.cpp - The ping-pong schedule --------------------------===//
//
// Ping-pong consumers of the warp-specialised kernel (tilings of two MMA
// warpgroups and at most 128 columns): each MMA warpgroup owns a whole
// tile (both 64-row blocks, two accumulator sets) and every other one of
// the block's tiles, so that one warpgroup's epilogue runs under the
// other's MMAs. The producer is the warp-specialised one
// (GemmWarpSpecialized.cpp); what differs is which tiles a warpgroup takes
// and the turns its K loop waits for and passes.
//
//===----------------------------------------------------------------------===//

#include "GemmEmission.h"

using namespace mlir;

namespace opfuse::gemm {

std::pair<Value, TileLoop> openPingPongTileLoop(GemmKernelEmission &k,
                                                Value uniformWarp) {
  OpBuilder &b = k.b;
  Value warpgroup = k.gb.divu(uniformWarp, 4);
  TileLoop tiles = openTileLoop(
      k.gb, k.totalTiles, k.slices,
      arith::IndexCastUIOp::create(b, k.loc, b.getIndexType(), warpgroup), 2);
  return {warpgroup, tiles};
}

// The warpgroups' K loops take turns, in the order of the block's tiles.
// Named barrier 1 passes the turn from warpgroup 0 to 1, 2 back (one per
// direction, so that an arrival is never taken for the other's). Besides
// ordering the MMAs, the turn keeps each full-barrier wait within one
// phase of the barrier: the next tile's slices lie up to a whole tile
// ahead in the ring.
void waitForPingPongTurn(GemmBuilder &gb, Value ringBase, Value warpgroup) {
  OpBuilder &b = gb.b;
  Location loc = gb.loc;
  auto notFirst =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                              ringBase, gb.i32(0)),
                        /*withElse=*/false);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(&notFirst.getThenRegion().front());
  NVVM::BarrierOp::create(b, loc, TypeRange{},
                          arith::SubIOp::create(b, loc, gb.i32(2), warpgroup),
                          gb.i32(256), {}, Value());
}

// Every slice of this tile has landed: the other warpgroup's turn.
void passPingPongTurn(GemmBuilder &gb, Value warpgroup) {
  NVVM::BarrierArriveOp::create(gb.b, gb.loc, gb.add(gb.i32(1), warpgroup),
                                gb.i32(256));
}

} // namespace opfuse::gemm
