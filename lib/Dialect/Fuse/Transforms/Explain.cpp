//===- Explain.cpp - --fuse-explain remarks, as text and structured -------===//

#include "opfuse/Dialect/Fuse/Transforms/Explain.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Remarks.h"

using namespace mlir;

namespace opfuse::fuse {

void emitStructuredRemark(Operation *op, StringRef pass, ExplainKind kind,
                          StringRef name, const Twine &reason) {
  Location loc = op->getLoc();
  if (!loc->getContext()->getRemarkEngine())
    return;
  // A fused location (an op made of several) is reported at its first
  // file position, which remark consumers can show.
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (isa<FileLineColLoc>(part)) {
        loc = part;
        break;
      }
  auto opts = remark::RemarkOpts::name(name).category(pass);
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    func = op->getParentOfType<func::FuncOp>();
  if (func)
    opts = opts.function(func.getSymName());
  auto text = remark::reason("{0}", reason.str());
  switch (kind) {
  case ExplainKind::Passed:
    remark::passed(loc, opts) << text;
    break;
  case ExplainKind::Missed:
    remark::missed(loc, opts) << text;
    break;
  case ExplainKind::Analysis:
    remark::analysis(loc, opts) << text;
    break;
  }
}

void explainAt(Operation *op, StringRef pass, ExplainKind kind, StringRef name,
               const Twine &message) {
  std::string text = message.str();
  op->emitRemark() << pass << ": " << text;
  emitStructuredRemark(op, pass, kind, name, text);
}

} // namespace opfuse::fuse
