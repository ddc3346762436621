//===- CostModel.h - Roofline cost of ops and kernels -----------*- C++ -*-===//
//
// Turns the FLOPs and bytes of CostInterface into predicted time on a
// GpuTarget: per kernel max(compute, memory, link) time plus the launch
// overhead, and the bound kind that max picks. A library API: a pass asks
// CostModel what a kernel would cost with or without an op; the driver's
// report and `fuse-print-cost` use the same calls. docs/cost-model.md
// derives each formula.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_ANALYSIS_COSTMODEL_H
#define OPFUSE_ANALYSIS_COSTMODEL_H

#include "opfuse/Analysis/Target.h"
#include "opfuse/Dialect/Fuse/IR/MatmulTiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opfuse {

/// What limits a kernel on the roofline.
enum class BoundKind { Compute, Memory, Communication };
llvm::StringRef boundName(BoundKind kind);

/// The work of an op or kernel in roofline terms.
struct Work {
  double flops = 0;
  /// Each op's FLOPs over its own ceiling (CUDA cores or tensor cores),
  /// already scaled by the efficiency factor.
  double computeSeconds = 0;
  /// Device-memory bytes read and written.
  int64_t bytes = 0;
  /// Bytes each device sends over its links (collectives).
  int64_t linkBytes = 0;
  /// A GEMM, convolution or attention kernel: its operands stream from HBM
  /// even when they would fit in the L2 (docs/cost-model.md).
  bool contraction = false;
  /// Time after the roofline's, not overlapped with it: a split-K GEMM's
  /// partial tiles, stored by every block and summed by each tile's last.
  double tailSeconds = 0;

  Work &operator+=(const Work &other);
  /// FLOPs per byte of device memory; 0 when nothing is moved.
  double intensity() const { return bytes ? flops / bytes : 0; }
};

/// Predicted seconds of one kernel, part by part.
struct Prediction {
  double computeSeconds = 0, memorySeconds = 0, linkSeconds = 0;
  /// Work::tailSeconds, added to the largest of the three.
  double tailSeconds = 0;
  double launchSeconds = 0;
  /// Whether the bytes were costed at L2 rather than HBM bandwidth.
  bool fitsInL2 = false;
  BoundKind bound = BoundKind::Memory;
  double seconds() const;
};

class CostModel {
public:
  explicit CostModel(GpuTarget target) : target_(std::move(target)) {}
  const GpuTarget &target() const { return target_; }

  /// Whether sm_90 attention kernels are fed by TMA (the default) or, with
  /// --no-tma, by every thread's cp.async copies, which ran 1.1-1.3x
  /// slower on the H200 (docs/cost-model.md).
  void setAttentionTma(bool tma) { attentionTma = tma; }

  /// The tiling the GEMM emitter will give a GEMM kernel (a fuse.group or
  /// a lone contraction), where the caller knows it: the driver's report
  /// passes the attribute, the option or the tile model's pick. A split-K
  /// tiling then adds its partial tiles' time (Work::tailSeconds); without
  /// it (the fusion passes) no tiling is assumed.
  using GemmTilingOf =
      std::function<std::optional<MatmulTiling>(mlir::Operation *)>;
  void setGemmTilingOf(GemmTilingOf tilingOf) {
    gemmTilingOf = std::move(tilingOf);
  }

  /// The neighbouring outputs of a row each thread of a kernel computes
  /// (the view emitter's --window-rows), where the caller knows it: the
  /// windows they share are loaded once, which the issue time counts.
  /// Without it (the fusion passes) a thread computes one.
  using WindowRowsOf = std::function<int64_t(mlir::Operation *)>;
  void setWindowRowsOf(WindowRowsOf rowsOf) {
    windowRowsOf = std::move(rowsOf);
  }

  /// The FLOP/s `op` reaches: tensor cores (FP16/BF16) for a matmul or
  /// conv2d on 16-bit floats (a conv2d at 0.6 of them), the CUDA cores'
  /// FP32 rate otherwise; an f32 matmul or conv2d runs on FMAs at 0.39 of
  /// it (TF32 would break the f32 tolerance). The shares were fitted on
  /// the tuning set (docs/cost-model.md).
  double flopsCeiling(mlir::Operation *op) const;

  /// The work of `op` run as a kernel of its own; a fuse.group sums the
  /// compute of its ops and moves only its inputs and results.
  Work work(mlir::Operation *op) const;

  /// Whether a kernel moving `bytes` streams them from L2 when it runs
  /// again on the same data (as in a timing loop, or when its producer
  /// just wrote them): its footprint is at most the L2 size
  /// (docs/cost-model.md has the measurement behind the rule).
  bool fitsInL2(int64_t bytes) const;

