//===- HostRun.cpp - --check-on-host: kernels interpreted on the host -----===//
//
// The function's ops run in order over host buffers: a fuse.group's kernel
// through the kernel interpreter, a reshape as its operand's bytes, a
// constant as its stored contents. Every kernel is screened first, so a
// model with a kernel the interpreter does not run stops before any runs.
//
//===----------------------------------------------------------------------===//

#include "GpuRun.h"
#include "Sharding.h"

#include "opfuse/Analysis/InputRanges.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Driver/ExitCodes.h"
#include "opfuse/Reference/KernelInterpreter.h"
#include "opfuse/Runtime/NamedIo.h"
#include "opfuse/Runtime/Spmd.h"
#include "opfuse/Target/Artifact.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace opfuse {
namespace {

/// Why a function cannot run on the host, or what stopped it.
struct HostRunError {
  bool unsupported = false;
  std::string message;
};

/// The kernel a group launches, its grid and block; an error where the
/// interpreter cannot run it.
struct HostKernel {
  gpu::GPUFuncOp func;
  SmallVector<int64_t, 3> grid;
  int64_t block = 0;
  /// Dynamic shared memory per block (fuse.shared_bytes).
  int64_t sharedBytes = 0;
  /// A split-K GEMM's f32 workspace and i32 counters (fuse.split_workspace),
  /// passed after the buffers as the runtime does.
  int64_t workspaceBytes = 0, counters = 0;
};

FailureOr<HostKernel> hostKernelOf(fuse::GroupOp group, HostRunError &error) {
  fuse::FuseDialect &dialect = fuse::getFuseDialect(group.getContext());
  SymbolRefAttr symbol = dialect.getKernelAttrHelper().getAttr(group);
  DenseI64ArrayAttr grid = dialect.getGridAttrHelper().getAttr(group);
  DenseI64ArrayAttr block = dialect.getBlockAttrHelper().getAttr(group);
  auto func =
      symbol
          ? SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(group, symbol)
          : gpu::GPUFuncOp();
  if (!func || !grid || !block) {
    error = {false, "internal error: a kernel group has no emitted kernel"};
    return failure();
  }
  if (std::optional<std::string> op = reference::findUninterpretedOp(func)) {
    error = {true, "kernel @" + func.getName().str() + " holds " + *op};
    return failure();
  }
  // A split-K GEMM takes its workspace and counters after the buffers.
  DenseI64ArrayAttr split =
      dialect.getSplitWorkspaceAttrHelper().getAttr(group);
  if (grid.size() != 3 || block.size() != 3 || block[1] != 1 || block[2] != 1 ||
      func.getNumArguments() !=
          group.getNumOperands() + group.getNumResults() + (split ? 2 : 0)) {
    error = {true, "kernel @" + func.getName().str() +
                       " takes a 2-D or 3-D block or tensor maps"};
    return failure();
  }
  IntegerAttr shared = dialect.getSharedBytesAttrHelper().getAttr(group);
  HostKernel kernel{func, SmallVector<int64_t, 3>(grid.asArrayRef()), block[0],
                    shared ? shared.getInt() : 0};
  if (split) {
    kernel.workspaceBytes = split[2];
    kernel.counters = split[1];
  }
  return kernel;
}

/// An empty host buffer of tensor type `type` (its element type has a
/// DType: the screen and the argument check made sure).
HostBuffer hostBufferOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return makeHostBuffer(
      *toDType(tensor.getElementType()),
      std::vector<int64_t>(tensor.getShape().begin(), tensor.getShape().end()));
}

/// The tensor `bytes` hold, as the reference interpreter sees it.
reference::Tensor toTensor(Type type, const std::vector<uint8_t> &bytes) {
  auto tensor = cast<RankedTensorType>(type);
  HostBuffer buffer = hostBufferOf(type);
  buffer.bytes = bytes;
  reference::Tensor t;
  t.elementType = tensor.getElementType();
  t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  t.data.resize(buffer.elements());
  for (int64_t i = 0; i < buffer.elements(); ++i)
    t.data[i] = buffer.get(i);
  return t;
}

/// `t` stored as a buffer of its element type.
std::vector<uint8_t> toBytes(const reference::Tensor &t) {
  HostBuffer buffer =
      makeHostBuffer(*toDType(t.elementType),
                     std::vector<int64_t>(t.shape.begin(), t.shape.end()));
  for (int64_t i = 0; i < t.size(); ++i)
    buffer.set(i, t.data[i]);
  return std::move(buffer.bytes);
}

