//===- CheckToleranceTest.cpp - The precision and scales of --check -------===//
//
// Which type an output's tolerance follows, the error scale E that widens
// its element bound, and the allowance T of an undecided comparison (worked
// out by hand in each test).
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "../../lib/Driver/CheckTolerance.h"
#include "../../lib/Driver/GpuRun.h"

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Target/Artifact.h"

#include <cmath>

using namespace mlir;

namespace {

class CheckToleranceTest : public opfuse::test::FuseTest {};

TEST_F(CheckToleranceTest, PrecisionFollowsOpResultsNotInputs) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%x: tensor<8xbf16>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
      %c = fuse.cast %x : tensor<8xbf16> to tensor<8xf32>
      %a = fuse.add %c, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %e = fuse.exp %x : tensor<8xbf16>
      %f = fuse.cast %e : tensor<8xbf16> to tensor<8xf32>
      return %a, %f : tensor<8xf32>, tensor<8xf32>
    })mlir");
  ASSERT_TRUE(func);
  // A bf16 input cast to f32 is exact: the sum is computed in f32.
  EXPECT_TRUE(opfuse::computedPrecision(func, 0).isF32());
  // exp rounds to bf16 before the cast.
  EXPECT_TRUE(opfuse::computedPrecision(func, 1).isBF16());
}

/// The smallest normal f32 and bf16: the least E a rounded value has.
constexpr double kSmallestNormal = 1.1754943508222875e-38;

/// E and T of each output of the first function of `source` on `inputs`.
class ErrorScaleTest : public opfuse::test::FuseTest {
protected:
  SmallVector<opfuse::reference::Tensor>
  arguments(func::FuncOp func, std::vector<std::vector<double>> inputs) {
    SmallVector<opfuse::reference::Tensor> args;
    for (auto [type, data] : llvm::zip(func.getArgumentTypes(), inputs)) {
      auto tensor = cast<RankedTensorType>(type);
      opfuse::reference::Tensor t;
      t.elementType = tensor.getElementType();
      t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
      t.data = data;
      args.push_back(std::move(t));
    }
    return args;
  }
  SmallVector<opfuse::OutputErrorScale>
  both(llvm::StringRef source, std::vector<std::vector<double>> inputs) {
    func::FuncOp func = parseFirst<func::FuncOp>(source);
    if (!func)
      return {};
    auto result = opfuse::computeErrorScales(func, arguments(func, inputs));
    EXPECT_TRUE(succeeded(result));
    return succeeded(result) ? *result
                             : SmallVector<opfuse::OutputErrorScale>();
  }
  SmallVector<std::optional<std::vector<double>>>
  scales(llvm::StringRef source, std::vector<std::vector<double>> inputs) {
    SmallVector<std::optional<std::vector<double>>> e;
    for (opfuse::OutputErrorScale &output : both(source, inputs))
      e.push_back(std::move(output.scale));
    return e;
  }
};

TEST_F(ErrorScaleTest, ContractionsOfInputsAndTheirAccumulation) {
  // [1, -1] . [1, 1] = 0. A bf16 contraction of exact inputs accumulates in
  // f32 far below bf16's rounding: its own rounding only (of 0: that of the
  // smallest normal bf16, where rounding is absolute). An f32
  // one shows its order at the scale of |a| . |w| = 2, as does TF32.
  auto e = scales(R"mlir(
    func.func @f(%a: tensor<1x2xbf16>, %w: tensor<2x1xbf16>, %c: tensor<1x2xf32>, %v: tensor<2x1xf32>) -> (tensor<1x1xbf16>, tensor<1x1xf32>) {
      %m = fuse.matmul %a, %w : (tensor<1x2xbf16>, tensor<2x1xbf16>) -> tensor<1x1xbf16>
      %n = fuse.matmul %c, %v : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
      return %m, %n : tensor<1x1xbf16>, tensor<1x1xf32>
    })mlir",
                  {{1, -1}, {1, 1}, {1, -1}, {1, 1}});
  ASSERT_EQ(e.size(), 2u);
  ASSERT_TRUE(e[0]);
  EXPECT_EQ((*e[0])[0], kSmallestNormal);
  ASSERT_TRUE(e[1]);
  EXPECT_EQ((*e[1])[0], 2.0);
  // --allow-tf32 widens the tolerance of the f32 one only.
  func::FuncOp func = cast<func::FuncOp>(&module->getBody()->front());
  EXPECT_FALSE(opfuse::throughF32Contraction(func, 0));
  EXPECT_TRUE(opfuse::throughF32Contraction(func, 1));
}

