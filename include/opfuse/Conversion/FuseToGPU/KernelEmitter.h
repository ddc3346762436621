//===- KernelEmitter.h - What every kernel emitter implements ---*- C++ -*-===//
//
// A kernel emitter compiles one kind of fuse.group into one gpu.func. It
// answers three questions: can it compile a set of ops (match, with the
// reason when not), how the kernel runs (configure: the launch and, for a
// GEMM, the tiling and schedule recorded on the group), and the kernel
// itself (emit). convert-fuse-to-gpu walks a registry of emitters in
// priority order; fuse-elementwise asks the same registry whether a group
// it wants to form can be emitted. docs/adding-an-emitter.md shows how to
// add one.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_KERNELEMITTER_H
#define OPFUSE_CONVERSION_FUSETOGPU_KERNELEMITTER_H

#include "opfuse/Analysis/Target.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opfuse {

/// A TMA tensor map the host encodes for a kernel: a view of group input
/// `input` with `dims` (innermost first), the byte `strides` of all but
/// the innermost dimension, and the `box` one copy fills, 128-byte
/// swizzled. The kernel takes a pointer to it after its outputs.
struct TensorMapSpec {
  unsigned input = 0;
  llvm::SmallVector<int64_t, 3> dims, strides, box;
  /// Bytes from the buffer's start to the view's first element.
  int64_t offset = 0;
};

/// How a kernel is launched: a 1-D grid of 1-D blocks, with `sharedBytes`
/// of dynamic shared memory per block, and the tensor maps it reads
/// operands through, in parameter order.
struct LaunchConfig {
  int64_t grid = 1;
  int64_t block = 1;
  /// The blocks of work the kernel walks: `grid` blocks take them in a
  /// grid-stride loop when there are more (KernelBuilder::logicalBlock).
  /// 0 for a kernel whose blocks find their own work (a persistent GEMM).
  int64_t blocks = 0;
  int64_t sharedBytes = 0;
  llvm::SmallVector<TensorMapSpec, 2> tensorMaps;
  /// A kernel whose blocks split their work (a split-K GEMM, a split-key
  /// attention): `splits` blocks per piece of output store partials in a
  /// workspace of `workspaceBytes` and count themselves done in one of
  /// `splitCounters` i32 counters (zero before and after a launch); the
  /// runtime passes both after the buffers.
  int64_t splits = 1, splitCounters = 0, workspaceBytes = 0;
};

/// The knobs of the emitters (convert-fuse-to-gpu's options).
struct EmitterOptions {
  /// Threads per block of the loop and row kernels.
  int64_t blockSize = 256;
  /// 16-byte vectors each thread of a loop kernel owns: 1, 2 or 4.
  int64_t vectorsPerThread = 2;
  /// Neighbouring outputs along a row a thread of a view kernel that reads
  /// windows computes: 0 (the emitter's rule), 1, 2, 4 or 8.
  int64_t windowRows = 0;
  /// Row elements a thread of a row kernel holds in registers: 8 to 64.
  int64_t rowElementsPerThread = 32;
  /// The GEMM tiling, or "auto" for the tile model's pick per GEMM.
  std::string matmulTiling = "auto";
  /// The attention kernel's tiling: "auto" or BMxBN (query rows per block
  /// x keys per step).
  std::string attentionTiling = "auto";
  bool allowTF32 = false;
  bool useTma = true;
  bool warpSpecialize = true;
  bool pingPong = false;
  /// 16-byte epilogue stores in GEMM kernels where the outputs allow.
  bool vectorStores = true;
  /// sm_90 and later: every kernel waits for the kernels before it
  /// (griddepcontrol.wait) before it reads their outputs or writes, so the
  /// runtime may launch it early; GEMM kernels copy the slices of the
  /// model's inputs (weights) they start with before that wait.
  bool earlyLaunch = true;
  /// The most blocks a loop, view, transpose or row kernel launches; more
  /// blocks of work are walked by a grid-stride loop.
  int64_t maxGridBlocks = kMaxGridBlocks;
  static constexpr int64_t kMaxGridBlocks = (int64_t(1) << 31) - 1;
  /// default: f16/bf16 values inside a kernel stay in f32 and round where
  /// they are stored or cast; strict: every op's result rounds to its type
  /// (the unfused model's arithmetic, docs/numerics.md).
  std::string numerics = "default";
  bool strictNumerics() const { return numerics == "strict"; }

  /// The grid for `blocks` blocks of work.
  int64_t gridFor(int64_t blocks) const {
    return std::max<int64_t>(1, std::min(blocks, maxGridBlocks));
  }
  /// The launch of `block` threads for `blocks` blocks of work (at least
  /// one), on a grid capped by maxGridBlocks.
  LaunchConfig launchFor(int64_t block, int64_t blocks) const {
    LaunchConfig config;
    config.block = block;
    config.blocks = std::max<int64_t>(1, blocks);
    config.grid = gridFor(config.blocks);
    return config;
  }
};

/// Why `options` cannot be used, naming the option as the pass spells it,
/// or nothing when they can. Checks what does not depend on the target
/// (a wgmma tiling on a chip without wgmma is an error at emission).
std::optional<std::string> checkEmitterOptions(const EmitterOptions &options);

