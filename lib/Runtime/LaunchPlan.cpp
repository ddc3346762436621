//===- LaunchPlan.cpp - Launch plan JSON ----------------------------------===//

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

void writePlanJson(const LaunchPlan &plan, llvm::raw_ostream &os) {
  json::Array buffers, kernels;
  for (const PlanBuffer &buffer : plan.buffers) {
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
    buffers.push_back(std::move(object));
  }
  for (const PlanKernel &kernel : plan.kernels) {
    json::Object object{
        {"name", kernel.name},
        {"grid", json::Array(kernel.grid)},
        {"block", json::Array(kernel.block)},
        {"args", json::Array(kernel.args)},
        {"num_inputs", kernel.numInputs},
        {"bytes", kernel.bytes},
        {"flops", kernel.flops},
        {"num_ops", kernel.numOps},
    };
    if (kernel.predictedUs > 0)
      object["predicted_us"] = kernel.predictedUs;
    if (kernel.sharedBytes > 0)
      object["shared_bytes"] = kernel.sharedBytes;
    if (!kernel.tiling.empty())
      object["tiling"] = kernel.tiling;
    if (!kernel.schedule.empty())
      object["schedule"] = kernel.schedule;
    if (!kernel.tensorMaps.empty()) {
      json::Array maps;
      for (const PlanTensorMap &map : kernel.tensorMaps)
        maps.push_back(json::Object{{"buffer", map.buffer},
                                    {"dims", json::Array(map.dims)},
                                    {"strides", json::Array(map.strides)},
                                    {"box", json::Array(map.box)}});
      object["tensor_maps"] = std::move(maps);
    }
    kernels.push_back(std::move(object));
  }
  json::Object root{
      {"format", "opfuse-launch-plan"},
      {"version", plan.version},
      {"function", plan.function},
      {"arena", json::Object{{"bytes", plan.arena.bytes},
                             {"lower_bound", plan.arena.lowerBound},
                             {"naive", plan.arena.naiveBytes},
                             {"in_place", plan.arena.inPlace}}},
      {"buffers", std::move(buffers)},
      {"kernels", std::move(kernels)},
      {"inputs", json::Array(plan.inputs)},
      {"outputs", json::Array(plan.outputs)},
  };
  os << llvm::formatv("{0:2}", json::Value(std::move(root))) << "\n";
}

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
} // namespace

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
  // The last byte the map can address must lie inside the buffer: a map
  // larger than its buffer would let the copies read past it.
  int64_t last = (map.dims[0] - 1) * elementBytes;
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

