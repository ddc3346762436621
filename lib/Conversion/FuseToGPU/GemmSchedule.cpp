//===- GemmSchedule.cpp - A GEMM kernel's configuration -------------------===//
//
// Everything about a GEMM kernel that is decided before a line of it is
// emitted: its tiling (the group's attribute, the option or the tile
// model), the problem as that tiling copies it, and the schedule and feed
// that follow from the tiling, the operands, the options and the target.
//
//===----------------------------------------------------------------------===//

#include "GemmEmission.h"

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"
#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"
#include "opfuse/Dialect/Fuse/IR/StridedView.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::gemm {

FailureOr<MatmulTiling> chooseGemmTiling(GroupOp group,
                                         const EmitterOptions &options,
                                         const GpuTarget &target) {
  // A group's own fuse.matmul_tiling (from --autotune), or its
  // contraction's (written in the model), comes first; then the option,
  // where "auto" asks the tile model.
  GemmTilingError error;
  if (std::optional<MatmulTiling> tiling =
          expectedGemmTiling(group, options.matmulTiling, target, &error))
    return *tiling;
  Operation *at = error.at ? error.at : group.getOperation();
  return at->emitError(
      error.message.empty()
          ? std::string("internal error: a GEMM kernel without a "
                        "contraction reached the tile choice")
          : error.message);
}

/// Reads `op` through `view`: its two minor dimensions (rows x columns of
/// the operand as the matmul sees it, before transpose flags) give the
/// contiguous dimension and the row pitch, its leading ones the batch
/// strides (right-aligned with the output's batch; size-1 dims broadcast).
static void applyView(Operand &op, const StridedView &view,
                      ArrayRef<int64_t> batchShape) {
  ArrayRef<int64_t> strides = view.strides;
  const int64_t rank = strides.size();
  // Stored with its columns contiguous the operand keeps its transpose
  // flag; with its rows contiguous, the flag flips.
  if (strides[rank - 1] != 1)
    op.kContiguous = !op.kContiguous;
  op.rowStride = strides[rank - 1] == 1 ? strides[rank - 2] : strides[rank - 1];
  op.offset = view.offset;
  for (int64_t d = rank - 3, o = batchShape.size() - 1; d >= 0 && o >= 0;
       --d, --o)
    if (op.batchStrides[o] != 0)
      op.batchStrides[o] = strides[d];
}

/// Makes `p`, whose matmul foldsBatchIntoRows (getGemmShape stacked its
/// batch's rows), one GEMM when A's rows do follow one another across the
/// batch in memory (a view may place the batch elsewhere): the batch
/// dimensions go, and row r of the GEMM is output row r of the output's
/// shape without its last dimension. Otherwise the GEMM is batched again.
static void foldBatchIntoRows(GemmProblem &p) {
  Operand &a = p.a;
  const int64_t rows = p.output.getDimSize(p.output.getRank() - 2);
  int64_t expected = rows * a.rowPitch();
  bool stacked = a.kContiguous;
  for (int64_t d = p.batchShape.size() - 1; stacked && d >= 0; --d) {
    if (p.batchShape[d] == 1)
      continue;
    stacked = a.batchStrides[d] == expected;
    expected *= p.batchShape[d];
  }
  if (!stacked) {
    p.shape.batch = 1;
    for (int64_t size : p.batchShape)
      p.shape.batch *= size;
    p.shape.m = a.mn = rows;
    return;
  }
  p.rowsFolded = true;
  p.batchShape.clear();
  a.batchStrides.clear();
  p.b.batchStrides.clear();
}

/// A conv2d's A and B: the implicit GEMM's im2col input and its filter,
/// one GEMM per group.
static void setConvOperands(GemmProblem &p) {
  Operand &a = p.a, &bOp = p.b;
  const GemmShape &shape = p.shape;
  // The filter [F, KH, KW, C] is B stored N x K, K-contiguous.
  ArrayRef<int64_t> in = p.conv.getInput().getType().getShape();
  ArrayRef<int64_t> filter = p.conv.getFilter().getType().getShape();
  ArrayRef<int64_t> strides = p.conv.getStrides(),
                    dilation = p.conv.getDilation(),
                    padding = p.conv.getPadding();
  a.kContiguous = bOp.kContiguous = true;
  // Group g reads input channels [g*cg, (g+1)*cg) and filters
  // [g*F/groups, (g+1)*F/groups), each of K = KH*KW*cg values.
  const int64_t groupChannels = filter[3];
  if (p.conv.getGroups() > 1) {
    a.batchStrides = {groupChannels};
    bOp.batchStrides = {shape.n * shape.k};
  }
  a.im2col = Operand::Im2Col{in[1],
                             in[2],
                             groupChannels,
                             in[3],
                             filter[2],
                             p.output.getDimSize(1),
                             p.output.getDimSize(2),
                             strides[0],
                             strides[1],
                             dilation[0],
                             dilation[1],
                             padding[0],
                             padding[2],
                             p.conv.getInputDilation()[0],
                             p.conv.getInputDilation()[1]};
  a.chunk = chunkFor(groupChannels, p.elementBytes);
}

