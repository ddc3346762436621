//===- PtxasWorkarounds.cpp - LLVM IR that ptxas compiles right -----------===//
//
// Flipping the sign bit maps the signed order onto the unsigned one, so
// smax(a, b) == umax(a ^ S, b ^ S) ^ S for S the sign mask; ptxas keeps
// negations explicit in front of unsigned min/max (and turns the xor into
// the add of VIADDMNMX), which is what makes the rewrite a workaround.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/PtxasWorkarounds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {
/// The largest integer width whose signed min/max ptxas turns into VIMNMX3.
constexpr unsigned kAffectedBits = 32;

bool isAffected(const MinMaxIntrinsic &call) {
  if (!call.isSigned())
    return false;
  auto *element = dyn_cast<IntegerType>(call.getType()->getScalarType());
  return element && element->getBitWidth() <= kAffectedBits;
}
} // namespace

unsigned opfuse::rewriteSignedMinMaxForPtxas(Module &module) {
  SmallVector<MinMaxIntrinsic *> calls;
  for (Function &function : module)
    for (Instruction &inst : instructions(function))
      if (auto *call = dyn_cast<MinMaxIntrinsic>(&inst);
          call && isAffected(*call))
        calls.push_back(call);

  for (MinMaxIntrinsic *call : calls) {
    IRBuilder<> builder(call);
    Type *type = call->getType();
    Constant *sign =
        ConstantInt::get(type, APInt::getSignMask(type->getScalarSizeInBits()));
    Intrinsic::ID unsignedId = call->getIntrinsicID() == Intrinsic::smax
                                   ? Intrinsic::umax
                                   : Intrinsic::umin;
    Value *lhs = builder.CreateXor(call->getLHS(), sign);
    Value *rhs = builder.CreateXor(call->getRHS(), sign);
    Value *result = builder.CreateXor(
        builder.CreateBinaryIntrinsic(unsignedId, lhs, rhs), sign);
    result->takeName(call);
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
  return calls.size();
}
