//===- GemmEmission.h - One GEMM kernel, configured and emitted -*- C++ -*-===//
//
// The GEMM emitter in three parts: the problem a group poses (its
// contraction, operands and tensor maps for a tiling), the schedule decided
// from it before emission (GemmSchedule.cpp), and the emission shared by
// every schedule (GemmEmitter.cpp): the block's threads, its tiles and
// their copies. Each schedule's main loop has its own file (GemmMmaSync,
// GemmCooperative, GemmWarpSpecialized with GemmPingPong), and the
// epilogue its own (GemmEpilogue.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMEMISSION_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMEMISSION_H

#include "GemmBuilder.h"

#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "llvm/ADT/DenseMap.h"

namespace opfuse::gemm {

/// What a GEMM group computes, as the kernels of `tiling` copy it.
struct GemmProblem {
  mlir::Operation *contraction = nullptr;
  /// One of the two is set.
  fuse::MatmulOp matmul;
  fuse::Conv2DOp conv;
  /// The group inputs the operands are.
  mlir::BlockArgument lhsArg, rhsArg;
  Type elementType;
  int64_t elementBytes = 2;
  RankedTensorType output;
  /// The output's batch dimensions (none for a conv2d, or when folded).
  SmallVector<int64_t> batchShape;
  /// A matmul's batch folded into its rows (fuse::foldsBatchIntoRows, with
  /// A's rows following one another in memory): GEMM row r is the output's
  /// row r in the output's shape without its last dimension, as for a
  /// conv2d.
  bool rowsFolded = false;
  fuse::GemmShape shape;
  /// A and B as the kernel copies them (pointers unset until emission).
  Operand a, b;
  /// Bytes of one stage: a K slice of A and of B.
  int64_t stageBytes = 0;
  /// Elementwise ops computing A from the input `a` copies, applied to
  /// each K slice in shared memory before the MMAs read it (none: A is
  /// read as it is).
  fuse::GemmPrologue prologue;
  /// The tensor maps TMA can copy A and B through (warpgroup MMA with TMA
  /// asked for, and each operand allowing one).
  std::optional<TmaOperand> tmaA, tmaB;

  bool hasTensorMaps() const { return tmaA && tmaB; }
};

/// The problem `group` poses for `tiling`: errors, at the op at fault, on
/// what no GEMM kernel runs (element types, shared memory, operands
/// computed inside the group). Tensor maps are looked for when `useTma`
/// and the tiling is warpgroup MMA.
mlir::FailureOr<GemmProblem> analyzeGemmProblem(fuse::GroupOp group,
                                                const MatmulTiling &tiling,
                                                bool useTma);

/// How the kernel runs, decided before emission: its schedule and feed
/// (recorded on the group as #fuse.gemm_schedule) and its launch.
struct GemmDecision {
  fuse::GemmScheduleKind kind = fuse::GemmScheduleKind::mma_sync;
  fuse::GemmOperandFeed feed = fuse::GemmOperandFeed::cp_async;
  LaunchConfig launch;
};

/// The schedule of `problem` with `tiling` under the emitter options and on
/// `target`: warpgroup MMA is persistent when a block fits on an SM, and
/// warp-specialised (ping-pong with --ping-pong and at most 128 columns)
/// when it is fed by TMA with two MMA warpgroups and the producer
/// warpgroup fits too.
GemmDecision decideGemmSchedule(const GemmProblem &problem,
                                const MatmulTiling &tiling,
                                const EmitterOptions &options,
                                const GpuTarget &target);

/// The tiling of the GEMM kernel `group`: its own fuse.matmul_tiling or
/// its contraction's, else the option, where "auto" asks the tile model.
/// Errors at the op whose attribute the chip cannot run.
mlir::FailureOr<MatmulTiling> chooseGemmTiling(fuse::GroupOp group,
                                               const EmitterOptions &options,
                                               const GpuTarget &target);

/// Where a tile lies: its batch element, first row and column, and the
/// operands' batch offsets.
struct TileCoordinates {
  Value batch, tileM, tileN, aBatch, bBatch;
  SmallVector<Value> batchIndices;
};

/// The emission of one GEMM kernel: the builders, the block's threads and
/// what every schedule's main loop and the epilogue share.
class GemmKernelEmission {
public:
  GemmKernelEmission(fuse::GroupOp group, GemmProblem &problem,
                     const MatmulTiling &tiling,
                     fuse::GemmScheduleAttr schedule, OpBuilder &b,
                     KernelBuilder &kb, GemmBuilder &gb, mlir::Block &entry,
                     Value smem);

