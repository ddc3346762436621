//===- RowEmitter.cpp - Row-reduction kernels from fuse.group -------------===//
//
// Each row of the iteration space belongs to a power-of-two segment of
// threads: part of a warp for short rows, a warp, or a whole block for long
// ones. A thread owns vectors of its row a segment apart (coalesced), keeps
// them in registers, folds the reductions over them (those that do not
// depend on one another together), combines the segment with warp shuffles
// (and shared memory across warps), and then computes and stores the
// epilogue from the same registers: the row is read from device memory
// once. Rows too long for registers are streamed: each level of reductions,
// and the epilogue, makes one pass over the row. A lone reduction over
// leading dimensions maps the other way round (see RowLayout::strided),
// with the same prologues and epilogues.
// Values are evaluated on demand per vector and memoised, so every op of
// the group runs once per element however many reductions and outputs use
// it.
//
//===----------------------------------------------------------------------===//

#include "RowKernelEmitter.h"

#include "ScalarOps.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace opfuse::row_kernel {

int RowKernelEmitter::intern(ArrayRef<int64_t> shape) {
  for (auto [id, known] : llvm::enumerate(contexts))
    if (ArrayRef<int64_t>(known) == shape)
      return id;
  contexts.emplace_back(shape.begin(), shape.end());
  return contexts.size() - 1;
}

void RowKernelEmitter::emitRowIndices() {
  thread = kb.threadId();
  Value block = kb.logicalBlock(launch);
  const int64_t segment = layout.threadsPerRow;
  if (layout.strided) {
    rowInBlock = arith::RemUIOp::create(b, loc, thread,
                                        kb.constant(layout.rowsPerBlock));
    laneInRow = arith::DivUIOp::create(b, loc, thread,
                                       kb.constant(layout.rowsPerBlock));
  } else {
    laneInRow = segment == 1 ? kb.constant(0)
                             : arith::RemUIOp::create(b, loc, thread,
                                                      kb.constant(segment));
    rowInBlock = segment == 1 ? thread
                              : arith::DivUIOp::create(b, loc, thread,
                                                       kb.constant(segment));
  }
  row = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, block, kb.constant(layout.rowsPerBlock)),
      rowInBlock);
  // Threads past the last row compute the last row again and store nothing:
  // every thread must reach the shuffles and barriers.
  if (layout.rows % layout.rowsPerBlock != 0) {
    rowValid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                     kb.constant(layout.rows));
    row = arith::MinUIOp::create(b, loc, row, kb.constant(layout.rows - 1));
  }
  if (layout.strided)
    stridedRowOffset = stridedOffset(row, /*reduced=*/false);
}

Value RowKernelEmitter::stridedOffset(Value index, bool reduced) {
  ArrayRef<int64_t> input = info.shape.inputShape, axes = info.shape.axes;
  SmallVector<int64_t> strides = rowMajorStrides(input);
  SmallVector<int64_t> shape, selectedStrides;
  for (int64_t d = 0, rank = input.size(); d < rank; ++d)
    if (llvm::is_contained(axes, d) == reduced) {
      shape.push_back(input[d]);
      selectedStrides.push_back(strides[d]);
    }
  Value offset = kb.constant(0);
  for (auto [i, stride] :
       llvm::zip(kb.decompose(index, shape), selectedStrides))
    offset = arith::AddIOp::create(
        b, loc, offset, arith::MulIOp::create(b, loc, i, kb.constant(stride)));
  return offset;
}

Position RowKernelEmitter::makePosition(Value vectorIndex, bool mayBeOutside) {
  Position position;
  if (mayBeOutside) {
    position.valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, vectorIndex,
                              kb.constant(layout.vectorsPerRow));
    // Read a vector inside the row instead; the result is masked.
    vectorIndex = arith::MinUIOp::create(b, loc, vectorIndex,
                                         kb.constant(layout.vectorsPerRow - 1));
  }
  Value column =
      layout.vec == 1
          ? vectorIndex
          : arith::MulIOp::create(b, loc, vectorIndex, kb.constant(layout.vec));
  if (!layout.strided) {
    position.elementIndex = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, row, kb.constant(layout.rowLength)),
        column);
    return position;
  }
  position.elementIndex = arith::AddIOp::create(
      b, loc, stridedRowOffset, stridedOffset(column, /*reduced=*/true));
  return position;
}

