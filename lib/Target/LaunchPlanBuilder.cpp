//===- LaunchPlanBuilder.cpp - Launch plan from the compiled function -----===//
//
// Walks the function after convert-fuse-to-gpu: arguments are input
// buffers, each group output a new buffer, each reshape an alias of its
// input; returned values are the outputs.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Target/Artifact.h"

#include "opfuse/Analysis/BufferGraph.h"
#include "opfuse/Analysis/CostModel.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "opfuse/Runtime/Executor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

std::optional<DType> toDType(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isInteger(32))
    return DType::I32;
  if (type.isInteger(64))
    return DType::I64;
  if (type.isInteger(1))
    return DType::I1;
  return std::nullopt;
}

FailureOr<std::vector<uint8_t>> encodeConstant(Operation *constantOp) {
  auto constant = cast<ConstantOp>(constantOp);
  auto type = cast<RankedTensorType>(constant.getType());
  HostBuffer buffer = makeHostBuffer(
      *toDType(type.getElementType()),
      std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  Type elementType = type.getElementType();
  if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue())) {
    int64_t i = 0;
    if (isa<FloatType>(elementType))
      for (APFloat v : dense.getValues<APFloat>())
        buffer.set(i++, v.convertToDouble());
    else
      for (APInt v : dense.getValues<APInt>())
        buffer.set(i++, elementType.isInteger(1) ? double(v.getZExtValue())
                                                 : double(v.getSExtValue()));
    return buffer.bytes;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob || static_cast<int64_t>(blob->getData().size()) <
                   static_cast<int64_t>(buffer.bytes.size()))
    return constant.emitError("the constant has no data of ")
           << buffer.bytes.size() << " bytes to put on the device";
  ArrayRef<char> bytes = blob->getData();
  std::copy(bytes.begin(), bytes.begin() + buffer.bytes.size(),
            buffer.bytes.begin());
  return buffer.bytes;
}

namespace {

/// The launch of `group` (kernel `kernelName`) with its inputs' buffers;
/// its outputs' buffers are the caller's to add.
FailureOr<PlanKernel> planKernel(fuse::FuseDialect &dialect, GroupOp group,
                                 SymbolRefAttr kernelName,
                                 const LaunchPlan &plan,
                                 const DenseMap<Value, int> &bufferOf) {
  PlanKernel kernel;
  kernel.name = kernelName.getLeafReference().str();
  if (StringAttr step = dialect.getStepNameAttrHelper().getAttr(group)) {
    kernel.entry = kernel.name;
    kernel.name = step.str();
  }
  DenseI64ArrayAttr grid = dialect.getGridAttrHelper().getAttr(group);
  DenseI64ArrayAttr block = dialect.getBlockAttrHelper().getAttr(group);
  if (!grid || !block)
    return group.emitError("internal error: kernel without a launch "
                           "configuration");
  std::copy(grid.asArrayRef().begin(), grid.asArrayRef().end(),
            kernel.grid.begin());
  std::copy(block.asArrayRef().begin(), block.asArrayRef().end(),
            kernel.block.begin());
  if (IntegerAttr shared = dialect.getSharedBytesAttrHelper().getAttr(group))
    kernel.sharedBytes = shared.getInt();
  if (MatmulTilingAttr tiling =
          dialect.getMatmulTilingAttrHelper().getAttr(group)) {
    const MatmulTiling &t = tiling.getTiling();
    kernel.tiling = formatMatmulTiling(t);
  }
  if (DenseI64ArrayAttr split =
          dialect.getSplitWorkspaceAttrHelper().getAttr(group)) {
    kernel.splitK = split[0];
    kernel.splitCounters = split[1];
    kernel.workspaceBytes = split[2];
  }
  kernel.earlyLaunch = dialect.getEarlyLaunchAttrHelper().isAttrPresent(group);
  if (GemmScheduleAttr schedule =
          dialect.getGemmScheduleAttrHelper().getAttr(group))
    kernel.schedule = schedule.getPlanName().str();
  for (Value input : group.getInputs()) {
    auto it = bufferOf.find(input);
    if (it == bufferOf.end())
      return group.emitError("internal error: an input of the kernel has no "
                             "buffer");
    kernel.args.push_back(it->second);
  }
  kernel.numInputs = group.getInputs().size();
  for (TensorMapAttr map : getTensorMaps(group)) {
    PlanTensorMap planMap;
    planMap.buffer = kernel.args[map.getInput()];
    planMap.dims.assign(map.getDims().begin(), map.getDims().end());
    planMap.strides.assign(map.getStrides().begin(), map.getStrides().end());
    planMap.box.assign(map.getBox().begin(), map.getBox().end());
    planMap.offset = map.getOffset();
    if (std::optional<std::string> why =
            checkTensorMap(planMap, plan.buffers[planMap.buffer]))
      return group.emitError("internal error: invalid tensor map: ") << *why;
    kernel.tensorMaps.push_back(std::move(planMap));
  }
  auto cost = cast<CostInterface>(group.getOperation());
  kernel.bytes = cost.getBytesRead() + cost.getBytesWritten();
  kernel.flops = cost.getFlops();
  for (Operation &inner : group.getBody().front())
    if (!isa<ConstantOp, YieldOp>(inner))
      ++kernel.numOps;
  return kernel;
}

} // namespace