/// What a kernel's emitter reads besides its group.
struct EmitContext {
  const EmitterOptions &options;
  const GpuTarget &target;
};

/// An emitter's answer to "can you compile these ops as one kernel".
struct EmitterMatch {
  enum class Kind {
    /// Not this emitter's kind of kernel: ask the next one.
    NotMine,
    /// This emitter compiles it.
    Accepted,
    /// This emitter's kind of kernel, but it cannot compile it: `reason`
    /// says why, at `at` when one op is to blame.
    Refused,
  };
  Kind kind = Kind::NotMine;
  std::string reason;
  mlir::Operation *at = nullptr;

  static EmitterMatch notMine() { return {}; }
  static EmitterMatch accept() { return {Kind::Accepted, "", nullptr}; }
  static EmitterMatch refuse(std::string reason,
                             mlir::Operation *at = nullptr) {
    return {Kind::Refused, std::move(reason), at};
  }
};

class KernelEmitter {
public:
  virtual ~KernelEmitter();

  /// A short name for summaries and diagnostics ("loop", "row", "gemm").
  virtual llvm::StringRef getName() const = 0;

  /// Whether the emitter compiles a kernel computing `ops` (in block
  /// order), of which `outputs` are used outside it. Fusion asks before it
  /// forms a group, so this must not need the group to exist.
  virtual EmitterMatch match(llvm::ArrayRef<mlir::Operation *> ops,
                             llvm::ArrayRef<mlir::Value> outputs) const = 0;

  /// The message convert-fuse-to-gpu puts before a refusal's reason.
  virtual std::string describeRefusal(const EmitterMatch &refusal) const {
    return refusal.reason;
  }

  /// Decides how `group` (which `match` accepted) runs, records on it what
  /// later stages and `emit` read (a GEMM's fuse.matmul_tiling and
  /// fuse.gemm_schedule), and returns its launch configuration. Errors are
  /// reported at the group or the op at fault.
  virtual mlir::FailureOr<LaunchConfig>
  configure(fuse::GroupOp group, const EmitContext &context) const = 0;

  /// The batch of loads after which the kernel's canonical op order
  /// places the arithmetic they make ready (sortIntoCanonicalOrder), or 0
  /// for all loads first. Emitters whose kernels may read many values a
  /// thread through free arithmetic (a convolution's taps) bound what a
  /// thread holds this way; the GEMM and row emitters order their loads
  /// themselves.
  virtual unsigned canonicalLoadBatch() const { return 0; }

  /// Neighbouring outputs of a row each thread of `group`'s kernel computes
  /// with `options`, so that the windows they share are loaded once
  /// (--window-rows): 1 but for the view emitter's kernels that read
  /// windows along their rows.
  virtual int64_t windowRows(fuse::GroupOp group,
                             const EmitterOptions &options) const {
    return 1;
  }

  /// Emits `group` as the kernel `name` in `module` with `config` (from
  /// `configure`).
  virtual mlir::LogicalResult emit(fuse::GroupOp group,
                                   const LaunchConfig &config,
                                   mlir::gpu::GPUModuleOp module,
                                   llvm::StringRef name,
                                   const EmitContext &context) const = 0;
};

/// Emitters in priority order: the first whose match is not NotMine
/// decides.
class KernelEmitterRegistry {
public:
  void add(std::unique_ptr<KernelEmitter> emitter) {
    emitters.push_back(std::move(emitter));
  }

  struct Selection {
    /// The emitter that accepted, or refused (see match.kind); null when
    /// none claims the ops.
    const KernelEmitter *emitter = nullptr;
    EmitterMatch match;
  };

  Selection select(llvm::ArrayRef<mlir::Operation *> ops,
                   llvm::ArrayRef<mlir::Value> outputs) const;
  /// The ops and outputs of `group`'s body.
  Selection select(fuse::GroupOp group) const;

  llvm::ArrayRef<std::unique_ptr<KernelEmitter>> getEmitters() const {
    return emitters;
  }

private:
  std::vector<std::unique_ptr<KernelEmitter>> emitters;
};

/// The built-in emitters, in priority order: row reductions (a group with
/// a reduction), attention (a group with a fuse.attention), GEMM (a group
/// with a matmul or conv2d), tiled transpose (one
/// transpose of the minor dimension with its prologue and epilogue), view
/// (a group that moves data: transpose, slice, concat, gather), loop
/// (elementwise).
const KernelEmitterRegistry &getKernelEmitters();

/// The rows the emitter that compiles `group` gives each thread with
/// `options` (KernelEmitter::windowRows); 1 where none accepts it. The cost
/// model counts a kernel's window loads by it.
int64_t expectedWindowRows(fuse::GroupOp group, const EmitterOptions &options);

/// The built-in emitters, one factory each (KernelEmitters.cpp registers
/// them).
std::unique_ptr<KernelEmitter> createRowEmitter();
std::unique_ptr<KernelEmitter> createAttentionEmitter();
std::unique_ptr<KernelEmitter> createGemmEmitter();
std::unique_ptr<KernelEmitter> createTransposeEmitter();
std::unique_ptr<KernelEmitter> createViewLoopEmitter();
std::unique_ptr<KernelEmitter> createLoopEmitter();

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_KERNELEMITTER_H