FailureOr<GemmProblem> analyzeGemmProblem(GroupOp group, const MatmulTiling &t,
                                          bool useTma) {
  Block &body = group.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  std::string why;
  GemmProblem p;
  p.contraction = analyzeGemmKernel(ops, why);
  if (!p.contraction)
    return group.emitError("not one GEMM kernel: ") << why;
  Operation *contraction = p.contraction;
  p.matmul = dyn_cast<MatmulOp>(contraction);
  p.conv = dyn_cast<Conv2DOp>(contraction);
  Value lhs = contraction->getOperand(0), rhs = contraction->getOperand(1);
  p.elementType = cast<RankedTensorType>(lhs.getType()).getElementType();
  Type elementType = p.elementType;
  if (!elementType.isBF16() && !elementType.isF16() && !elementType.isF32())
    return contraction->emitError("the GEMM kernels take bf16, f16 or f32 "
                                  "operands; ")
           << elementType << " " << contraction->getName().stripDialect()
           << "s are not supported for GPU emission";
  p.elementBytes = getElementByteSize(elementType);
  const int64_t elementBytes = p.elementBytes;
  if (elementType.isF32() && t.instruction == MmaInstruction::Warpgroup)
    return contraction->emitError("wgmma tilings take bf16 or f16 operands; "
                                  "give f32 an mma.sync tiling (e.g. ")
           << formatMatmulTiling(MatmulTiling()) << ")";
  if (t.sharedBytes(elementBytes) > kMaxSharedBytesPerBlock)
    return contraction->emitError("matmul-tiling ")
           << formatMatmulTiling(t) << " needs " << t.sharedBytes(elementBytes)
           << " bytes of shared memory for " << elementType
           << " operands; an sm_90 block has at most "
           << kMaxSharedBytesPerBlock;
  // An operand read through views inside the group: its strided layout
  // over the group input the views start from.
  auto isInside = [&](Operation *op) {
    return op->getBlock() == &body && isStridedViewOp(op);
  };
  std::optional<GemmPrologue> prologue = getGemmPrologue(
      contraction, [&](Operation *op) { return op->getBlock() == &body; }, why);
  if (!prologue)
    return contraction->emitError("not one GEMM kernel: ") << why;
  if (!prologue->ops.empty()) {
    p.prologue = *prologue;
    lhs = prologue->source;
  }
  std::optional<StridedView> lhsView, rhsView;
  for (auto [value, view] :
       {std::pair{lhs, &lhsView}, std::pair{rhs, &rhsView}})
    if (!isa<BlockArgument>(value)) {
      *view = getStridedView(value, isInside, why);
      if (!*view)
        return contraction->emitError("a GEMM kernel cannot read this "
                                      "operand in place: ")
               << why;
    }
  p.lhsArg = dyn_cast<BlockArgument>(lhsView ? lhsView->base : lhs);
  p.rhsArg = dyn_cast<BlockArgument>(rhsView ? rhsView->base : rhs);
  if (!p.lhsArg || !p.rhsArg)
    return contraction->emitError("a GEMM kernel reads its operands from "
                                  "memory; they must be inputs of the group");

  p.output = cast<RankedTensorType>(contraction->getResult(0).getType());
  // A conv2d's output [N, OH, OW, F] is the GEMM's M x N, batched over
  // its groups (each group's filters are a block of F/groups columns).
  if (!p.conv)
    llvm::append_range(p.batchShape, p.output.getShape().drop_back(2));
  else if (p.conv.getGroups() > 1)
    p.batchShape.push_back(p.conv.getGroups());
  ArrayRef<int64_t> batchShape = p.batchShape;
  p.shape = getGemmShape(contraction);
  GemmShape &shape = p.shape;

  Operand &a = p.a, &bOp = p.b;
  a.mn = shape.m;
  a.k = shape.k;
  a.tileMN = t.blockM;
  bOp.mn = shape.n;
  bOp.k = shape.k;
  bOp.tileMN = t.blockN;
  if (p.matmul) {
    a.kContiguous = !p.matmul.getTransposeA();
    a.batchStrides = batchStridesOf(p.matmul.getLhs().getType(), batchShape);
    bOp.kContiguous = p.matmul.getTransposeB();
    bOp.batchStrides = batchStridesOf(p.matmul.getRhs().getType(), batchShape);
    if (lhsView)
      applyView(a, *lhsView, batchShape);
    if (rhsView)
      applyView(bOp, *rhsView, batchShape);
    if (foldsBatchIntoRows(p.matmul))
      foldBatchIntoRows(p);
    a.chunk = chunkFor(a.alignment(), elementBytes);
  } else {
    setConvOperands(p);
  }
  bOp.chunk = chunkFor(bOp.alignment(), elementBytes);
  bOp.stageOffset = t.blockM * t.blockK * elementBytes;
  p.stageBytes = (t.blockM + t.blockN) * t.blockK * elementBytes;

  // A warpgroup split-K kernel's K slices divide evenly among its splits
  // (its K loop has one trip count), and cp.async feeds it: the kernel's
  // two parameters after its buffers hold the workspace and the counters.
  if (t.instruction == MmaInstruction::Warpgroup && t.splitK > 1) {
    const int64_t slices =
        llvm::divideCeil(std::max<int64_t>(shape.k, 1), t.blockK);
    if (slices % t.splitK != 0)
      return contraction->emitError("matmul-tiling ")
             << formatMatmulTiling(t) << ": a wgmma tiling splits K only "
             << "into equal parts, and " << slices << " slices of " << t.blockK
             << " do not divide by " << t.splitK;
    useTma = false;
  }
  // TMA feeds the warpgroup MMAs when both operands have a tensor map.
  if (t.instruction == MmaInstruction::Warpgroup && useTma) {
    p.tmaA = tmaOperandFor(a, t, elementBytes, p.batchShape,
                           p.lhsArg.getArgNumber());
    p.tmaB = tmaOperandFor(bOp, t, elementBytes, p.batchShape,
                           p.rhsArg.getArgNumber());
  }
  return p;
}