llvm::Expected<LaunchPlan> parsePlanJson(llvm::StringRef text) {
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
  if (const json::Object *arena = root->getObject("arena")) {
    plan.arena.bytes = arena->getInteger("bytes").value_or(0);
    plan.arena.lowerBound = arena->getInteger("lower_bound").value_or(0);
    plan.arena.naiveBytes = arena->getInteger("naive").value_or(0);
    plan.arena.inPlace = arena->getInteger("in_place").value_or(0);
    if (plan.arena.bytes < 0 || plan.arena.bytes % 256 != 0)
      return planError("\"arena\".\"bytes\" must be a multiple of 256");
  }
  const json::Array *buffers = root->getArray("buffers");
  const json::Array *kernels = root->getArray("kernels");
  if (!buffers || !kernels)
    return planError("missing \"buffers\" or \"kernels\"");
  for (const json::Value &value : *buffers) {
    const json::Object *object = value.getAsObject();
    PlanBuffer buffer;
    std::optional<int64_t> id = object ? object->getInteger("id") : std::nullopt;
    std::optional<llvm::StringRef> dtype =
        object ? object->getString("dtype") : std::nullopt;
    std::optional<llvm::StringRef> role =
        object ? object->getString("role") : std::nullopt;
    if (!id || *id != static_cast<int64_t>(plan.buffers.size()) || !dtype ||
        !parseDType(*dtype) || !role ||
        !readArray(*object, "shape", buffer.shape))
      return planError("buffer #" + llvm::Twine(plan.buffers.size()) +
                       " needs id (its position), dtype, shape and role");
    buffer.id = *id;
    buffer.dtype = *parseDType(*dtype);
    buffer.role = *role == "input"      ? BufferRole::Input
                  : *role == "output"   ? BufferRole::Output
                  : *role == "constant" ? BufferRole::Constant
                                        : BufferRole::Intermediate;
    if (buffer.role == BufferRole::Constant) {
      std::optional<llvm::StringRef> data = object->getString("data");
      std::vector<char> decoded;
      if (!data || llvm::decodeBase64(*data, decoded) ||
          static_cast<int64_t>(decoded.size()) != buffer.bytes())
        return planError("constant buffer #" + llvm::Twine(*id) +
                         " needs \"data\": base64 of its " +
                         llvm::Twine(buffer.bytes()) + " bytes");
      buffer.data.assign(decoded.begin(), decoded.end());
    }
    if (auto name = object->getString("name"))
      buffer.name = name->str();
    buffer.offset = object->getInteger("offset").value_or(-1);
    plan.buffers.push_back(std::move(buffer));
  }
  for (const PlanBuffer &buffer : plan.buffers) {
    if (buffer.offset < 0)
      continue;
    if (buffer.role == BufferRole::Input || buffer.role == BufferRole::Constant)
      return planError("buffer #" + llvm::Twine(buffer.id) + " is an " +
                       roleName(buffer.role) +
                       " and cannot live in the arena");
    if (buffer.offset % 256 != 0 ||
        buffer.offset + buffer.bytes() > plan.arena.bytes)
      return planError("buffer #" + llvm::Twine(buffer.id) + " at offset " +
                       llvm::Twine(buffer.offset) +
                       " is misaligned or outside the arena of " +
                       llvm::Twine(plan.arena.bytes) + " bytes");
  }
  const int numBuffers = plan.buffers.size();
  auto validId = [&](int id) { return id >= 0 && id < numBuffers; };
  for (const json::Value &value : *kernels) {
    const json::Object *object = value.getAsObject();
    PlanKernel kernel;
    std::vector<int64_t> grid, block;
    std::optional<llvm::StringRef> name =
        object ? object->getString("name") : std::nullopt;
    if (!name || !readArray(*object, "grid", grid) ||
        !readArray(*object, "block", block) ||
        !readArray(*object, "args", kernel.args) || grid.size() != 3 ||
        block.size() != 3)
      return planError("kernel #" + llvm::Twine(plan.kernels.size()) +
                       " needs name, grid[3], block[3] and args");
    kernel.name = name->str();
    std::copy(grid.begin(), grid.end(), kernel.grid.begin());
    std::copy(block.begin(), block.end(), kernel.block.begin());
    kernel.numInputs = object->getInteger("num_inputs").value_or(0);
    kernel.bytes = object->getInteger("bytes").value_or(0);
    kernel.flops = object->getInteger("flops").value_or(0);
    kernel.numOps = object->getInteger("num_ops").value_or(0);
    kernel.predictedUs = object->getNumber("predicted_us").value_or(0);
    kernel.sharedBytes = object->getInteger("shared_bytes").value_or(0);
    kernel.tiling = object->getString("tiling").value_or("").str();
    kernel.schedule = object->getString("schedule").value_or("").str();
    if (kernel.sharedBytes < 0)
      return planError("kernel '" + kernel.name +
                       "' has negative shared_bytes");
    for (int arg : kernel.args)
      if (!validId(arg))
        return planError("kernel '" + kernel.name + "' uses buffer " +
                         llvm::Twine(arg) + ", which does not exist");
    if (const json::Array *maps = object->getArray("tensor_maps")) {
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
        llvm::ArrayRef<int> inputs = llvm::ArrayRef(kernel.args).take_front(
            std::max(kernel.numInputs, 0));
        if (!validId(map.buffer) || !llvm::is_contained(inputs, map.buffer))
          return planError("a tensor map of kernel '" + kernel.name +
                           "' views buffer " + llvm::Twine(map.buffer) +
                           ", which is not one of its inputs");
        if (std::optional<std::string> why =
                checkTensorMap(map, plan.buffers[map.buffer]))
          return planError("tensor map #" +
                           llvm::Twine(kernel.tensorMaps.size()) +
                           " of kernel '" + kernel.name + "': " + *why);
        kernel.tensorMaps.push_back(std::move(map));
      }
    }
    plan.kernels.push_back(std::move(kernel));
  }
  if (!readArray(*root, "inputs", plan.inputs) ||
      !readArray(*root, "outputs", plan.outputs))
    return planError("missing \"inputs\" or \"outputs\"");
  for (int id : plan.inputs)
    if (!validId(id))
      return planError("input buffer " + llvm::Twine(id) + " does not exist");
  for (int id : plan.outputs)
    if (!validId(id))
      return planError("output buffer " + llvm::Twine(id) + " does not exist");
  return plan;
}

} // namespace opfuse
