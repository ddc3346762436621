//===- KernelEmitters.cpp - The registry of kernel emitters ---------------===//
//
// The built-in emitters in priority order, the selection both fusion and
// convert-fuse-to-gpu use, and the checks of the emitters' options.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "opfuse/Conversion/FuseToGPU/MatmulTiling.h"

#include "AttentionEmission.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

KernelEmitter::~KernelEmitter() = default;

KernelEmitterRegistry::Selection
KernelEmitterRegistry::select(ArrayRef<Operation *> ops,
                              ArrayRef<Value> outputs) const {
  for (const std::unique_ptr<KernelEmitter> &emitter : emitters) {
    EmitterMatch match = emitter->match(ops, outputs);
    if (match.kind != EmitterMatch::Kind::NotMine)
      return {emitter.get(), std::move(match)};
  }
  return {};
}

KernelEmitterRegistry::Selection
KernelEmitterRegistry::select(GroupOp group) const {
  Block &body = group.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  return select(ops, llvm::to_vector(body.getTerminator()->getOperands()));
}

int64_t expectedWindowRows(GroupOp group, const EmitterOptions &options) {
  KernelEmitterRegistry::Selection selection =
      getKernelEmitters().select(group);
  if (!selection.emitter ||
      selection.match.kind != EmitterMatch::Kind::Accepted)
    return 1;
  // The view emitter learns a kernel's lanes by emitting one vector into a
  // scratch module: asked before convert-fuse-to-gpu has run (the report),
  // the context needs the pass's dialects.
  group->getContext()
      ->loadDialect<arith::ArithDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                    math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                    NVVM::NVVMDialect, vector::VectorDialect>();
  return selection.emitter->windowRows(group, options);
}

const KernelEmitterRegistry &getKernelEmitters() {
  static const KernelEmitterRegistry registry = [] {
    KernelEmitterRegistry emitters;
    // A reduction makes a row kernel, except beside a contraction (a GEMM's
    // prologue statistics; the GEMM emitter refuses any other); an
    // attention makes an attention kernel, another contraction a GEMM; a
    // transpose of the minor dimension a tiled transpose, other data movement a
    // view kernel; the loop emitter takes what is left.
    emitters.add(createRowEmitter());
    emitters.add(createAttentionEmitter());
    emitters.add(createGemmEmitter());
    emitters.add(createTransposeEmitter());
    emitters.add(createViewLoopEmitter());
    emitters.add(createLoopEmitter());
    return emitters;
  }();
  return registry;
}

std::optional<std::string> checkEmitterOptions(const EmitterOptions &options) {
  const int64_t block = options.blockSize;
  if (block < 32 || block > 1024 || block % 32 != 0)
    return "block-size=" + std::to_string(block) +
           ": threads per block must be a multiple of 32 from 32 to 1024";
  const int64_t vectors = options.vectorsPerThread;
  if (vectors != 1 && vectors != 2 && vectors != 4)
    return "vectors-per-thread=" + std::to_string(vectors) +
           ": must be 1, 2 or 4";
  const int64_t rows = options.windowRows;
  if (rows != 0 && rows != 1 && rows != 2 && rows != 4 && rows != 8)
    return "window-rows=" + std::to_string(rows) +
           ": must be 0 (auto), 1, 2, 4 or 8";
  const int64_t row = options.rowElementsPerThread;
  if (row != 8 && row != 16 && row != 32 && row != 64)
    return "row-elements-per-thread=" + std::to_string(row) +
           ": must be 8, 16, 32 or 64";
  if (options.maxGridBlocks < 1 ||
      options.maxGridBlocks > EmitterOptions::kMaxGridBlocks)
    return "max-grid-blocks=" + std::to_string(options.maxGridBlocks) +
           ": must be from 1 to 2^31-1 (CUDA's grid)";
  if (options.numerics != "default" && options.numerics != "strict")
    return "numerics=" + options.numerics + ": expected default or strict";
  std::string error;
  if (options.attentionTiling != "auto" &&
      !attention::parseAttentionTiling(options.attentionTiling, error))
    return "attention-tiling: " + error;
  if (options.matmulTiling != "auto" &&
      !parseMatmulTiling(options.matmulTiling, error))
    return "matmul-tiling: " + error;
  return std::nullopt;
}

} // namespace opfuse
