//===- TargetJson.cpp - Target files: read, check, write ------------------===//
//
// One table of fields drives reading and writing, so the two cannot drift
// apart; docs/target-format.md documents the same table.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/Target.h"

#include "llvm/ADT/StringSet.h"

#include "opfuse/Support/NestingDepth.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace opfuse {

char TargetError::ID = 0;

namespace {
constexpr llvm::StringLiteral kFormat = "opfuse-target";
constexpr int kVersion = 1;

enum class FieldKind { String, Integer, Rate, Fraction };

/// A field of the file: its key, its kind and the factor from the file's
/// unit to the struct's (GB/s -> bytes/s, TFLOP/s -> FLOP/s, us -> s).
struct Field {
  const char *key;
  FieldKind kind;
  double scale;
  std::string GpuTarget::*text = nullptr;
  int64_t GpuTarget::*integer = nullptr;
  double GpuTarget::*number = nullptr;
};

const std::vector<Field> &fields() {
  using T = GpuTarget;
  static const std::vector<Field> table = {
      {"name", FieldKind::String, 1, &T::name},
      {"description", FieldKind::String, 1, &T::description},
      {"chip", FieldKind::String, 1, &T::chip},
      {"source", FieldKind::String, 1, &T::source},
      {"sm_count", FieldKind::Integer, 1, nullptr, &T::smCount},
      {"l2_bytes", FieldKind::Integer, 1, nullptr, &T::l2Bytes},
      {"shared_memory_per_sm_bytes", FieldKind::Integer, 1, nullptr,
       &T::sharedMemoryPerSm},
      {"hbm_gb_per_s", FieldKind::Rate, 1e9, nullptr, nullptr,
       &T::hbmBandwidth},
      {"l2_gb_per_s", FieldKind::Rate, 1e9, nullptr, nullptr, &T::l2Bandwidth},
      {"link_gb_per_s", FieldKind::Rate, 1e9, nullptr, nullptr,
       &T::linkBandwidth},
      {"fp32_tflops", FieldKind::Rate, 1e12, nullptr, nullptr, &T::fp32Flops},
      {"tf32_tensor_tflops", FieldKind::Rate, 1e12, nullptr, nullptr,
       &T::tf32TensorFlops},
      {"fp16_tensor_tflops", FieldKind::Rate, 1e12, nullptr, nullptr,
       &T::fp16TensorFlops},
      {"launch_overhead_us", FieldKind::Rate, 1e-6, nullptr, nullptr,
       &T::launchOverhead},
      {"kernel_latency_us", FieldKind::Rate, 1e-6, nullptr, nullptr,
       &T::kernelLatency},
      {"memory_efficiency", FieldKind::Fraction, 1, nullptr, nullptr,
       &T::memoryEfficiency},
      {"compute_efficiency", FieldKind::Fraction, 1, nullptr, nullptr,
       &T::computeEfficiency},
      {"tensor_efficiency", FieldKind::Fraction, 1, nullptr, nullptr,
       &T::tensorEfficiency},
  };
  return table;
}

/// Keys a file without "base" may leave out: the source, and the kernel
/// latency, which files written before it existed do not have (the
/// GpuTarget default stays).
bool isOptional(llvm::StringRef key) {
  return key == "source" || key == "kernel_latency_us";
}

llvm::Error invalid(llvm::StringRef fileName, const llvm::Twine &message) {
  std::string prefix = fileName.empty()
                           ? "target file"
                           : ("target file '" + fileName + "'").str();
  return llvm::make_error<TargetError>(TargetError::Kind::Invalid,
                                       (prefix + ": " + message).str());
}

/// Reads one field into `target`; an error names the key and what it wanted.
llvm::Error readField(const Field &field, const llvm::json::Value &value,
                      GpuTarget &target, llvm::StringRef fileName) {
  switch (field.kind) {
  case FieldKind::String:
    if (std::optional<llvm::StringRef> text = value.getAsString()) {
      target.*field.text = text->str();
      return llvm::Error::success();
    }
    return invalid(fileName,
                   llvm::Twine("\"") + field.key + "\" must be a string");
  case FieldKind::Integer:
    if (std::optional<int64_t> number = value.getAsInteger();
        number && *number > 0) {
      target.*field.integer = *number;
      return llvm::Error::success();
    }
    return invalid(fileName, llvm::Twine("\"") + field.key +
                                 "\" must be a positive integer");
  case FieldKind::Rate:
  case FieldKind::Fraction: {
    std::optional<double> number = value.getAsNumber();
    bool fraction = field.kind == FieldKind::Fraction;
    if (number && *number > 0 && std::isfinite(*number) &&
        (!fraction || *number <= 1)) {
      target.*field.number = *number * field.scale;
      return llvm::Error::success();
    }
    return invalid(fileName,
                   llvm::Twine("\"") + field.key + "\" must be a " +
                       (fraction ? "number in (0, 1]" : "positive number"));
  }
  }
  llvm_unreachable("unknown field kind");
}
} // namespace