FailureOr<SmallVector<Value>>
RowKernelEmitter::loadBroadcast(BlockArgument argument, Position &position,
                                int context) {
  auto type = cast<RankedTensorType>(argument.getType());
  FailureOr<InputAccess> access =
      analyzeInput(group, type, contexts[context], argument.getArgNumber());
  if (failed(access))
    return failure();
  Value pointer = func.getArgument(argument.getArgNumber());
  Value offset;
  if (access->isScalar) {
    offset = kb.constant(0);
  } else {
    SmallVector<Value> &indices = position.contextIndices[context];
    if (indices.empty())
      indices = kb.decompose(position.elementIndex, contexts[context]);
    offset = kb.broadcastOffset(*access, indices);
  }
  if (access->innerContiguous && layout.vec > 1)
    return kb.load(pointer, type.getElementType(), offset, layout.vec);
  Value one = kb.load(pointer, type.getElementType(), offset, 1).front();
  return SmallVector<Value>(layout.vec, one);
}

/// One vector position of a row: per-element values load at the
/// position, smaller ones by broadcast in their context, per-row ones are
/// the row's scalars in every lane.
class PositionEvaluator : public GroupEvaluator {
public:
  PositionEvaluator(RowKernelEmitter &emitter, Position &position)
      : GroupEvaluator(emitter.b, emitter.layout.vec, position.values,
                       emitter.kb.strictNumerics()),
        emitter(emitter), position(position) {}

  /// Evaluates, in `context`, the parts of `value` that depend on no
  /// reduction (a norm's scale and bias loads), as its evaluation in the
  /// output pass will ask for them: memoised, that pass finds them done.
  LogicalResult evaluateIndependent(Value value, int context) {
    RowValueKind kind = emitter.info.kinds.lookup(value);
    if (emitter.levelOf(value) < 0)
      return kind == RowValueKind::Scalar || kind == RowValueKind::Row
                 ? success()
                 : LogicalResult(failure(failed(evaluate(value, context))));
    Operation *op = value.getDefiningOp();
    if (!op || isReduction(op))
      return success();
    const int inner = operandContext(op, context);
    for (Value operand : op->getOperands())
      if (failed(evaluateIndependent(operand, inner)))
        return failure();
    return success();
  }

protected:
  FailureOr<std::optional<Lanes>> provide(Value value, int context) override {
    if (Operation *op = value.getDefiningOp())
      if (const RowKernelEmitter::RowReciprocal *row =
              emitter.rowReciprocalOf(op)) {
        FailureOr<Lanes> dividend =
            evaluate(op->getOperand(0), operandContext(op, context));
        if (failed(dividend))
          return failure();
        return std::optional<Lanes>(emitter.divideByRow(
            *row, *dividend, static_cast<bool>(demand.roundedTo(value))));
      }
    RowValueKind kind = emitter.info.kinds.lookup(value);
    if (kind == RowValueKind::Scalar || kind == RowValueKind::Row) {
      FailureOr<Value> scalar = emitter.rowScalar(value);
      if (failed(scalar))
        return failure();
      return std::optional<Lanes>(Lanes(width, *scalar));
    }
    auto argument = dyn_cast<BlockArgument>(value);
    if (!argument)
      return std::optional<Lanes>();
    if (kind == RowValueKind::Element)
      return std::optional<Lanes>(emitter.kb.load(
          emitter.func.getArgument(argument.getArgNumber()),
          cast<RankedTensorType>(value.getType()).getElementType(),
          position.elementIndex, width));
    FailureOr<Lanes> loaded =
        emitter.loadBroadcast(argument, position, context);
    if (failed(loaded))
      return failure();
    return std::optional<Lanes>(std::move(*loaded));
  }
  int keyContext(Value value, int context) override {
    return emitter.info.kinds.lookup(value) == RowValueKind::Element ? -1
                                                                     : context;
  }
  // An element-sized op broadcasts its smaller operands in its own shape;
  // a smaller op is evaluated in the context of the value it feeds.
  int operandContext(Operation *op, int context) override {
    Value result = op->getResult(0);
    if (emitter.info.kinds.lookup(result) != RowValueKind::Element)
      return context;
    return emitter.intern(cast<RankedTensorType>(result.getType()).getShape());
  }

private:
  RowKernelEmitter &emitter;
  Position &position;
};

