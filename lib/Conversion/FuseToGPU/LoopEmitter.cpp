//===- LoopEmitter.cpp - Elementwise kernels from fuse.group --------------===//
//
// Each thread owns one vector of consecutive output elements. Inputs are
// read once per vector, contiguously or as a broadcast scalar; the group's
// ops run lane by lane on scalars; outputs are stored as one vector each.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "GroupEvaluator.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {
namespace {

bool isLoopEmittable(Operation *op) {
  return isElementwise(op) || isa<ReshapeOp, YieldOp>(op) ||
         isSplatConstant(op);
}

/// One read of a group input: linear (context -1) or by broadcast into a
/// layout context.
struct Access {
  unsigned input;
  int context;
  InputAccess access;
  /// Read lane by lane, each lane at its own broadcast index: a row of the
  /// layout context ends inside a vector (ragged rows).
  bool perLane = false;
};

/// How a loop kernel walks its outputs: `vec` lanes a vector, `unroll`
/// vectors a thread, and the layout contexts its smaller values are read
/// in.
struct LoopLayout {
  int64_t elements = 0;
  int64_t vec = 1;
  /// Whole vectors, and the elements after them (fewer than `vec`), which
  /// one more thread runs one at a time.
  int64_t vectors = 0;
  int64_t tail = 0;
  int64_t unroll = 1;
  /// The unrolled vectors do not fill whole blocks, or a tail follows them:
  /// a thread's vectors past the last are loaded clamped to it and not
  /// stored.
  bool guarded = false;
  /// Full-size shapes smaller values are broadcast into, by id.
  SmallVector<SmallVector<int64_t>> contexts;
  /// The contexts each smaller value is used in.
  DenseMap<Value, SmallVector<int>> contextsOf;
  SmallVector<Access> accesses;

  bool isFull(Value value) const {
    return getNumElements(value.getType()) == elements;
  }
  int intern(ArrayRef<int64_t> shape) {
    for (auto [id, known] : llvm::enumerate(contexts))
      if (ArrayRef<int64_t>(known) == shape)
        return id;
    contexts.emplace_back(shape.begin(), shape.end());
    return contexts.size() - 1;
  }
};

/// Ops per element beyond which a loop kernel is compute-bound on every
/// target opfuse knows (an op costs at least one instruction per element,
/// and 64 per 8 bytes of f32 in and out is past the H200's ridge of 13
/// FLOP/B).
constexpr int64_t kComputeBoundOps = 64;

/// Threads an SM holds at once (sm_80 and sm_90).
constexpr int64_t kMaxThreadsPerSm = 2048;

/// The share of a grid's block slots its blocks fill, counted over whole
/// waves of `residentBlocks`.
double waveEfficiency(int64_t blocks, int64_t residentBlocks) {
  const int64_t waves = llvm::divideCeil(blocks, residentBlocks);
  return static_cast<double>(blocks) / (waves * residentBlocks);
}

/// Whether `vectorsPerThread` vectors a thread would leave more of the last
/// wave empty than one vector a thread: each unrolled block runs twice as
/// long, so a half-empty last wave costs the whole kernel. 750k f16 vectors
/// (2.8 waves of single blocks, 1.4 of unrolled ones) ran 8% slower
/// unrolled on the H200.
bool unrollingEmptiesLastWave(int64_t vectors, int64_t blockSize,
                              int64_t vectorsPerThread,
                              int64_t residentThreads) {
  const int64_t residentBlocks = residentThreads / blockSize;
  if (residentBlocks <= 0)
    return false;
  const double single =
      waveEfficiency(llvm::divideCeil(vectors, blockSize), residentBlocks);
  const double unrolled = waveEfficiency(
      llvm::divideCeil(vectors, blockSize * vectorsPerThread), residentBlocks);
  return unrolled < single - 0.05;
}

/// The iteration space, the layout contexts and the vector width of
/// `group`; reports a group the loop kernel cannot run at its location.
/// `residentThreads`: threads the whole GPU holds at once (0: unknown).
FailureOr<LoopLayout> planLoopKernel(GroupOp group, int64_t blockSize,
                                     int64_t vectorsPerThread,
                                     int64_t residentThreads) {
  Block &body = group.getBody().front();
  if (group.getNumResults() == 0)
    return group.emitError("a fuse.group without results has no kernel");

  // The iteration space: the outputs' elements in row-major order. Outputs
  // (and every value with as many elements, across reshapes) are addressed
  // by the linear index alone.
  LoopLayout layout;
  auto first = cast<RankedTensorType>(group.getResultTypes()[0]);
  layout.elements = getNumElements(first);
  for (auto [index, type] : llvm::enumerate(group.getResultTypes()))
    if (getNumElements(type) != layout.elements)
      return group.emitError("result #")
             << index << " has shape "
             << formatShape(cast<RankedTensorType>(type).getShape())
             << " but result #0 has " << formatShape(first.getShape())
             << "; a kernel's outputs share one shape";

  // A smaller value (a bias, a column, a scalar) is read at the broadcast
  // index of the full-size shape it is combined with: its layout context.
  // Contexts flow from users to operands; a reshape changes them.
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    Value result = op.getResult(0);
    SmallVector<int> ctx;
    if (layout.isFull(result))
      ctx.push_back(
          layout.intern(cast<RankedTensorType>(result.getType()).getShape()));
    else
      ctx = layout.contextsOf.lookup(result);
    for (Value operand : op.getOperands())
      if (!layout.isFull(operand))
        for (int c : ctx)
          if (!llvm::is_contained(layout.contextsOf[operand], c))
            layout.contextsOf[operand].push_back(c);
  }

