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
  /// At most `most` (a power of two dividing the row) where `group` reads
  /// windows of one value at neighbouring offsets along its output's
  /// second-to-last axis (a convolution's taps), else 1: the neighbours'
  /// windows overlap, and LLVM merges the loads they share (a 7x7
  /// depthwise convolution: 98 loads a vector alone, 53 at two rows, 30 at
  /// four, with 125 and 255 registers).
  static int64_t windowRows(GroupOp group, int64_t most);
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
  const int64_t vectors =
      getNumElements(group.getResultTypes()[0]) / shape->vec;
  const int64_t perBlock = blockSize * shape->perThread();
  return context.options.launchFor(blockSize,
                                   (vectors + perBlock - 1) / perBlock);
}

int64_t ViewLoopEmitter::windowRows(GroupOp group, int64_t most) {
  auto outputType = cast<RankedTensorType>(group.getResultTypes()[0]);
  const int64_t rank = outputType.getRank();
  if (rank < 2 || most < 2)
    return 1;
  // Two slices of one value, of the output's shape but perhaps its last
  // axis (a group's input channels, gathered onto its output channels),
  // whose offsets differ only along the row: neighbouring outputs read
  // overlapping windows.
  DenseMap<Value, SmallVector<SliceOp>> slicesOf;
  bool windows = false;
  group.getBody().walk([&](SliceOp slice) {
    if (slice.getType().getShape().drop_back() !=
        outputType.getShape().drop_back())
      return;
    for (SliceOp other : slicesOf[slice.getInput()]) {
      ArrayRef<int64_t> a = slice.getOffsets(), b = other.getOffsets();
      bool rowOnly = a[rank - 2] != b[rank - 2] &&
                     slice.getStrides() == other.getStrides();
      for (int64_t d = 0; d < rank; ++d)
        rowOnly &= d == rank - 2 || a[d] == b[d];
      windows |= rowOnly;
    }
    slicesOf[slice.getInput()].push_back(slice);
  });
  if (!windows)
    return 1;
  const int64_t row = outputType.getDimSize(rank - 2);
  for (int64_t rows = most; rows > 1; rows /= 2)
    if (row % rows == 0)
      return rows;
  return 1;
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
    shape.rows = windowRows(group, options.windowRows);
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
  shape.rows = windowRows(group, options.windowRows);
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
  // divided by `rows`.
  SmallVector<int64_t> itemShape(outputType.getShape());
  if (rows > 1)
    itemShape[itemShape.size() - 2] /= rows;
  const int64_t vectors = elements / vec / rows;
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
                                          firstVector, kb.constant(vectors));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
  }

  // Every vector's outputs are computed before any is stored, so that the
  // loads of all of a thread's vectors are in flight together.
  auto yield = cast<YieldOp>(kernel.body.getTerminator());
  SmallVector<Value> bases;
  SmallVector<SmallVector<GroupEvaluator::Lanes>> results;
  SmallVector<Index> outputs;
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
    IndexDim &column = item.dims[item.dims.size() - 2];
    Value first =
        arith::MulIOp::create(b, loc, column.value, kb.constant(rows));
    for (int64_t r = 0; r < rows; ++r) {
      Index neighbour = item;
      IndexDim &at = neighbour.dims[neighbour.dims.size() - 2];
      at = {arith::AddIOp::create(b, loc, first, kb.constant(r)), 0, rows, r};
      bases.push_back(kernel.linearize(neighbour).value);
      outputs.push_back(std::move(neighbour));
    }
  }
  for (Index &output : outputs) {
    GroupEvaluator::Memo memo;
    ConversionCache conversions;
    ViewEvaluator evaluator(kernel, memo, conversions);
    const int context = kernel.intern(std::move(output));
    SmallVector<GroupEvaluator::Lanes> lanes;
    for (Value value : yield.getOperands()) {
      FailureOr<GroupEvaluator::Lanes> computed =
          evaluator.evaluate(value, context);
      if (failed(computed)) {
        func.erase();
        return failure();
      }
      lanes.push_back(std::move(*computed));
    }
    results.push_back(std::move(lanes));
  }
  if (kernel.lanesLost && vec > 1) {
    func.erase();
    return gpu::GPUFuncOp();
  }
  const unsigned numInputs = group.getNumOperands();
  for (auto [base, lanes] : llvm::zip(bases, results))
    for (auto [index, values] : llvm::enumerate(lanes))
      kb.store(func.getArgument(numInputs + index),
               cast<RankedTensorType>(group.getResultTypes()[index])
                   .getElementType(),
               base, values);
  return func;
}

} // namespace

std::unique_ptr<KernelEmitter> createViewLoopEmitter() {
  return std::make_unique<ViewLoopEmitter>();
}

} // namespace opfuse
