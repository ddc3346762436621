//===- LaunchPlanParser.cpp - Launch plans from JSON ----------------------===//
//
// Reads format versions 1 to 3 (1 and 2 list kernels only; 3 lists steps)
// and refuses, naming the field, anything the runtime could not run as
// written: the runtime trusts a parsed plan.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/LaunchPlan.h"

#include <tuple>

#include "opfuse/Support/NestingDepth.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Base64.h"

#include <cmath>

#include "llvm/Support/JSON.h"

namespace json = llvm::json;

namespace opfuse {
namespace {

llvm::Error planError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "invalid launch plan: " + message);
}

template <typename T>
bool readArray(const json::Object &object, llvm::StringRef key,
               std::vector<T> &out) {
  const json::Array *array = object.getArray(key);
  if (!array)
    return false;
  for (const json::Value &value : *array) {
    std::optional<int64_t> number = value.getAsInteger();
    if (!number)
      return false;
    out.push_back(static_cast<T>(*number));
  }
  return true;
}

std::optional<BufferRole> parseRole(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<BufferRole>>(name)
      .Case("input", BufferRole::Input)
      .Case("output", BufferRole::Output)
      .Case("intermediate", BufferRole::Intermediate)
      .Case("constant", BufferRole::Constant)
      .Default(std::nullopt);
}

llvm::Expected<PlanBuffer> parseBuffer(const json::Value &value,
                                       size_t position) {
  const json::Object *object = value.getAsObject();
  const std::string where = ("buffer #" + llvm::Twine(position)).str();
  PlanBuffer buffer;
  std::optional<int64_t> id = object ? object->getInteger("id") : std::nullopt;
  std::optional<llvm::StringRef> dtype =
      object ? object->getString("dtype") : std::nullopt;
  std::optional<llvm::StringRef> role =
      object ? object->getString("role") : std::nullopt;
  if (!id || *id != static_cast<int64_t>(position) || !dtype ||
      !parseDType(*dtype) || !role ||
      !readArray(*object, "shape", buffer.shape))
    return planError(where + " needs id (its position), dtype, shape and role");
  buffer.id = *id;
  buffer.dtype = *parseDType(*dtype);
  std::optional<BufferRole> parsedRole = parseRole(*role);
  if (!parsedRole)
    return planError(where + " has \"role\": \"" + *role +
                     "\"; expected input, output, intermediate or constant");
  buffer.role = *parsedRole;
  // The element count stays far from overflowing 64 bits in bytes.
  int64_t elements = 1;
  for (int64_t dim : buffer.shape) {
    if (dim < 0)
      return planError(where + " has a negative dimension in \"shape\"");
    if (dim > 0 && elements > (int64_t(1) << 48) / dim)
      return planError(where + " has more than 2^48 elements in \"shape\"");
    elements *= dim;
  }
  if (buffer.role == BufferRole::Constant) {
    std::optional<llvm::StringRef> data = object->getString("data");
    std::vector<char> decoded;
    if (!data || llvm::decodeBase64(*data, decoded) ||
        static_cast<int64_t>(decoded.size()) != buffer.bytes())
      return planError("constant " + where + " needs \"data\": base64 of its " +
                       llvm::Twine(buffer.bytes()) + " bytes");
    buffer.data.assign(decoded.begin(), decoded.end());
  }
  if (auto name = object->getString("name"))
    buffer.name = name->str();
  if (const json::Value *offset = object->get("offset")) {
    std::optional<int64_t> number = offset->getAsInteger();
    if (!number || *number < 0)
      return planError(where + " has a negative or non-integer \"offset\"");
    buffer.offset = *number;
  }
  if (const json::Value *range = object->get("seed_range")) {
    std::optional<double> number = range->getAsNumber();
    if (buffer.role != BufferRole::Input)
      return planError(where + " has \"seed_range\" but is not an input");
    if (!number || !std::isfinite(*number) || *number <= 0)
      return planError(where +
                       " has a \"seed_range\" that is not a positive number");
    buffer.seedRange = *number;
  }
  return buffer;
}