/// Runs `func`'s ops on each device's `inputs` (one device, or several in
/// lockstep, the collectives combining their tensors); each device's
/// results, in order.
FailureOr<std::vector<std::vector<HostBuffer>>>
runOnHost(func::FuncOp func, const std::vector<std::vector<HostBuffer>> &inputs,
          HostRunError &error) {
  // Screen every kernel before running any.
  for (auto group : func.getOps<fuse::GroupOp>())
    if (failed(hostKernelOf(group, error)))
      return failure();
  const size_t devices = inputs.size();
  std::vector<DenseMap<Value, std::vector<uint8_t>>> memory(devices);
  for (size_t d = 0; d < devices; ++d)
    for (auto [argument, input] : llvm::zip(func.getArguments(), inputs[d]))
      memory[d][argument] = input.bytes;
  for (Operation &op : func.getBody().front()) {
    if (auto group = dyn_cast<fuse::GroupOp>(op)) {
      HostKernel kernel = *hostKernelOf(group, error);
      for (size_t d = 0; d < devices; ++d) {
        std::vector<std::vector<uint8_t>> buffers;
        for (Value operand : group.getOperands())
          buffers.push_back(memory[d][operand]);
        // NaN in every float type: an element no thread writes fails.
        for (Type type : group.getResultTypes())
          buffers.emplace_back(hostBufferOf(type).bytes.size(), 0xff);
        // The workspace starts as garbage, the counters at zero.
        if (kernel.counters > 0) {
          buffers.emplace_back(kernel.workspaceBytes, 0xff);
          buffers.emplace_back(kernel.counters * 4, 0);
        }
        std::string stopped =
            reference::interpretKernel(kernel.func, kernel.grid, kernel.block,
                                       buffers, kernel.sharedBytes);
        if (!stopped.empty()) {
          error = {false, (devices > 1 ? "device " + std::to_string(d) + ": "
                                       : std::string()) +
                              "kernel @" + kernel.func.getName().str() + ": " +
                              stopped};
          return failure();
        }
        if (kernel.counters > 0 &&
            llvm::any_of(buffers.back(), [](uint8_t b) { return b != 0; })) {
          error = {false, "kernel @" + kernel.func.getName().str() +
                              " leaves its split-K counters nonzero: the "
                              "next launch would take the wrong block for "
                              "a tile's last"};
          return failure();
        }
        for (auto [k, result] : llvm::enumerate(group.getResults()))
          memory[d][result] = std::move(buffers[group.getNumOperands() + k]);
      }
    } else if (isa<fuse::AllReduceOp, fuse::AllGatherOp, fuse::ReduceScatterOp>(
                   op)) {
      // As NCCL's collective step: every device's input, device order.
      std::vector<reference::Tensor> tensors;
      for (size_t d = 0; d < devices; ++d)
        tensors.push_back(
            toTensor(op.getOperand(0).getType(), memory[d][op.getOperand(0)]));
      SmallVector<const reference::Tensor *> pointers;
      for (const reference::Tensor &t : tensors)
        pointers.push_back(&t);
      for (size_t d = 0; d < devices; ++d)
        memory[d][op.getResult(0)] =
            toBytes(reference::combineCollective(op, pointers, d));
    } else if (auto reshape = dyn_cast<fuse::ReshapeOp>(op)) {
      for (size_t d = 0; d < devices; ++d)
        memory[d][reshape.getResult()] = memory[d][reshape.getInput()];
    } else if (auto constant = dyn_cast<fuse::ConstantOp>(op)) {
      FailureOr<std::vector<uint8_t>> bytes =
          toDType(constant.getType().getElementType())
              ? encodeConstant(constant)
              : FailureOr<std::vector<uint8_t>>(failure());
      if (failed(bytes)) {
        error = {true, "a constant of its type has no host buffer"};
        return failure();
      }
      for (size_t d = 0; d < devices; ++d)
        memory[d][constant.getResult()] = *bytes;
    } else if (!isa<func::ReturnOp>(op)) {
      error = {true,
               "'" + op.getName().getStringRef().str() + "' runs on no host"};
      return failure();
    }
  }
  std::vector<std::vector<HostBuffer>> outputs(devices);
  for (size_t d = 0; d < devices; ++d)
    for (Value result : func.getBody().front().getTerminator()->getOperands()) {
      HostBuffer buffer = hostBufferOf(result.getType());
      buffer.bytes = memory[d][result];
      outputs[d].push_back(std::move(buffer));
    }
  return outputs;
}

/// The names --inputs and --save-outputs use: the model's (fuse.name),
/// else argN and resultN, as the launch plan has them.
std::vector<std::string> ioNames(func::FuncOp model, bool outputs) {
  FunctionIoNames names = functionIoNames(model);
  std::vector<std::string> list = outputs ? names.outputs : names.inputs;
  const unsigned count =
      outputs ? model.getNumResults() : model.getNumArguments();
  for (unsigned i = list.size(); i < count; ++i)
    list.push_back((outputs ? "result" : "arg") + std::to_string(i));
  return list;
}

/// --inputs NAME=FILE.npy: the files' values replace the seeded ones.
int loadNamedInputs(const DriverOptions &options, func::FuncOp model,
                    std::vector<HostBuffer> &inputs) {
  NamedIoResult result = loadInputFiles(
      options.inputFiles, ioNames(model, /*outputs=*/false), inputs);
  if (result)
    llvm::errs() << "opt-fuse: error: " << result.message << "\n";
  return result.exitCode();
}

