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

bool isContraction(Operation *op) { return isa<MatmulOp, Conv2DOp>(op); }

GemmShape getGemmShape(Operation *op) {
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    ArrayRef<int64_t> out = conv.getType().getShape();
    ArrayRef<int64_t> filter = conv.getFilter().getType().getShape();
    GemmShape shape;
    shape.m = out[0] * out[1] * out[2];
    shape.n = out[3];
    shape.k = filter[1] * filter[2] * filter[3];
    return shape;
  }
  auto matmul = cast<MatmulOp>(op);
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

Operation *analyzeGemmKernel(ArrayRef<Operation *> ops, std::string &why) {
  llvm::DenseSet<Operation *> members(ops.begin(), ops.end());
  Operation *contraction = nullptr;
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
        return nullptr;
      }
    if (contraction) {
      why = "a kernel holds one matmul or conv2d; " + describeOp(op) +
            " would be the second";
      return nullptr;
    }
    contraction = op;
  }
  if (!contraction) {
    why = "the kernel holds no matmul or conv2d";
    return nullptr;
  }
  auto output = cast<RankedTensorType>(contraction->getResult(0).getType());
  for (Operation *op : ops) {
    if (op == contraction || isSplatConstant(op))
      continue;
    if (!isElementwise(op)) {
      why = describeOp(op) + " cannot run in a GEMM epilogue (only "
                             "elementwise ops can)";
      return nullptr;
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (type.getShape() != output.getShape()) {
      why = describeOp(op) + " has shape " + formatShape(type.getShape()) +
            " but the " + contraction->getName().stripDialect().str() +
            "'s output is " + formatShape(output.getShape()) +
            "; an epilogue computes one value per output element";
      return nullptr;
    }
  }
  return contraction;
}

} // namespace opfuse::fuse