  /// Thread and warp indices, barriers and the warps' places in the tile.
  void emitPreamble();

  /// The coordinates of tile `tileId` (i32): blocks walk the tiles in
  /// groups of 8 tile-rows, column by column, so that blocks running
  /// together share A rows and B columns in L2.
  TileCoordinates coordinatesOf(Value tileId);
  /// Every thread's cp.async copies of K slice `slice` into `stage`: of A
  /// and B, or only of the operands asked for.
  void copyInto(const TileCoordinates &c, Value slice, Value stage,
                bool copyA = true, bool copyB = true);
  /// The warpgroup kernel's copies of a slice into ring position `ring`.
  void issueInto(const TileCoordinates &c, Value slice, Value ring);
  /// The first slices of `tile` (i32), when it is one, from ring position
  /// `ring`: a persistent block's first tile, and each next one.
  void issuePrologueOf(Value tile, Value ring);

  fuse::GroupOp group;
  GemmProblem &problem;
  const MatmulTiling &t;
  OpBuilder &b;
  Location loc;
  KernelBuilder &kb;
  GemmBuilder &gb;
  mlir::Block &entry;
  Value smem;

  // Early launch: the kernel waits for the grids before it itself (after
  // copying what `earlyA`/`earlyB` allow) and lets the next kernel launch
  // after its main loop.
  bool waitsItself = false, earlyA = false, earlyB = false;

  // The schedule.
  bool warpgroups = false, tma = false, persistent = false;
  bool warpSpecialized = false, pingPonged = false;

  // Sizes.
  int64_t threads = 0;
  /// Accumulator tiles (m16 x n8) of a warp, and the rows an m-tile steps.
  int64_t mTiles = 0, nTiles = 0, mTileRows = 16, accMTiles = 0;
  int64_t tilesM = 0, tilesN = 0, tilesPerBatch = 0, totalTiles = 0;
  int64_t slices = 0;
  /// Byte offsets of the full and empty mbarriers in shared memory.
  int64_t barrierOffset = 0, emptyOffset = 0;

