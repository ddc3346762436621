//===- CanonicalOrderTest.cpp - Op order independent of creation order ----===//
//
// The same kernel built with its side-effect-free ops in two different
// orders (as two C++ compilers evaluate nested builder calls) must print
// the same after sortIntoCanonicalOrder; effects keep their order.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "opfuse/Conversion/FuseToGPU/CanonicalOrder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace opfuse;

namespace {

class CanonicalOrderTest : public test::FuseTest {
protected:
  /// `body` in a function of a pointer and an i32, sorted, then printed.
  std::string sorted(llvm::StringRef body, unsigned *erased = nullptr) {
    std::string source = (R"mlir(
      func.func @k(%p: !llvm.ptr, %n: i32) {
)mlir" + body + R"mlir(
        return
      })mlir")
                             .str();
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    if (!func)
      return "";
    unsigned count = sortIntoCanonicalOrder(func);
    if (erased)
      *erased = count;
    EXPECT_TRUE(succeeded(mlir::verify(func)));
    std::string text;
    llvm::raw_string_ostream os(text);
    func.print(os);
    return text;
  }
};

TEST_F(CanonicalOrderTest, ArgumentOrderDoesNotMatter) {
  // store(add(mul(n, 4), div(n, 8))): operands built left to right ...
  std::string leftToRight = sorted(R"mlir(
        %c4 = llvm.mlir.constant(4 : i32) : i32
        %m = llvm.mul %n, %c4 : i32
        %c8 = llvm.mlir.constant(8 : i32) : i32
        %d = llvm.udiv %n, %c8 : i32
        %s = llvm.add %m, %d : i32
        llvm.store %s, %p : i32, !llvm.ptr
  )mlir");
  // ... and right to left, constants first.
  std::string rightToLeft = sorted(R"mlir(
        %c8 = llvm.mlir.constant(8 : i32) : i32
        %c4 = llvm.mlir.constant(4 : i32) : i32
        %d = llvm.udiv %n, %c8 : i32
        %m = llvm.mul %n, %c4 : i32
        %s = llvm.add %m, %d : i32
        llvm.store %s, %p : i32, !llvm.ptr
  )mlir");
  EXPECT_EQ(leftToRight, rightToLeft);
  // Operand order decides: mul's constant, mul, div's constant, div.
  EXPECT_LT(leftToRight.find("llvm.mul"), leftToRight.find("8 : i32"));
}

TEST_F(CanonicalOrderTest, EffectsKeepTheirOrderAndFreeOpsFollowUses) {
  std::string text = sorted(R"mlir(
        %c1 = llvm.mlir.constant(1 : i32) : i32
        %x = llvm.load %p : !llvm.ptr -> i32
        %y = llvm.add %x, %c1 : i32
        llvm.store %n, %p : i32, !llvm.ptr
        %z = llvm.load %p : !llvm.ptr -> i32
        %w = llvm.add %y, %z : i32
        llvm.store %w, %p : i32, !llvm.ptr
  )mlir");
  // The load before the first store stays before it, and the add of its
  // value (used only by the last store) moves after the second load.
  size_t firstLoad = text.find("llvm.load");
  size_t firstStore = text.find("llvm.store");
  size_t secondLoad = text.find("llvm.load", firstLoad + 1);
  size_t firstAdd = text.find("llvm.add");
  ASSERT_NE(secondLoad, std::string::npos);
  EXPECT_LT(firstLoad, firstStore);
  EXPECT_LT(firstStore, secondLoad);
  EXPECT_LT(secondLoad, firstAdd);
}

TEST_F(CanonicalOrderTest, ValuesUsedInRegionsArePlacedBeforeTheRegionOp) {
  std::string text = sorted(R"mlir(
        %c0 = arith.constant 0 : index
        %c2 = arith.constant 2 : index
        %c1 = arith.constant 1 : index
        %v = llvm.mlir.constant(7 : i32) : i32
        scf.for %i = %c0 to %c2 step %c1 {
          llvm.store %v, %p : i32, !llvm.ptr
        }
  )mlir");
  EXPECT_LT(text.find("7 : i32"), text.find("scf.for"));
  // Loop bounds in operand order: lower, upper, step.
  EXPECT_LT(text.find("constant 0"), text.find("constant 2"));
  EXPECT_LT(text.find("constant 2"), text.find("constant 1 "));
}

TEST_F(CanonicalOrderTest, DeadFreeOpsAreErased) {
  unsigned erased = 0;
  std::string text = sorted(R"mlir(
        %c3 = llvm.mlir.constant(3 : i32) : i32
        %unused = llvm.mul %n, %c3 : i32
        llvm.store %n, %p : i32, !llvm.ptr
  )mlir",
                            &erased);
  EXPECT_EQ(erased, 2u);
  EXPECT_EQ(text.find("llvm.mul"), std::string::npos);
}

TEST_F(CanonicalOrderTest, LongChainsDoNotRecurse) {
  // A 100,000-op chain: the placement must not use the call stack.
  std::string body = "        %v0 = llvm.mlir.constant(1 : i32) : i32\n";
  const int length = 100000;
  for (int i = 1; i <= length; ++i)
    body += "        %v" + std::to_string(i) + " = llvm.add %v" +
            std::to_string(i - 1) + ", %n : i32\n";
  body += "        llvm.store %v" + std::to_string(length) +
          ", %p : i32, !llvm.ptr\n";
  std::string text = sorted(body);
  EXPECT_NE(text.find("llvm.store"), std::string::npos);
}

} // namespace
