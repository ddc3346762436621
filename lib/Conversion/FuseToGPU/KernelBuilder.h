//===- KernelBuilder.h - Loads, stores and indices for emitters -*- C++ -*-===//
//
// What the loop and row emitters share: how elements are stored in device
// memory, how a smaller input is read by broadcast, and a builder for the
// global loads, stores and index arithmetic of one gpu.func.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_KERNELBUILDER_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_KERNELBUILDER_H

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"
#include "opfuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace opfuse {

/// How device memory stores an element: i1 as a byte.
mlir::Type getStorageType(mlir::Type type);

/// A smaller group input seen from the layout (a full-size shape) it is
/// broadcast into.
struct InputAccess {
  /// Element stride of each layout dimension in the input (0 where the
  /// input broadcasts).
  llvm::SmallVector<int64_t> strides;
  bool isScalar = false;        // one element for the whole kernel
  bool innerContiguous = false; // its innermost dimension is not broadcast
};

/// How input #`index` of `group`, of type `input`, is read when broadcast to
/// `space`. The op verifiers already guarantee that inputs broadcast; the
/// errors guard hand-written groups of foreign shape.
mlir::FailureOr<InputAccess> analyzeInput(fuse::GroupOp group,
                                          mlir::RankedTensorType input,
                                          llvm::ArrayRef<int64_t> space,
                                          unsigned index);

/// Lanes of a 16-byte vector of the widest element `group` reads or writes.
int64_t vectorLanes(fuse::GroupOp group);

/// i32 when `elements` fit in 31 bits, else i64: the kernel's index type.
mlir::Type indexTypeFor(mlir::MLIRContext *context, int64_t elements);
/// The index type of a kernel that addresses `group`'s inputs and outputs
/// directly: wide enough for the largest of them.
mlir::Type indexTypeForBuffers(fuse::GroupOp group);

/// The address (built at `b`'s insertion point, in a kernel of `module`) of
/// the dynamic shared memory the tensor-core kernels keep their tiles in,
/// declared once per module, 1024-byte aligned.
mlir::Value dynamicSharedMemory(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::gpu::GPUModuleOp module);

/// A new kernel `name` at the end of `module`, one global pointer argument
/// per input and then per output of `group`, then `extraPointers` more
/// (tensor maps), known to run `threads` per block; its body holds only
/// the gpu.return.
mlir::gpu::GPUFuncOp createKernel(mlir::OpBuilder &b, fuse::GroupOp group,
                                  mlir::gpu::GPUModuleOp module,
                                  llvm::StringRef name, int64_t threads,
                                  unsigned extraPointers = 0);

/// A splat fuse.constant as one scalar of its compute type.
mlir::Value splatScalar(mlir::OpBuilder &b, fuse::ConstantOp constant);

/// Row-major element strides of `shape`.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Leaves `b` at the start of `loop`'s body, its terminator removed
/// (scf::ForOp::create adds a yield only without carried values), for a
/// body that yields its own; returns the body.
inline mlir::Block *openLoopBody(mlir::OpBuilder &b, mlir::scf::ForOp loop) {
  mlir::Block *body = loop.getBody();
  if (!body->empty())
    body->getTerminator()->erase();
  b.setInsertionPointToStart(body);
  return body;
}

/// Builds a kernel body; owns the builder state of one gpu.func.
class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc, mlir::Type indexType)
      : b(b), loc(loc), indexType(indexType) {}

  mlir::Type getIndexType() const { return indexType; }

  /// Whether the kernel rounds every f16/bf16 op result to its type
  /// (--numerics=strict); the group evaluators read it.
  bool strictNumerics() const { return strict; }
  void setStrictNumerics(bool value) { strict = value; }

  /// An index-typed constant.
  mlir::Value constant(int64_t value);
  /// The thread's index in its block and the block's in the grid, x only
  /// (every kernel is a 1-D grid of 1-D blocks), index-typed.
  mlir::Value threadId();
  mlir::Value blockId();
  /// The first vector this thread owns when each block owns
  /// `vectorsPerBlock` consecutive ones: block * vectorsPerBlock + thread,
  /// for the block's index, or with `blocks` of work on a grid of `grid`,
  /// its logical block (logicalBlock).
  mlir::Value firstVector(int64_t vectorsPerBlock, int64_t blocks = 0,
                          int64_t grid = 0);
  /// The same for the blocks of work and grid of `launch`.
  mlir::Value firstVector(int64_t vectorsPerBlock, const LaunchConfig &launch) {
    return firstVector(vectorsPerBlock, launch.blocks, launch.grid);
  }
  /// The logical block (index-typed) this block computes, of `blocks`,
  /// on a grid of `grid` blocks: its index when the grid has one block per
  /// logical block; otherwise (a grid capped at CUDA's 2^31-1 blocks, or at
  /// --max-grid-blocks) the induction variable of a grid-stride loop over
  /// them, which the builder is left inside (before the block barrier that
  /// ends each iteration). The loop's trip count is the same for every
  /// thread of a block, so barriers and shuffles in it stay uniform.
  mlir::Value logicalBlock(int64_t blocks, int64_t grid);
  mlir::Value logicalBlock(const LaunchConfig &launch) {
    return logicalBlock(launch.blocks, launch.grid);
  }

  mlir::Value pointerAt(mlir::Value base, mlir::Type elementType,
                        mlir::Value index);

  /// Loads `count` consecutive elements at `index`, as compute-type scalars.
  llvm::SmallVector<mlir::Value> load(mlir::Value base, mlir::Type elementType,
                                      mlir::Value index, int64_t count);

  /// Stores compute-type `lanes` as consecutive elements at `index`.
  void store(mlir::Value base, mlir::Type elementType, mlir::Value index,
             llvm::ArrayRef<mlir::Value> lanes);

  /// Compute-type `lanes` converted to `elementType`'s storage and packed
  /// into one integer, lane 0 in the low bits (two bf16 make an i32).
  mlir::Value packLanes(llvm::ArrayRef<mlir::Value> lanes,
                        mlir::Type elementType);
  /// Stores `words` (integers of one width, from packLanes) as one vector
  /// at element `index` of `base`, aligned to their total size.
  void storePacked(mlir::Value base, mlir::Type elementType, mlir::Value index,
                   llvm::ArrayRef<mlir::Value> words);

  /// The index of `linear` along each dimension of `shape` (row-major),
  /// with compile-time divisors.
  llvm::SmallVector<mlir::Value> decompose(mlir::Value linear,
                                           llvm::ArrayRef<int64_t> shape);

  /// The element offset of `access` at the per-dimension `indices`.
  mlir::Value broadcastOffset(const InputAccess &access,
                              llvm::ArrayRef<mlir::Value> indices);

  /// An i32 constant (vector lanes, shuffle offsets).
  mlir::Value i32(int64_t value);

private:
  mlir::Value toCompute(mlir::Value value, mlir::Type elementType);
  mlir::Value toStorage(mlir::Value value, mlir::Type elementType);

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type indexType;
  bool strict = false;
};

} // namespace opfuse

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_KERNELBUILDER_H