GemmDecision decideGemmSchedule(const GemmProblem &p, const MatmulTiling &t,
                                const EmitterOptions &options,
                                const GpuTarget &target) {
  const bool warpgroups = t.instruction == MmaInstruction::Warpgroup;
  const bool tma = p.hasTensorMaps();
  auto residentBlocks = [&](int64_t extraThreads) -> int64_t {
    return target.smCount *
           residentBlocksPerSm(t, p.elementBytes, target, extraThreads);
  };
  // A persistent wgmma kernel: one block per SM slot walks the tiles
  // blockId, blockId + grid, ... With TMA and two MMA warpgroups it is
  // warp-specialised by default (faster on the H200: docs/benchmarks.md),
  // and with `pingPong` the two MMA warpgroups also take alternate tiles.
  // A split-K kernel is not: its blocks are a tile's splits.
  const bool persistent = warpgroups && t.splitK == 1 && residentBlocks(0) > 0;
  // Ping-pong: each of the two MMA warpgroups owns a whole tile (both of
  // its 64-row blocks, twice the accumulators), and they take the block's
  // tiles in turn: one stores its epilogue while the other multiplies.
  const bool pingPongTiles =
      options.pingPong && t.warpsM == 2 && t.blockN <= 128;
  const bool warpSpecialized = (options.warpSpecialize || pingPongTiles) &&
                               tma && persistent && t.warpsM == 2 &&
                               residentBlocks(128) > 0;
  const bool pingPonged = pingPongTiles && warpSpecialized;

  GemmDecision decision;
  if (!warpgroups)
    decision.kind = !p.elementType.isF32() ? GemmScheduleKind::mma_sync
                    : options.allowTF32    ? GemmScheduleKind::tf32
                                           : GemmScheduleKind::fma;
  else
    decision.kind = !persistent       ? GemmScheduleKind::wgmma
                    : pingPonged      ? GemmScheduleKind::ping_pong
                    : warpSpecialized ? GemmScheduleKind::warp_specialized
                                      : GemmScheduleKind::cooperative;
  decision.feed = tma ? GemmOperandFeed::tma : GemmOperandFeed::cp_async;

  const int64_t totalTiles = countOutputTiles(p.shape, t);
  const int64_t maxResidentBlocks = residentBlocks(warpSpecialized ? 128 : 0);
  LaunchConfig &launch = decision.launch;
  launch.block = t.threads() + (warpSpecialized ? 128 : 0);
  // Split-K: the splitK blocks of a tile are neighbours in the grid.
  launch.grid = persistent ? std::min(totalTiles, maxResidentBlocks)
                           : totalTiles * t.splitK;
  launch.sharedBytes = t.sharedBytes(p.elementBytes);
  if (tma)
    launch.tensorMaps = {p.tmaA->map, p.tmaB->map};
  if (t.splitK > 1) {
    // Each block stores its f32 accumulators: blockM x blockN of them
    // (GemmSplitK.cpp).
    launch.splits = t.splitK;
    launch.splitCounters = totalTiles;
    launch.workspaceBytes = launch.grid * t.blockM * t.blockN * 4;
  }
  return decision;
}

} // namespace opfuse::gemm
