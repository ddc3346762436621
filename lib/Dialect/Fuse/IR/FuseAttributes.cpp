//===- FuseAttributes.cpp - The IR contract between passes ----------------===//
//
// The typed attributes' verifiers and conversions, and the dialect's check
// of every `fuse.*` attribute on an operation: each is verified where it is
// set, so a stage never reads a malformed contract, and an unknown name is
// an error rather than a silently ignored typo.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseAttributes.h"

#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace opfuse;
using namespace opfuse::fuse;

#include "opfuse/Dialect/Fuse/IR/FuseAttrEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "opfuse/Dialect/Fuse/IR/FuseAttributes.cpp.inc"

namespace opfuse::fuse {

void FuseDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "opfuse/Dialect/Fuse/IR/FuseAttributes.cpp.inc"
      >();
}

FuseDialect &getFuseDialect(MLIRContext *context) {
  auto *dialect = context->getOrLoadDialect<FuseDialect>();
  assert(dialect && "the fuse dialect is registered with every opfuse tool");
  return *dialect;
}

//===----------------------------------------------------------------------===//
// Custom parameters
//===----------------------------------------------------------------------===//

FailureOr<llvm::APFloat> parseF64Parameter(AsmParser &parser) {
  double value;
  if (parser.parseFloat(value))
    return failure();
  return llvm::APFloat(value);
}

FailureOr<SmallVector<int64_t>> parseI64ArrayParameter(AsmParser &parser) {
  SmallVector<int64_t> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return parser.parseInteger(values.emplace_back());
      }))
    return failure();
  return values;
}

void printI64ArrayParameter(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

//===----------------------------------------------------------------------===//
// Attribute definitions
//===----------------------------------------------------------------------===//

Attribute MatmulTilingAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string text;
  if (parser.parseLess() || parser.parseString(&text) || parser.parseGreater())
    return {};
  std::string error;
  std::optional<MatmulTiling> tiling = parseMatmulTiling(text, error);
  if (!tiling) {
    parser.emitError(loc) << error;
    return {};
  }
  return get(parser.getContext(), *tiling);
}

void MatmulTilingAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << formatMatmulTiling(getTiling()) << "\">";
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef name,
                   StringRef description, StringRef chip, StringRef source,
                   int64_t smCount, int64_t l2Bytes, int64_t sharedMemoryPerSm,
                   APFloat hbm, APFloat l2, APFloat link, APFloat fp32,
                   APFloat tf32, APFloat fp16, APFloat launch,
                   APFloat memoryEfficiency, APFloat computeEfficiency,
                   APFloat tensorEfficiency, APFloat kernelLatency) {
  if (!chip.starts_with("sm_"))
    return emitError() << "chip '" << chip
                       << "' is not an SM architecture (sm_80, sm_90, ...)";
  if (smCount <= 0 || l2Bytes <= 0 || sharedMemoryPerSm <= 0)
    return emitError() << "sm_count, l2_bytes and shared_memory_per_sm_bytes "
                          "must be positive";
  for (const APFloat &rate :
       {hbm, l2, link, fp32, tf32, fp16, launch, kernelLatency}) {
    double value = rate.convertToDouble();
    if (!(value > 0) || !std::isfinite(value))
      return emitError() << "bandwidths, throughputs, the launch overhead and "
                            "the kernel latency must be positive and finite";
  }
  for (const APFloat &fraction :
       {memoryEfficiency, computeEfficiency, tensorEfficiency}) {
    double value = fraction.convertToDouble();
    if (!(value > 0 && value <= 1))
      return emitError() << "efficiencies must be in (0, 1]";
  }
  return success();
}

