//===- GridDependencies.cpp - Early launch of dependent kernels -----------===//
//
// The waits and triggers of programmatic dependent launch; which inputs a
// kernel may read before its wait.
//
//===----------------------------------------------------------------------===//

#include "GridDependencies.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace opfuse {

namespace {

constexpr llvm::StringLiteral kWait = "griddepcontrol.wait;";
constexpr llvm::StringLiteral kLaunchDependents =
    "griddepcontrol.launch_dependents;";

void emitBarrierAsm(OpBuilder &b, Location loc, StringRef text) {
  LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{}, text,
                            "~{memory}", /*has_side_effects=*/true,
                            /*is_align_stack=*/false, LLVM::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

} // namespace

bool hasGridDependencyControl(StringRef chip) {
  unsigned version = 0;
  if (!chip.consume_front("sm_"))
    return false;
  chip.consume_back("a");
  return !chip.getAsInteger(10, version) && version >= 90;
}

void emitWaitForPriorGrids(OpBuilder &b, Location loc) {
  emitBarrierAsm(b, loc, kWait);
}

void emitLaunchDependents(OpBuilder &b, Location loc) {
  emitBarrierAsm(b, loc, kLaunchDependents);
}

bool waitsForPriorGrids(gpu::GPUFuncOp kernel) {
  bool found = false;
  kernel.walk([&](LLVM::InlineAsmOp op) {
    if (op.getAsmString() == kWait) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

void waitAtEntry(gpu::GPUFuncOp kernel) {
  if (waitsForPriorGrids(kernel))
    return;
  OpBuilder b(kernel.getContext());
  b.setInsertionPointToStart(&kernel.getBody().front());
  emitWaitForPriorGrids(b, kernel.getLoc());
  emitLaunchDependents(b, kernel.getLoc());
}

bool isModelInput(fuse::GroupOp group, BlockArgument input) {
  if (input.getOwner()->getParentOp() != group.getOperation())
    return false;
  auto argument =
      dyn_cast<BlockArgument>(group->getOperand(input.getArgNumber()));
  return argument && isa<func::FuncOp>(argument.getOwner()->getParentOp());
}

} // namespace opfuse
