//===- GemmPrologueReader.h - A GEMM prologue's inputs ---------*- C++ -*-===//
//
// A GEMM prologue evaluates its ops at elements of A: per K slice in shared
// memory (GemmPrologue.cpp) and, for its per-row statistics, over whole
// rows from memory (GemmPrologueStatistics.cpp). Both read the prologue's
// other inputs at each element's broadcast index in the same way.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMPROLOGUEREADER_H
#define OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMPROLOGUEREADER_H

#include "GemmEmission.h"
#include "GroupEvaluator.h"

namespace opfuse::gemm {

/// The inputs of the prologue of `k`'s group (in tile `c`) and how each
/// is read over A's index space.
class PrologueReader {
public:
  static mlir::FailureOr<PrologueReader> create(GemmKernelEmission &k,
                                                const TileCoordinates &c);

  /// A's indices of row `mIn` (inside A) and column `kIndex` (i32).
  llvm::SmallVector<Value> indicesAt(Value mIn, Value kIndex) const;

  /// Seeds `evaluator` with the lanes of every input but the source at
  /// columns [kFirst, kFirst + lanes) of row `mIn`: loads clamped inside
  /// the tensor, a broadcast input's one element in every lane.
  void seedInputs(GroupEvaluator &evaluator, Value mIn, Value kFirst) const;
  /// The same lanes, to seed later (loaded ahead of the slice).
  PrologueInputLanes loadInputs(Value mIn, Value kFirst) const;

  /// The source's `lanes` elements from memory at columns [kFirst, kFirst +
  /// lanes) of row `mIn`, clamped inside A as seedInputs' loads are (the
  /// statistics pass; the slice reads its copy in shared memory).
  llvm::SmallVector<Value> loadSource(Value mIn, Value kFirst) const;

  /// Elements per 16-byte chunk of A.
  int64_t lanes = 0;

private:
  /// An input other than the source, and how it is read.
  struct Input {
    mlir::BlockArgument argument;
    mlir::Type elementType;
    InputAccess access;
  };

  explicit PrologueReader(GemmKernelEmission &k) : k(&k) {}
  llvm::SmallVector<Value> loadAt(const Input &input, Value mIn,
                                  Value kFirst) const;

  GemmKernelEmission *k;
  llvm::SmallVector<Input> inputs;
  Input source;
  llvm::SmallVector<Value> batchIndices;
  bool wholeChunks = false;
};

} // namespace opfuse::gemm

#endif // OPFUSE_LIB_CONVERSION_FUSETOGPU_GEMMPROLOGUEREADER_H
