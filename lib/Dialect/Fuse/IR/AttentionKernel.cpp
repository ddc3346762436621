//===- AttentionKernel.cpp - What the fused attention kernel computes -----===//

#include "opfuse/Dialect/Fuse/IR/AttentionKernel.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace opfuse::fuse {

std::optional<std::string> whyNoAttentionKernel(AttentionOp op) {
  Type element = op.getQ().getType().getElementType();
  if (!element.isBF16() && !element.isF16())
    return llvm::formatv("the fused attention kernel takes bf16 or f16 "
                         "operands, not {0}",
                         element)
        .str();
  const int64_t d = op.getQ().getType().getDimSize(3);
  const int64_t dv = op.getV().getType().getDimSize(3);
  for (auto [name, size] : {std::pair{"D", d}, std::pair{"Dv", dv}})
    if (size % 16 != 0 || size > kMaxAttentionHeadDim)
      return llvm::formatv("the fused attention kernel takes head "
                           "dimensions that are multiples of 16 up to {0}; "
                           "{1} is {2}",
                           kMaxAttentionHeadDim, name, size)
          .str();
  for (Value value : op->getOperands())
    if (llvm::is_contained(cast<RankedTensorType>(value.getType()).getShape(),
                           0))
      return std::string("an operand of the attention is empty");
  return std::nullopt;
}

} // namespace opfuse::fuse
