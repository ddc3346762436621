//===- ViewLoopEmitter.cpp - Elementwise kernels through views ------------===//
//
// A loop kernel whose group moves data: transposes, slices, concats and
// gathers are index maps applied where a value is read, not copies. Each
// thread owns vectors of consecutive output elements, and every value is
// evaluated at an index in its own shape (IndexedEvaluator.h). Where the
// lanes of a vector cannot be followed (a gather indexed along the
// vector), the kernel falls back to one element per thread.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "IndexedEvaluator.h"

#include "opfuse/Dialect/Fuse/IR/RowWindows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {
namespace {

bool isViewEmittable(Operation *op) {
  return isElementwise(op) || isa<ReshapeOp, YieldOp>(op) ||
         isSplatConstant(op) || isDataMovement(op);
}

class ViewLoopEmitter : public KernelEmitter {
public:
  StringRef getName() const override { return "view"; }
  /// 16 loads (16-byte vectors: 64 registers) before their arithmetic: a
  /// 7x7 depthwise convolution's 49 taps, two vectors a thread, otherwise
  /// spilled 2.7 KB a thread (ptxas -v, sm_90a).
  unsigned canonicalLoadBatch() const override { return 16; }

  EmitterMatch match(ArrayRef<Operation *> ops,
                     ArrayRef<Value> outputs) const override {
    if (!llvm::any_of(ops, isDataMovement))
      return EmitterMatch::notMine();
    for (Operation *op : ops)
      if (!isViewEmittable(op))
        return EmitterMatch::refuse(
            ("'" + op->getName().getStringRef() +
             "' cannot run in a kernel that moves data (elementwise ops, "
             "reshapes, transposes, slices, concats and gathers can)")
                .str(),
            op);
    for (Value output : outputs)
      if (getNumElements(output.getType()) !=
          getNumElements(outputs.front().getType()))
        return EmitterMatch::refuse(
            "its outputs have different sizes; a kernel's outputs share "
            "one iteration space");
    return EmitterMatch::accept();
  }

  FailureOr<LaunchConfig> configure(GroupOp group,
                                    const EmitContext &context) const override;

