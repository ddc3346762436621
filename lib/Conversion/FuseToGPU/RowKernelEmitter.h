//===- RowKernelEmitter.h - The row-reduction kernel's emitter --*- C++ -*-===//
//
// Shared by the files of the row emitter: RowEmitter.cpp (values, passes
// over the row, outputs), RowCombine.cpp (reductions across threads) and
// RowLayout.cpp (how rows map onto threads). Not a public header.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_ROWKERNELEMITTER_H
#define OPFUSE_CONVERSION_FUSETOGPU_ROWKERNELEMITTER_H

#include "opfuse/Conversion/FuseToGPU/KernelEmitter.h"

#include "GroupEvaluator.h"
#include "KernelBuilder.h"

#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/bit.h"

namespace opfuse::row_kernel {

using namespace mlir;
using namespace opfuse::fuse;

constexpr int64_t kWarpSize = 32;
constexpr int64_t kMaxThreadsPerRow = 1024;

/// How rows map onto threads.
struct RowLayout {
  int64_t rows = 0, rowLength = 0;
  int64_t vec = 1;           // elements per vector
  int64_t vectorsPerRow = 0; // rowLength / vec
  int64_t threadsPerRow = 1; // a power of two
  int64_t rowsPerBlock = 1;
  int64_t positions = 1;  // vectors a thread holds (registers)
  bool streaming = false; // one pass over the row per reduction level
  int64_t unroll = 1;     // streaming: positions per loop iteration
  // Rows over leading (or scattered) dimensions: neighbouring lanes take
  // neighbouring rows (neighbouring addresses when the kept dimensions are
  // the inner ones), and the row's threads, rowsPerBlock lanes apart, each
  // walk a slice of the reduced elements.
  bool strided = false;
  // The output pass computes every position of a thread (of a loop
  // iteration, when streaming) before it stores any, so that the loads it
  // still needs are in flight together. Only for grids of at most half the
  // threads the GPU holds at once: there no other warp hides the latency,
  // and the registers it takes cost no occupancy that was used.
  bool storeAfterAll = false;
  // With storeAfterAll and registers: what the outputs need that depends on
  // no reduction (a norm's scale) is evaluated before the first reduction,
  // when every input's vectors fit in half the registers a thread may have.
  bool earlyOutputLoads = false;
};

inline int64_t powerOfTwoAtLeast(int64_t value) {
  return static_cast<int64_t>(
      llvm::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(value, 1))));
}

enum class Combine { Sum, Max };

inline Combine combineOf(Operation *reduction) {
  return isa<ReduceMaxOp>(reduction) ? Combine::Max : Combine::Sum;
}

/// One vector of a row: where it is and what has been computed for it.
struct Position {
  Value valid;        // null when always inside the row
  Value elementIndex; // linear index of its first element in the input
  GroupEvaluator::Memo values;
  DenseMap<int, SmallVector<Value>> contextIndices;
};

class RowKernelEmitter {
  friend class PositionEvaluator;
  friend class RowScalarEvaluator;

public:
  RowKernelEmitter(GroupOp group, RowKernelInfo info, RowLayout layout,
                   OpBuilder &b, Location loc, Type indexType,
                   const LaunchConfig &launch, bool strictNumerics)
      : group(group), body(group.getBody().front()), info(std::move(info)),
        layout(layout), b(b), loc(loc), kb(b, loc, indexType), launch(launch) {
    kb.setStrictNumerics(strictNumerics);
  }

  LogicalResult emit(gpu::GPUFuncOp func);

private:
  // Threads and rows.
  void emitRowIndices();
  Position makePosition(Value vectorIndex, bool mayBeOutside);
  /// Strided mode: the input offset of element `index` of the kept
  /// dimensions (the row) or of the reduced ones (the column), each
  /// enumerated in row-major order.
  Value stridedOffset(Value index, bool reduced);

  // Values.
  FailureOr<SmallVector<Value>> evaluate(Value value, Position &position,
                                         int context);
  FailureOr<Value> rowScalar(Value value);
  /// Register layout: evaluates at every position what the element outputs
  /// need that depends on no reduction (their inputs' loads first).
  LogicalResult loadOutputInputsEarly();
  FailureOr<SmallVector<Value>> loadBroadcast(BlockArgument argument,
                                              Position &position, int context);
  int intern(ArrayRef<int64_t> shape);

  // Reductions.
  /// Folds `reductions` (none depends on another) in one pass over the row
  /// and combines them across threads with one barrier.
  LogicalResult emitReductions(ArrayRef<Operation *> reductions);
  /// The level of the deepest reduction `value` depends on inside the
  /// group, its own when it is a reduction's result (-1: none). A reduction
  /// is one level above the deepest one its input depends on.
  int levelOf(Value value);
  /// Computes every per-row value that depends on reductions up to `level`.
  LogicalResult emitRowValuesUpTo(int level);