GpuTarget TargetAttr::getTarget() const {
  GpuTarget t;
  t.name = getName().str();
  t.description = getDescription().str();
  t.chip = getChip().str();
  t.source = getSource().str();
  t.smCount = getSmCount();
  t.l2Bytes = getL2Bytes();
  t.sharedMemoryPerSm = getSharedMemoryPerSmBytes();
  t.hbmBandwidth = getHbmBandwidth().convertToDouble();
  t.l2Bandwidth = getL2Bandwidth().convertToDouble();
  t.linkBandwidth = getLinkBandwidth().convertToDouble();
  t.fp32Flops = getFp32Flops().convertToDouble();
  t.tf32TensorFlops = getTf32TensorFlops().convertToDouble();
  t.fp16TensorFlops = getFp16TensorFlops().convertToDouble();
  t.launchOverhead = getLaunchOverhead().convertToDouble();
  t.memoryEfficiency = getMemoryEfficiency().convertToDouble();
  t.computeEfficiency = getComputeEfficiency().convertToDouble();
  t.tensorEfficiency = getTensorEfficiency().convertToDouble();
  t.kernelLatency = getKernelLatency().convertToDouble();
  return t;
}

TargetAttr TargetAttr::get(MLIRContext *context, const GpuTarget &t) {
  auto f = [](double value) { return APFloat(value); };
  return get(context, t.name, t.description, t.chip, t.source, t.smCount,
             t.l2Bytes, t.sharedMemoryPerSm, f(t.hbmBandwidth),
             f(t.l2Bandwidth), f(t.linkBandwidth), f(t.fp32Flops),
             f(t.tf32TensorFlops), f(t.fp16TensorFlops), f(t.launchOverhead),
             f(t.memoryEfficiency), f(t.computeEfficiency),
             f(t.tensorEfficiency), f(t.kernelLatency));
}

LogicalResult
GemmScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         GemmScheduleKind kind, GemmOperandFeed feed) {
  const bool warpgroups = kind >= GemmScheduleKind::wgmma;
  if (!warpgroups && feed == GemmOperandFeed::tma)
    return emitError() << "the " << stringifyGemmScheduleKind(kind)
                       << " schedule copies its operands with cp_async";
  if ((kind == GemmScheduleKind::warp_specialized ||
       kind == GemmScheduleKind::ping_pong) &&
      feed != GemmOperandFeed::tma)
    return emitError() << "the " << stringifyGemmScheduleKind(kind)
                       << " schedule's producer warpgroup copies with tma";
  return success();
}

bool GemmScheduleAttr::isPersistent() const {
  return getKind() >= GemmScheduleKind::cooperative;
}

StringRef GemmScheduleAttr::getPlanName() const {
  switch (getKind()) {
  case GemmScheduleKind::cooperative:
    return "cooperative";
  case GemmScheduleKind::warp_specialized:
    return "warp-specialized";
  case GemmScheduleKind::ping_pong:
    return "ping-pong";
  default:
    return "";
  }
}