  /// Bytes per second for a kernel moving `bytes`: L2 bandwidth when they
  /// fit in the L2, HBM otherwise.
  double bandwidthFor(int64_t bytes) const;

  /// Time without the launch overhead: what a pass compares when it asks
  /// what adding work to a kernel costs.
  double workSeconds(const Work &work) const;

  /// The whole prediction for a kernel doing `work`.
  Prediction predict(const Work &work) const;

  /// The ridge point for `op`'s ceiling: FLOP per byte where compute time
  /// equals memory time at HBM bandwidth.
  double ridge(mlir::Operation *op) const;

private:
  /// L2 or HBM bandwidth, times the memory efficiency.
  double bandwidth(bool fromL2) const;

  /// The time a kernel without a contraction (a fuse.group of a loop,
  /// view, transpose or row kernel) takes to issue its ops and read its
  /// windows through L1; 0 for other ops.
  double issueSeconds(mlir::Operation *kernel) const;
  /// How much slower the GEMM kernel `kernel` computes on the SMs its
  /// fuse.overlap_sms leaves it; 1 without one.
  double overlapSlowdown(mlir::Operation *kernel) const;

  /// Work::tailSeconds of the GEMM kernel `kernel` with `contraction`.
  double splitKTailSeconds(mlir::Operation *kernel,
                           mlir::Operation *contraction) const;

  bool attentionTma = true;
  GemmTilingOf gemmTilingOf;
  WindowRowsOf windowRowsOf;
  GpuTarget target_;
};

/// The cost model of the target `spec` (a built-in name or a target file),
/// for a pass's `initialize`: on failure, an error at an unknown location
/// prefixed with `passName`.
mlir::FailureOr<CostModel> loadCostModel(llvm::StringRef spec,
                                         mlir::MLIRContext *context,
                                         llvm::StringRef passName);

/// Whether `op` runs as a kernel: everything but constants (initialised
/// buffers), reshapes (aliases) and the return.
bool launchesKernel(mlir::Operation *op);

/// One kernel of a function.
struct KernelAnalysis {
  /// "<function>_k<index>", the name convert-fuse-to-gpu gives it, or
  /// "<function>_c<index>" for a collective (a plan step, no kernel).
  std::string name;
  /// A collective step: timed with the run, not as a kernel of its own.
  bool collective = false;
  /// A collective on a stream of its own, beside the kernels
  /// (fuse.overlap_sms), and the earlier steps whose results it or a
  /// kernel reads (indices into GraphAnalysis::kernels).
  bool beside = false;
  std::vector<size_t> reads;
  /// "file:line:col" of the op or group.
  std::string location;
  /// The fuse ops it computes, in order ("mul", "tanh", ...).
  std::vector<std::string> ops;
  /// The operator classes of those ops by trait, e.g. "memory".
  std::string opClass;
  Work work;
  Prediction prediction;
};

/// One step of a plan run on two streams: the kernels' stream and, for
/// collectives that overlap (fuse.overlap_sms), a stream of their own.
struct ScheduledStep {
  double seconds = 0;
  /// Runs on the collectives' stream, beside the kernels: it starts when
  /// the steps queued before it on the kernels' stream are done and the
  /// collective before it on its stream has finished.
  bool beside = false;
  /// On the kernels' stream, but after everything beside them too: a
  /// collective that does not overlap (NCCL runs one communicator's calls
  /// in the order they were made, and the runtime joins the streams).
  bool joins = false;
  /// Earlier steps whose results it reads (only those beside the kernels
  /// matter: the kernels' stream runs in order anyway).
  std::vector<size_t> after;
};

/// When the last of `steps` ends, each starting as soon as its stream and
/// what it reads allow.
double scheduleSeconds(llvm::ArrayRef<ScheduledStep> steps);

/// The kernels of a function in launch order, and their sums.
struct GraphAnalysis {
  std::string function;
  std::vector<KernelAnalysis> kernels;
  int64_t bytes() const;
  double flops() const;
  /// The time along the schedule: kernels run one after another, and a
  /// collective beside them (fuse.overlap_sms) while the kernels after it
  /// that do not read it run (scheduleSeconds).
  double seconds() const;
  /// The sum of every step's time: the schedule on one stream.
  double serialSeconds() const;
  /// The collective steps: how many, and their predicted time.
  int collectiveSteps() const;
  double collectiveSeconds() const;
  /// How many collectives run beside the kernels, and how much of the
  /// collectives' time the schedule hides (serialSeconds() - seconds()).
  int overlappedSteps() const;
  double hiddenSeconds() const;
};

/// Analyses `func` as it stands: before fusion every op is a kernel, after
/// it every fuse.group is one.
GraphAnalysis analyzeFunction(mlir::func::FuncOp func, const CostModel &model);

} // namespace opfuse

#endif // OPFUSE_ANALYSIS_COSTMODEL_H