  // One access per (input, context); full-size inputs read linearly.
  for (auto [index, argument] : llvm::enumerate(body.getArguments())) {
    auto type = cast<RankedTensorType>(argument.getType());
    if (layout.isFull(argument)) {
      layout.accesses.push_back(
          {static_cast<unsigned>(index), -1, InputAccess()});
      continue;
    }
    for (int c : layout.contextsOf.lookup(argument)) {
      FailureOr<InputAccess> access =
          analyzeInput(group, type, layout.contexts[c], index);
      if (failed(access))
        return failure();
      layout.accesses.push_back({static_cast<unsigned>(index), c, *access});
    }
  }

  // Lanes per thread: 16 bytes of the widest stored element, when the
  // elements split evenly and no broadcast read crosses a row of its layout.
  // A kernel of more than kComputeBoundOps ops per element is bound by its
  // arithmetic, not its bytes: wide vectors and unrolling there buy nothing
  // and multiply the code LLVM must compile (a chain of 8,000 ops compiled
  // as 8 lanes a thread spent seconds in the NVPTX backend).
  const bool computeBound =
      static_cast<int64_t>(llvm::range_size(body.without_terminator())) >
      kComputeBoundOps;
  // Ragged shapes keep full-width vectors: the flat index is contiguous
  // whatever the row length, so the outputs and full-size inputs are read
  // and written a vector at a time; the last `elements % vec` elements go
  // to one more thread, and a broadcast input whose rows end inside a
  // vector is read lane by lane (it is small and cached).
  layout.vec = computeBound || first.getRank() == 0 ? 1 : vectorLanes(group);
  if (layout.elements < layout.vec)
    layout.vec = 1;
  for (Access &access : layout.accesses)
    access.perLane = layout.vec > 1 && access.context >= 0 &&
                     !access.access.isScalar &&
                     (layout.contexts[access.context].empty() ||
                      layout.contexts[access.context].back() % layout.vec != 0);
  layout.vectors = layout.elements / layout.vec;
  layout.tail = layout.elements % layout.vec;
  // Each thread owns `unroll` vectors, a block's width apart so that a warp
  // stays coalesced; all their loads are issued before any arithmetic, which
  // keeps more bytes in flight per thread while other warps compute. That
  // pays only where the unrolled grid still fills every thread slot of the
  // GPU: a smaller grid has all its loads in flight at once anyway, and
  // unrolling would only leave slots empty and make each thread's life
  // longer (a ragged bf16 bias and GELU of 2.3M elements took 6.27 us
  // unrolled and 5.88 us not, on the H200); nor where the unrolled blocks
  // would leave more of their last wave empty. When the vectors do not
  // fill whole blocks (ragged shapes, a tail) the last block's vectors past
  // the end are loaded clamped to the last one, computed and not stored, so
  // every load stays unconditional.
  const int64_t perBlock = blockSize * vectorsPerThread;
  layout.unroll =
      !computeBound && vectorsPerThread > 1 && layout.vectors >= perBlock &&
              layout.vectors >= vectorsPerThread * residentThreads &&
              !unrollingEmptiesLastWave(layout.vectors, blockSize,
                                        vectorsPerThread, residentThreads)
          ? vectorsPerThread
          : 1;
  layout.guarded =
      layout.unroll > 1 && (layout.tail > 0 || layout.vectors % perBlock != 0);
  return layout;
}

