//===- LaunchPlan.cpp - Launch plans and their JSON form ------------------===//
//
// The names of a plan's enumerations and the writer of format version 3;
// LaunchPlanParser.cpp reads every version and LaunchPlanChecks.cpp says
// what cannot run.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/LaunchPlan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/JSON.h"

namespace json = llvm::json;

namespace opfuse {

llvm::StringRef dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::I1:
    return "i1";
  }
  llvm_unreachable("unknown dtype");
}

std::optional<DType> parseDType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("f32", DType::F32)
      .Case("f16", DType::F16)
      .Case("bf16", DType::BF16)
      .Case("i32", DType::I32)
      .Case("i64", DType::I64)
      .Case("i1", DType::I1)
      .Default(std::nullopt);
}

int64_t dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I64:
    return 8;
  case DType::I1:
    return 1;
  }
  llvm_unreachable("unknown dtype");
}

llvm::StringRef roleName(BufferRole role) {
  switch (role) {
  case BufferRole::Input:
    return "input";
  case BufferRole::Output:
    return "output";
  case BufferRole::Intermediate:
    return "intermediate";
  case BufferRole::Constant:
    return "constant";
  }
  llvm_unreachable("unknown role");
}

int64_t PlanBuffer::elements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

llvm::StringRef collectiveName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  }
  llvm_unreachable("unknown collective");
}

void appendKernelStep(LaunchPlan &plan, PlanKernel kernel) {
  plan.steps.push_back({StepKind::Kernel, plan.kernels.size()});
  plan.kernels.push_back(std::move(kernel));
}

namespace {

json::Object bufferJson(const PlanBuffer &buffer) {
  json::Object object{
      {"id", buffer.id},
      {"name", buffer.name},
      {"dtype", dtypeName(buffer.dtype)},
      {"shape", json::Array(buffer.shape)},
      {"bytes", buffer.bytes()},
      {"role", roleName(buffer.role)},
  };
  if (buffer.role == BufferRole::Constant)
    object["data"] = llvm::encodeBase64(buffer.data);
  if (buffer.offset >= 0)
    object["offset"] = buffer.offset;
  if (buffer.role == BufferRole::Input && buffer.seedRange != 2.0)
    object["seed_range"] = buffer.seedRange;
  return object;
}

json::Object kernelJson(const PlanKernel &kernel) {
  json::Object object{
      {"kind", "kernel"},
      {"name", kernel.name},
      {"grid", json::Array(kernel.grid)},
      {"block", json::Array(kernel.block)},
      {"args", json::Array(kernel.args)},
      {"num_inputs", kernel.numInputs},
      {"bytes", kernel.bytes},
      {"flops", kernel.flops},
      {"num_ops", kernel.numOps},
  };
  if (!kernel.entry.empty() && kernel.entry != kernel.name)
    object["entry"] = kernel.entry;
  if (kernel.predictedUs > 0)
    object["predicted_us"] = kernel.predictedUs;
  if (kernel.sharedBytes > 0)
    object["shared_bytes"] = kernel.sharedBytes;
  if (!kernel.tiling.empty())
    object["tiling"] = kernel.tiling;
  if (!kernel.schedule.empty())
    object["schedule"] = kernel.schedule;
  if (kernel.splitK > 1)
    object["split_k"] = json::Object{{"splits", kernel.splitK},
                                     {"workspace_bytes", kernel.workspaceBytes},
                                     {"counters", kernel.splitCounters}};
  if (kernel.earlyLaunch)
    object["early_launch"] = true;
  if (!kernel.tensorMaps.empty()) {
    json::Array maps;
    for (const PlanTensorMap &map : kernel.tensorMaps) {
      json::Object object{{"buffer", map.buffer},
                          {"dims", json::Array(map.dims)},
                          {"strides", json::Array(map.strides)},
                          {"box", json::Array(map.box)}};
      if (map.offset != 0)
        object["offset"] = map.offset;
      maps.push_back(std::move(object));
    }
    object["tensor_maps"] = std::move(maps);
  }
  return object;
}

json::Object stepJson(const LaunchPlan &plan, const PlanStep &step) {
  switch (step.kind) {
  case StepKind::Kernel:
    return kernelJson(plan.kernels[step.index]);
  case StepKind::Copy: {
    const PlanCopy &copy = plan.copies[step.index];
    return json::Object{{"kind", "copy"}, {"src", copy.src}, {"dst", copy.dst}};
  }
  case StepKind::Memset: {
    const PlanMemset &memset = plan.memsets[step.index];
    return json::Object{
        {"kind", "memset"}, {"buffer", memset.buffer}, {"value", memset.value}};
  }
  case StepKind::Collective: {
    const PlanCollective &collective = plan.collectives[step.index];
    json::Object object{{"kind", collectiveName(collective.kind)},
                        {"reduce", collective.reduce},
                        {"input", collective.input},
                        {"output", collective.output},
                        {"devices", collective.devices}};
    if (collective.overlapSms > 0)
      object["overlap_sms"] = collective.overlapSms;
    return object;
  }
  }
  llvm_unreachable("unknown step kind");
}

} // namespace

