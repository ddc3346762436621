//===- AttentionKernel.h - The attention kernel's builder -------*- C++ -*-===//
//
// What the two forms of the attention kernel share: the block's place in
// the problem, the scores' logits and the online softmax, the wgmma
// batches of both products, and the shared-memory layout. The form whose
// threads all copy and compute (cp.async, AttentionKernel.cpp) and the
// warp-specialised one (a TMA producer and ping-ponged consumer
// warpgroups, AttentionWarpSpecialized.cpp) each have their main loop.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_ATTENTIONKERNEL_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_ATTENTIONKERNEL_H

#include "AttentionEmission.h"
#include "GemmBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace opfuse::attention {

using gemm::GemmBuilder;
using llvm::ArrayRef;
using llvm::SmallVector;
using mlir::Location;
using mlir::OpBuilder;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;
namespace arith = mlir::arith;
namespace LLVM = mlir::LLVM;
namespace NVVM = mlir::NVVM;
namespace scf = mlir::scf;

class AttentionKernel {
public:
  AttentionKernel(AttentionProblem &p, const AttentionTiling &t, OpBuilder &b,
                  KernelBuilder &kb, GemmBuilder &gb, mlir::Block &entry,
                  Value smem);

  /// The thread's place in the block, from the epilogue preamble's
  /// `thread`, `lane` and `warpRow`, and unless the blocks persist the
  /// block's query tile (placeQueryTile).
  void emitPreamble(Value thread, Value lane, Value warpRow);

  /// Runs `body` for each query tile of the block, placed: once, or with
  /// persistent blocks in a loop over the block's tiles (grid-stride)
  /// that carries the K/V rings' position and the Q barrier's phase.
  mlir::LogicalResult
  forEachQueryTile(llvm::function_ref<mlir::LogicalResult()> body);

  /// The main loop of the cp.async form; returns the output accumulators,
  /// normalised, in the m16n8 order of the GEMM epilogue. With split keys
  /// the builder is left where only the block that combines the splits
  /// runs (combineKeySplits).
  SmallVector<Value> emitMainLoop();

  /// The warp-specialised form (AttentionWarpSpecialized.cpp). The producer
  /// warpgroup's one thread copies Q, then each key tile's K and V, through
  /// the tensor maps `maps` (q, k, v, one per piece).
  void emitProducer(ArrayRef<Value> maps);
  /// A consumer warpgroup's loop (`warpgroup`, warp-uniform); the output
  /// accumulators as emitMainLoop returns them.
  SmallVector<Value> emitConsumer(Value warpgroup);
  /// Thread 0 initialises the mbarriers; the block then synchronises.
  void initBarriers();

