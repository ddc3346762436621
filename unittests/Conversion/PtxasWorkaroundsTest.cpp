//===- PtxasWorkaroundsTest.cpp - Signed min/max as unsigned ones ---------===//
//
// The rewrite must compute the same value as the signed min/max for every
// input (evaluated here on the edge values of each width) and touch only
// the widths ptxas miscompiles.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Conversion/FuseToGPU/PtxasWorkarounds.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace {

std::unique_ptr<Module> parse(LLVMContext &context, StringRef source) {
  SMDiagnostic error;
  std::unique_ptr<Module> module = parseAssemblyString(source, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  return module;
}

/// Evaluates a straight-line scalar function of two integer arguments made
/// of xor, sub and min/max intrinsics (what the rewrite produces).
APInt evaluate(Function &function, const APInt &a, const APInt &b) {
  DenseMap<Value *, APInt> values;
  values[function.getArg(0)] = a;
  values[function.getArg(1)] = b;
  auto valueOf = [&](Value *value) -> APInt {
    if (auto *constant = dyn_cast<ConstantInt>(value))
      return constant->getValue();
    return values.at(value);
  };
  for (Instruction &inst : instructions(function)) {
    if (auto *ret = dyn_cast<ReturnInst>(&inst))
      return valueOf(ret->getReturnValue());
    if (auto *call = dyn_cast<MinMaxIntrinsic>(&inst)) {
      APInt lhs = valueOf(call->getLHS()), rhs = valueOf(call->getRHS());
      switch (call->getIntrinsicID()) {
      case Intrinsic::smax:
        values[call] = APIntOps::smax(lhs, rhs);
        break;
      case Intrinsic::smin:
        values[call] = APIntOps::smin(lhs, rhs);
        break;
      case Intrinsic::umax:
        values[call] = APIntOps::umax(lhs, rhs);
        break;
      default:
        values[call] = APIntOps::umin(lhs, rhs);
        break;
      }
      continue;
    }
    auto *binary = cast<BinaryOperator>(&inst);
    APInt lhs = valueOf(binary->getOperand(0));
    APInt rhs = valueOf(binary->getOperand(1));
    values[binary] =
        binary->getOpcode() == Instruction::Xor ? lhs ^ rhs : lhs - rhs;
  }
  ADD_FAILURE() << "no return";
  return a;
}

unsigned countIntrinsic(Module &module, Intrinsic::ID id) {
  unsigned count = 0;
  for (Function &function : module)
    for (Instruction &inst : instructions(function))
      if (auto *call = dyn_cast<IntrinsicInst>(&inst))
        count += call->getIntrinsicID() == id;
  return count;
}

TEST(PtxasWorkaroundsTest, SignedMinMaxBecomeUnsignedWithTheSameValues) {
  for (unsigned bits : {8u, 16u, 32u}) {
    for (StringRef op : {"smax", "smin"}) {
      LLVMContext context;
      std::string type = "i" + std::to_string(bits);
      std::string source =
          "declare " + type + " @llvm." + op.str() + "." + type + "(" + type +
          ", " + type + ")\ndefine " + type + " @f(" + type + " %a, " + type +
          " %b) {\n  %nb = sub " + type + " 0, %b\n  %m = call " + type +
          " @llvm." + op.str() + "." + type + "(" + type + " %a, " + type +
          " %nb)\n  ret " + type + " %m\n}\n";
      std::unique_ptr<Module> reference = parse(context, source);
      std::unique_ptr<Module> rewritten = parse(context, source);
      ASSERT_TRUE(reference && rewritten);
      EXPECT_EQ(opfuse::rewriteSignedMinMaxForPtxas(*rewritten), 1u);
      EXPECT_EQ(countIntrinsic(*rewritten, Intrinsic::smax) +
                    countIntrinsic(*rewritten, Intrinsic::smin),
                0u);
      SmallVector<APInt> edges = {APInt::getSignedMinValue(bits),
                                  APInt::getSignedMinValue(bits) + 1,
                                  APInt::getAllOnes(bits),
                                  APInt::getZero(bits),
                                  APInt(bits, 1),
                                  APInt(bits, 7),
                                  APInt::getSignedMaxValue(bits) - 1,
                                  APInt::getSignedMaxValue(bits)};
      Function &before = *reference->getFunction("f");
      Function &after = *rewritten->getFunction("f");
      for (const APInt &a : edges)
        for (const APInt &b : edges)
          EXPECT_EQ(evaluate(after, a, b), evaluate(before, a, b))
              << op.str() << " i" << bits << " of " << a.getSExtValue()
              << " and -(" << b.getSExtValue() << ")";
    }
  }
}

TEST(PtxasWorkaroundsTest, WiderAndUnsignedAndVectorCalls) {
  LLVMContext context;
  std::unique_ptr<Module> module = parse(context, R"(
    declare i64 @llvm.smax.i64(i64, i64)
    declare i32 @llvm.umax.i32(i32, i32)
    declare <2 x i16> @llvm.smin.v2i16(<2 x i16>, <2 x i16>)
    define i64 @wide(i64 %a, i64 %b) {
      %m = call i64 @llvm.smax.i64(i64 %a, i64 %b)
      ret i64 %m
    }
    define i32 @unsigned(i32 %a, i32 %b) {
      %m = call i32 @llvm.umax.i32(i32 %a, i32 %b)
      ret i32 %m
    }
    define <2 x i16> @vector(<2 x i16> %a, <2 x i16> %b) {
      %m = call <2 x i16> @llvm.smin.v2i16(<2 x i16> %a, <2 x i16> %b)
      ret <2 x i16> %m
    }
  )");
  ASSERT_TRUE(module);
  // Only the vector of i16 is rewritten: 64-bit min/max never becomes a
  // VIMNMX3, and unsigned ones keep their negations explicit.
  EXPECT_EQ(opfuse::rewriteSignedMinMaxForPtxas(*module), 1u);
  EXPECT_EQ(countIntrinsic(*module, Intrinsic::smax), 1u);
  EXPECT_EQ(countIntrinsic(*module, Intrinsic::umax), 1u);
  EXPECT_EQ(countIntrinsic(*module, Intrinsic::smin), 0u);
  EXPECT_EQ(countIntrinsic(*module, Intrinsic::umin), 1u);
}

} // namespace
