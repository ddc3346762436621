//===- Target.cpp - Built-in GPU descriptions -----------------------------===//
//
// Datasheet figures. Tensor-core rates are the dense ones (the datasheets
// print the 2:4-sparse rate first and mark it "with sparsity"). Numbers no
// datasheet gives (L2 bandwidth, launch overhead, efficiencies) are model
// constants, said as such; `opt-fuse --calibrate` replaces all of them with
// measurements.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Analysis/Target.h"

#include "llvm/ADT/StringExtras.h"

namespace opfuse {

namespace {
constexpr double kGB = 1e9, kTFlop = 1e12, kMiB = 1 << 20, kKiB = 1 << 10;

/// The constants shared by the datasheet targets, kept as they were set
/// before any calibration so that "datasheet" means what it says: streaming
/// kernels reach about 85% of HBM peak; L2 streams at about 2.5x HBM (XLA's
/// GPU cost model uses the same factor); 2 us per launch. What a real GPU
/// measures differs (docs/cost-model.md): --calibrate replaces all of
/// these.
GpuTarget withModelConstants(GpuTarget target) {
  target.source = "datasheet";
  target.l2Bandwidth = 2.5 * target.hbmBandwidth;
  target.launchOverhead = 2e-6;
  target.memoryEfficiency = 0.85;
  target.computeEfficiency = 0.8;
  target.tensorEfficiency = 0.7;
  return target;
}

std::vector<GpuTarget> makeBuiltinTargets() {
  std::vector<GpuTarget> targets;
  // NVIDIA A100 Tensor Core GPU datasheet (SXM 80GB column): FP32 19.5
  // TFLOPS, TF32 156, BF16/FP16 312 TFLOPS dense, 2,039 GB/s, NVLink
  // 600 GB/s (both directions). SM count, 40 MB L2 and 164 KB shared memory
  // per SM: NVIDIA A100 Tensor Core GPU Architecture whitepaper.
  GpuTarget a100;
  a100.name = "a100";
  a100.description = "NVIDIA A100 SXM 80GB";
  a100.chip = "sm_80";
  a100.smCount = 108;
  a100.l2Bytes = 40 * kMiB;
  a100.sharedMemoryPerSm = 164 * kKiB;
  a100.hbmBandwidth = 2039 * kGB;
  a100.linkBandwidth = 300 * kGB;
  a100.fp32Flops = 19.5 * kTFlop;
  a100.tf32TensorFlops = 156 * kTFlop;
  a100.fp16TensorFlops = 312 * kTFlop;
  targets.push_back(withModelConstants(a100));

  // NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column): FP32 67
  // TFLOPS, TF32 989 and BF16/FP16 1,979 TFLOPS with sparsity (494.5 and
  // 989.5 dense), 3.35 TB/s, NVLink 900 GB/s (both directions). 132 SMs,
  // 50 MB L2, 228 KB shared memory per SM: NVIDIA H100 Tensor Core GPU
  // Architecture whitepaper.
  GpuTarget h100;
  h100.name = "h100";
  h100.description = "NVIDIA H100 SXM 80GB";
  h100.chip = "sm_90";
  h100.smCount = 132;
  h100.l2Bytes = 50 * kMiB;
  h100.sharedMemoryPerSm = 228 * kKiB;
  h100.hbmBandwidth = 3350 * kGB;
  h100.linkBandwidth = 450 * kGB;
  h100.fp32Flops = 67 * kTFlop;
  h100.tf32TensorFlops = 494.5 * kTFlop;
  h100.fp16TensorFlops = 989.5 * kTFlop;
  targets.push_back(withModelConstants(h100));

  // NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column): the H100 SXM's
  // compute (FP32 67, TF32 989 / BF16 1,979 TFLOPS with sparsity) with
  // 141 GB of HBM3e at 4.8 TB/s; NVLink 900 GB/s. Same GH100 die: 132 SMs,
  // 228 KB shared memory per SM; the datasheet gives no L2 size, and
  // cuDeviceGetAttribute(L2_CACHE_SIZE) on an H200 reports 60 MiB.
  GpuTarget h200 = h100;
  h200.name = "h200";
  h200.description = "NVIDIA H200 SXM 141GB";
  h200.hbmBandwidth = 4800 * kGB;
  h200.l2Bytes = 60 * kMiB;
  targets.push_back(withModelConstants(h200));
  return targets;
}
} // namespace

const std::vector<GpuTarget> &builtinTargets() {
  static const std::vector<GpuTarget> targets = makeBuiltinTargets();
  return targets;
}

std::optional<GpuTarget> findBuiltinTarget(llvm::StringRef name) {
  for (const GpuTarget &target : builtinTargets())
    if (name.equals_insensitive(target.name))
      return target;
  return std::nullopt;
}

std::string listBuiltinTargets() {
  std::string names;
  for (const GpuTarget &target : builtinTargets())
    names += (names.empty() ? "" : ", ") + target.name;
  return names;
}

} // namespace opfuse
