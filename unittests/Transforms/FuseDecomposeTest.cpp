//===- FuseDecomposeTest.cpp - Decompositions keep their numerics ---------===//
//
// The CPU reference evaluates each composite whole in f64 and its
// fuse-decompose primitives with f32 sums (sequential, the least accurate
// order): rows far from zero, where a one-pass or uncorrected variance
// loses every digit, must still agree.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"
#include "opfuse/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace opfuse;

namespace {

class FuseDecomposeTest : public opfuse::test::FuseTest {
protected:
  /// Relative L2 distance between `source`'s function evaluated whole in
  /// f64 and decomposed with f32 sums, on rows of `offset` + U(-1, 1).
  double decomposedError(llvm::StringRef source, double offset) {
    func::FuncOp whole = parseFirst<func::FuncOp>(source);
    if (!whole)
      return INFINITY;
    OwningOpRef<ModuleOp> decomposed = module->clone();
    PassManager pm(&context);
    pm.addNestedPass<func::FuncOp>(fuse::createFuseDecompose());
    EXPECT_TRUE(succeeded(pm.run(*decomposed)));

    SmallVector<reference::Tensor> args =
        test::uniformArguments(whole, /*seed=*/7, offset);
    reference::Options exact;
    exact.f64Accumulation = true;
    auto want = reference::interpret(whole, args, exact);
    auto got =
        reference::interpret(*decomposed->getOps<func::FuncOp>().begin(), args);
    EXPECT_TRUE(succeeded(want) && succeeded(got));
    if (failed(want) || failed(got))
      return INFINITY;
    double diff = 0, norm = 0;
    for (auto [a, b] : llvm::zip((*want)[0].data, (*got)[0].data)) {
      diff += (a - b) * (a - b);
      norm += a * a;
    }
    return std::sqrt(diff / norm);
  }
};

TEST_F(FuseDecomposeTest, LayerNormRowsAround1e4) {
  // 4096 values of 1e4 +- 1 a row: the f32 mean alone is off by up to
  // 4.9e-4 (half its ulp), and a sequential f32 sum by far more; the
  // corrected two-pass variance recovers the spread to f32 accuracy.
  double error = decomposedError(R"mlir(
    func.func @f(%x: tensor<8x4096xf32>) -> tensor<8x4096xf32> {
      %0 = fuse.layer_norm %x axis = 1 epsilon = 1.0e-05
          : (tensor<8x4096xf32>) -> tensor<8x4096xf32>
      return %0 : tensor<8x4096xf32>
    })mlir",
                                 1.0e4);
  EXPECT_LT(error, 1e-5);
}

TEST_F(FuseDecomposeTest, SoftmaxScoresAround1e4) {
  // exp(1e4) overflows f32: only the subtracted maximum keeps it finite.
  double error = decomposedError(R"mlir(
    func.func @f(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
      %0 = fuse.softmax %x axis = 1 : tensor<8x1024xf32>
      return %0 : tensor<8x1024xf32>
    })mlir",
                                 1.0e4);
  EXPECT_LT(error, 1e-5);
}

TEST_F(FuseDecomposeTest, RmsNormRowsAround1e4) {
  double error = decomposedError(R"mlir(
    func.func @f(%x: tensor<8x4096xf32>) -> tensor<8x4096xf32> {
      %0 = fuse.rms_norm %x axis = 1 epsilon = 1.0e-06
          : (tensor<8x4096xf32>) -> tensor<8x4096xf32>
      return %0 : tensor<8x4096xf32>
    })mlir",
                                 1.0e4);
  EXPECT_LT(error, 1e-5);
}

} // namespace