TEST_F(ErrorScaleTest, SumsAndCancellation) {
  // An f32 column sum of [1, -1] is 0 but only as exact as |1| + |-1| = 2;
  // a bf16 sum accumulates in f32 below its rounding: 0. (a + b) - a with
  // a = 1000, b = 1 is 1, carrying the rounding of 1001. (bf16 and f32 share
  // their smallest normal number, 2^-126.)
  auto e = scales(R"mlir(
    func.func @f(%x: tensor<2x1xf32>, %y: tensor<2x1xbf16>, %a: tensor<1xf32>, %b: tensor<1xf32>) -> (tensor<1xf32>, tensor<1xbf16>, tensor<1xf32>) {
      %s = fuse.reduce_sum %x axes = [0] : tensor<2x1xf32> -> tensor<1xf32>
      %t = fuse.reduce_sum %y axes = [0] : tensor<2x1xbf16> -> tensor<1xbf16>
      %u = fuse.add %a, %b : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      %d = fuse.sub %u, %a : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      return %s, %t, %d : tensor<1xf32>, tensor<1xbf16>, tensor<1xf32>
    })mlir",
                  {{1, -1}, {1, -1}, {1000}, {1}});
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ((*e[0])[0], 2.0);
  EXPECT_EQ((*e[1])[0], kSmallestNormal);
  EXPECT_EQ((*e[2])[0], 1001.0);
}

TEST_F(ErrorScaleTest, ConditioningOfRsqrtLogAndExp) {
  // mean([1.001, -1]) = 5e-4 with E = mean(|x|) = 1.0005; rsqrt's relative
  // error is half its argument's: E = 0.5 * 44.72 * 1.0005 / 5e-4 = 44743.
  // log and exp of an exact input round once: E = |result|. exp of a
  // computed value carries its argument's absolute error: e^1 * E(1) = e.
  auto e = scales(R"mlir(
    func.func @f(%x: tensor<2xf32>, %y: tensor<1xf32>) -> (tensor<f32>, tensor<1xf32>, tensor<1xf32>) {
      %m = fuse.reduce_mean %x axes = [0] : tensor<2xf32> -> tensor<f32>
      %r = fuse.rsqrt %m : tensor<f32>
      %l = fuse.log %y : tensor<1xf32>
      %n = fuse.neg %y : tensor<1xf32>
      %p = fuse.neg %n : tensor<1xf32>
      %q = fuse.exp %p : tensor<1xf32>
      return %r, %l, %q : tensor<f32>, tensor<1xf32>, tensor<1xf32>
    })mlir",
                  {{1.001, -1}, {1}});
  ASSERT_EQ(e.size(), 3u);
  EXPECT_NEAR((*e[0])[0], 44743, 10);
  EXPECT_EQ((*e[1])[0], kSmallestNormal);
  EXPECT_NEAR((*e[2])[0], std::exp(1.0), 1e-6);
}

TEST_F(ErrorScaleTest, RoundingIntoSubnormalsIsAbsolute) {
  // fuzz-graphs.py seed 36602 (strict mode on the H200: 5 ulps where 2 are
  // allowed): an f16 matmul of 1.9e-5, below f16's smallest normal
  // 2^-14 = 6.1e-5, rounds to a subnormal spacing of 2^-24, 0.3% of it; the
  // reciprocal after it carries that: E = |1/x| * 2^-14 / |x|, not |1/x|.
  auto e = scales(R"mlir(
    func.func @f(%a: tensor<1x2xf16>, %w: tensor<2x1xf16>) -> (tensor<1x1xf16>, tensor<1x1xf16>) {
      %m = fuse.matmul %a, %w : (tensor<1x2xf16>, tensor<2x1xf16>) -> tensor<1x1xf16>
      %r = fuse.reciprocal %m : tensor<1x1xf16>
      return %m, %r : tensor<1x1xf16>, tensor<1x1xf16>
    })mlir",
                  {{0.0078125, 0.001953125}, {0.001953125, 0.001953125}});
  ASSERT_EQ(e.size(), 2u);
  const double x = 0.0078125 * 0.001953125 + 0.001953125 * 0.001953125;
  const double smallestF16 = std::ldexp(1.0, -14);
  ASSERT_TRUE(e[0] && e[1]);
  EXPECT_EQ((*e[0])[0], smallestF16);
  EXPECT_NEAR((*e[1])[0], (1 / x) * smallestF16 / x,
              1e-3 * (1 / x) * smallestF16 / x);
}