/// Per-row values, once per thread: inputs of one element per row (or
/// one for the kernel) load at the row, reductions are what
/// emitReductions left.
class RowScalarEvaluator : public GroupEvaluator {
public:
  explicit RowScalarEvaluator(RowKernelEmitter &emitter)
      : GroupEvaluator(emitter.b, /*width=*/1, emitter.rowScalars,
                       emitter.kb.strictNumerics()),
        emitter(emitter) {}

protected:
  FailureOr<std::optional<Lanes>> provide(Value value, int) override {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      KernelBuilder &kb = emitter.kb;
      Value index =
          getNumElements(value.getType()) == 1 ? kb.constant(0) : emitter.row;
      return std::optional<Lanes>(kb.load(
          emitter.func.getArgument(argument.getArgNumber()),
          cast<RankedTensorType>(value.getType()).getElementType(), index, 1));
    }
    Operation *op = value.getDefiningOp();
    if (isReduction(op))
      return op->emitError("internal error: reduction used before it is "
                           "emitted");
    return std::optional<Lanes>();
  }
  int keyContext(Value, int) override { return 0; }

private:
  RowKernelEmitter &emitter;
};

FailureOr<SmallVector<Value>>
RowKernelEmitter::evaluate(Value value, Position &position, int context) {
  PositionEvaluator evaluator(*this, position);
  return evaluator.evaluate(value, context);
}

LogicalResult RowKernelEmitter::loadOutputInputsEarly() {
  auto yield = cast<YieldOp>(body.getTerminator());
  for (Position &position : registers)
    for (Value value : yield.getOperands())
      if (info.kinds.lookup(value) == RowValueKind::Element &&
          failed(PositionEvaluator(*this, position)
                     .evaluateIndependent(value, -1)))
        return failure();
  return success();
}

FailureOr<Value> RowKernelEmitter::rowScalar(Value value) {
  RowScalarEvaluator evaluator(*this);
  FailureOr<GroupEvaluator::Lanes> lanes = evaluator.evaluate(value, 0);
  if (failed(lanes))
    return failure();
  return lanes->front();
}

FailureOr<SmallVector<Value>> RowKernelEmitter::forEachPosition(
    ValueRange carried,
    function_ref<FailureOr<SmallVector<Value>>(Position &, ValueRange)> fn,
    function_ref<void()> afterGroup) {
  if (!layout.streaming) {
    SmallVector<Value> state(carried.begin(), carried.end());
    for (Position &position : registers) {
      FailureOr<SmallVector<Value>> next = fn(position, state);
      if (failed(next))
        return failure();
      state = std::move(*next);
    }
    if (afterGroup)
      afterGroup();
    return state;
  }
  // Each iteration takes `unroll` positions, whose loads are independent
  // and so in flight together: strided rows read one element per position.
  const int64_t unroll = layout.unroll;
  const int64_t stride = layout.threadsPerRow * unroll;
  const int64_t steps = (layout.vectorsPerRow + stride - 1) / stride;
  auto loop = scf::ForOp::create(b, loc, kb.constant(0), kb.constant(steps),
                                 kb.constant(1), carried);
  OpBuilder::InsertionGuard insertion(b);
  openLoopBody(b, loop);
  Value first = arith::AddIOp::create(
      b, loc, laneInRow,
      arith::MulIOp::create(b, loc, loop.getInductionVar(),
                            kb.constant(stride)));
  SmallVector<Value> state(loop.getRegionIterArgs().begin(),
                           loop.getRegionIterArgs().end());
  for (int64_t u = 0; u < unroll; ++u) {
    Value vectorIndex =
        u == 0 ? first
               : Value(arith::AddIOp::create(
                     b, loc, first, kb.constant(u * layout.threadsPerRow)));
    Position position =
        makePosition(vectorIndex, layout.vectorsPerRow % stride != 0 &&
                                      (u + 1) * layout.threadsPerRow >
                                          layout.vectorsPerRow % stride);
    FailureOr<SmallVector<Value>> next = fn(position, state);
    if (failed(next))
      return failure();
    state = std::move(*next);
  }
  if (afterGroup)
    afterGroup();
  scf::YieldOp::create(b, loc, state);
  return SmallVector<Value>(loop.getResults().begin(), loop.getResults().end());
}