llvm::Expected<PlanKernel> parseKernel(const json::Object &object,
                                       size_t position) {
  PlanKernel kernel;
  std::vector<int64_t> grid, block;
  std::optional<llvm::StringRef> name = object.getString("name");
  if (!name || !readArray(object, "grid", grid) ||
      !readArray(object, "block", block) ||
      !readArray(object, "args", kernel.args) || grid.size() != 3 ||
      block.size() != 3)
    return planError("kernel #" + llvm::Twine(position) +
                     " needs name, grid[3], block[3] and args");
  kernel.name = name->str();
  if (const json::Value *entry = object.get("entry")) {
    std::optional<llvm::StringRef> function = entry->getAsString();
    if (!function || function->empty())
      return planError("kernel '" + kernel.name +
                       "': entry must be the name of a PTX function");
    kernel.entry = function->str();
  }
  std::copy(grid.begin(), grid.end(), kernel.grid.begin());
  std::copy(block.begin(), block.end(), kernel.block.begin());
  kernel.numInputs = object.getInteger("num_inputs").value_or(0);
  kernel.bytes = object.getInteger("bytes").value_or(0);
  kernel.flops = object.getInteger("flops").value_or(0);
  kernel.numOps = object.getInteger("num_ops").value_or(0);
  kernel.predictedUs = object.getNumber("predicted_us").value_or(0);
  kernel.sharedBytes = object.getInteger("shared_bytes").value_or(0);
  kernel.tiling = object.getString("tiling").value_or("").str();
  kernel.schedule = object.getString("schedule").value_or("").str();
  if (const json::Value *split = object.get("split_k")) {
    const json::Object *splitObject = split->getAsObject();
    std::optional<int64_t> splits, bytes, counters;
    if (splitObject) {
      splits = splitObject->getInteger("splits");
      bytes = splitObject->getInteger("workspace_bytes");
      counters = splitObject->getInteger("counters");
    }
    if (!splits || !bytes || !counters)
      return planError("kernel '" + kernel.name +
                       "': split_k needs integer splits, workspace_bytes and "
                       "counters");
    if (*splits < 2)
      return planError("kernel '" + kernel.name +
                       "': split_k needs at least 2 splits (a kernel of "
                       "whole K has no split_k)");
    kernel.splitK = *splits;
    kernel.workspaceBytes = *bytes;
    kernel.splitCounters = *counters;
  }
  if (const json::Value *early = object.get("early_launch")) {
    std::optional<bool> value = early->getAsBoolean();
    if (!value)
      return planError("kernel '" + kernel.name +
                       "': early_launch must be true or false");
    kernel.earlyLaunch = *value;
  }
  if (const json::Array *maps = object.getArray("tensor_maps")) {
    for (const json::Value &mapValue : *maps) {
      const json::Object *mapObject = mapValue.getAsObject();
      PlanTensorMap map;
      std::optional<int64_t> buffer =
          mapObject ? mapObject->getInteger("buffer") : std::nullopt;
      if (!buffer || !readArray(*mapObject, "dims", map.dims) ||
          !readArray(*mapObject, "strides", map.strides) ||
          !readArray(*mapObject, "box", map.box))
        return planError("tensor map #" +
                         llvm::Twine(kernel.tensorMaps.size()) +
                         " of kernel '" + kernel.name +
                         "' needs buffer, dims, strides and box");
      map.buffer = *buffer;
      if (const json::Value *offset = mapObject->get("offset")) {
        std::optional<int64_t> bytes = offset->getAsInteger();
        if (!bytes)
          return planError("tensor map #" +
                           llvm::Twine(kernel.tensorMaps.size()) +
                           " of kernel '" + kernel.name +
                           "' has an \"offset\" that is not an integer");
        map.offset = *bytes;
      }
      kernel.tensorMaps.push_back(std::move(map));
    }
  }
  return kernel;
}