/// --save-outputs DIR: the host run's outputs as DIR/NAME.npy.
int saveNamedOutputs(const DriverOptions &options, func::FuncOp model,
                     const std::vector<HostBuffer> &outputs) {
  if (options.saveOutputsDir.empty())
    return ExitSuccess;
  NamedIoResult result = saveOutputFiles(
      options.saveOutputsDir, ioNames(model, /*outputs=*/true), outputs);
  if (result)
    llvm::errs() << "opt-fuse: error: " << result.message << "\n";
  return result.exitCode();
}

} // namespace

int checkOnHost(const DriverOptions &options, ModuleOp original, ModuleOp fused,
                ModuleOp compiled) {
  func::FuncOp model = *original.getOps<func::FuncOp>().begin();
  func::FuncOp kernels = *compiled.getOps<func::FuncOp>().begin();
  // The inputs --check gives the GPU: the same seed, weights at their
  // models' scale; with --devices the global tensors, cut along the
  // arguments' fuse.shard axes.
  std::vector<PlanBuffer> specs;
  for (auto [type, range] :
       llvm::zip(model.getArgumentTypes(), seededInputRanges(model))) {
    auto tensor = cast<RankedTensorType>(type);
    std::optional<DType> dtype = toDType(tensor.getElementType());
    if (!dtype) {
      llvm::errs() << "opt-fuse: error: --check-on-host: an argument of type "
                   << type << " has no host buffer\n";
      return ExitUnsupported;
    }
    PlanBuffer spec;
    spec.dtype = *dtype;
    spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    spec.role = BufferRole::Input;
    spec.seedRange = range;
    specs.push_back(std::move(spec));
  }
  std::vector<std::vector<HostBuffer>> inputs;
  if (options.devices) {
    if (failed(checkCollectivesSpan(model, options.devices)))
      return ExitUsage;
    const std::vector<int64_t> axes = shardAxes(model);
    inputs = shardInputs(
        generateInputs(globalInputSpecs(specs, axes, options.devices),
                       options.seed),
        axes, options.devices);
  } else {
    // One device: its collectives must span one (NCCL would copy).
    ScopedDiagnosticHandler quiet(model.getContext(),
                                  [](Diagnostic &) { return success(); });
    if (failed(checkCollectivesSpan(model, 1))) {
      llvm::errs() << "opt-fuse: error: --check-on-host: the collectives "
                      "span several devices: add --devices=N\n";
      return ExitUnsupported;
    }
    inputs.push_back(generateInputs(specs, options.seed));
    if (int code = loadNamedInputs(options, model, inputs.front());
        code != ExitSuccess)
      return code;
  }

  HostRunError error;
  FailureOr<std::vector<std::vector<HostBuffer>>> outputs =
      runOnHost(kernels, inputs, error);
  if (failed(outputs)) {
    if (error.unsupported) {
      llvm::errs() << "opt-fuse: error: --check-on-host: " << error.message
                   << ", which the host interpreter does not run\n";
      return ExitUnsupported;
    }
    if (StringRef(error.message).starts_with("internal error")) {
      llvm::errs() << "opt-fuse: error: " << error.message
                   << " (a compiler bug: please report it)\n";
      return ExitInternalError;
    }
    llvm::outs() << "check on host: FAIL: " << error.message << "\n";
    return ExitCheckFailed;
  }
  if (!options.devices)
    if (int code = saveNamedOutputs(options, model, outputs->front());
        code != ExitSuccess)
      return code;
  func::FuncOp fusedFunc = *fused.getOps<func::FuncOp>().begin();
  std::vector<std::vector<OutputCheck>> checks;
  if (options.devices) {
    std::vector<const std::vector<HostBuffer> *> deviceOutputs;
    for (const std::vector<HostBuffer> &o : *outputs)
      deviceOutputs.push_back(&o);
    std::optional<std::vector<std::vector<OutputCheck>>> all =
        checkDevices(options, model, fusedFunc, inputs, deviceOutputs);
    if (!all)
      return ExitCheckFailed;
    checks = std::move(*all);
  } else {
    ReferenceRun run;
    std::optional<std::vector<OutputCheck>> one = checkOutputs(
        model, fusedFunc, inputs.front(), outputs->front(),
        /*tf32=*/false, options.compile.emitter.strictNumerics(), run);
    if (!one)
      return ExitCheckFailed;
    checks.push_back(std::move(*one));
  }
  bool pass = true;
  for (auto [device, deviceChecks] : llvm::enumerate(checks)) {
    if (options.devices)
      llvm::outs() << "== device " << device << " ==\n";
    printOutputChecks(llvm::outs(), deviceChecks);
    pass &=
        llvm::all_of(deviceChecks, [](const OutputCheck &c) { return c.pass; });
  }
  return pass ? ExitSuccess : ExitCheckFailed;
}

} // namespace opfuse