/// The collective step of `op`: its input's buffer, a buffer for its
/// result where fuse-plan-memory placed it, and NCCL's parameters.
template <typename AddBuffer>
LogicalResult planCollective(fuse::FuseDialect &dialect, Operation &op,
                             LaunchPlan &plan, DenseMap<Value, int> &bufferOf,
                             AddBuffer &addBuffer) {
  PlanCollective collective;
  auto reduceName = [](fuse::ReduceKind kind) {
    return kind == fuse::ReduceKind::max ? "max" : "sum";
  };
  if (auto reduce = dyn_cast<AllReduceOp>(op)) {
    collective.kind = CollectiveKind::AllReduce;
    collective.reduce = reduceName(reduce.getKind());
    collective.devices = reduce.getDevices();
  } else if (auto gather = dyn_cast<AllGatherOp>(op)) {
    collective.kind = CollectiveKind::AllGather;
    collective.devices = gather.getDevices();
  } else {
    auto scatter = cast<ReduceScatterOp>(op);
    collective.kind = CollectiveKind::ReduceScatter;
    collective.reduce = reduceName(scatter.getKind());
    collective.devices = scatter.getDevices();
  }
  auto input = bufferOf.find(op.getOperand(0));
  if (input == bufferOf.end())
    return op.emitError("internal error: a collective's input has no "
                        "buffer; please report this compiler bug");
  collective.input = input->second;
  FailureOr<int> output = addBuffer(
      op.getResult(0),
      (plan.function + "_c" + Twine(plan.collectives.size()) + ".out0").str(),
      BufferRole::Intermediate);
  if (failed(output))
    return failure();
  if (DenseI64ArrayAttr offsets = dialect.getOffsetsAttrHelper().getAttr(&op);
      offsets && !offsets.empty())
    plan.buffers[*output].offset = offsets[0];
  collective.output = *output;
  if (IntegerAttr sms = dialect.getOverlapSmsAttrHelper().getAttr(&op))
    collective.overlapSms = sms.getInt();
  plan.steps.push_back({StepKind::Collective, plan.collectives.size()});
  plan.collectives.push_back(std::move(collective));
  return success();
}

FunctionIoNames functionIoNames(func::FuncOp func) {
  auto nameOf = [](DictionaryAttr attrs) -> std::string {
    if (attrs)
      if (auto name = attrs.getAs<StringAttr>("fuse.name"))
        return name.str();
    return "";
  };
  FunctionIoNames names;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    names.inputs.push_back(nameOf(func.getArgAttrDict(i)));
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    names.outputs.push_back(nameOf(func.getResultAttrDict(i)));
  auto complete = [](std::vector<std::string> &list, const char *prefix) {
    if (llvm::all_of(list, [](const std::string &n) { return n.empty(); })) {
      list.clear();
      return;
    }
    for (auto [i, name] : llvm::enumerate(list))
      if (name.empty())
        name = prefix + std::to_string(i);
  };
  complete(names.inputs, "arg");
  complete(names.outputs, "result");
  return names;
}

