//===- MatmulEmitter.h - Tensor-core GEMM kernels from fuse.group -*- C++ -*-=//
//
// The GEMM emitter: one gpu.func per group holding a fuse.matmul or a
// fuse.conv2d and its elementwise epilogue
// (opfuse/Dialect/Fuse/IR/GemmKernel.h).
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_MATMULEMITTER_H
#define OPFUSE_CONVERSION_FUSETOGPU_MATMULEMITTER_H

#include "opfuse/Conversion/FuseToGPU/LoopEmitter.h"
#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"

#include <string>

namespace opfuse {

/// Whether `group` holds a matmul, so that the matmul emitter compiles it.
bool isGemmKernel(fuse::GroupOp group);

/// Emits `group` as the kernel `name` in `module`: bf16/f16 operands on
/// tensor cores (mma.sync m16n8k16, f32 accumulators) fed from shared memory
/// by ldmatrix, with cp.async copies `tiling.stages - 1` K-slices ahead;
/// the epilogue applies the group's elementwise ops to the accumulators and
/// stores each output once. Shapes that are not multiples of the tile are
/// handled by zero-filled copies and guarded stores. Reports an unsupported
/// op, element type or tiling and fails.
///
/// f32 operands run on the mma.sync kernel's pipeline with fragments read
/// by plain shared loads: with `allowTF32` on tensor cores as TF32
/// (mma.sync m16n8k8, inputs rounded to 10-bit mantissas), otherwise as f32
/// FMAs on the CUDA cores (each thread computing the same accumulator
/// elements an MMA would give it).
///
/// With warpgroup MMA and a `target`, the kernel is persistent: as many
/// blocks as the target's SMs hold at once (at most one per tile) each
/// walk every grid-th tile, and copy the next tile's first slices before
/// the current tile's epilogue.
///
/// With warpgroup MMA and `useTma`, one thread copies each K slice with
/// TMA (cp.async.bulk.tensor, counted by an mbarrier per stage) when both
/// operands allow a tensor map (tmaOperandFor); the kernel then takes one
/// pointer per map after its outputs, and the LaunchConfig lists them. With
/// `warpSpecialize`, a persistent TMA kernel with two MMA warpgroups is
/// warp-specialised: a third warpgroup's first thread issues every copy,
/// and stages are handed back through mbarriers instead of block-wide
/// barriers. With `pingPong` as well, and at most 128 columns, each MMA
/// warpgroup owns every other tile of the block (ping-pong consumers).
/// The LaunchConfig names the schedule.
mlir::FailureOr<LaunchConfig> emitGemmKernel(fuse::GroupOp group,
                                             mlir::gpu::GPUModuleOp module,
                                             llvm::StringRef name,
                                             const MatmulTiling &tiling,
                                             bool allowTF32 = false,
                                             const GpuTarget *target = nullptr,
                                             bool useTma = false,
                                             bool warpSpecialize = false,
                                             bool pingPong = false);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_MATMULEMITTER_H