  /// The block's (batch * heads + head) and first query row.
  Value bh, mStart;
  /// A split kernel's workspace (f32) and counters (i32) parameters.
  Value workspace, counters;

private:
  Value f32(double value) {
    return arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(static_cast<float>(value)));
  }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value fmax(Value x, Value y) {
    return arith::MaxNumFOp::create(b, loc, x, y);
  }
  /// 2^x with the special-function unit (ex2.approx: 2 ulp; 2^-inf = 0).
  Value exp2(Value x);
  /// 2^x for x <= 0 on the FMA units: 2^floor(x) times a cubic in the
  /// fraction (relative error below 9e-5; 2^-inf = 0), for the share of
  /// the exponentials the special-function unit would otherwise queue.
  Value exp2Polynomial(Value x);
  /// Every how many exponentials one is taken by exp2Polynomial (0: none):
  /// with head dims of 64 the TMA kernel's softmax, not its products, is
  /// the bottleneck, and the special-function unit its busiest part.
  int64_t polynomialExpEvery() const {
    return t.tma && std::max(p.d, p.dv) <= 64 ? 4 : 0;
  }
  /// `value` combined across the four threads of a quad (one row of an
  /// accumulator fragment).
  Value quadReduce(Value value, bool sum);
  /// Multiplies the output row (m-tile `i`, `half`) of this thread by
  /// `factor`.
  void scaleRow(SmallVector<Value> &o, int64_t i, int64_t half, Value factor);
  /// Element offsets of the pieces of `operand` for the block's (batch,
  /// head), its head taken from `head`.
  SmallVector<Value> baseOf(const AttentionOperand &operand, Value batch,
                            Value head);
  /// cp.async copies of rows [first, first + rows) of `operand` (`width`
  /// elements each, each from the piece it lies in, at `bases`) into
  /// shared memory at `smemOffset`, swizzled; rows at or past `limit` are
  /// zeros.
  void copyTile(const AttentionOperand &operand, ArrayRef<Value> bases,
                Value first, int64_t rows, int64_t width, int64_t limit,
                Value smemOffset);
  /// acc += A B for n8 tiles j and j + 1 of every m-tile: `four` is an
  /// ldmatrix.x4 of B (two k8 halves of each tile), `acc` holds `tiles`
  /// n8 tiles of 4 a thread per m-tile.
  void mmaTilePair(ArrayRef<SmallVector<Value>> a, ArrayRef<Value> four,
                   SmallVector<Value> &acc, int64_t tiles, int64_t j);
  /// The address of dynamic shared memory as an i32 (wgmma descriptors).
  Value sharedBase();
  /// S = Q Kᵀ for the K tile in `stage`: mTiles x sTiles fragments.
  SmallVector<Value> scores(Value stage);
  /// The byte offset of element (row, col) of a tile of `rows` rows and
  /// `width` columns: swizzled rows for ldmatrix, or for wgmma panels of
  /// 64 columns (128-byte rows, 16-byte chunks XOR row % 8), panel after
  /// panel.
  Value tileOffset(Value row, Value col, int64_t rows, int64_t width);
  /// One wgmma batch: acc (an LLVM struct of f32, m64nN) += A B over K in
  /// steps of 16; `aAt(k)` and `bAt(k)` are the descriptors at step k.
  /// The batch is committed; with `wait` it has completed on return.
  Value wgmmaBatch(Value acc, int64_t n, int64_t k, bool bKMajor,
                   llvm::function_ref<Value(int64_t)> aAt,
                   llvm::function_ref<Value(int64_t)> bAt, bool wait);
  /// Issues S = Q Kᵀ for this warpgroup's 64 rows of the Q tile against
  /// the K tile at byte offset `kTile`; returns the accumulator struct.
  Value issueScores(Value kTile, bool wait);
  /// Issues O += P V: `o` as a struct, P from the warpgroup's tile at
  /// `pTile`, V from the tile at `vTile` (byte offsets).
  Value issueAccumulate(Value o, Value pTile, Value vTile, bool wait);
  /// Issues O += P V with P from registers (`words`: the warpgroup's
  /// probabilities packed in pairs, the A fragments of each 16 keys in
  /// turn) and V from the tile at `vTile`: no trip of P through shared
  /// memory. The caller keeps the words alive (keepAlive) until the batch
  /// has completed.
  Value issueAccumulateFromRegisters(Value o, ArrayRef<Value> words,
                                     Value vTile);
  /// `probabilities` (an accumulator fragment) packed in pairs in the A
  /// fragment order of the product with V.
  SmallVector<Value> packProbabilities(ArrayRef<Value> probabilities);
  /// Keeps `values` in their registers up to this point (an empty asm that
  /// reads them): a wgmma still reading them must not find them reused.
  void keepAlive(ArrayRef<Value> values);
  /// The fields of a wgmma accumulator struct, read only after the
  /// instructions before this point (a wait) have run: an empty asm that
  /// claims to change every field keeps them from being read earlier.
  SmallVector<Value> fencedFields(Value acc);
  /// `values` as an accumulator struct.
  Value toStruct(ArrayRef<Value> values);
  /// The same with one wgmma batch per warpgroup (64 rows of Q against
  /// the whole K tile), in the same fragment order.
  SmallVector<Value> scoresWarpgroup(Value stage);
  /// The warpgroup's probabilities, rounded in pairs, into its tile at
  /// `pTile`, published to its tensor cores (named barrier `barrier`).
  void storeProbabilities(ArrayRef<Value> probabilities, Value pTile,
                          Value barrier);
  /// O += P V with wgmma: the warpgroup's P (rounded) written to its tile
  /// in shared memory first.
  void accumulateWarpgroup(ArrayRef<Value> probabilities, Value stage,
                           SmallVector<Value> &o);
  /// The base-2 logits of the scores of key tile `tile`: scaled, masked,
  /// and -inf where a key is hidden; with foldsScale() left unscaled.
  void logits(SmallVector<Value> &s, Value tile);
  /// Whether the scale is folded into the exponentials (one fma each)
  /// instead of multiplying every score: with no mask to add to the scaled
  /// scores, and a positive scale (the maxima of the raw scores are then
  /// those of the scaled ones).
  bool foldsScale() const {
    return !p.maskInput && p.scale > 0 && p.softcap == 0;
  }
  /// tanh(y) = 1 - 2 / (2^(2 y log2(e)) + 1) with ex2.approx and
  /// rcp.approx: an absolute error near 1e-7 (the soft cap multiplies it
  /// by c), where tanh.approx's 5e-4 would move a capped score by 0.02.
  Value tanh(Value y);
  static constexpr double kLog2e = 1.4426950408889634;
  /// The online softmax of one key tile: `s` (logits) becomes the
  /// unnormalised probabilities, the running `maxima` and `sums` move on;
  /// returns each row's correction of the earlier output.
  SmallVector<Value> onlineSoftmax(SmallVector<Value> &s,
                                   SmallVector<Value> &maxima,
                                   SmallVector<Value> &sums);
  /// A loop over the key tiles from `first` (i32) to keyTiles carrying `init`,
  /// with the builder left at the start of its body (no terminator yet);
  /// `tile` (i32) and `carried` are the body's arguments. The caller
  /// yields and restores the insertion point.
  scf::ForOp openKeyLoop(Value first, ValueRange init, Value &tile,
                         ValueRange &carried);
  /// Each output row times its correction.
  void scaleRows(SmallVector<Value> &o, ArrayRef<Value> corrections);
  /// Each output row divided by its sum (zero for a row with no visible
  /// key): `sums` per thread, or with `rowSums` already the whole row's.
  void normalize(SmallVector<Value> &o, ValueRange sums, bool rowSums = false);
  /// 2^(m - reference) for running maxima as onlineSoftmax keeps them
  /// (raw scores where foldsScale()).
  Value rescaleFactor(Value m, Value reference);
  /// Split keys (AttentionKeySplits.cpp): the block stores its rows'
  /// unnormalised output, maxima and sums in the workspace and counts
  /// itself done; the last of the query tile's blocks leaves the builder
  /// in the code only it runs and returns the combined, normalised output
  /// (the splits taken in order, whichever finished last).
  SmallVector<Value> combineKeySplits(SmallVector<Value> o, ValueRange maxima,
                                      ValueRange sums);
  /// Row `r` (m-tile r / 2, half r % 2) of this thread's fragments, in the
  /// query tile.
  Value splitRow(int64_t r);
  /// The workspace's f32 for `row` of block `block`: its output column
  /// `column` + 2 quad (0 or more), its maximum (-1) or its sum (-2).
  Value splitElement(Value block, Value row, int64_t column);
  /// The block's rows that exist, unnormalised, into the workspace.
  void storeKeySplit(ArrayRef<Value> o, ValueRange maxima, ValueRange sums);
  /// Counts the block done; leaves the builder where only the tile's last
  /// block runs, and returns the counter's address.
  Value countKeySplit();
  /// The splits' outputs, maxima and sums combined in split order.
  SmallVector<Value> sumKeySplits(int64_t outputs);
  /// Where output (row r, n8 tile j, element e) is among the accumulators.
  int64_t outputIndex(int64_t r, int64_t j, int64_t e) const {
    return ((r / 2) * oTiles + j) * 4 + (r % 2) * 2 + e;
  }
  /// O += P V for the V tile in `stage`, P in registers.
  void accumulate(ArrayRef<Value> probabilities, Value stage,
                  SmallVector<Value> &o);

  // The warp-specialised layout: Q, `stages` K tiles, as many V tiles,
  // then the mbarriers (Q full, K and V full, K and V empty).
  int64_t kTileOffset(int64_t stage) const { return qBytes + stage * kBytes; }
  int64_t vTilesOffset() const { return qBytes + t.stages * kBytes; }
  int64_t barriersOffset() const { return vTilesOffset() + t.stages * vBytes; }
  /// The mbarrier `index` of kind `kind` (0 Q full, 1 K full, 2 V full, 3 K
  /// empty, 4 V empty) at stage `stage` (i32).
  Value barrier(int64_t kind, Value stage);
  /// Copies box panels of the map `map` at `coordinates` (the innermost
  /// one stepped by 64 per panel) to `panels` tiles of `panelBytes` from
  /// `target`, completing on `full`.
  void copyPanels(Value map, SmallVector<Value> coordinates, int64_t panels,
                  int64_t panelBytes, Value target, Value full);
  /// The coordinates after the innermost two of a tensor map of `heads`
  /// heads: `head` and the batch, where the map has them.
  SmallVector<Value> outerCoordinates(int64_t heads, Value head);
  /// Where key tile `tile` falls in the K and V rings: its place among the
  /// block's tiles (a split starts at firstTile; a persistent block's
  /// earlier query tiles used ringBase positions), whose first use of each
  /// slot completes a fresh mbarrier's phase 0.
  Value ringPosition(Value tile) {
    Value position = arith::SubIOp::create(b, loc, tile, firstTile);
    return ringBase ? gb.add(ringBase, position) : position;
  }
  /// The query tile `tile` (i32, in the grid's order): its (batch, head),
  /// first row and key tiles.
  void placeQueryTile(Value tile);
  /// A barrier of the threads that compute (with TMA, not the producer
  /// warpgroup, which has left).
  void syncComputeThreads();
  /// The ping-pong turns of the consumer warpgroups (two of them), taken
  /// and passed where `when` holds (always when null): named barrier
  /// 2 - wg is the turn of warpgroup wg, 1 + wg the other's.
  void waitForTurn(Value warpgroup, Value when);
  void passTurn(Value warpgroup, Value when);

  AttentionProblem &p;
  const AttentionTiling &t;
  OpBuilder &b;
  Location loc;
  KernelBuilder &kb;
  GemmBuilder &gb;
  mlir::Block &entry;
  Value smem;
  int64_t elementBytes = 2, mTiles = 1, sTiles = 8, oTiles = 16;
  int64_t qBytes = 0, kBytes = 0, vBytes = 0, stageBytes = 0, pBytes = 0;
  // The preamble's values.
  Value thread, lane, warpRow, group8, quad, matrixLow, matrixHigh, rowInMatrix;
  SmallVector<Value> qBase, kBase, vBase;
  Value batchIndex, headIndex, kvHead;
  /// The key tiles this block visits: from firstTile to keyTiles (i32).
  Value firstTile, keyTiles;
  /// The block's index, and with split keys its query tile's (the
  /// counter's) index.
  Value blockId, queryTile;
  /// A persistent block's query tile in flight: the ring positions its
  /// predecessors used, the parity of its Q barriers' phase, and whether
  /// the block ran query tiles before it and has more after it (null: a
  /// block of one query tile).
  Value ringBase, qPhase, earlierQueryTiles, moreQueryTiles;
};

} // namespace opfuse::attention

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_ATTENTIONKERNEL_H
