//===- Calibrate.cpp - Measure a GPU for the cost model -------------------===//
//
// Each benchmark is timed with CUDA events after warm-up and reported as
// its P50. Rates are what a kernel reaches, so the calibrated target sets
// every efficiency factor to 1.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Calibrate.h"

#include "opfuse/Runtime/Executor.h"

#include "llvm/Support/FormatVariadic.h"

#include <ctime>

namespace opfuse {

namespace {
using cuda::CUdeviceptr;

struct Buffers {
  cuda::Driver &driver;
  std::vector<CUdeviceptr> pointers;
  ~Buffers() {
    for (CUdeviceptr p : pointers)
      driver.release(p);
  }
  llvm::Expected<CUdeviceptr> allocate(size_t bytes) {
    llvm::Expected<CUdeviceptr> pointer = driver.allocate(bytes);
    if (pointer)
      pointers.push_back(*pointer);
    return pointer;
  }
};

struct Module {
  cuda::Driver &driver;
  cuda::CUmodule module = nullptr;
  ~Module() {
    if (module)
      driver.unloadModule(module);
  }
};

class Calibration {
public:
  Calibration(cuda::Driver &driver, const CalibrateOptions &options,
              llvm::raw_ostream &log)
      : driver(driver), options(options), log(log) {}

  /// P50 microseconds of one launch of `name`, timed with events.
  llvm::Expected<double> time(const char *name, int64_t blocks, int64_t threads,
                              std::vector<void *> args, int iterations = 0) {
    llvm::Expected<cuda::CUfunction> function =
        driver.getFunction(module.module, name);
    if (!function)
      return function.takeError();
    const int64_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    llvm::Expected<std::vector<double>> samples = timeWithEvents(
        driver, options.warmup, iterations ? iterations : options.iterations,
        [&] { return driver.launch(*function, grid, block, 0, args.data()); });
    if (!samples)
      return samples.takeError();
    return summarize(*samples).p50;
  }

  /// Bytes per second of the copy kernel over two buffers of `bytes`.
  llvm::Expected<double> copyBandwidth(size_t bytes, unsigned repeat,
                                       const char *what) {
    Buffers buffers{driver, {}};
    llvm::Expected<CUdeviceptr> src = buffers.allocate(bytes);
    if (!src)
      return src.takeError();
    llvm::Expected<CUdeviceptr> dst = buffers.allocate(bytes);
    if (!dst)
      return dst.takeError();
    uint64_t half = bytes / 32;
    CUdeviceptr s = *src, d = *dst;
    llvm::Expected<double> us = time("opfuse_cal_copy", (half + 255) / 256, 256,
                                     {&s, &d, &half, &repeat});
    if (!us)
      return us.takeError();
    double moved = 2.0 * bytes * repeat;
    log << llvm::formatv("calibrate: {0}: {1} MiB copied x{2} in {3:F1} us: "
                         "{4:F0} GB/s\n",
                         what, bytes >> 20, repeat, *us, moved / (*us * 1e3));
    return moved / (*us * 1e-6);
  }

  /// FLOP/s of `name`(out, iters, extra...) over blocks x threads threads.
  llvm::Expected<double> flops(const char *name, int64_t blocks,
                               int64_t threads, uint32_t iters,
                               double flopsPerThreadIter, const char *what,
                               std::vector<void *> extra = {}) {
    Buffers buffers{driver, {}};
    llvm::Expected<CUdeviceptr> out =
        buffers.allocate(static_cast<size_t>(blocks * threads) * 4);
    if (!out)
      return out.takeError();
    CUdeviceptr o = *out;
    std::vector<void *> args = {&o, &iters};
    args.insert(args.end(), extra.begin(), extra.end());
    llvm::Expected<double> us = time(name, blocks, threads, args);
    if (!us)
      return us.takeError();
    double total = flopsPerThreadIter * iters * blocks * threads;
    log << llvm::formatv("calibrate: {0}: {1:F3} GFLOP in {2:F1} us: {3:F1} "
                         "TFLOP/s\n",
                         what, total / 1e9, *us, total / (*us * 1e6));
    return total / (*us * 1e-6);
  }

  cuda::Driver &driver;
  const CalibrateOptions &options;
  llvm::raw_ostream &log;
  Module module{driver};
};

std::string today() {
  std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof(text), "%Y-%m-%d", std::gmtime(&now));
  return text;
}
} // namespace

