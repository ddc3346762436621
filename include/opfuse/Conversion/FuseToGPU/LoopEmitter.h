//===- LoopEmitter.h - Elementwise kernels from fuse.group ------*- C++ -*-===//
//
// The loop emitter: one gpu.func per group of elementwise and broadcast ops,
// and the scalar lowering of each such op.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_LOOPEMITTER_H
#define OPFUSE_CONVERSION_FUSETOGPU_LOOPEMITTER_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace opfuse {

/// The group attribute listing a kernel's tensor maps: an array of
/// dictionaries {input, dims, strides, box} (TensorMapSpec's fields).
constexpr const char *kTensorMapsAttr = "fuse.tensor_maps";

/// The group attribute naming a persistent wgmma kernel's schedule
/// (LaunchConfig::schedule).
constexpr const char *kGemmScheduleAttr = "fuse.gemm_schedule";

/// A TMA tensor map the host encodes for a kernel: a view of group input
/// `input` with `dims` (innermost first), the byte `strides` of all but
/// the innermost dimension, and the `box` one copy fills, 128-byte
/// swizzled. The kernel takes a pointer to it after its outputs.
struct TensorMapSpec {
  unsigned input = 0;
  llvm::SmallVector<int64_t, 3> dims, strides, box;
};

/// How a kernel is launched: a 1-D grid of 1-D blocks, with `sharedBytes`
/// of dynamic shared memory per block, and the tensor maps it reads
/// operands through, in parameter order.
struct LaunchConfig {
  int64_t grid = 1;
  int64_t block = 1;
  int64_t sharedBytes = 0;
  llvm::SmallVector<TensorMapSpec, 2> tensorMaps;
  /// How a persistent warpgroup-MMA kernel shares its work
  /// ("cooperative", "warp-specialized", "ping-pong"); empty otherwise.
  std::string schedule;
};

/// Whether the loop emitter can compile `op` (inside a group or alone).
bool isLoopEmittable(mlir::Operation *op);

/// Emits `group` as the kernel `name` in `module`, `blockSize` threads a
/// block, each thread owning `vectorsPerThread` vectors when they fill whole
/// blocks (one otherwise); reports an unsupported op or shape at its
/// location and fails.
mlir::FailureOr<LaunchConfig> emitLoopKernel(fuse::GroupOp group,
                                             mlir::gpu::GPUModuleOp module,
                                             llvm::StringRef name,
                                             int64_t blockSize,
                                             int64_t vectorsPerThread);

/// The type a value of element type `type` is computed in: f32 for every
/// float, the type itself otherwise.
mlir::Type getComputeType(mlir::Type type);

/// Lowers the elementwise `op` applied to scalar `operands` (in compute
/// types) to arith/math ops; returns the scalar result in its compute type.
mlir::FailureOr<mlir::Value> emitScalarOp(mlir::OpBuilder &builder,
                                          mlir::Operation *op,
                                          mlir::ValueRange operands);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_LOOPEMITTER_H
