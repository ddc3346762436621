//===- RowEmitter.h - Row-reduction kernels from fuse.group -----*- C++ -*-===//
//
// The row emitter: one gpu.func per group holding reductions (softmax,
// layer_norm and rms_norm after fuse-decompose, reduce_* with their
// prologues and epilogues).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_ROWEMITTER_H
#define OPFUSE_CONVERSION_FUSETOGPU_ROWEMITTER_H

#include "opfuse/Conversion/FuseToGPU/LoopEmitter.h"

namespace opfuse {

/// Whether `group` holds a reduction, so that the row emitter compiles it.
bool isRowKernel(fuse::GroupOp group);

/// Emits `group` as the kernel `name` in `module`. Rows of the reductions'
/// iteration space are spread over a power-of-two number of threads (a
/// segment of a warp, a warp, or a block), each holding up to
/// `elementsPerThread` elements of its row in registers; longer rows are
/// streamed in passes. Blocks hold `blockSize` threads when rows are short.
/// A lone reduction over dimensions that are not the trailing ones puts 32
/// neighbouring results on a warp's lanes and splits each result's reduced
/// elements over up to 32 warps. Reports an unsupported op or shape and fails.
mlir::FailureOr<LaunchConfig> emitRowKernel(fuse::GroupOp group,
                                            mlir::gpu::GPUModuleOp module,
                                            llvm::StringRef name,
                                            int64_t blockSize,
                                            int64_t elementsPerThread);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_ROWEMITTER_H