/// One lane of one vector: inputs are the lanes loaded for it, full-size
/// values and splat constants read the same in every context, and a
/// full-size op broadcasts its smaller operands in its own shape.
class LaneEvaluator : public GroupEvaluator {
public:
  LaneEvaluator(KernelBuilder &kb, OpBuilder &b, Memo &memo, LoopLayout &layout)
      : GroupEvaluator(b, /*width=*/1, memo, kb.strictNumerics()),
        layout(layout) {}

protected:
  int keyContext(Value value, int context) override {
    if (layout.isFull(value) || isSplatConstant(value.getDefiningOp()))
      return -1;
    return context;
  }
  int operandContext(Operation *op, int context) override {
    if (context >= 0)
      return context;
    return layout.intern(
        cast<RankedTensorType>(op->getResult(0).getType()).getShape());
  }

private:
  LoopLayout &layout;
};

int64_t residentThreads(const EmitContext &context) {
  return context.target.smCount * kMaxThreadsPerSm;
}

class LoopEmitter : public KernelEmitter {
public:
  StringRef getName() const override { return "loop"; }
  /// 16 loads (16-byte vectors: 64 registers) before their arithmetic: a
  /// 7x7 depthwise convolution's 49 taps, two vectors a thread, otherwise
  /// spilled 2.7 KB a thread (ptxas -v, sm_90a).
  unsigned canonicalLoadBatch() const override { return 16; }

  EmitterMatch match(ArrayRef<Operation *> ops,
                     ArrayRef<Value> outputs) const override {
    for (Operation *op : ops)
      if (!isLoopEmittable(op))
        return EmitterMatch::refuse(("'" + op->getName().getStringRef() +
                                     "' is not yet supported for GPU emission")
                                        .str(),
                                    op);
    return EmitterMatch::accept();
  }

  FailureOr<LaunchConfig> configure(GroupOp group,
                                    const EmitContext &context) const override {
    const int64_t blockSize = context.options.blockSize;
    FailureOr<LoopLayout> layout =
        planLoopKernel(group, blockSize, context.options.vectorsPerThread,
                       residentThreads(context));
    if (failed(layout))
      return failure();
    // One thread more for the tail, if any.
    const int64_t items = layout->vectors + (layout->tail > 0 ? 1 : 0);
    return context.options.launchFor(blockSize,
                                     (items + blockSize * layout->unroll - 1) /
                                         (blockSize * layout->unroll));
  }

  LogicalResult emit(GroupOp group, const LaunchConfig &config,
                     gpu::GPUModuleOp module, StringRef name,
                     const EmitContext &context) const override;
};

/// A run of `width` consecutive elements from `base`: a thread's vector,
/// or one element of the tail.
struct Vector {
  Value base;
  int64_t width;
  /// Set where the vector may lie past the last one: stores only if true.
  Value storeGuard;
  // Per-dimension index of the vector's first element in a layout context,
  // computed only where a broadcast input needs it, with compile-time
  // divisors.
  DenseMap<int, SmallVector<Value>> dimIndices;
  DenseMap<std::pair<Value, int>, SmallVector<Value>> loaded;
};

/// Writes a loop kernel's body: loads of every (input, context) of a
/// vector, then the group's ops lane by lane and the stores.
class LoopBodyWriter {
public:
  LoopBodyWriter(KernelBuilder &kb, OpBuilder &b, Location loc,
                 LoopLayout &layout, GroupOp group, Block &entry)
      : kb(kb), b(b), loc(loc), layout(layout), group(group),
        body(group.getBody().front()), entry(entry) {}

  /// Loads every (input, context) of `v` once.
  void load(Vector &v) {
    for (const Access &access : layout.accesses) {
      Value argument = body.getArgument(access.input);
      Type elementType =
          cast<RankedTensorType>(argument.getType()).getElementType();
      Value pointer = entry.getArgument(access.input);
      SmallVector<Value> lanes;
      if (access.context < 0) {
        lanes = kb.load(pointer, elementType, v.base, v.width);
      } else if (access.perLane && v.width > 1) {
        for (Value offset : laneOffsets(v, access))
          lanes.push_back(kb.load(pointer, elementType, offset, 1).front());
      } else {
        Value offset = kb.broadcastOffset(access.access,
                                          access.access.isScalar
                                              ? ArrayRef<Value>()
                                              : indicesOf(v, access.context));
        if (access.access.innerContiguous && v.width > 1) {
          lanes = kb.load(pointer, elementType, offset, v.width);
        } else {
          SmallVector<Value> one = kb.load(pointer, elementType, offset, 1);
          lanes.assign(v.width, one.front());
        }
      }
      v.loaded[{argument, access.context}] = std::move(lanes);
    }
  }

