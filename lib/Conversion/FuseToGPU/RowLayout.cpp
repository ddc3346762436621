//===- RowLayout.cpp - How a group's rows map onto threads ----------------===//
//
// A power-of-two segment of threads per row (part of a warp, a warp, or a
// block), vectors a segment apart, registers or streaming by the row's
// length; or, for a lone reduction over leading dimensions, the strided
// layout.
//
//===----------------------------------------------------------------------===//

#include "RowKernelEmitter.h"

namespace opfuse::row_kernel {
namespace {

/// The thread layout for `info`'s rows.
RowLayout chooseLayout(GroupOp group, const RowKernelInfo &info,
                       int64_t blockSize, int64_t elementsPerThread) {
  RowLayout layout;
  layout.rows = info.shape.rows;
  layout.rowLength = info.shape.rowLength;
  // 16-byte vectors of the widest element, when rows split into them and
  // no broadcast read crosses the innermost dimension of its layout.
  layout.vec = vectorLanes(group);
  if (layout.rowLength % layout.vec != 0)
    layout.vec = 1;
  for (Operation &op : group.getBody().front().without_terminator()) {
    if (op.getNumResults() == 0 ||
        info.kinds.lookup(op.getResult(0)) != RowValueKind::Element)
      continue;
    bool readsBroadcast = llvm::any_of(op.getOperands(), [&](Value v) {
      return info.kinds.lookup(v) == RowValueKind::Broadcast;
    });
    auto shape = cast<RankedTensorType>(op.getResult(0).getType()).getShape();
    if (readsBroadcast && (shape.empty() || shape.back() % layout.vec != 0))
      layout.vec = 1;
  }
  layout.vectorsPerRow = layout.rowLength / layout.vec;

  // Enough threads that each holds at most elementsPerThread elements.
  const int64_t perThread =
      std::max<int64_t>(1, elementsPerThread / layout.vec);
  int64_t threads =
      powerOfTwoAtLeast((layout.vectorsPerRow + perThread - 1) / perThread);
  threads = std::min(threads, kMaxThreadsPerRow);
  layout.threadsPerRow = threads;
  layout.positions = (layout.vectorsPerRow + threads - 1) / threads;
  layout.streaming = layout.positions > perThread;
  layout.rowsPerBlock = threads >= blockSize ? 1 : blockSize / threads;
  return layout;
}

/// The layout of strided rows: 32 rows per block (a warp reads 128
/// contiguous bytes of f32), fewer while the grid would leave more than half
/// of the SMs idle, but never less than a 32-byte sector per warp access;
/// the rest of a block of up to 1024 threads splits each row.
RowLayout chooseStridedLayout(GroupOp group, const RowKernelInfo &info,
                              int64_t smCount, int64_t elementsPerThread) {
  RowLayout layout;
  layout.strided = true;
  layout.rows = info.shape.rows;
  layout.rowLength = layout.vectorsPerRow = info.shape.rowLength;
  int64_t widest = 1;
  for (Type type : group.getOperandTypes())
    widest = std::max<int64_t>(
        widest,
        getElementByteSize(cast<RankedTensorType>(type).getElementType()));
  const int64_t sectorRows = std::max<int64_t>(1, 32 / widest);
  layout.rowsPerBlock = kWarpSize;
  while (layout.rowsPerBlock > sectorRows &&
         2 * ((layout.rows + layout.rowsPerBlock - 1) / layout.rowsPerBlock) <
             std::max<int64_t>(smCount, 1))
    layout.rowsPerBlock /= 2;
  // Whole warps, and no more threads per row than it has elements.
  layout.threadsPerRow =
      std::max(kWarpSize / layout.rowsPerBlock,
               std::min(kMaxThreadsPerRow / layout.rowsPerBlock,
                        powerOfTwoAtLeast(layout.rowLength)));
  layout.positions =
      (layout.rowLength + layout.threadsPerRow - 1) / layout.threadsPerRow;
  layout.streaming = layout.positions > elementsPerThread;
  if (layout.streaming)
    layout.unroll = 4;
  return layout;
}

} // namespace

FailureOr<RowPlan> planRowKernel(GroupOp group, const EmitContext &context) {
  Block &body = group.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);

  RowPlan plan;
  std::string why;
  std::optional<RowKernelInfo> analyzed =
      analyzeRowKernel(ops, llvm::to_vector(yield.getOperands()), why);
  if (!analyzed)
    return group.emitError("this group is not a row-reduction kernel: ") << why;
  plan.info = std::move(*analyzed);
  const EmitterOptions &options = context.options;
  plan.layout =
      plan.info.shape.strided
          ? chooseStridedLayout(group, plan.info, context.target.smCount,
                                options.rowElementsPerThread)
          : chooseLayout(group, plan.info, options.blockSize,
                         options.rowElementsPerThread);
  if (plan.layout.rows == 0 || plan.layout.rowLength == 0)
    return group.emitError("a reduction over an empty tensor is not "
                           "supported for GPU emission");
  // Half of the 2048 threads an SM of sm_80 or sm_90 holds.
  constexpr int64_t kHalfThreadsPerSM = 1024;
  const RowLayout &layout = plan.layout;
  const int64_t blocks =
      (layout.rows + layout.rowsPerBlock - 1) / layout.rowsPerBlock;
  plan.layout.storeAfterAll =
      blocks * layout.rowsPerBlock * layout.threadsPerRow <=
      std::max<int64_t>(context.target.smCount, 1) * kHalfThreadsPerSM;
  // Loading every input's vectors at once holds them all in registers (one
  // 32-bit register per element, as they compute): allowed while that is at
  // most half of what a thread of this block may have (64K registers per
  // SM, at most 255 per thread), so that it does not spill.
  int64_t inputs = 0;
  for (BlockArgument argument : group.getBody().front().getArguments()) {
    RowValueKind kind = plan.info.kinds.lookup(argument);
    inputs += kind == RowValueKind::Element || kind == RowValueKind::Broadcast;
  }
  const int64_t registersPerThread = std::min<int64_t>(
      255, 65536 / (layout.threadsPerRow * layout.rowsPerBlock));
  plan.layout.earlyOutputLoads =
      layout.storeAfterAll && !layout.streaming &&
      layout.positions * layout.vec * inputs <= registersPerThread / 2;
  return plan;
}

} // namespace opfuse::row_kernel