llvm::Expected<GpuTarget> parseTargetJson(llvm::StringRef text,
                                          llvm::StringRef fileName) {
  if (std::optional<size_t> deep =
          opfuse::findExcessiveNesting(text, opfuse::TextSyntax::Json))
    return invalid(fileName, "brackets nest deeper than " +
                                 llvm::Twine(opfuse::kMaxNestingDepth) +
                                 " levels at offset " + llvm::Twine(*deep));
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return invalid(fileName, "not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object)
    return invalid(fileName, "the top level must be an object");
  if (object->getString("format") != kFormat)
    return invalid(fileName,
                   llvm::Twine("\"format\" must be \"") + kFormat + "\"");
  if (object->getInteger("version") != kVersion)
    return invalid(fileName,
                   llvm::formatv("\"version\" must be {0}", kVersion).str());

  GpuTarget target;
  llvm::StringSet<> known = {"format", "version", "base"};
  for (const Field &field : fields())
    known.insert(field.key);
  for (const auto &entry : *object)
    if (!known.contains(entry.first))
      return invalid(fileName, "unknown key \"" + entry.first.str() +
                                   "\" (see docs/target-format.md)");
  const bool hasBase = object->get("base") != nullptr;
  if (hasBase) {
    std::optional<llvm::StringRef> base = object->getString("base");
    std::optional<GpuTarget> builtin =
        base ? findBuiltinTarget(*base) : std::nullopt;
    if (!builtin)
      return invalid(fileName, "\"base\" must name a built-in target (" +
                                   listBuiltinTargets() + ")");
    target = *builtin;
    target.source = "file based on " + builtin->name;
  }
  for (const Field &field : fields()) {
    const llvm::json::Value *value = object->get(field.key);
    if (!value) {
      if (hasBase || isOptional(field.key))
        continue;
      return invalid(fileName, llvm::Twine("missing \"") + field.key +
                                   "\" (or give \"base\": a built-in target "
                                   "to start from)");
    }
    if (llvm::Error error = readField(field, *value, target, fileName))
      return std::move(error);
  }
  if (target.source.empty())
    target.source = "file";
  return target;
}

llvm::Expected<GpuTarget> loadTarget(llvm::StringRef spec) {
  if (std::optional<GpuTarget> builtin = findBuiltinTarget(spec))
    return *builtin;
  if (!spec.ends_with(".json") && !llvm::sys::fs::exists(spec))
    return llvm::make_error<TargetError>(
        TargetError::Kind::UnknownName,
        ("unknown target '" + spec + "' (expected one of " +
         listBuiltinTargets() + ", or a target file ending in .json)")
            .str());
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(spec, /*IsText=*/true);
  if (!file)
    return llvm::make_error<TargetError>(
        TargetError::Kind::Unreadable,
        ("cannot read target file '" + spec + "': " + file.getError().message())
            .str());
  return parseTargetJson((*file)->getBuffer(), spec);
}

namespace {
/// Six significant digits: a unit conversion must not print 1.9999999999.
double rounded(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return std::strtod(text, nullptr);
}
} // namespace

llvm::json::Value targetToJson(const GpuTarget &target) {
  llvm::json::Object object{{"format", kFormat}, {"version", kVersion}};
  for (const Field &field : fields()) {
    switch (field.kind) {
    case FieldKind::String:
      object[field.key] = target.*field.text;
      break;
    case FieldKind::Integer:
      object[field.key] = target.*field.integer;
      break;
    case FieldKind::Rate:
    case FieldKind::Fraction:
      object[field.key] = rounded(target.*field.number / field.scale);
      break;
    }
  }
  return llvm::json::Value(std::move(object));
}

void writeTargetJson(const GpuTarget &target, llvm::raw_ostream &os) {
  // By hand, in the table's order and with six significant digits, so the
  // file reads like the documentation (llvm::json sorts keys and prints
  // 0.85 as 0.84999999999999998).
  os << "{\n  \"format\": \"" << kFormat << "\",\n  \"version\": " << kVersion;
  for (const Field &field : fields()) {
    os << ",\n  \"" << field.key << "\": ";
    switch (field.kind) {
    case FieldKind::String:
      os << llvm::formatv("{0}", llvm::json::Value(target.*field.text));
      break;
    case FieldKind::Integer:
      os << target.*field.integer;
      break;
    case FieldKind::Rate:
    case FieldKind::Fraction: {
      char text[32];
      std::snprintf(text, sizeof(text), "%.6g",
                    target.*field.number / field.scale);
      os << text;
      break;
    }
    }
  }
  os << "\n}\n";
}

} // namespace opfuse