LogicalResult
RowKernelEmitter::emitReductions(ArrayRef<Operation *> reductions) {
  SmallVector<Combine> kinds;
  SmallVector<Type> types;
  SmallVector<Value> starts;
  for (Operation *reduction : reductions) {
    kinds.push_back(combineOf(reduction));
    types.push_back(getComputeType(
        cast<RankedTensorType>(reduction->getOperand(0).getType())
            .getElementType()));
    starts.push_back(identity(kinds.back(), types.back()));
  }
  FailureOr<SmallVector<Value>> folded = forEachPosition(
      starts,
      [&](Position &position,
          ValueRange state) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> next;
        for (auto [i, reduction] : llvm::enumerate(reductions)) {
          FailureOr<SmallVector<Value>> lanes =
              evaluate(reduction->getOperand(0), position, -1);
          if (failed(lanes))
            return failure();
          Value partial = combineAll(kinds[i], *lanes);
          if (position.valid)
            partial = arith::SelectOp::create(b, loc, position.valid, partial,
                                              identity(kinds[i], types[i]));
          next.push_back(combine(kinds[i], state[i], partial));
        }
        return next;
      });
  if (failed(folded))
    return failure();
  SmallVector<Value> totals = combineAcrossThreads(kinds, *folded);
  for (auto [i, reduction] : llvm::enumerate(reductions)) {
    Value total = totals[i];
    if (isa<ReduceMeanOp>(reduction))
      total = arith::DivFOp::create(
          b, loc, total,
          arith::ConstantOp::create(
              b, loc,
              b.getFloatAttr(types[i], static_cast<double>(layout.rowLength))));
    // Seeded, not stored: strict numerics rounds a bf16 or f16 result
    // before anything reads it.
    RowScalarEvaluator(*this).seed(reduction->getResult(0), 0, {total});
  }
  return success();
}

int RowKernelEmitter::levelOf(Value value) {
  auto it = levels.find(value);
  if (it != levels.end())
    return it->second;
  int level = -1;
  if (Operation *op = value.getDefiningOp()) {
    for (Value operand : op->getOperands())
      level = std::max(level, levelOf(operand));
    if (isReduction(op))
      ++level;
  }
  levels[value] = level;
  return level;
}

LogicalResult RowKernelEmitter::emitRowValuesUpTo(int level) {
  for (Operation &op : body.without_terminator()) {
    if (isReduction(&op))
      continue;
    Value result = op.getResult(0);
    RowValueKind kind = info.kinds.lookup(result);
    if ((kind == RowValueKind::Row || kind == RowValueKind::Scalar) &&
        levelOf(result) <= level && failed(rowScalar(result)))
      return failure();
  }
  return emitRowReciprocals(level);
}

FailureOr<RowKernelEmitter::PendingStores>
RowKernelEmitter::evaluateElementOutputs(Position &position) {
  auto yield = cast<YieldOp>(body.getTerminator());
  PendingStores pending{position.valid, position.elementIndex, {}};
  for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
    if (info.kinds.lookup(value) != RowValueKind::Element)
      continue;
    FailureOr<SmallVector<Value>> lanes = evaluate(value, position, -1);
    if (failed(lanes))
      return failure();
    pending.outputs.push_back(
        {static_cast<unsigned>(index), std::move(*lanes)});
  }
  return pending;
}