TEST_F(ErrorScaleTest, ExactValuesHaveNoScale) {
  // Data movement of inputs rounds nothing; integers are compared exactly;
  // a composite is measured through its primitives.
  auto e = scales(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %i: tensor<3xi32>) -> (tensor<3x2xf32>, tensor<3xi32>, tensor<2x3xf32>) {
      %t = fuse.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      %j = fuse.add %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
      %s = fuse.softmax %x axis = 1 : tensor<2x3xf32>
      return %t, %j, %s : tensor<3x2xf32>, tensor<3xi32>, tensor<2x3xf32>
    })mlir",
                  {{1, 2, 3, 4, 5, 6}, {1, 2, 3}});
  ASSERT_EQ(e.size(), 3u);
  EXPECT_FALSE(e[0]);
  EXPECT_FALSE(e[1]);
  ASSERT_TRUE(e[2]);
  for (double v : *e[2])
    EXPECT_TRUE(std::isfinite(v) && v > 0);
}

TEST_F(ErrorScaleTest, ProductsAddTheirOperandsErrors) {
  // fuzz-graphs.py seed 5288 (strict numerics on the H200, 3 ulps where 2
  // are allowed): errors of both factors add up, they do not take turns.
  // exp(0) * exp(0): each factor is off by its own rounding (E = 1), the
  // product by both, E = 1 * 1 + 1 * 1 = 2; the quotient likewise.
  auto e = scales(R"mlir(
    func.func @f(%x: tensor<1xf32>, %y: tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
      %a = fuse.exp %x : tensor<1xf32>
      %b = fuse.exp %y : tensor<1xf32>
      %p = fuse.mul %a, %b : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      %q = fuse.div %a, %b : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      return %p, %q : tensor<1xf32>, tensor<1xf32>
    })mlir",
                  {{0}, {0}});
  ASSERT_EQ(e.size(), 2u);
  ASSERT_TRUE(e[0] && e[1]);
  EXPECT_EQ((*e[0])[0], 2.0);
  EXPECT_EQ((*e[1])[0], 2.0);
}

TEST_F(ErrorScaleTest, ApproximateTanhGeluErrsByItsArgument) {
  // A bf16 tanh GELU runs on tanh.approx.f32: on the negative tail, where
  // 1 + tanh cancels, its error is |x| 5.6e-6, not a rounding of the
  // result (GELU(-4) = -7e-5): E = 4 * 0.5 * 1.12e-5 * 256. An f32 one
  // keeps libdevice's tanh and rounds only.
  auto e = scales(R"mlir(
    func.func @f(%x: tensor<1xbf16>, %y: tensor<1xf32>) -> (tensor<1xbf16>, tensor<1xf32>) {
      %g = fuse.gelu %x approximate = tanh : tensor<1xbf16>
      %h = fuse.gelu %y approximate = tanh : tensor<1xf32>
      return %g, %h : tensor<1xbf16>, tensor<1xf32>
    })mlir",
                  {{-4}, {-4}});
  ASSERT_EQ(e.size(), 2u);
  ASSERT_TRUE(e[0] && e[1]);
  EXPECT_NEAR((*e[0])[0], 4 * 0.5 * 1.12e-5 * 256, 1e-8);
  EXPECT_LT((*e[1])[0], 1e-3);
}

