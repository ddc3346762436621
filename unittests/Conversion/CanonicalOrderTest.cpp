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
  std::string sorted(llvm::StringRef body, unsigned *erased = nullptr,
                     unsigned loadBatch = 0) {
    std::string source = (R"mlir(
      func.func @k(%p: !llvm.ptr, %n: i32) {
)mlir" + body + R"mlir(
        return
      })mlir")
                             .str();
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    if (!func)
      return "";
    unsigned count = sortIntoCanonicalOrder(func, loadBatch);
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

/// A sum of `terms` products of two loads each, as fuse-decompose writes a
/// convolution's taps: load x_i, load w_i, and the arithmetic after.
std::string sumOfLoadedProducts(int terms) {
  std::string body;
  for (int i = 0; i < terms; ++i) {
    std::string n = std::to_string(i);
    body += "        %c" + n + " = llvm.mlir.constant(" + n + " : i64) : i64\n";
    body += "        %a" + n + " = llvm.getelementptr %p[%c" + n +
            "] : (!llvm.ptr, i64) -> !llvm.ptr, f32\n";
    body += "        %x" + n + " = llvm.load %a" + n + " : !llvm.ptr -> f32\n";
    body += "        %w" + n + " = llvm.load %a" + n + " : !llvm.ptr -> f32\n";
  }
  for (int i = 0; i < terms; ++i) {
    std::string n = std::to_string(i);
    body += "        %m" + n + " = llvm.fmul %x" + n + ", %w" + n + " : f32\n";
    if (i > 0)
      body += "        %s" + n + " = llvm.fadd %" +
              (i == 1 ? std::string("m0") : "s" + std::to_string(i - 1)) +
              ", %m" + n + " : f32\n";
  }
  body += "        llvm.store %s" + std::to_string(terms - 1) +
          ", %p : f32, !llvm.ptr\n";
  return body;
}

TEST_F(CanonicalOrderTest, ManyLoadsGetTheirArithmeticInBatches) {
  // Unbatched: every load first, then all the arithmetic.
  const std::string body = sumOfLoadedProducts(12);
  std::string loadsFirst = sorted(body);
  size_t lastLoad = loadsFirst.rfind("llvm.load");
  EXPECT_LT(lastLoad, loadsFirst.find("llvm.fmul"));
  // Batches of 4 loads (24 loads, more than two batches): the products of
  // the first two terms come right after their four loads, before the
  // fifth load's address; the last term's product after the last load.
  std::string batched = sorted(body, nullptr, 4);
  auto nth = [&](llvm::StringRef what, int n) {
    size_t at = 0;
    for (int i = 0; i <= n; ++i)
      at = batched.find(what.str(), i ? at + 1 : 0);
    return at;
  };
  EXPECT_LT(nth("llvm.load", 3), nth("llvm.fmul", 0));
  EXPECT_LT(nth("llvm.fadd", 0), nth("llvm.load", 4));
  EXPECT_LT(nth("llvm.fmul", 1), nth("llvm.getelementptr", 2));
  EXPECT_LT(nth("llvm.load", 23), nth("llvm.fmul", 11));
  // The same IR gives the same order whatever the batch leaves unchanged:
  // loads and store keep their order, nothing is erased.
  unsigned erased = 1;
  sorted(body, &erased, 4);
  EXPECT_EQ(erased, 0u);
  // A block of at most two batches of loads is left as unbatched.
  EXPECT_EQ(sorted(body, nullptr, 12), loadsFirst);
}

} // namespace