  // Division by a per-row value (RowDivision.cpp).
  /// The divisor of `op` when it divides an element by a per-row (or
  /// kernel-wide) float outside strict numerics; null otherwise.
  Value rowDivisor(Operation *op);
  /// The reciprocals of the divisors that depend on reductions up to
  /// `level`, once per thread outside any pass.
  LogicalResult emitRowReciprocals(int level);
  struct RowReciprocal;
  /// The reciprocal emitRowReciprocals computed for `op`'s divisor, or null
  /// when `op` divides with div.rn.
  const RowReciprocal *rowReciprocalOf(Operation *op);
  /// `dividend`'s lanes divided by `row`'s divisor through its reciprocal:
  /// correctly rounded, or (`roundedTo16Bits`: the quotient is rounded to
  /// f16 or bf16 before anything sees more of it) within about an f32 ulp.
  SmallVector<Value> divideByRow(const RowReciprocal &row,
                                 ArrayRef<Value> dividend,
                                 bool roundedTo16Bits);
  Value identity(Combine combine, Type type);
  Value combine(Combine kind, Value lhs, Value rhs);
  Value combineAll(Combine kind, SmallVector<Value> values);
  Value shuffleXor(Value value, int64_t offset);
  /// Combines each partial across its row's threads: xor shuffles within a
  /// warp, then one shared-memory slot per warp; one barrier for all.
  SmallVector<Value> combineAcrossThreads(ArrayRef<Combine> kinds,
                                          ArrayRef<Value> partials);
  /// Strided mode: a row's threads are one lane in each warp; every thread
  /// leaves its partial in shared memory and reads its row's column.
  SmallVector<Value> combineAcrossWarps(ArrayRef<Combine> kinds,
                                        ArrayRef<Value> partials);

  // Outputs.
  /// A position's per-element outputs, computed and not stored yet.
  struct PendingStores {
    Value valid, elementIndex;
    SmallVector<std::pair<unsigned, SmallVector<Value>>> outputs;
  };
  FailureOr<PendingStores> evaluateElementOutputs(Position &position);
  void storeElementOutputs(ArrayRef<PendingStores> pending);
  LogicalResult emitOutputs();

  /// Runs `fn` once per vector of this thread's row: unrolled over the
  /// register positions, or in an scf.for whose iterations each build a
  /// fresh position (streaming). `carried` values are threaded through the
  /// loop; `fn` returns their new values. `afterGroup` runs after the last
  /// register position, or at the end of each iteration.
  FailureOr<SmallVector<Value>> forEachPosition(
      ValueRange carried,
      function_ref<FailureOr<SmallVector<Value>>(Position &, ValueRange)> fn,
      function_ref<void()> afterGroup = nullptr);

  Value guard(Value a, Value c) {
    if (!a)
      return c;
    if (!c)
      return a;
    return arith::AndIOp::create(b, loc, a, c);
  }

  GroupOp group;
  Block &body;
  RowKernelInfo info;
  RowLayout layout;
  OpBuilder &b;
  Location loc;
  KernelBuilder kb;
  /// The grid and the blocks of rows it walks (more: a grid-stride loop).
  LaunchConfig launch;
  gpu::GPUFuncOp func;

  Value thread, laneInRow, rowInBlock, row, rowValid;
  Value stridedRowOffset; // strided mode: the row's first input element
  SmallVector<SmallVector<int64_t>> contexts;
  /// Per-row values (reductions' results and what is computed from them),
  /// one lane each, context 0.
  GroupEvaluator::Memo rowScalars;
  DenseMap<Value, int> levels;
  SmallVector<Position> registers;
  /// A per-row divisor's scale s (1, or 2^64 or 2^-64 to make it normal),
  /// b = s times the divisor, y = 1/b, and y or NaN (RowDivision.cpp).
  struct RowReciprocal {
    Value scale, divisor, reciprocal, correction;
  };
  DenseMap<Value, RowReciprocal> reciprocals;
};

/// The layout of `group`'s rows and what its values are per element, per
/// row or broadcast. Fails, at the group, on what the row kernel cannot
/// run.
struct RowPlan {
  RowKernelInfo info;
  RowLayout layout;
};

FailureOr<RowPlan> planRowKernel(GroupOp group, const EmitContext &context);

} // namespace opfuse::row_kernel

#endif // OPFUSE_CONVERSION_FUSETOGPU_ROWKERNELEMITTER_H