LogicalResult
TensorMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t input, ArrayRef<int64_t> dims,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> box,
                      int64_t offset) {
  if (input < 0)
    return emitError() << "input must be a kernel input's index";
  if (dims.size() < 2 || dims.size() > 5 || box.size() != dims.size() ||
      strides.size() + 1 != dims.size())
    return emitError() << "a tensor map has 2 to 5 dims, as many box sizes "
                          "and one stride fewer";
  if (llvm::any_of(dims, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(box, [](int64_t b) { return b < 1 || b > 256; }) ||
      llvm::any_of(strides, [](int64_t s) { return s <= 0 || s % 16; }))
    return emitError() << "dims must be positive, box sizes in [1, 256] and "
                          "strides positive multiples of 16 bytes";
  if (offset < 0 || offset % 16)
    return emitError() << "offset must be a non-negative multiple of 16 "
                          "bytes (the map's start must be 16-byte aligned)";
  return success();
}

LogicalResult
MemoryPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t arena, int64_t lowerBound, int64_t naive,
                       int64_t inPlace, int64_t inputs, int64_t constants,
                       int64_t outputs, bool planOutputs, StringRef order,
                       StringRef placement) {
  if (arena < 0 || lowerBound < 0 || naive < 0 || inPlace < 0 || inputs < 0 ||
      constants < 0 || outputs < 0)
    return emitError() << "byte counts must not be negative";
  if (arena % 256)
    return emitError() << "the arena's bytes must be a multiple of 256";
  return success();
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

SmallVector<TensorMapAttr> getTensorMaps(Operation *op) {
  SmallVector<TensorMapAttr> maps;
  if (ArrayAttr list = getFuseDialect(op->getContext())
                           .getTensorMapsAttrHelper()
                           .getAttr(op))
    for (Attribute map : list)
      maps.push_back(cast<TensorMapAttr>(map));
  return maps;
}

GpuTarget getTarget(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  if (module)
    if (TargetAttr target = getFuseDialect(op->getContext())
                                .getTargetAttrHelper()
                                .getAttr(module))
      return target.getTarget();
  return *findBuiltinTarget("h200");
}

int64_t getOverlapSms(Operation *kernelOp) {
  auto helper =
      getFuseDialect(kernelOp->getContext()).getOverlapSmsAttrHelper();
  if (IntegerAttr own = helper.getAttr(kernelOp))
    return own.getInt();
  if (auto group = dyn_cast<GroupOp>(kernelOp))
    for (Operation &inner : group.getBody().front())
      if (IntegerAttr sms = helper.getAttr(&inner);
          sms && isGemmContraction(&inner))
        return sms.getInt();
  return 0;
}

GpuTarget withSmsSetAside(GpuTarget target, int64_t sms) {
  if (sms <= 0 || sms >= target.smCount)
    return target;
  const double share = double(target.smCount - sms) / target.smCount;
  target.smCount -= sms;
  target.fp32Flops *= share;
  target.tf32TensorFlops *= share;
  target.fp16TensorFlops *= share;
  target.l2Bandwidth *= share;
  target.hbmBandwidth *= share;
  return target;
}

} // namespace opfuse::fuse

//===----------------------------------------------------------------------===//
// Verification of the discardable attributes
//===----------------------------------------------------------------------===//

namespace {

/// CUDA's limits on a launch.
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxBlockThreads = 1024;

LogicalResult verifyLaunchDims(Operation *op, StringAttr name,
                               DenseI64ArrayAttr dims, bool grid) {
  if (dims.size() != 3)
    return op->emitError() << "'" << name.getValue()
                           << "' must hold 3 sizes (x, y, z)";
  ArrayRef<int64_t> d = dims.asArrayRef();
  if (llvm::any_of(d, [](int64_t v) { return v < 1; }))
    return op->emitError() << "'" << name.getValue()
                           << "' sizes must be positive";
  if (grid && (d[0] > kMaxGridX || d[1] > kMaxGridYZ || d[2] > kMaxGridYZ))
    return op->emitError() << "'" << name.getValue()
                           << "' exceeds CUDA's grid of 2^31-1 x 65535 x "
                              "65535 blocks";
  if (!grid && (d[0] > kMaxBlockThreads || d[1] > kMaxBlockThreads ||
                d[2] > 64 || d[0] * d[1] * d[2] > kMaxBlockThreads))
    return op->emitError() << "'" << name.getValue()
                           << "' exceeds CUDA's block of 1024 threads "
                              "(x, y <= 1024, z <= 64)";
  return success();
}

template <typename AttrT>
FailureOr<AttrT> typedAttr(Operation *op, NamedAttribute attribute,
                           StringRef what) {
  auto typed = dyn_cast<AttrT>(attribute.getValue());
  if (!typed) {
    op->emitError() << "'" << attribute.getName().getValue() << "' must be "
                    << what;
    return failure();
  }
  return typed;
}

} // namespace