void writePlanJson(const LaunchPlan &plan, llvm::raw_ostream &os) {
  json::Array buffers, steps;
  for (const PlanBuffer &buffer : plan.buffers)
    buffers.push_back(bufferJson(buffer));
  for (const PlanStep &step : plan.steps)
    steps.push_back(stepJson(plan, step));
  json::Object root{
      {"format", "opfuse-launch-plan"},
      {"version", LaunchPlan::kFormatVersion},
      {"function", plan.function},
      {"arena", json::Object{{"bytes", plan.arena.bytes},
                             {"lower_bound", plan.arena.lowerBound},
                             {"naive", plan.arena.naiveBytes},
                             {"in_place", plan.arena.inPlace}}},
      {"buffers", std::move(buffers)},
      {"steps", std::move(steps)},
      {"inputs", json::Array(plan.inputs)},
      {"outputs", json::Array(plan.outputs)},
  };
  if (!plan.inputNames.empty())
    root["input_names"] = json::Array(plan.inputNames);
  if (!plan.outputNames.empty())
    root["output_names"] = json::Array(plan.outputNames);
  if (llvm::any_of(plan.inputShards, [](int64_t axis) { return axis >= 0; }))
    root["input_shards"] = json::Array(plan.inputShards);
  os << llvm::formatv("{0:2}", json::Value(std::move(root))) << "\n";
}

std::string LaunchPlan::inputName(size_t i) const {
  return i < inputNames.size() ? inputNames[i] : "arg" + std::to_string(i);
}

std::string LaunchPlan::outputName(size_t i) const {
  return i < outputNames.size() ? outputNames[i] : "result" + std::to_string(i);
}

int64_t LaunchPlan::inputShard(size_t i) const {
  return i < inputShards.size() ? inputShards[i] : -1;
}

int LaunchPlan::devicesSpanned() const {
  int devices = 1;
  for (const PlanCollective &collective : collectives)
    devices = std::max(devices, collective.devices);
  return devices;
}

std::optional<std::string> checkTensorMap(const PlanTensorMap &map,
                                          const PlanBuffer &buffer) {
  const size_t rank = map.dims.size();
  if (buffer.dtype != DType::F16 && buffer.dtype != DType::BF16)
    return "tensor maps view f16 or bf16 buffers, not " +
           dtypeName(buffer.dtype).str();
  if (rank < 2 || rank > 5 || map.box.size() != rank ||
      map.strides.size() != rank - 1)
    return std::string("needs 2 to 5 dims, as many box sizes and one "
                       "stride fewer");
  const int64_t elementBytes = dtypeBytes(buffer.dtype);
  if (map.offset < 0 || map.offset % 16 != 0)
    return std::string("offset must be a non-negative multiple of 16");
  // The last byte the map can address must lie inside the buffer: a map
  // larger than its buffer would let the copies read past it.
  int64_t last = map.offset + (map.dims[0] - 1) * elementBytes;
  for (size_t d = 0; d < rank; ++d) {
    if (map.dims[d] < 1 || map.dims[d] > (int64_t(1) << 32))
      return "dim " + std::to_string(d) + " must be in [1, 2^32]";
    if (map.box[d] < 1 || map.box[d] > 256)
      return "box size " + std::to_string(d) + " must be in [1, 256]";
    if (d == 0)
      continue;
    const int64_t stride = map.strides[d - 1];
    if (stride <= 0 || stride % 16 != 0 || stride >= (int64_t(1) << 40))
      return "stride " + std::to_string(d - 1) +
             " must be a positive multiple of 16 below 2^40";
    last += (map.dims[d] - 1) * stride;
  }
  // The 128-byte swizzle takes box rows of at most 128 bytes.
  if (map.box[0] * elementBytes > 128)
    return std::string("the innermost box dimension exceeds 128 bytes");
  if (last >= buffer.bytes())
    return "it reaches byte " + std::to_string(last) + " of buffer #" +
           std::to_string(buffer.id) + ", which holds " +
           std::to_string(buffer.bytes());
  return std::nullopt;
}

} // namespace opfuse