std::optional<CollectiveKind> parseCollective(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CollectiveKind>>(name)
      .Case("all_reduce", CollectiveKind::AllReduce)
      .Case("all_gather", CollectiveKind::AllGather)
      .Case("reduce_scatter", CollectiveKind::ReduceScatter)
      .Default(std::nullopt);
}

/// Appends the step `value` (format version 3) to `plan`.
llvm::Error parseStep(const json::Value &value, LaunchPlan &plan) {
  const size_t position = plan.steps.size();
  const std::string where = ("step #" + llvm::Twine(position)).str();
  const json::Object *object = value.getAsObject();
  std::optional<llvm::StringRef> kind =
      object ? object->getString("kind") : std::nullopt;
  if (!kind)
    return planError(where + " needs \"kind\"");
  auto integer = [&](llvm::StringRef key, int &out) {
    std::optional<int64_t> number = object->getInteger(key);
    if (number)
      out = *number;
    return number.has_value();
  };
  if (*kind == "kernel") {
    llvm::Expected<PlanKernel> kernel =
        parseKernel(*object, plan.kernels.size());
    if (!kernel)
      return kernel.takeError();
    appendKernelStep(plan, std::move(*kernel));
    return llvm::Error::success();
  }
  if (*kind == "copy") {
    PlanCopy copy;
    if (!integer("src", copy.src) || !integer("dst", copy.dst))
      return planError(where + " (copy) needs \"src\" and \"dst\"");
    plan.steps.push_back({StepKind::Copy, plan.copies.size()});
    plan.copies.push_back(copy);
    return llvm::Error::success();
  }
  if (*kind == "memset") {
    PlanMemset memset;
    if (!integer("buffer", memset.buffer) || !integer("value", memset.value))
      return planError(where + " (memset) needs \"buffer\" and \"value\"");
    plan.steps.push_back({StepKind::Memset, plan.memsets.size()});
    plan.memsets.push_back(memset);
    return llvm::Error::success();
  }
  if (std::optional<CollectiveKind> collectiveKind = parseCollective(*kind)) {
    PlanCollective collective;
    collective.kind = *collectiveKind;
    collective.reduce = object->getString("reduce").value_or("sum").str();
    if (!integer("input", collective.input) ||
        !integer("output", collective.output) ||
        !integer("devices", collective.devices))
      return planError(where + " (" + *kind +
                       ") needs \"input\", \"output\" and \"devices\"");
    if (object->get("overlap_sms") &&
        !integer("overlap_sms", collective.overlapSms))
      return planError(where + " (" + *kind +
                       "): \"overlap_sms\" must be an integer");
    plan.steps.push_back({StepKind::Collective, plan.collectives.size()});
    plan.collectives.push_back(std::move(collective));
    return llvm::Error::success();
  }
  return planError(where + " has unknown \"kind\": \"" + *kind +
                   "\" (expected kernel, copy, memset, all_reduce, "
                   "all_gather or reduce_scatter)");
}

llvm::Error parseArena(const json::Object &root, LaunchPlan &plan) {
  const json::Object *arena = root.getObject("arena");
  if (!arena)
    return llvm::Error::success();
  plan.arena.bytes = arena->getInteger("bytes").value_or(0);
  plan.arena.lowerBound = arena->getInteger("lower_bound").value_or(0);
  plan.arena.naiveBytes = arena->getInteger("naive").value_or(0);
  plan.arena.inPlace = arena->getInteger("in_place").value_or(0);
  if (plan.arena.bytes < 0 || plan.arena.bytes % 256 != 0)
    return planError("\"arena\".\"bytes\" must be a multiple of 256");
  return llvm::Error::success();
}

} // namespace

/// Checks what parsing alone cannot see (LaunchPlanChecks.cpp).
llvm::Error checkParsedPlan(const LaunchPlan &plan);