  /// Runs the group's ops lane by lane on scalars (a full-size value once,
  /// a smaller one once per layout context it is used in) and stores `v`.
  LogicalResult compute(Vector &v) {
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<SmallVector<Value>> outputLanes(yield.getNumOperands());
    for (int64_t lane = 0; lane < v.width; ++lane) {
      GroupEvaluator::Memo memo;
      LaneEvaluator evaluator(kb, b, memo, layout);
      for (auto &[key, lanes] : v.loaded)
        evaluator.seed(key.first, key.second, {lanes[lane]});
      for (Operation &op : body.without_terminator()) {
        Value result = op.getResult(0);
        SmallVector<int> contexts;
        if (layout.isFull(result) || isa<ConstantOp>(op))
          contexts.push_back(-1);
        else
          contexts = layout.contextsOf.lookup(result);
        for (int c : contexts)
          if (failed(evaluator.evaluate(result, c)))
            return failure();
      }
      for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
        FailureOr<GroupEvaluator::Lanes> lanes = evaluator.evaluate(value, -1);
        if (failed(lanes))
          return failure();
        outputLanes[index].push_back(lanes->front());
      }
    }
    const unsigned numInputs = group.getNumOperands();
    OpBuilder::InsertionGuard guard(b);
    if (v.storeGuard) {
      auto inRange = scf::IfOp::create(b, loc, v.storeGuard,
                                       /*withElse=*/false);
      b.setInsertionPointToStart(&inRange.getThenRegion().front());
    }
    for (auto [index, lanes] : llvm::enumerate(outputLanes))
      kb.store(entry.getArgument(numInputs + index),
               cast<RankedTensorType>(group.getResultTypes()[index])
                   .getElementType(),
               v.base, lanes);
    return success();
  }

private:
  /// The offset of each lane of `v` in a broadcast input whose rows (the
  /// layout context's last dimension) end inside vectors. A row at least a
  /// vector long is left at most once a vector, so each lane's offset is
  /// that of the vector's first element's row or of the next row, chosen by
  /// one comparison: one division chain a vector, not one a lane (a bf16
  /// bias of 257 over 8 x 12 x 513 rows spent 8 divisions a vector).
  /// Shorter rows are left several times a vector; their lanes are
  /// decomposed one by one.
  SmallVector<Value> laneOffsets(Vector &v, const Access &access) {
    ArrayRef<int64_t> shape = layout.contexts[access.context];
    const int64_t row = shape.back();
    SmallVector<Value> offsets;
    if (row < v.width) {
      for (int64_t lane = 0; lane < v.width; ++lane) {
        Value index = arith::AddIOp::create(b, loc, v.base, kb.constant(lane));
        offsets.push_back(
            kb.broadcastOffset(access.access, kb.decompose(index, shape)));
      }
      return offsets;
    }
    ArrayRef<Value> first = indicesOf(v, access.context);
    const int64_t innerStride = access.access.strides.back();
    // The first element's row and the next one, each at its index 0: the
    // next row's indices carry one into the dimension before the last, and
    // on where that one wraps. Past the last row they are never selected.
    SmallVector<Value> thisRow(first.begin(), first.end());
    SmallVector<Value> nextRow(first.begin(), first.end());
    thisRow.back() = nextRow.back() = kb.constant(0);
    Value carry;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) {
      Value stepped =
          carry ? arith::AddIOp::create(
                      b, loc, first[d],
                      arith::ExtUIOp::create(b, loc, first[d].getType(), carry))
                : arith::AddIOp::create(b, loc, first[d], kb.constant(1));
      carry = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, stepped,
                                    kb.constant(shape[d]));
      nextRow[d] =
          arith::SelectOp::create(b, loc, carry, kb.constant(0), stepped);
    }
    Value inner =
        arith::MulIOp::create(b, loc, first.back(), kb.constant(innerStride));
    Value inThisRow = arith::AddIOp::create(
        b, loc, kb.broadcastOffset(access.access, thisRow), inner);
    // A lane past the row's end reads the next row at its index less the
    // row's length.
    Value inNextRow = arith::SubIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, kb.broadcastOffset(access.access, nextRow), inner),
        kb.constant(row * innerStride));
    for (int64_t lane = 0; lane < v.width; ++lane) {
      Value start = inThisRow;
      if (lane > 0) {
        Value wraps =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                  first.back(), kb.constant(row - lane));
        start = arith::SelectOp::create(b, loc, wraps, inNextRow, inThisRow);
      }
      offsets.push_back(arith::AddIOp::create(b, loc, start,
                                              kb.constant(lane * innerStride)));
    }
    return offsets;
  }

  ArrayRef<Value> indicesOf(Vector &v, int c) {
    SmallVector<Value> &dims = v.dimIndices[c];
    if (dims.empty())
      dims = kb.decompose(v.base, layout.contexts[c]);
    return dims;
  }

  KernelBuilder &kb;
  OpBuilder &b;
  Location loc;
  LoopLayout &layout;
  GroupOp group;
  Block &body;
  Block &entry;
};