FailureOr<LaunchPlan> buildLaunchPlan(ModuleOp module) {
  auto functions = module.getOps<func::FuncOp>();
  if (functions.empty())
    return module.emitError("no function to plan");
  func::FuncOp func = *functions.begin();
  LaunchPlan plan;
  plan.function = func.getSymName().str();
  DenseMap<Value, int> bufferOf;
  fuse::FuseDialect &dialect = fuse::getFuseDialect(module.getContext());

  auto addBuffer = [&](Value value, std::string name,
                       BufferRole role) -> FailureOr<int> {
    auto type = cast<RankedTensorType>(value.getType());
    std::optional<DType> dtype = toDType(type.getElementType());
    if (!dtype)
      return emitError(value.getLoc(), "unsupported element type ")
             << type.getElementType();
    PlanBuffer buffer;
    buffer.id = plan.buffers.size();
    buffer.name = std::move(name);
    buffer.dtype = *dtype;
    buffer.shape.assign(type.getShape().begin(), type.getShape().end());
    buffer.role = role;
    plan.buffers.push_back(buffer);
    bufferOf[value] = buffer.id;
    return buffer.id;
  };

  for (auto [index, argument] : llvm::enumerate(func.getArguments())) {
    FailureOr<int> id =
        addBuffer(argument, ("arg" + Twine(index)).str(), BufferRole::Input);
    if (failed(id))
      return failure();
    plan.inputs.push_back(*id);
  }
  // Names an importer gave (fuse.name), so that opfuse-run --inputs and
  // --save-outputs use what the user knows.
  FunctionIoNames names = functionIoNames(func);
  plan.inputNames = std::move(names.inputs);
  plan.outputNames = std::move(names.outputs);
  // SPMD inputs (fuse.shard), so that opfuse-run --devices cuts the global
  // tensors as opt-fuse does.
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto axis = func.getArgAttrOfType<IntegerAttr>(
        i, fuse::FuseDialect::ShardAttrHelper::getNameStr());
    plan.inputShards.push_back(axis ? axis.getInt() : -1);
  }
  if (llvm::none_of(plan.inputShards, [](int64_t axis) { return axis >= 0; }))
    plan.inputShards.clear();

  for (Operation &op : func.getBody().getOps()) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      FailureOr<int> id = addBuffer(
          constant.getResult(), ("const" + Twine(plan.buffers.size())).str(),
          BufferRole::Constant);
      if (failed(id))
        return failure();
      FailureOr<std::vector<uint8_t>> data = encodeConstant(constant);
      if (failed(data))
        return failure();
      plan.buffers[*id].data = std::move(*data);
      continue;
    }
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      bufferOf[reshape.getResult()] = bufferOf.lookup(reshape.getInput());
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value value : ret.getOperands()) {
        auto it = bufferOf.find(value);
        if (it == bufferOf.end())
          return ret.emitError("a returned value has no buffer");
        if (plan.buffers[it->second].role == BufferRole::Intermediate)
          plan.buffers[it->second].role = BufferRole::Output;
        plan.outputs.push_back(it->second);
      }
      continue;
    }
    if (isCollective(&op)) {
      if (failed(planCollective(dialect, op, plan, bufferOf, addBuffer)))
        return failure();
      continue;
    }
    auto group = dyn_cast<GroupOp>(op);
    SymbolRefAttr kernelName =
        group ? dialect.getKernelAttrHelper().getAttr(group) : nullptr;
    if (!kernelName) {
      if (!launchesKernel(&op))
        continue;
      return op.emitError("'")
             << op.getName() << "' has no kernel; run convert-fuse-to-gpu";
    }
    FailureOr<PlanKernel> kernel =
        planKernel(dialect, group, kernelName, plan, bufferOf);
    if (failed(kernel))
      return failure();
    DenseI64ArrayAttr offsets = dialect.getOffsetsAttrHelper().getAttr(group);
    for (auto [index, result] : llvm::enumerate(group.getResults())) {
      FailureOr<int> id =
          addBuffer(result, (kernel->name + ".out" + Twine(index)).str(),
                    BufferRole::Intermediate);
      if (failed(id))
        return failure();
      if (offsets && int64_t(index) < offsets.size())
        plan.buffers[*id].offset = offsets[index];
      kernel->args.push_back(*id);
    }
    appendKernelStep(plan, std::move(*kernel));
  }
  // The arena, checked again on the IR the kernels came from: emission
  // must not have broken what fuse-plan-memory verified.
  if (std::optional<MemorySummary> memory = readMemorySummary(func)) {
    plan.arena = {memory->arenaBytes, memory->lowerBound, memory->naiveBytes,
                  memory->inPlaceHits};
    FunctionBuffers buffers = buildFunctionBuffers(func, memory->planOutputs);
    std::optional<MemoryPlan> stored = readMemoryPlan(func, buffers);
    if (!stored)
      return func.emitError("internal error: a kernel lost its planned "
                            "offsets during emission");
    if (std::optional<std::string> error =
            verifyMemoryPlan(buffers.graph, *stored))
      return func.emitError("internal error: invalid buffer plan after "
                            "emission: ")
             << *error;
  }
  return plan;
}

} // namespace opfuse