llvm::Expected<LaunchPlan> parsePlanJson(llvm::StringRef text) {
  // LLVM's JSON parser recurses per bracket and would overflow the stack.
  if (std::optional<size_t> deep = findExcessiveNesting(text, TextSyntax::Json))
    return planError("brackets nest deeper than " +
                     llvm::Twine(kMaxNestingDepth) + " levels at offset " +
                     llvm::Twine(*deep) + "; no launch plan needs that many");
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return planError(llvm::toString(parsed.takeError()));
  const json::Object *root = parsed->getAsObject();
  if (!root || root->getString("format") != "opfuse-launch-plan")
    return planError("not an opfuse launch plan (no \"format\": "
                     "\"opfuse-launch-plan\")");
  LaunchPlan plan;
  std::optional<int64_t> version = root->getInteger("version");
  if (!version || *version < 1 || *version > LaunchPlan::kFormatVersion)
    return planError("format version " +
                     (version ? llvm::Twine(*version) : llvm::Twine("?")) +
                     " is not a supported version (1 to " +
                     llvm::Twine(LaunchPlan::kFormatVersion) + ")");
  plan.version = *version;
  if (auto function = root->getString("function"))
    plan.function = function->str();
  if (llvm::Error error = parseArena(*root, plan))
    return std::move(error);
  const json::Array *buffers = root->getArray("buffers");
  // Versions 1 and 2 list kernels; version 3 lists steps.
  const char *stepsKey = plan.version >= 3 ? "steps" : "kernels";
  const json::Array *steps = root->getArray(stepsKey);
  if (!buffers || !steps)
    return planError(llvm::Twine("missing \"buffers\" or \"") + stepsKey +
                     "\"");
  for (const json::Value &value : *buffers) {
    llvm::Expected<PlanBuffer> buffer = parseBuffer(value, plan.buffers.size());
    if (!buffer)
      return buffer.takeError();
    plan.buffers.push_back(std::move(*buffer));
  }
  for (const json::Value &value : *steps) {
    if (plan.version >= 3) {
      if (llvm::Error error = parseStep(value, plan))
        return std::move(error);
      continue;
    }
    const json::Object *object = value.getAsObject();
    if (!object)
      return planError("kernel #" + llvm::Twine(plan.kernels.size()) +
                       " is not an object");
    llvm::Expected<PlanKernel> kernel =
        parseKernel(*object, plan.kernels.size());
    if (!kernel)
      return kernel.takeError();
    appendKernelStep(plan, std::move(*kernel));
  }
  if (!readArray(*root, "inputs", plan.inputs) ||
      !readArray(*root, "outputs", plan.outputs))
    return planError("missing \"inputs\" or \"outputs\"");
  struct NameList {
    const char *key, *what;
    std::vector<std::string> *names;
    size_t count;
  };
  for (NameList list :
       {NameList{"input_names", "input", &plan.inputNames, plan.inputs.size()},
        NameList{"output_names", "output", &plan.outputNames,
                 plan.outputs.size()}}) {
    const json::Value *value = root->get(list.key);
    if (!value)
      continue;
    const json::Array *array = value->getAsArray();
    if (!array || array->size() != list.count)
      return planError(llvm::Twine("\"") + list.key +
                       "\" must hold one name for each " + list.what);
    for (const json::Value &name : *array) {
      std::optional<llvm::StringRef> text = name.getAsString();
      if (!text || text->empty())
        return planError(llvm::Twine("\"") + list.key +
                         "\" must hold non-empty strings");
      list.names->push_back(text->str());
    }
  }
  if (const json::Value *shards = root->get("input_shards")) {
    const json::Array *array = shards->getAsArray();
    if (!array || array->size() != plan.inputs.size())
      return planError("\"input_shards\" must hold one axis (or -1) for each "
                       "input");
    for (const json::Value &axis : *array) {
      std::optional<int64_t> value = axis.getAsInteger();
      if (!value)
        return planError("\"input_shards\" must hold integers");
      plan.inputShards.push_back(*value);
    }
  }
  if (llvm::Error error = checkParsedPlan(plan))
    return std::move(error);
  return plan;
}

} // namespace opfuse
