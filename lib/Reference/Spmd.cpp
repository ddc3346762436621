//===- Spmd.cpp - The CPU reference of an SPMD program on N devices -------===//
//
// One interpreter a device, stepped op by op in lockstep over the
// function's body; where the devices meet, at a collective, their tensors
// are combined here as NCCL combines them: sums and maxima elementwise,
// gathers and scatters in device order along the axis.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Reference/Interpreter.h"

#include "RankInterpreter.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse::reference {

namespace {

int64_t devicesOf(Operation &op) {
  return llvm::TypeSwitch<Operation *, int64_t>(&op)
      .Case([](AllReduceOp a) { return a.getDevices(); })
      .Case([](AllGatherOp a) { return a.getDevices(); })
      .Case([](ReduceScatterOp a) { return a.getDevices(); })
      .Default([](Operation *) { return 0; });
}

} // namespace

Tensor combineCollective(Operation &op, ArrayRef<const Tensor *> inputs,
                         int64_t device) {
  const Tensor &first = *inputs.front();
  auto type = cast<RankedTensorType>(op.getResult(0).getType());
  Tensor out;
  out.elementType = type.getElementType();
  out.shape.assign(type.getShape().begin(), type.getShape().end());
  out.data.assign(product(type.getShape()), 0.0);
  auto reduce = [&](ReduceKind kind, int64_t i) {
    double acc = inputs.front()->data[i];
    for (const Tensor *input : inputs.drop_front())
      acc = kind == ReduceKind::max ? fmaxNaN(acc, input->data[i])
                                    : acc + input->data[i];
    return acc;
  };
  if (auto a = dyn_cast<AllReduceOp>(op)) {
    for (int64_t i = 0; i < out.size(); ++i)
      out.data[i] = reduce(a.getKind(), i);
    return out;
  }
  if (auto g = dyn_cast<AllGatherOp>(op)) {
    const int64_t axis = g.getAxis(), m = first.shape[axis];
    const int64_t inner =
        product(ArrayRef<int64_t>(first.shape).drop_front(axis + 1));
    for (int64_t i = 0; i < out.size(); ++i) {
      const int64_t outer = i / (out.shape[axis] * inner);
      const int64_t k = (i / inner) % out.shape[axis];
      out.data[i] =
          inputs[k / m]->data[(outer * m + k % m) * inner + i % inner];
    }
    return out;
  }
  auto r = cast<ReduceScatterOp>(op);
  const int64_t axis = r.getAxis(), n = first.shape[axis], m = out.shape[axis];
  const int64_t inner =
      product(ArrayRef<int64_t>(first.shape).drop_front(axis + 1));
  for (int64_t i = 0; i < out.size(); ++i) {
    const int64_t outer = i / (m * inner);
    const int64_t k = device * m + (i / inner) % m;
    out.data[i] = reduce(r.getKind(), (outer * n + k) * inner + i % inner);
  }
  return out;
}

FailureOr<SmallVector<SmallVector<Tensor>>>
interpretSpmd(func::FuncOp func, ArrayRef<SmallVector<Tensor>> arguments,
              const Options &options) {
  const int64_t devices = arguments.size();
  if (devices < 1)
    return func.emitError("an SPMD run needs at least one device");
  for (const SmallVector<Tensor> &deviceArguments : arguments)
    if (deviceArguments.size() != func.getNumArguments())
      return func.emitError("the reference interpreter got ")
             << deviceArguments.size() << " arguments for "
             << func.getNumArguments() << " parameters";
  Block &block = func.getBody().front();
  // The ranks keep a reference to their options: one copy outlives them.
  Options rankOptions = options;
  rankOptions.progress = nullptr;
  std::vector<std::unique_ptr<RankInterpreter>> ranks;
  for (int64_t device = 0; device < devices; ++device) {
    ranks.push_back(RankInterpreter::create(rankOptions));
    ranks.back()->bind(block, arguments[device]);
  }
  DenseMap<Value, Operation *> lastUse = lastUses(block);
  const int64_t total = block.getOperations().size() - 1;
  int64_t done = 0;
  for (Operation &op : block) {
    if (isa<func::ReturnOp>(op)) {
      SmallVector<SmallVector<Tensor>> results(devices);
      for (int64_t device = 0; device < devices; ++device)
        for (Value v : op.getOperands())
          results[device].push_back(ranks[device]->valueOf(v));
      return results;
    }
    if (const int64_t spans = devicesOf(op)) {
      if (spans != devices)
        return op.emitError("this collective spans ")
               << spans << " devices; the SPMD run has " << devices;
      SmallVector<const Tensor *> inputs;
      for (int64_t device = 0; device < devices; ++device)
        inputs.push_back(&ranks[device]->valueOf(op.getOperand(0)));
      SmallVector<Tensor> outputs;
      for (int64_t device = 0; device < devices; ++device)
        outputs.push_back(combineCollective(op, inputs, device));
      for (int64_t device = 0; device < devices; ++device)
        ranks[device]->setValue(op.getResult(0), std::move(outputs[device]));
    } else {
      // Ranks meet only at the function's own collectives.
      WalkResult nested = op.walk([](Operation *inner) {
        return devicesOf(*inner) ? WalkResult::interrupt()
                                 : WalkResult::advance();
      });
      if (op.getNumRegions() && nested.wasInterrupted())
        return op.emitError("an SPMD run cannot evaluate a collective nested "
                            "in '")
               << op.getName() << "'";
      for (int64_t device = 0; device < devices; ++device)
        if (failed(ranks[device]->evalOp(op)))
          return failure();
    }
    for (Value operand : op.getOperands())
      if (lastUse.lookup(operand) == &op)
        for (int64_t device = 0; device < devices; ++device)
          ranks[device]->drop(operand);
    if (options.progress)
      options.progress(++done, total);
  }
  return SmallVector<SmallVector<Tensor>>(devices);
}

} // namespace opfuse::reference