LogicalResult FuseDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringAttr name = attribute.getName();
  auto onlyOn = [&](bool allowed, StringRef where) -> LogicalResult {
    if (allowed)
      return success();
    return op->emitError() << "'" << name.getValue() << "' belongs on "
                           << where;
  };
  if (name == getTargetAttrHelper().getName()) {
    if (failed(typedAttr<TargetAttr>(op, attribute, "a #fuse.target")))
      return failure();
    return onlyOn(isa<ModuleOp>(op), "a module");
  }
  if (name == getMemoryAttrHelper().getName()) {
    if (failed(typedAttr<MemoryPlanAttr>(op, attribute, "a #fuse.memory_plan")))
      return failure();
    return onlyOn(isa<FunctionOpInterface>(op), "a function");
  }
  if (name == getOffsetsAttrHelper().getName()) {
    FailureOr<DenseI64ArrayAttr> offsets = typedAttr<DenseI64ArrayAttr>(
        op, attribute, "an array<i64> of arena offsets");
    if (failed(offsets))
      return failure();
    if (offsets->size() != static_cast<int64_t>(op->getNumResults()))
      return op->emitError()
             << "'" << name.getValue() << "' has " << offsets->size()
             << " offsets for " << op->getNumResults() << " results";
    for (int64_t offset : offsets->asArrayRef())
      if (offset < -1 || (offset >= 0 && offset % 256))
        return op->emitError()
               << "'" << name.getValue() << "' offset " << offset
               << " is neither -1 (outside the arena) nor a multiple of 256";
    return success();
  }
  if (name == getMatmulTilingAttrHelper().getName()) {
    if (failed(typedAttr<MatmulTilingAttr>(
            op, attribute,
            "a #fuse.tiling, e.g. #fuse.tiling<\"" +
                formatMatmulTiling(MatmulTiling()) + "\">")))
      return failure();
    return onlyOn(isa<GroupOp>(op) || isGemmContraction(op),
                  "a fuse.group or a contraction (matmul, conv2d)");
  }
  if (name == getKernelAttrHelper().getName()) {
    FailureOr<SymbolRefAttr> symbol =
        typedAttr<SymbolRefAttr>(op, attribute, "a kernel's symbol");
    if (failed(symbol))
      return failure();
    if (symbol->getNestedReferences().size() != 1)
      return op->emitError()
             << "'" << name.getValue() << "' must be @module::@kernel";
    return onlyOn(isa<GroupOp>(op), "a fuse.group");
  }
  if (name == getGridAttrHelper().getName() ||
      name == getBlockAttrHelper().getName()) {
    FailureOr<DenseI64ArrayAttr> dims =
        typedAttr<DenseI64ArrayAttr>(op, attribute, "an array<i64> of 3");
    if (failed(dims) ||
        failed(verifyLaunchDims(op, name, *dims,
                                name == getGridAttrHelper().getName())))
      return failure();
    return onlyOn(isa<GroupOp>(op), "a fuse.group");
  }
  if (name == getSharedBytesAttrHelper().getName()) {
    FailureOr<IntegerAttr> bytes =
        typedAttr<IntegerAttr>(op, attribute, "an integer");
    if (failed(bytes))
      return failure();
    if (bytes->getInt() < 0 || bytes->getInt() > kMaxSharedBytesPerBlock)
      return op->emitError() << "'" << name.getValue() << "' must be in [0, "
                             << kMaxSharedBytesPerBlock << "]";
    return onlyOn(isa<GroupOp>(op), "a fuse.group");
  }
  if (name == getStepNameAttrHelper().getName()) {
    FailureOr<StringAttr> step =
        typedAttr<StringAttr>(op, attribute, "a launch step's name");
    if (failed(step))
      return failure();
    if (step->getValue().empty())
      return op->emitError() << "'" << name.getValue() << "' is empty";
    return onlyOn(isa<GroupOp>(op), "a fuse.group");
  }
  if (name == getGemmScheduleAttrHelper().getName()) {
    if (failed(typedAttr<GemmScheduleAttr>(op, attribute,
                                           "a #fuse.gemm_schedule")))
      return failure();
    return onlyOn(isa<GroupOp>(op), "a fuse.group");
  }
  if (name == getTensorMapsAttrHelper().getName()) {
    FailureOr<ArrayAttr> maps =
        typedAttr<ArrayAttr>(op, attribute, "an array of #fuse.tensor_map");
    if (failed(maps) || failed(onlyOn(isa<GroupOp>(op), "a fuse.group")))
      return failure();
    for (Attribute entry : *maps) {
      auto map = dyn_cast<TensorMapAttr>(entry);
      if (!map)
        return op->emitError() << "'" << name.getValue()
                               << "' must be an array of #fuse.tensor_map";
      if (map.getInput() >= static_cast<int64_t>(op->getNumOperands()))
        return op->emitError()
               << "'" << name.getValue() << "' views input " << map.getInput()
               << " of a kernel with " << op->getNumOperands() << " inputs";
    }
    return success();
  }
  if (name == getSplitWorkspaceAttrHelper().getName()) {
    FailureOr<DenseI64ArrayAttr> split = typedAttr<DenseI64ArrayAttr>(
        op, attribute, "an array<i64> of splits, counters and bytes");
    if (failed(split))
      return failure();
    // The runtime's bounds (LaunchPlanChecks.cpp): every block stores at
    // least one f32.
    if (split->size() != 3 || (*split)[0] < 2 || (*split)[0] > 256 ||
        (*split)[1] < 1 || (*split)[2] < 4 * (*split)[0] * (*split)[1])
      return op->emitError()
             << "'" << name.getValue()
             << "' must be [splits (2 to 256), counters (1 or more), "
                "workspace bytes (at least 4 per split and counter)]";
    return onlyOn(isa<GroupOp>(op), "a fuse.group");
  }
  const bool contract = name == getContractAttrHelper().getName();
  if (contract || name == getEarlyLaunchAttrHelper().getName()) {
    if (failed(typedAttr<UnitAttr>(op, attribute, "a unit attribute")))
      return failure();
    return contract ? onlyOn(isa<AddOp>(op), "a fuse.add")
                    : onlyOn(isa<GroupOp>(op), "a fuse.group");
  }
  if (name == getOverlapSmsAttrHelper().getName()) {
    FailureOr<IntegerAttr> sms =
        typedAttr<IntegerAttr>(op, attribute, "an i64 count of SMs");
    if (failed(sms))
      return failure();
    if (!sms->getType().isInteger(64) || sms->getInt() < 1 ||
        sms->getInt() > kMaxOverlapSms)
      return op->emitError()
             << "'" << name.getValue() << "' must be an i64 in [1, "
             << kMaxOverlapSms << "]";
    return onlyOn(isCollective(op) || isGemmContraction(op) || isa<GroupOp>(op),
                  "a collective, a GEMM contraction or a fuse.group");
  }
  if (name == getShardAttrHelper().getName())
    return op->emitError() << "'" << name.getValue()
                           << "' belongs on a function argument";
  return op->emitError() << "unknown attribute '" << name.getValue()
                         << "' of the fuse dialect";
}

LogicalResult FuseDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  StringAttr name = attribute.getName();
  if (name == getNameAttrHelper().getName()) {
    if (!isa<StringAttr>(attribute.getValue()))
      return op->emitError() << "'" << name.getValue() << "' of argument "
                             << argIndex << " must be a string";
    return success();
  }
  if (name != getShardAttrHelper().getName())
    return op->emitError() << "unknown argument attribute '" << name.getValue()
                           << "' of the fuse dialect";
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || regionIndex != 0)
    return op->emitError() << "'" << name.getValue()
                           << "' belongs on a function argument";
  auto axis = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!axis || !axis.getType().isInteger(64))
    return op->emitError() << "'" << name.getValue() << "' of argument "
                           << argIndex
                           << " must be an i64 axis, e.g. {fuse.shard = 1}";
  auto tensor =
      dyn_cast<RankedTensorType>(function.getArgumentTypes()[argIndex]);
  if (!tensor || axis.getInt() < 0 || axis.getInt() >= tensor.getRank())
    return op->emitError() << "'" << name.getValue() << "' of argument "
                           << argIndex << " is axis " << axis.getInt()
                           << ", not an axis of its type "
                           << function.getArgumentTypes()[argIndex];
  return success();
}
