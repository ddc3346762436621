//===- LoopEmitter.cpp - Elementwise kernels from fuse.group --------------===//
//
// Each thread owns one vector of consecutive output elements. Inputs are
// read once per vector, contiguously or as a broadcast scalar; the group's
// ops run lane by lane on scalars; outputs are stored as one vector each.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/LoopEmitter.h"

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

bool isLoopEmittable(Operation *op) {
  return isElementwise(op) || isa<ReshapeOp, YieldOp>(op) ||
         isSplatConstant(op);
}

FailureOr<LaunchConfig> emitLoopKernel(GroupOp group, gpu::GPUModuleOp module,
                                       StringRef name, int64_t blockSize,
                                       int64_t vectorsPerThread) {
  Block &body = group.getBody().front();
  for (Operation &op : body)
    if (!isLoopEmittable(&op))
      return op.emitError("'")
             << op.getName() << "' is not yet supported for GPU emission";
  if (group.getNumResults() == 0)
    return group.emitError("a fuse.group without results has no kernel");

  // The iteration space: the outputs' elements in row-major order. Outputs
  // (and every value with as many elements, across reshapes) are addressed
  // by the linear index alone.
  auto first = cast<RankedTensorType>(group.getResultTypes()[0]);
  const int64_t elements = getNumElements(first);
  for (auto [index, type] : llvm::enumerate(group.getResultTypes()))
    if (getNumElements(type) != elements)
      return group.emitError("result #")
             << index << " has shape "
             << formatShape(cast<RankedTensorType>(type).getShape())
             << " but result #0 has " << formatShape(first.getShape())
             << "; a kernel's outputs share one shape";
  auto isFull = [&](Value value) {
    return getNumElements(value.getType()) == elements;
  };

  // A smaller value (a bias, a column, a scalar) is read at the broadcast
  // index of the full-size shape it is combined with: its layout context.
  // Contexts flow from users to operands; a reshape changes them.
  SmallVector<SmallVector<int64_t>> contexts;
  auto intern = [&](ArrayRef<int64_t> shape) -> int {
    for (auto [id, known] : llvm::enumerate(contexts))
      if (ArrayRef<int64_t>(known) == shape)
        return id;
    contexts.emplace_back(shape.begin(), shape.end());
    return contexts.size() - 1;
  };
  DenseMap<Value, SmallVector<int>> contextsOf;
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    Value result = op.getResult(0);
    SmallVector<int> ctx;
    if (isFull(result))
      ctx.push_back(intern(cast<RankedTensorType>(result.getType()).getShape()));
    else
      ctx = contextsOf.lookup(result);
    for (Value operand : op.getOperands())
      if (!isFull(operand))
        for (int c : ctx)
          if (!llvm::is_contained(contextsOf[operand], c))
            contextsOf[operand].push_back(c);
  }

  // One access per (input, context); full-size inputs read linearly.
  struct Access {
    unsigned input;
    int context; // -1: linear
    InputAccess access;
  };
  SmallVector<Access> accesses;
  for (auto [index, argument] : llvm::enumerate(body.getArguments())) {
    auto type = cast<RankedTensorType>(argument.getType());
    if (isFull(argument)) {
      accesses.push_back({static_cast<unsigned>(index), -1, InputAccess()});
      continue;
    }
    for (int c : contextsOf.lookup(argument)) {
      FailureOr<InputAccess> access =
          analyzeInput(group, type, contexts[c], index);
      if (failed(access))
        return failure();
      accesses.push_back({static_cast<unsigned>(index), c, *access});
    }
  }

  // Lanes per thread: 16 bytes of the widest stored element, when the
  // elements split evenly and no broadcast read crosses a row of its layout.
  int64_t vec = vectorLanes(group);
  if (first.getRank() == 0 || elements % vec != 0)
    vec = 1;
  for (const Access &access : accesses)
    if (access.context >= 0 && !access.access.isScalar &&
        (contexts[access.context].empty() ||
         contexts[access.context].back() % vec != 0))
      vec = 1;
  const int64_t vectors = elements / vec;

  Type indexType = indexTypeFor(group.getContext(), elements);
  OpBuilder b(group.getContext());
  Location loc = group.getLoc();
  gpu::GPUFuncOp func = createKernel(b, group, module, name, blockSize);
  Block &entry = func.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  KernelBuilder kb(b, loc, indexType);

  // Each thread owns `unroll` vectors, a block's width apart so that a warp
  // stays coalesced; all their loads are issued before any arithmetic, which
  // keeps more bytes in flight per thread. Unrolling needs the vectors to
  // fill whole blocks; otherwise one guarded vector per thread.
  const int64_t unroll =
      vectorsPerThread > 1 && vectors % (blockSize * vectorsPerThread) == 0
          ? vectorsPerThread
          : 1;
  Value thread = arith::IndexCastUIOp::create(
      b, loc, indexType, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value block = arith::IndexCastUIOp::create(
      b, loc, indexType, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value firstVector = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, block, kb.constant(blockSize * unroll)),
      thread);
  if (unroll == 1) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          firstVector, kb.constant(vectors));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
  }

  using Key = std::pair<Value, int>;
  struct Vector {
    Value base;
    // Per-dimension index of the vector's first element in a layout
    // context, computed only where a broadcast input needs it, with
    // compile-time divisors.
    DenseMap<int, SmallVector<Value>> dimIndices;
    DenseMap<Key, SmallVector<Value>> loaded;
  };
  SmallVector<Vector> vectorsOfThread(unroll);
  for (int64_t u = 0; u < unroll; ++u) {
    Value vectorId = arith::AddIOp::create(b, loc, firstVector,
                                           kb.constant(u * blockSize));
    vectorsOfThread[u].base =
        arith::MulIOp::create(b, loc, vectorId, kb.constant(vec));
  }
  auto indicesOf = [&](Vector &v, int c) -> ArrayRef<Value> {
    SmallVector<Value> &dims = v.dimIndices[c];
    if (dims.empty())
      dims = kb.decompose(v.base, contexts[c]);
    return dims;
  };

  // Load every (input, context) once per vector.
  for (Vector &v : vectorsOfThread) {
    for (const Access &access : accesses) {
      Value argument = body.getArgument(access.input);
      Type elementType =
          cast<RankedTensorType>(argument.getType()).getElementType();
      Value pointer = entry.getArgument(access.input);
      SmallVector<Value> lanes;
      if (access.context < 0) {
        lanes = kb.load(pointer, elementType, v.base, vec);
      } else {
        Value offset = kb.broadcastOffset(
            access.access, access.access.isScalar
                               ? ArrayRef<Value>()
                               : indicesOf(v, access.context));
        if (access.access.innerContiguous && vec > 1) {
          lanes = kb.load(pointer, elementType, offset, vec);
        } else {
          SmallVector<Value> one = kb.load(pointer, elementType, offset, 1);
          lanes.assign(vec, one.front());
        }
      }
      v.loaded[{argument, access.context}] = std::move(lanes);
    }
  }

  // Run the group's ops lane by lane on scalars: a full-size value once, a
  // smaller one once per layout context it is used in.
  auto yield = cast<YieldOp>(body.getTerminator());
  const unsigned numInputs = group.getNumOperands();
  for (Vector &v : vectorsOfThread) {
    SmallVector<SmallVector<Value>> outputLanes(yield.getNumOperands());
    for (int64_t lane = 0; lane < vec; ++lane) {
      DenseMap<Key, Value> scalars;
      for (auto &[key, lanes] : v.loaded)
        scalars[key] = lanes[lane];
      auto lookup = [&](Value value, int c) {
        if (isFull(value) || isSplatConstant(value.getDefiningOp()))
          return scalars.lookup({value, -1});
        return scalars.lookup({value, c});
      };
      for (Operation &op : body.without_terminator()) {
        Value result = op.getResult(0);
        if (auto constant = dyn_cast<ConstantOp>(op)) {
          scalars[{result, -1}] = splatScalar(b, constant);
          continue;
        }
        SmallVector<int> ctx;
        if (isFull(result))
          ctx.push_back(-1);
        else
          ctx = contextsOf.lookup(result);
        for (int c : ctx) {
          // A full-size op broadcasts its smaller operands in its own layout.
          int operandContext =
              c >= 0 ? c
                     : intern(cast<RankedTensorType>(result.getType())
                                  .getShape());
          SmallVector<Value> operands;
          for (Value operand : op.getOperands())
            operands.push_back(lookup(operand, operandContext));
          FailureOr<Value> scalar = emitScalarOp(b, &op, operands);
          if (failed(scalar))
            return failure();
          scalars[{result, c}] = *scalar;
        }
      }
      for (auto [index, value] : llvm::enumerate(yield.getOperands()))
        outputLanes[index].push_back(lookup(value, -1));
    }
    for (auto [index, lanes] : llvm::enumerate(outputLanes))
      kb.store(entry.getArgument(numInputs + index),
               cast<RankedTensorType>(group.getResultTypes()[index])
                   .getElementType(),
               v.base, lanes);
  }

  LaunchConfig config;
  config.block = blockSize;
  config.grid = (vectors + blockSize * unroll - 1) / (blockSize * unroll);
  return config;
}

} // namespace opfuse