llvm::Expected<GpuTarget> calibrate(cuda::Driver &driver, const GpuTarget &base,
                                    const CalibrateOptions &options,
                                    llvm::raw_ostream &log) {
  GpuTarget target = base;
  using Attr = cuda::DeviceAttribute;
  llvm::Expected<int> sms = driver.attribute(Attr::MultiprocessorCount);
  llvm::Expected<int> l2 = driver.attribute(Attr::L2CacheSize);
  llvm::Expected<int> shared =
      driver.attribute(Attr::MaxSharedMemoryPerMultiprocessor);
  llvm::Expected<int> major = driver.attribute(Attr::ComputeCapabilityMajor);
  llvm::Expected<int> minor = driver.attribute(Attr::ComputeCapabilityMinor);
  for (llvm::Expected<int> *value : {&sms, &l2, &shared, &major, &minor})
    if (!*value)
      return value->takeError();
  if (*major < 8)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("calibration needs sm_80 or later (mma.sync with bf16); "
                      "{0} is sm_{1}{2}",
                      driver.deviceName(), *major, *minor)
            .str());
  target.description = driver.deviceName();
  target.chip = llvm::formatv("sm_{0}{1}", *major, *minor).str();
  target.smCount = *sms;
  target.l2Bytes = *l2;
  target.sharedMemoryPerSm = *shared;
  log << llvm::formatv("calibrate: {0} ({1}, {2} SMs, {3} MiB L2)\n",
                       target.description, target.chip, target.smCount,
                       target.l2Bytes >> 20);

  Calibration run(driver, options, log);
  llvm::Expected<cuda::CUmodule> module = driver.loadModule(calibrationPtx());
  if (!module)
    return module.takeError();
  run.module.module = *module;

  // HBM: 1 GiB each way, far beyond any L2. L2: a quarter of the L2 per
  // buffer, copied 64 times over: both buffers stay resident.
  llvm::Expected<double> hbm = run.copyBandwidth(1ull << 30, 1, "HBM copy");
  if (!hbm)
    return hbm.takeError();
  size_t l2Buffer =
      std::max<size_t>(1 << 20, (target.l2Bytes / 4) & ~size_t(0xFFFFF));
  llvm::Expected<double> l2Rate = run.copyBandwidth(l2Buffer, 64, "L2 copy");
  if (!l2Rate)
    return l2Rate.takeError();

  // Full occupancy: 2048 threads per SM for FMA, 32 warps per SM for mma.
  const int64_t fmaBlocks = target.smCount * 8, mmaBlocks = target.smCount * 4;
  // The FMA operands come as parameters so that ptxas cannot fold them.
  float fmaB = 0.999f, fmaC = 0.001f;
  llvm::Expected<double> fp32 = run.flops(
      "opfuse_cal_fma", fmaBlocks, 256, 2000, 128, "FP32 FMA", {&fmaB, &fmaC});
  if (!fp32)
    return fp32.takeError();
  // Per loop iteration a warp issues 32 mma: 2*16*8*16 FLOPs each for bf16
  // (m16n8k16), 2*16*8*8 for tf32 (m16n8k8); per thread that is /32.
  llvm::Expected<double> bf16 =
      run.flops("opfuse_cal_mma_bf16", mmaBlocks, 256, 1000, 32.0 * 4096 / 32,
                "BF16 mma.sync");
  if (!bf16)
    return bf16.takeError();
  llvm::Expected<double> tf32 =
      run.flops("opfuse_cal_mma_tf32", mmaBlocks, 256, 1000, 32.0 * 2048 / 32,
                "TF32 mma.sync");
  if (!tf32)
    return tf32.takeError();

  // The launch overhead is small and noisy: take the median of many.
  llvm::Expected<double> empty =
      run.time("opfuse_cal_empty", 1, 32, {}, /*iterations=*/200);
  if (!empty)
    return empty.takeError();
  log << llvm::formatv("calibrate: empty kernel, event-timed: {0:F2} us\n",
                       *empty);
  // kernel_latency_us stays the base target's. A copy's intercept of time
  // against bytes measured no latency beyond the empty kernel on the H200
  // (0.05 us or less on two machines, 2026-12-04), and with it the model's
  // held-out error grew (docs/cost-model.md): opfuse's kernels pay about
  // 0.9 us more than a bare copy does.

  target.hbmBandwidth = *hbm;
  target.l2Bandwidth = *l2Rate;
  target.fp32Flops = *fp32;
  target.fp16TensorFlops = *bf16;
  target.tf32TensorFlops = *tf32;
  target.launchOverhead = *empty * 1e-6;
  target.memoryEfficiency = target.computeEfficiency = target.tensorEfficiency =
      1;
  target.source = llvm::formatv("calibrated on {0}, {1} (link bandwidth from "
                                "{2})",
                                target.description, today(), base.name)
                      .str();
  return target;
}

} // namespace opfuse
