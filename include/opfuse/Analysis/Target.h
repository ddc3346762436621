//===- Target.h - What the cost model knows about a GPU ---------*- C++ -*-===//
//
// A GPU as the roofline sees it: memory and link bandwidths, the FLOP/s
// ceilings of its units, its sizes, and the fixed cost of a launch. Built-in
// descriptions come from datasheets; `opt-fuse --calibrate` measures the
// same fields on a real device and writes them as a JSON target file
// (docs/target-format.md). Plain C++ and llvm::json, so the MLIR-free
// runtime can write one.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_ANALYSIS_TARGET_H
#define OPFUSE_ANALYSIS_TARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opfuse {

/// Rates are per second (bytes/s, FLOP/s), sizes in bytes, times in seconds.
/// The efficiency factors scale each ceiling to what generated kernels reach;
/// a calibrated target stores measured (reachable) rates and factors of 1.
struct GpuTarget {
  /// Short name (`--target=h200`) and what it describes.
  std::string name;
  std::string description;
  /// The SM architecture kernels are compiled for.
  std::string chip;
  /// Where the numbers come from: "datasheet" or "calibrated on ...".
  std::string source;

  int64_t smCount = 0;
  int64_t l2Bytes = 0;
  int64_t sharedMemoryPerSm = 0;

  double hbmBandwidth = 0;
  /// Bandwidth when a kernel's data fits in L2 (CostModel::fitsInL2):
  /// streaming from L2 rather than HBM.
  double l2Bandwidth = 0;
  /// NVLink bandwidth per GPU and direction, what a ring step can use.
  double linkBandwidth = 0;

  /// Dense FLOP/s: FP32 on the CUDA cores, and the tensor cores in TF32
  /// and FP16/BF16 (with FP32 accumulation).
  double fp32Flops = 0;
  double tf32TensorFlops = 0;
  double fp16TensorFlops = 0;

  /// Seconds a kernel costs beyond its work: launch and drain.
  double launchOverhead = 0;
  /// What every kernel that moves memory pays beyond its launch, however
  /// small: the first bytes' round trip and the last stores' drain.
  /// 0.9 us unless a target file says otherwise: what the two smallest
  /// tuning kernels (139 KB and 528 KB) measured above the launch on
  /// 2026-12-03. --calibrate keeps it (docs/cost-model.md says why).
  double kernelLatency = kDefaultKernelLatency;
  static constexpr double kDefaultKernelLatency = 0.9e-6;

  double memoryEfficiency = 1;
  double computeEfficiency = 1;
  double tensorEfficiency = 1;
};

/// A100 SXM 80GB, H100 SXM and H200 SXM, in that order.
const std::vector<GpuTarget> &builtinTargets();

/// The built-in target named `name` (case-insensitive), if any.
std::optional<GpuTarget> findBuiltinTarget(llvm::StringRef name);

/// "a100, h100, h200", for help and errors.
std::string listBuiltinTargets();

/// Why a target could not be loaded: the kind decides the exit code.
class TargetError : public llvm::ErrorInfo<TargetError> {
public:
  enum class Kind { UnknownName, Unreadable, Invalid };
  static char ID;
  TargetError(Kind kind, std::string message)
      : kind(kind), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  Kind kind;
  std::string message;
};

/// A built-in target by name, or a target file when `spec` ends in .json or
/// names an existing file.
llvm::Expected<GpuTarget> loadTarget(llvm::StringRef spec);

/// Parses a target file. `"base": "h200"` starts from a built-in target and
/// overrides the fields given; without a base every field is required.
/// Unknown keys are errors, so a typo is never silently ignored.
llvm::Expected<GpuTarget> parseTargetJson(llvm::StringRef text,
                                          llvm::StringRef fileName = "");

/// Every field as a JSON object, in the units of docs/target-format.md.
llvm::json::Value targetToJson(const GpuTarget &target);

/// Writes targetToJson as a target file.
void writeTargetJson(const GpuTarget &target, llvm::raw_ostream &os);

} // namespace opfuse

#endif // OPFUSE_ANALYSIS_TARGET_H