  LogicalResult emit(GroupOp group, const LaunchConfig &config,
                     gpu::GPUModuleOp module, StringRef name,
                     const EmitContext &context) const override;

private:
  /// Lanes a vector and vectors a thread: `unroll` a block apart, or
  /// `rows` neighbours along the output's second-to-last axis.
  struct Shape {
    int64_t vec = 1;
    int64_t unroll = 1;
    int64_t rows = 1;
    /// Vectors a thread owns.
    int64_t perThread() const { return unroll * rows; }
  };
  /// Vectors per thread for `vectors` vectors of `loadsPerVector` loads.
  static int64_t unrollFor(int64_t vectors, int64_t blockSize,
                           int64_t vectorsPerThread, int64_t loadsPerVector) {
    return vectorsPerThread > 1 &&
                   vectors % (blockSize * vectorsPerThread) == 0 &&
                   loadsPerVector <= kMostLoadsToUnroll
               ? vectorsPerThread
               : 1;
  }
  /// Loads of one vector beyond which a thread owns one vector: it already
  /// has more loads than its registers keep in flight (the canonical
  /// order's batches of 16), and a second vector only doubles the
  /// registers and halves the threads an SM holds. A 7x7 depthwise
  /// convolution (98 loads a vector) took 281 us at two vectors a thread
  /// (179 registers) and 137 us at one (76) on an H100; the 3x3 ones (19
  /// loads) are 3-10% faster at two.
  static constexpr int64_t kMostLoadsToUnroll = 32;
  /// The kernel with `vec` lanes per vector on `launch`'s grid and blocks
  /// of work; null (the function erased) when the lanes cannot be followed
  /// and `vec` > 1. `strict`: --numerics=strict.
  FailureOr<gpu::GPUFuncOp> emitWith(GroupOp group, const Shape &shape,
                                     const LaunchConfig &launch,
                                     gpu::GPUModuleOp module, StringRef name,
                                     bool strict) const;
  /// Neighbouring outputs along the output's second-to-last axis a thread
  /// computes where `group` reads windows of one value at offsets along
  /// that axis (a convolution's taps), else 1: the neighbours' windows
  /// overlap, and LLVM merges the loads they share (a 7x7 depthwise
  /// convolution: 98 loads a vector alone, 53 at two rows, 30 at four, with
  /// 125 and 255 registers). `requested` is --window-rows (0: the rule of
  /// autoWindowRows); never more than the row holds.
  static int64_t chooseWindowRows(GroupOp group, int64_t requested,
                                  int64_t vec);
  /// Vectors a thread of `shape` works on at once: the grid's items.
  static int64_t threadItems(RankedTensorType output, const Shape &shape) {
    const int64_t rank = output.getRank();
    if (shape.rows == 1)
      return getNumElements(output) / shape.vec / shape.unroll;
    const int64_t row = output.getDimSize(rank - 2);
    return getNumElements(output) / row / shape.vec *
           llvm::divideCeil(row, shape.rows);
  }
  int64_t windowRows(GroupOp group,
                     const EmitterOptions &options) const override {
    FailureOr<Shape> shape = settle(group, options.blockSize, options);
    return succeeded(shape) ? shape->rows : 1;
  }
  /// The widest vector the outputs allow.
  static int64_t chooseVec(GroupOp group) {
    auto type = cast<RankedTensorType>(group.getResultTypes()[0]);
    int64_t vec = vectorLanes(group);
    if (type.getRank() == 0 || type.getShape().back() % vec != 0)
      return 1;
    return vec;
  }
  /// The vector width and unrolling emission settles on (set by emit, read
  /// back by the launch of configure: both run the same analysis).
  static FailureOr<Shape> settle(GroupOp group, int64_t blockSize,
                                 const EmitterOptions &options);
};

LogicalResult checkOutputs(GroupOp group) {
  if (group.getNumResults() == 0)
    return group.emitError("a fuse.group without results has no kernel");
  return success();
}

FailureOr<LaunchConfig>
ViewLoopEmitter::configure(GroupOp group, const EmitContext &context) const {
  if (failed(checkOutputs(group)))
    return failure();
  const int64_t blockSize = context.options.blockSize;
  FailureOr<Shape> shape = settle(group, blockSize, context.options);
  if (failed(shape))
    return failure();
  const int64_t items =
      threadItems(cast<RankedTensorType>(group.getResultTypes()[0]), *shape);
  return context.options.launchFor(blockSize,
                                   llvm::divideCeil(items, blockSize));
}

/// Rows a thread computes when --window-rows is auto: the most of 4 and 2
/// whose distinct window columns, `vec` lanes each, number at most 64 (the
/// values a thread holds for one row of taps), else 1. On an H100 (bench/
/// depthwise_compare.py, 2026-12-05) 4 rows were as fast as 2 or faster
/// where that count was 40-64 (a 7x7 f32 kernel 28.2 -> 18.6 us, a 5x5 bf16
/// 54.3 -> 46.2), 3% slower at 24 (a 3x3 f32), and slower past 64
/// (ConvNeXt's 7x7 in bf16, 80 at four rows: 92.8 against 76.8 us at two,
/// where four spill; a 3x3 of stride 2, 72: 44.9 against 40.6). Two rows
/// were 1.05-1.55x faster than one wherever they divide the row.
int64_t autoWindowRows(const RowWindowSet &set, int64_t vec) {
  for (int64_t rows : {4, 2})
    if (set.columnsFor(rows) * vec <= 64)
      return rows;
  return 1;
}

int64_t ViewLoopEmitter::chooseWindowRows(GroupOp group, int64_t requested,
                                          int64_t vec) {
  if (requested == 1)
    return 1;
  // The widest row of taps decides (none where the output has no rows).
  SmallVector<RowWindowSet> sets = findRowWindows(group);
  if (sets.empty())
    return 1;
  auto outputType = cast<RankedTensorType>(group.getResultTypes()[0]);
  const int64_t rank = outputType.getRank();
  const RowWindowSet *widest = &sets.front();
  for (const RowWindowSet &set : sets)
    if (set.offsets.size() > widest->offsets.size())
      widest = &set;
  const int64_t row = outputType.getDimSize(rank - 2);
  if (requested != 0) {
    // A row shorter than the rows asked for: as many as it holds.
    int64_t rows = requested;
    while (rows > row)
      rows /= 2;
    return rows;
  }
  // By default only rows that divide the row: a ragged row's last item
  // (its neighbours computed one by one, the kernel's code twice) is not
  // yet timed on a GPU.
  int64_t rows = autoWindowRows(*widest, vec);
  while (rows > 1 && row % rows != 0)
    rows /= 2;
  return rows;
}

FailureOr<ViewLoopEmitter::Shape>
ViewLoopEmitter::settle(GroupOp group, int64_t blockSize,
                        const EmitterOptions &options) {
  const int64_t vectorsPerThread = options.vectorsPerThread;
  const int64_t elements = getNumElements(group.getResultTypes()[0]);
  Shape shape;
  shape.vec = chooseVec(group);
  if (shape.vec == 1) {
    // Lane by lane: a load is at most 8 bytes, and unrolling keeps more in
    // flight whatever their number.
    shape.rows = chooseWindowRows(group, options.windowRows, shape.vec);
    shape.unroll = shape.rows > 1
                       ? 1
                       : unrollFor(elements, blockSize, vectorsPerThread, 0);
    return shape;
  }
  // Emit one vector a thread into a scratch module: whether the lanes can
  // be followed, and how many loads a vector takes, are only known once
  // every index is built.
  OpBuilder b(group.getContext());
  auto scratch = gpu::GPUModuleOp::create(b, group.getLoc(), "scratch");
  // One grid block per block of work: no loop to build here.
  LaunchConfig launch;
  launch.block = blockSize;
  launch.grid = EmitterOptions::kMaxGridBlocks;
  FailureOr<gpu::GPUFuncOp> func = ViewLoopEmitter().emitWith(
      group, shape, launch, scratch, "scratch", /*strict=*/false);
  const bool followed = succeeded(func) && *func;
  int64_t loads = 0;
  if (followed)
    func->walk([&](LLVM::LoadOp) { ++loads; });
  scratch.erase();
  if (failed(func))
    return failure();
  if (!followed)
    shape.vec = 1;
  shape.rows = chooseWindowRows(group, options.windowRows, shape.vec);
  shape.unroll = shape.rows > 1
                     ? 1
                     : unrollFor(elements / shape.vec, blockSize,
                                 vectorsPerThread, followed ? loads : 0);
  return shape;
}

LogicalResult ViewLoopEmitter::emit(GroupOp group, const LaunchConfig &config,
                                    gpu::GPUModuleOp module, StringRef name,
                                    const EmitContext &context) const {
  FailureOr<Shape> shape = settle(group, config.block, context.options);
  if (failed(shape))
    return failure();
  FailureOr<gpu::GPUFuncOp> func = emitWith(group, *shape, config, module, name,
                                            context.options.strictNumerics());
  if (failed(func))
    return failure();
  if (!*func)
    return group.emitError("internal error: the view kernel lost its lanes "
                           "with one element per thread");
  return success();
}

FailureOr<gpu::GPUFuncOp>
ViewLoopEmitter::emitWith(GroupOp group, const Shape &shape,
                          const LaunchConfig &launch, gpu::GPUModuleOp module,
                          StringRef name, bool strict) const {
  const int64_t vec = shape.vec, unroll = shape.unroll, rows = shape.rows;
  const int64_t blockSize = launch.block;
  auto outputType = cast<RankedTensorType>(group.getResultTypes()[0]);
  const int64_t elements = getNumElements(outputType);
  // With `rows`, a thread's item is `rows` neighbouring vectors along the
  // second-to-last axis: items index the output shape with that axis
  // divided by `rows`, rounded up (the last item of a ragged row has fewer).
  const int64_t rowAxis = outputType.getRank() - 2;
  SmallVector<int64_t> itemShape(outputType.getShape());
  if (rows > 1)
    itemShape[rowAxis] = llvm::divideCeil(itemShape[rowAxis], rows);
  const int64_t items = threadItems(outputType, shape);
  int64_t largest = elements;
  for (Type type : group.getInputs().getTypes())
    largest = std::max(largest, getNumElements(type));
  Type indexType = indexTypeFor(group.getContext(), largest);
  OpBuilder b(group.getContext());
  Location loc = group.getLoc();
  gpu::GPUFuncOp func = createKernel(b, group, module, name, blockSize);
  Block &entry = func.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  KernelBuilder kb(b, loc, indexType);
  kb.setStrictNumerics(strict);
  ViewKernel kernel(group, b, kb, func, vec);

  const int64_t perBlock = blockSize * unroll;
  Value firstVector = kb.firstVector(perBlock, launch);
  if (unroll == 1) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          firstVector, kb.constant(items));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
  }

  // Every vector's outputs are computed before any is stored, so that the
  // loads of all of a thread's vectors are in flight together.
  auto yield = cast<YieldOp>(kernel.body.getTerminator());
  const unsigned numInputs = group.getNumOperands();
  auto computeAndStore = [&](ArrayRef<Value> bases,
                             ArrayRef<Index> outputs) -> LogicalResult {
    SmallVector<SmallVector<GroupEvaluator::Lanes>> results;
    for (const Index &output : outputs) {
      GroupEvaluator::Memo memo;
      ConversionCache conversions;
      ViewEvaluator evaluator(kernel, memo, conversions);
      const int context = kernel.intern(output);
      SmallVector<GroupEvaluator::Lanes> lanes;
      for (Value value : yield.getOperands()) {
        FailureOr<GroupEvaluator::Lanes> computed =
            evaluator.evaluate(value, context);
        if (failed(computed))
          return failure();
        lanes.push_back(std::move(*computed));
      }
      results.push_back(std::move(lanes));
    }
    for (auto [base, lanes] : llvm::zip(bases, results))
      for (auto [index, values] : llvm::enumerate(lanes))
        kb.store(func.getArgument(numInputs + index),
                 cast<RankedTensorType>(group.getResultTypes()[index])
                     .getElementType(),
                 base, values);
    return success();
  };
  SmallVector<Value> bases;
  SmallVector<Index> outputs;
  Value first;
  for (int64_t u = 0; u < unroll; ++u) {
    Value vectorId =
        arith::AddIOp::create(b, loc, firstVector, kb.constant(u * blockSize));
    Value base = arith::MulIOp::create(b, loc, vectorId, kb.constant(vec));
    Index item = kernel.delinearize({base, vec > 1 ? 1 : 0, vec, 0}, itemShape);
    if (rows == 1) {
      bases.push_back(base);
      outputs.push_back(std::move(item));
      continue;
    }
    // Neighbour r of the item's row: column item * rows + r.
    item.shape.assign(outputType.getShape().begin(),
                      outputType.getShape().end());
    IndexDim &column = item.dims[rowAxis];
    first = arith::MulIOp::create(b, loc, column.value, kb.constant(rows));
    for (int64_t r = 0; r < rows; ++r) {
      Index neighbour = item;
      IndexDim &at = neighbour.dims[rowAxis];
      at = {arith::AddIOp::create(b, loc, first, kb.constant(r)), 0, rows, r};
      bases.push_back(kernel.linearize(neighbour).value);
      outputs.push_back(std::move(neighbour));
    }
  }
  LogicalResult computed = success();
  // The row's length (only where a thread computes several of it: a rank-1
  // output has no row axis).
  const int64_t row = rows > 1 ? outputType.getDimSize(rowAxis) : 1;
  if (row % rows == 0) {
    computed = computeAndStore(bases, outputs);
  } else {
    // A ragged row: an item wholly inside it computes its neighbours
    // together; the row's last item, one by one where each is inside.
    Value whole = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ule,
        arith::AddIOp::create(b, loc, first, kb.constant(rows)),
        kb.constant(row));
    auto split = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
    OpBuilder::InsertionGuard restore(b);
    b.setInsertionPointToStart(&split.getThenRegion().front());
    computed = computeAndStore(bases, outputs);
    b.setInsertionPointToStart(&split.getElseRegion().front());
    for (int64_t r = 0; r < rows && succeeded(computed); ++r) {
      OpBuilder::InsertionGuard inner(b);
      if (r > 0) {
        // Neighbour 0 is always inside: the item is.
        Value inside = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult,
            arith::AddIOp::create(b, loc, first, kb.constant(r)),
            kb.constant(row));
        auto guard = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
        b.setInsertionPointToStart(&guard.getThenRegion().front());
      }
      computed = computeAndStore(bases[r], outputs[r]);
    }
  }
  if (failed(computed)) {
    func.erase();
    return failure();
  }
  if (kernel.lanesLost && vec > 1) {
    func.erase();
    return gpu::GPUFuncOp();
  }
  return func;
}

} // namespace

std::unique_ptr<KernelEmitter> createViewLoopEmitter() {
  return std::make_unique<ViewLoopEmitter>();
}

} // namespace opfuse
