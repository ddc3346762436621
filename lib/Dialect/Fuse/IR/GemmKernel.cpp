//===- GemmKernel.cpp - Ops that form one GEMM kernel ---------------------===//
//
// The epilogue is evaluated on each thread's accumulators, element by
// element, so every value in it must be one per output element; smaller
// values (a bias) enter only as kernel inputs read by broadcast.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace opfuse::fuse {

bool isContraction(Operation *op) { return isa<MatmulOp>(op); }

GemmShape getGemmShape(MatmulOp matmul) {
  RankedTensorType result = matmul.getType();
  const int64_t rank = result.getRank();
  GemmShape shape;
  shape.m = result.getDimSize(rank - 2);
  shape.n = result.getDimSize(rank - 1);
  shape.k = matmul.getContractionSize();
  for (int64_t d = 0; d + 2 < rank; ++d)
    shape.batch *= result.getDimSize(d);
  return shape;
}

std::optional<MatmulOp> analyzeGemmKernel(ArrayRef<Operation *> ops,
                                          std::string &why) {
  llvm::DenseSet<Operation *> members(ops.begin(), ops.end());
  MatmulOp matmul;
  for (Operation *op : ops) {
    if (!isContraction(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp();
          producer && members.contains(producer)) {
        why = describeOp(producer) + " produces an operand of " +
              describeOp(op) +
              "; a GEMM kernel reads its operands from memory (no prologue "
              "fusion)";
        return std::nullopt;
      }
    if (matmul) {
      why = "a kernel holds one matmul; " + describeOp(op) +
            " would be the second";
      return std::nullopt;
    }
    matmul = cast<MatmulOp>(op);
  }
  if (!matmul) {
    why = "the kernel holds no matmul";
    return std::nullopt;
  }
  RankedTensorType output = matmul.getType();
  for (Operation *op : ops) {
    if (op == matmul.getOperation() || isSplatConstant(op))
      continue;
    if (!isElementwise(op)) {
      why = describeOp(op) + " cannot run in a GEMM epilogue (only "
                             "elementwise ops can)";
      return std::nullopt;
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (type.getShape() != output.getShape()) {
      why = describeOp(op) + " has shape " + formatShape(type.getShape()) +
            " but the matmul's output is " + formatShape(output.getShape()) +
            "; an epilogue computes one value per output element";
      return std::nullopt;
    }
  }
  return matmul;
}

} // namespace opfuse::fuse