  // Values of the preamble.
  Value thread, blockId, lane, warp, warpRow, warpCol;
  /// Ring positions of a block's first tile and of the next one (0 until
  /// a schedule counts them).
  Value initialRingBase, initialNextRingBase;
  SmallVector<TmaCopy, 2> tmaCopies;
};

/// A main loop's result: the tile its accumulators belong to (inside the
/// persistent tile loop when there is one) and the accumulators, in the
/// m16n8 order of the mma.sync kernel.
struct MainLoop {
  TileCoordinates current;
  SmallVector<Value> acc;
  /// The tile of a one-tile block (i32), and with split-K its split (null
  /// otherwise).
  Value tileId, split;
  /// An error was reported while emitting it (the prologue's inputs).
  bool failed = false;
};

/// mma.sync (bf16/f16 m16n8k16; f32 as TF32 or FMAs): one tile per block,
/// cp.async copies `stages - 1` slices ahead (GemmMmaSync.cpp).
MainLoop emitMmaSyncMainLoop(GemmKernelEmission &k, bool tf32);

/// Warpgroup MMA whose warpgroups also copy: one tile per block, or
/// persistent (cooperative) with the next tile's first slices issued
/// before the epilogue (GemmCooperative.cpp).
MainLoop emitCooperativeMainLoop(GemmKernelEmission &k);

/// Warp-specialised: a producer warpgroup streams the slices, the MMA
/// warpgroups only multiply; with ping-pong they take alternate tiles
/// (GemmWarpSpecialized.cpp, GemmPingPong.cpp).
MainLoop emitWarpSpecializedMainLoop(GemmKernelEmission &k);

/// The per-row values of a prologue with statistics (GemmPrologue::
/// statistics) for the rows a thread rewrites: one map per round of
/// emitPrologueSlice's chunk loop, from each per-row value the elements
/// read to the thread's scalar of it.
struct PrologueRows {
  SmallVector<llvm::DenseMap<Value, Value>> rounds;
  /// Rounds whose rows all lie past A's last row (a decode step's few
  /// rows in a 16-row tile): nothing computed, and nothing to rewrite.
  SmallVector<bool> padding;
};

/// A prologue's inputs other than its source, loaded for one round of
/// emitPrologueSlice's chunk loop: each input's lanes.
using PrologueInputLanes = SmallVector<std::pair<Value, SmallVector<Value>>, 2>;

/// The loads of the prologue's inputs (a norm's scale) for K slice `slice`
/// of tile `c`, one entry per round of emitPrologueSlice with the same
/// arguments (empty for padding rounds of `rowValues`), so that a schedule
/// can issue them before it waits for the slice and their latency hides
/// under the wait (GemmPrologue.cpp).
mlir::FailureOr<SmallVector<PrologueInputLanes>>
emitPrologueInputLoads(GemmKernelEmission &k, const TileCoordinates &c,
                       Value slice, Value firstRow, int64_t rows, Value member,
                       int64_t members, const PrologueRows *rowValues);

/// The statistics of the prologue reduced over the whole of K for rows
/// [firstRow, firstRow + rows) of tile `c`, each thread getting the rows
/// emitPrologueSlice gives it with the same `member` and `members` (a
/// multiple of 32: a row's threads reduce together with shuffles, so
/// every thread of a warp must run it), read from memory
/// (GemmPrologueStatistics.cpp).
mlir::FailureOr<PrologueRows> emitPrologueStatistics(GemmKernelEmission &k,
                                                     const TileCoordinates &c,
                                                     Value firstRow,
                                                     int64_t rows, Value member,
                                                     int64_t members);

/// The group's prologue (GemmProblem::prologue) applied in place to rows
/// [firstRow, firstRow + rows) of the A slice `slice` of tile `c` in
/// `stage` (i32): `member` is the thread's index among the `members`
/// threads that share the work. The caller orders it after the slice's
/// arrival and before its MMAs (GemmPrologue.cpp). A prologue with
/// statistics reads them from `rows` when given (computed before the main
/// loop with the same arguments), else computes them here, per slice.
mlir::LogicalResult
emitPrologueSlice(GemmKernelEmission &k, const TileCoordinates &c, Value slice,
                  Value stage, Value firstRow, int64_t rows, Value member,
                  int64_t members, const PrologueRows *rowValues = nullptr,
                  const SmallVector<PrologueInputLanes> *inputs = nullptr);

/// Split-K (GemmSplitK.cpp): every block of a tile stores its partial
/// accumulators in the workspace; the last of the tile's blocks to finish
/// (counted in its counter) sums them in split order, resets the counter,
/// and gets `loop.acc` replaced by the sums, with the builder left inside
/// the condition, where the epilogue goes; the other blocks end.
void emitSplitKReduction(GemmKernelEmission &k, MainLoop &loop, Value workspace,
                         Value counters);

/// The group's elementwise ops on the accumulators, each output stored
/// once (GemmEpilogue.cpp): 16 bytes a thread with `vectorStores` where
/// the outputs allow, else in pairs.
mlir::LogicalResult emitGemmEpilogue(GemmKernelEmission &k,
                                     const MainLoop &loop, bool vectorStores);

/// Ping-pong: warpgroup g (0 or 1, i32, from the warp-uniform
/// `uniformWarp`) takes the block's tiles of ordinal g, g + 2, ... Returns
/// the warpgroup and leaves the builder in its tile loop.
std::pair<Value, TileLoop> openPingPongTileLoop(GemmKernelEmission &k,
                                                Value uniformWarp);
/// Ping-pong turns: before its K loop a warpgroup past its first tile
/// waits for the other to hand over (named barrier 2 - g), and after it
/// passes the turn (named barrier 1 + g).
void waitForPingPongTurn(GemmBuilder &gb, Value ringBase, Value warpgroup);
void passPingPongTurn(GemmBuilder &gb, Value warpgroup);

} // namespace opfuse::gemm

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMEMISSION_H