LogicalResult LoopEmitter::emit(GroupOp group, const LaunchConfig &config,
                                gpu::GPUModuleOp module, StringRef name,
                                const EmitContext &context) const {
  const int64_t blockSize = config.block;
  FailureOr<LoopLayout> planned =
      planLoopKernel(group, blockSize, context.options.vectorsPerThread,
                     residentThreads(context));
  if (failed(planned))
    return failure();
  LoopLayout &layout = *planned;
  const int64_t vec = layout.vec, unroll = layout.unroll;

  Type indexType = indexTypeFor(group.getContext(), layout.elements);
  OpBuilder b(group.getContext());
  Location loc = group.getLoc();
  gpu::GPUFuncOp func = createKernel(b, group, module, name, blockSize);
  Block &entry = func.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  KernelBuilder kb(b, loc, indexType);
  kb.setStrictNumerics(context.options.strictNumerics());
  LoopBodyWriter writer(kb, b, loc, layout, group, entry);

  const int64_t perBlock = blockSize * unroll;
  Value firstVector = kb.firstVector(perBlock, config);
  Block *afterVectors = nullptr;
  if (unroll == 1) {
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, firstVector,
                              kb.constant(layout.vectors));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    afterVectors = b.getInsertionBlock();
    b.setInsertionPointToStart(&guard.getThenRegion().front());
  }

  // A thread's vectors, a block's width apart: all loads first.
  SmallVector<Vector> vectorsOfThread(unroll);
  for (int64_t u = 0; u < unroll; ++u) {
    Value vectorId =
        arith::AddIOp::create(b, loc, firstVector, kb.constant(u * blockSize));
    if (layout.guarded) {
      vectorsOfThread[u].storeGuard =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, vectorId,
                                kb.constant(layout.vectors));
      vectorId = arith::MinUIOp::create(b, loc, vectorId,
                                        kb.constant(layout.vectors - 1));
    }
    vectorsOfThread[u].base =
        arith::MulIOp::create(b, loc, vectorId, kb.constant(vec));
    vectorsOfThread[u].width = vec;
  }
  for (Vector &v : vectorsOfThread)
    writer.load(v);
  for (Vector &v : vectorsOfThread)
    if (failed(writer.compute(v)))
      return failure();

  // The tail: the thread whose vectors would include the one after the
  // last runs the remaining elements one at a time.
  if (layout.tail > 0) {
    if (afterVectors)
      b.setInsertionPoint(afterVectors->getTerminator());
    const int64_t owner = layout.vectors / perBlock * perBlock +
                          layout.vectors % perBlock % blockSize;
    Value isTail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         firstVector, kb.constant(owner));
    auto guard = scf::IfOp::create(b, loc, isTail, /*withElse=*/false);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    for (int64_t t = 0; t < layout.tail; ++t) {
      Vector element;
      element.base = kb.constant(layout.vectors * vec + t);
      element.width = 1;
      writer.load(element);
      if (failed(writer.compute(element)))
        return failure();
    }
  }
  return success();
}

} // namespace

std::unique_ptr<KernelEmitter> createLoopEmitter() {
  return std::make_unique<LoopEmitter>();
}

} // namespace opfuse