void RowKernelEmitter::storeElementOutputs(ArrayRef<PendingStores> pending) {
  const unsigned numInputs = group.getNumOperands();
  for (const PendingStores &position : pending) {
    if (position.outputs.empty())
      continue;
    OpBuilder::InsertionGuard insertion(b);
    if (Value inRange = guard(position.valid, rowValid)) {
      auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    for (auto &[index, lanes] : position.outputs)
      kb.store(func.getArgument(numInputs + index),
               cast<RankedTensorType>(group.getResultTypes()[index])
                   .getElementType(),
               position.elementIndex, lanes);
  }
}

LogicalResult RowKernelEmitter::emitOutputs() {
  auto yield = cast<YieldOp>(body.getTerminator());
  const unsigned numInputs = group.getNumOperands();
  // One value per row: the row's first thread stores it.
  SmallVector<std::pair<unsigned, Value>> perRow;
  for (auto [index, value] : llvm::enumerate(yield.getOperands()))
    if (info.kinds.lookup(value) == RowValueKind::Row) {
      FailureOr<Value> scalar = rowScalar(value);
      if (failed(scalar))
        return failure();
      perRow.push_back({static_cast<unsigned>(index), *scalar});
    }
  if (!perRow.empty()) {
    OpBuilder::InsertionGuard insertion(b);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        laneInRow, kb.constant(0));
    auto ifOp = scf::IfOp::create(b, loc, guard(first, rowValid),
                                  /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    for (auto [index, scalar] : perRow)
      kb.store(func.getArgument(numInputs + index),
               cast<RankedTensorType>(group.getResultTypes()[index])
                   .getElementType(),
               row, {scalar});
  }
  // With storeAfterAll every position of the pass (of an unrolled
  // iteration, when streaming) is computed before any is stored: the loads
  // the epilogue still needs (a norm's scale and bias) are then in flight
  // together, where a store between them makes each wait for the one
  // before (the compiler does not move a load above a store).
  SmallVector<PendingStores> pending;
  auto storePending = [&]() {
    storeElementOutputs(pending);
    pending.clear();
  };
  FailureOr<SmallVector<Value>> done = forEachPosition(
      ValueRange{},
      [&](Position &position, ValueRange) -> FailureOr<SmallVector<Value>> {
        FailureOr<PendingStores> outputs = evaluateElementOutputs(position);
        if (failed(outputs))
          return failure();
        pending.push_back(std::move(*outputs));
        if (!layout.storeAfterAll)
          storePending();
        return SmallVector<Value>{};
      },
      storePending);
  return failure(failed(done));
}

LogicalResult RowKernelEmitter::emit(gpu::GPUFuncOp kernel) {
  func = kernel;
  emitRowIndices();
  if (!layout.streaming)
    for (int64_t j = 0; j < layout.positions; ++j) {
      Value vectorIndex = arith::AddIOp::create(
          b, loc, laneInRow, kb.constant(j * layout.threadsPerRow));
      registers.push_back(makePosition(
          vectorIndex, (j + 1) * layout.threadsPerRow > layout.vectorsPerRow));
    }
  // On a small grid the output pass's own loads go out with the row's,
  // before the first reduction: one trip to memory, not two.
  if (layout.earlyOutputLoads && failed(loadOutputInputsEarly()))
    return failure();
  // Reductions level by level: those that do not depend on one another
  // share a pass over the row and a barrier (layer_norm's corrected mean
  // and its sum of squares); per-row values are computed as soon as their
  // reductions are, outside any pass, so that every later pass can use
  // them.
  int deepest = -1;
  for (Operation &op : body.without_terminator())
    if (isReduction(&op))
      deepest = std::max(deepest, levelOf(op.getResult(0)));
  for (int level = 0; level <= deepest; ++level) {
    if (failed(emitRowValuesUpTo(level - 1)))
      return failure();
    SmallVector<Operation *> batch;
    for (Operation &op : body.without_terminator())
      if (isReduction(&op) && levelOf(op.getResult(0)) == level)
        batch.push_back(&op);
    if (failed(emitReductions(batch)))
      return failure();
  }
  if (failed(emitRowValuesUpTo(deepest)))
    return failure();
  return emitOutputs();
}

} // namespace opfuse::row_kernel

namespace opfuse {
namespace {

using namespace row_kernel;

class RowEmitter : public KernelEmitter {
public:
  StringRef getName() const override { return "row"; }

  EmitterMatch match(ArrayRef<Operation *> ops,
                     ArrayRef<Value> outputs) const override {
    // A GEMM's prologue may reduce rows (its statistics); the GEMM emitter
    // takes, or refuses, every group with a contraction.
    if (!llvm::any_of(ops, isReduction) || llvm::any_of(ops, isGemmContraction))
      return EmitterMatch::notMine();
    std::string why;
    if (analyzeRowKernel(ops, outputs, why))
      return EmitterMatch::accept();
    return EmitterMatch::refuse(why);
  }

  std::string describeRefusal(const EmitterMatch &refusal) const override {
    return "this group is not a row-reduction kernel: " + refusal.reason;
  }

  FailureOr<LaunchConfig> configure(GroupOp group,
                                    const EmitContext &context) const override {
    FailureOr<RowPlan> plan = planRowKernel(group, context);
    if (failed(plan))
      return failure();
    const RowLayout &layout = plan->layout;
    return context.options.launchFor(layout.threadsPerRow * layout.rowsPerBlock,
                                     (layout.rows + layout.rowsPerBlock - 1) /
                                         layout.rowsPerBlock);
  }

  LogicalResult emit(GroupOp group, const LaunchConfig &config,
                     gpu::GPUModuleOp module, StringRef name,
                     const EmitContext &context) const override {
    FailureOr<RowPlan> plan = planRowKernel(group, context);
    if (failed(plan))
      return failure();
    const RowLayout &layout = plan->layout;
    Type indexType =
        indexTypeFor(group.getContext(), layout.rows * layout.rowLength);
    OpBuilder b(group.getContext());
    Location loc = group.getLoc();
    gpu::GPUFuncOp func = createKernel(b, group, module, name, config.block);
    b.setInsertionPoint(func.getBody().front().getTerminator());

    RowKernelEmitter emitter(group, std::move(plan->info), layout, b, loc,
                             indexType, config,
                             context.options.strictNumerics());
    if (failed(emitter.emit(func))) {
      func.erase();
      return failure();
    }
    return success();
  }
};

} // namespace

std::unique_ptr<KernelEmitter> createRowEmitter() {
  return std::make_unique<RowEmitter>();
}

} // namespace opfuse