/// fuzz-graphs.py seed 579 (default numerics on the H200): 1/(1/r) is r
/// up to rounding, so `le` against r is decided by rounding alone; the GPU's
/// f32 and the reference's disagreed and the select took the other branch.
constexpr llvm::StringLiteral kNearTie = R"mlir(
  func.func @f(%r: tensor<3xf16>, %y: tensor<3xf16>) -> (tensor<3xf16>, tensor<3xf32>, tensor<3xf16>) {
    %v1 = fuse.reciprocal %r : tensor<3xf16>
    %v3 = fuse.reciprocal %v1 : tensor<3xf16>
    %c = fuse.compare le, %v3, %y : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xi1>
    %s = fuse.select %c, %r, %v1 : (tensor<3xi1>, tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
    %f = fuse.cast %c : tensor<3xi1> to tensor<3xf32>
    %e = fuse.compare le, %r, %y : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xi1>
    %x = fuse.select %e, %r, %y : (tensor<3xi1>, tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
    return %s, %f, %x : tensor<3xf16>, tensor<3xf32>, tensor<3xf16>
  })mlir";
const std::vector<std::vector<double>> kNearTieInputs = {{-0.9375, 2, 4},
                                                         {-0.9375, 1, 5}};

TEST_F(ErrorScaleTest, UndecidedComparisonsAllowTheOtherBranch) {
  auto scales = both(kNearTie, kNearTieInputs);
  ASSERT_EQ(scales.size(), 3u);
  // Element 0 is a tie up to rounding: the select may give r or 1/r
  // (1/0.9375 rounds to 1.06640625 in f16), the cast 1 or 0. Elements 1
  // and 2 are decided (2 against 1, 4 against 5: far beyond f16's 0.8%).
  ASSERT_TRUE(scales[0].tie && scales[1].tie);
  EXPECT_EQ((*scales[0].tie)[0], 1.06640625 - 0.9375);
  EXPECT_EQ((*scales[0].tie)[1], 0.0);
  EXPECT_EQ((*scales[0].tie)[2], 0.0);
  EXPECT_EQ(*scales[1].tie, (std::vector<double>{1, 0, 0}));
  // A comparison of exact inputs is decided the same way everywhere.
  EXPECT_FALSE(scales[2].tie);
}

TEST_F(ErrorScaleTest, CheckAcceptsTheOtherBranchOnlyAtATie) {
  func::FuncOp func = parseFirst<func::FuncOp>(kNearTie);
  ASSERT_TRUE(func);
  auto args = arguments(func, kNearTieInputs);
  auto scales = opfuse::computeErrorScales(func, args);
  ASSERT_TRUE(succeeded(scales));
  opfuse::reference::Options asWritten;
  auto reference = opfuse::reference::interpret(func, args, asWritten);
  ASSERT_TRUE(succeeded(reference));
  auto outputsWith = [&](double first, double second) {
    std::vector<opfuse::HostBuffer> outputs;
    for (const opfuse::reference::Tensor &tensor : *reference) {
      opfuse::HostBuffer buffer = opfuse::makeHostBuffer(
          *opfuse::toDType(tensor.elementType),
          std::vector<int64_t>(tensor.shape.begin(), tensor.shape.end()));
      for (size_t i = 0; i < tensor.data.size(); ++i)
        buffer.set(i, tensor.data[i]);
      outputs.push_back(std::move(buffer));
    }
    outputs[0].set(0, first);
    outputs[0].set(1, second);
    return outputs;
  };
  // Element 0's branches are r and 1/r; element 1 took 1/r = 0.5.
  const double atTie = (*reference)[0].data[0];
  const double otherBranch = atTie == -0.9375 ? -1.06640625 : -0.9375;
  ASSERT_EQ((*reference)[0].data[1], 0.5);
  // The other branch at the tie passes, and is counted.
  auto tie = opfuse::compareOutputs(func, *reference, *scales,
                                    outputsWith(otherBranch, 0.5),
                                    /*tf32=*/false, /*strict=*/false);
  EXPECT_TRUE(tie[0].pass);
  EXPECT_EQ(tie[0].tieElements, 1);
  // The other branch where the comparison is decided fails.
  auto decided =
      opfuse::compareOutputs(func, *reference, *scales, outputsWith(atTie, 2),
                             /*tf32=*/false, /*strict=*/false);
  EXPECT_FALSE(decided[0].pass);
  EXPECT_EQ(decided[0].tieElements, 0);
  // Beyond the other branch, the tie's element fails too.
  auto beyond =
      opfuse::compareOutputs(func, *reference, *scales, outputsWith(-1.5, 0.5),
                             /*tf32=*/false, /*strict=*/false);
  EXPECT_FALSE(beyond[0].pass);
}

} // namespace
