//===- AttentionKernel.cpp - What the fused attention kernel computes -----===//

#include "opfuse/Dialect/Fuse/IR/AttentionKernel.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace opfuse::fuse {

std::optional<std::string> whyNoAttentionKernel(AttentionOp op) {
  return whyNoAttentionKernel(op.getQ().getType(), op.getK().getType(),
                              op.getV().getType());
}

std::optional<std::string> whyNoAttentionKernel(RankedTensorType q,
                                                RankedTensorType k,
                                                RankedTensorType v) {
  Type element = q.getElementType();
  if (!element.isBF16() && !element.isF16())
    return llvm::formatv("the fused attention kernel takes bf16 or f16 "
                         "operands, not {0}",
                         element)
        .str();
  const int64_t d = q.getShape().back();
  const int64_t dv = v.getShape().back();
  for (auto [name, size] : {std::pair{"D", d}, std::pair{"Dv", dv}})
    if (size % 16 != 0 || size > kMaxAttentionHeadDim)
      return llvm::formatv("the fused attention kernel takes head "
                           "dimensions that are multiples of 16 up to {0}; "
                           "{1} is {2}",
                           kMaxAttentionHeadDim, name, size)
          .str();
  for (RankedTensorType type : {q, k, v})
    if (llvm::is_contained(type.getShape(), 0))
      return std::string("an operand of the attention is empty");
  return std::nullopt;
}

} // namespace opfuse::fuse
