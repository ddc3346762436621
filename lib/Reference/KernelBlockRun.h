//===- KernelBlockRun.h - One block of the kernel interpreter ---*- C++ -*-===//
//
// The state of one block the kernel interpreter runs in lockstep: every
// thread's values, the shared memory with its race bookkeeping, the
// asynchronous copies in flight. KernelInterpreter.cpp steps the ops;
// KernelWarpRun.cpp holds the warp-wide matrix ops and the asynchronous
// copies.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_REFERENCE_KERNELBLOCKRUN_H
#define OPFUSE_LIB_REFERENCE_KERNELBLOCKRUN_H

#include "KernelValues.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <deque>
#include <string>
#include <vector>

namespace opfuse::reference::kernel {

using mlir::ArrayRef;
using mlir::Attribute;
using mlir::Block;
using mlir::failure;
using mlir::FailureOr;
using mlir::function_ref;
using mlir::LogicalResult;
using mlir::MemRefType;
using mlir::Operation;
using mlir::SmallVectorImpl;
using mlir::success;
using mlir::Twine;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;
namespace gpu = mlir::gpu;
namespace LLVM = mlir::LLVM;
namespace NVVM = mlir::NVVM;
namespace scf = mlir::scf;

/// A value of every thread of the block (empty where a thread has none).
using PerThread = std::vector<Lanes>;
using Mask = std::vector<char>;

/// A workgroup attribution, or the dynamic shared memory: its bytes and,
/// per element (per byte for the dynamic one), who last wrote and read it
/// in which barrier interval.
struct Shared {
  MemRefType type;
  std::vector<uint8_t> bytes;
  struct Access {
    int64_t interval = -1;
    int64_t thread = -1; // -2: several threads
  };
  std::vector<Access> lastWrite, lastRead;
};

/// The buffer number of a block's dynamic shared memory (the kernel's
/// llvm.mlir.global in address space 3) in a pointer scalar.
constexpr int kDynamicShared = -2;

/// One cp.async copy a thread issued: `size` bytes to shared memory at
/// `dst`, the first `srcSize` from `src`, the rest zeros.
struct AsyncCopy {
  Scalar dst, src;
  int64_t size = 0, srcSize = 0;
};

class BlockRun {
public:
  BlockRun(std::vector<std::vector<uint8_t>> &buffers,
           std::array<int64_t, 3> block, int64_t blockSize,
           std::array<int64_t, 3> grid, int64_t sharedBytes)
      : buffers(buffers), block(block), blockSize(blockSize), grid(grid),
        asyncOpen(blockSize), asyncCommitted(blockSize) {
    // Garbage, as on the GPU, tracked byte by byte for races.
    dynamicShared.bytes.assign(sharedBytes, 0xff);
    dynamicShared.lastWrite.resize(sharedBytes);
    dynamicShared.lastRead.resize(sharedBytes);
  }

  /// Runs `body`'s ops for the threads of `mask`; an scf.yield's operands
  /// go to `yielded`.
  LogicalResult run(Block &body, const Mask &mask,
                    SmallVectorImpl<PerThread> *yielded = nullptr);

  void bindAll(Value value, const Lanes &lanes) {
    env[value] = PerThread(blockSize, lanes);
  }

  void addShared(Value attribution) {
    Shared s;
    s.type = mlir::cast<MemRefType>(attribution.getType());
    const int64_t n = s.type.getNumElements();
    s.bytes.assign(n * byteSize(s.type.getElementType()), 0xff);
    s.lastWrite.resize(n);
    s.lastRead.resize(n);
    sharedOf[attribution] = shared.size();
    shared.push_back(std::move(s));
  }

  std::string error;

private:
  LogicalResult fail(Operation &op, const Twine &why) {
    llvm::raw_string_ostream os(error);
    os << "thread " << thread << " of block (" << block[0] << ", " << block[1]
       << ", " << block[2] << "): '" << op.getName() << "' " << why;
    return failure();
  }

  const Lanes &get(Value v) { return env[v][thread]; }
  const Scalar &one(Value v) { return env[v][thread].front(); }
  void bind(Value v, Lanes lanes) {
    PerThread &values = env[v];
    if (values.size() != static_cast<size_t>(blockSize))
      values.resize(blockSize);
    values[thread] = std::move(lanes);
  }

  /// Runs `fn` for each thread of `mask` (as `thread`).
  LogicalResult forEach(const Mask &mask, function_ref<LogicalResult()> fn) {
    for (thread = 0; thread < blockSize; ++thread)
      if (mask[thread] && failed(fn()))
        return failure();
    thread = 0;
    return success();
  }

  LogicalResult step(Operation &op, const Mask &mask);

  /// An elementwise arith or math op for every thread of `mask`, lane by
  /// lane; the operands' and the result's values are looked up once.
  LogicalResult laneWise(Operation &op, const Mask &mask);

  LogicalResult runIf(scf::IfOp s, const Mask &mask);

  /// Each thread runs its own trip count; an iteration runs for the
  /// threads still in their loop.
  LogicalResult runFor(scf::ForOp f, const Mask &mask);

  /// A warp's lanes trade values; a lane that reads an inactive one is an
  /// error (its value is undefined on the GPU).
  LogicalResult shuffle(gpu::ShuffleOp s, const Mask &mask);

  /// The element offset of `indices` in a workgroup attribution.
  FailureOr<std::pair<Shared *, int64_t>>
  sharedElement(Operation &op, Value memref, ValueRange indices, int64_t count);

  LogicalResult readShared(Operation &op, Value memref, ValueRange indices,
                           Type type, Value result);

  /// Elements [first, first + count) of `s` read by `thread`: a race when
  /// another thread wrote one since the last barrier.
  LogicalResult noteRead(Operation &op, Shared &s, int64_t first,
                         int64_t count);

  /// The same for a write: a race when another thread read or wrote one.
  LogicalResult noteWrite(Operation &op, Shared &s, int64_t first,
                          int64_t count);

  LogicalResult writeShared(Operation &op, Value memref, ValueRange indices,
                            Value value);

  LogicalResult inlineAsm(LLVM::InlineAsmOp asmOp);

  /// Runs `fn` for each warp of the threads of `mask`, given its first
  /// thread. Warp-wide matrix ops are .sync.aligned: every thread of a
  /// warp executes them together, so a warp partly active is an error.
  LogicalResult forEachWarp(Operation &op, const Mask &mask,
                            function_ref<LogicalResult(int64_t)> fn);

  /// nvvm.shfl.sync as the PTX ISA defines it (clamp and segment mask in
  /// the last operand); a lane that reads an inactive one is an error.
  LogicalResult shfl(NVVM::ShflOp s, const Mask &mask);

  /// nvvm.ldmatrix .m8n8 .b16 from dynamic shared memory.
  LogicalResult ldmatrix(NVVM::LdMatrixOp ld, const Mask &mask);

  /// The 16-bit floats of one mma.sync operand register: an i32 holding
  /// two (the low half first) or a vector of two.
  FailureOr<std::array<double, 2>> halves(Operation &op, Value value,
                                          Type element);

  /// nvvm.mma.sync .m16n8k16 .row.col on bf16 or f16 with f32
  /// accumulators.
  LogicalResult mma(NVVM::MmaOp m, const Mask &mask);

  /// Completes thread `thread`'s oldest committed cp.async group: its
  /// bytes land in shared memory now, written by that thread.
  LogicalResult completeAsyncGroup(Operation &op);

  /// An integer wider than 64 bits (a bitcast's i128 between vectors) is
  /// kept as lanes of its 64-bit words, low first.
  static bool isWide(Type type);

  /// Bytes of `lanes` as `type` stores them.
  std::vector<uint8_t> bytesOf(Type type, const Lanes &lanes);

  /// `bytes` as lanes of `type`.
  Lanes lanesOf(Type type, ArrayRef<uint8_t> bytes);

  /// One op of one thread (`thread`).
  LogicalResult stepThread(Operation &op);
  /// stepThread's LLVM struct, bitcast and address ops and NVVM ops of
  /// asynchronous copies, atomics and fences (KernelWarpRun.cpp).
  LogicalResult stepDeviceOp(Operation &op);

  LogicalResult constant(Operation &op, Attribute value);

  template <typename IdOp> LogicalResult index(IdOp id);

  enum class Access { Read, Write };

  FailureOr<uint8_t *> address(Operation &op, const Scalar &pointer, Type type,
                               uint64_t alignment, Access access);

  /// Where `size` bytes at `pointer` are, checked against the buffer's
  /// bounds and `alignment`; in dynamic shared memory also for races.
  FailureOr<uint8_t *> address(Operation &op, const Scalar &pointer,
                               int64_t size, uint64_t alignment, Access access);

  std::vector<std::vector<uint8_t>> &buffers;
  const std::array<int64_t, 3> block;
  const int64_t blockSize;
  const std::array<int64_t, 3> grid;
  int64_t thread = 0;
  /// Barriers passed so far.
  int64_t interval = 0;
  llvm::DenseMap<Value, PerThread> env;
  std::vector<Shared> shared;
  llvm::DenseMap<Value, size_t> sharedOf;
  /// The block's dynamic shared memory, tracked byte by byte.
  Shared dynamicShared;
  /// Per thread: the cp.async copies since its last commit, and its
  /// committed groups, oldest first, not yet waited for.
  std::vector<std::vector<AsyncCopy>> asyncOpen;
  std::vector<std::deque<std::vector<AsyncCopy>>> asyncCommitted;
};

} // namespace opfuse::reference::kernel

#endif // OPFUSE_LIB_REFERENCE_KERNELBLOCKRUN_H
