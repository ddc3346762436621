//===- InterpreterTest.cpp - The CPU reference on known values ------------===//
//
// Small inputs whose results are worked out by hand (or with a calculator
// for transcendentals) in the comments, one test per op family.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "opfuse/Dialect/Fuse/Transforms/Passes.h"
#include "opfuse/Reference/Interpreter.h"

#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace opfuse;
using opfuse::reference::Tensor;

namespace {

class InterpreterTest : public opfuse::test::FuseTest {
protected:
  /// Parses `source`, runs its function on `inputs` (element type and
  /// shape from the signature) and returns every output's data.
  std::vector<std::vector<double>> run(llvm::StringRef source,
                                       std::vector<std::vector<double>> inputs,
                                       reference::Options options = {}) {
    auto func = parseFirst<func::FuncOp>(source);
    std::vector<std::vector<double>> outputs;
    if (!func)
      return outputs;
    FailureOr<SmallVector<Tensor>> results =
        reference::interpret(func, arguments(func, inputs), options);
    EXPECT_TRUE(succeeded(results));
    if (succeeded(results))
      for (Tensor &t : *results)
        outputs.push_back(t.data);
    return outputs;
  }

  /// `inputs` as the tensors of `func`'s signature.
  static SmallVector<Tensor>
  arguments(func::FuncOp func, const std::vector<std::vector<double>> &inputs) {
    SmallVector<Tensor> args;
    for (auto [type, data] : llvm::zip(func.getArgumentTypes(), inputs)) {
      auto tensor = cast<RankedTensorType>(type);
      Tensor t;
      t.elementType = tensor.getElementType();
      t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
      t.data = data;
      args.push_back(std::move(t));
    }
    return args;
  }

  static void expectNear(const std::vector<double> &got,
                         const std::vector<double> &want, double tol = 1e-6) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
  }
};

TEST_F(InterpreterTest, RoundsToElementTypes) {
  // 1 + 2^-9 is between bf16 neighbours 1 and 1 + 2^-7; nearest even is 1.
  EXPECT_EQ(reference::roundTo(BFloat16Type::get(&context), 1.0 + 1.0 / 512),
            1.0);
  // 1 + 3*2^-9 rounds up to 1 + 2^-7 = 1.0078125.
  EXPECT_EQ(reference::roundTo(BFloat16Type::get(&context), 1.0 + 3.0 / 512),
            1.0078125);
  // f16 has 10 fraction bits: 1 + 2^-11 ties to even (1).
  EXPECT_EQ(reference::roundTo(Float16Type::get(&context), 1.0 + 1.0 / 2048),
            1.0);
  // i32 wraps and truncates toward zero.
  EXPECT_EQ(reference::roundTo(IntegerType::get(&context, 32), -2.7), -2.0);
  EXPECT_EQ(reference::roundTo(IntegerType::get(&context, 1), 0.5), 1.0);
}

TEST_F(InterpreterTest, BroadcastingBinaryOps) {
  // [[1,2],[3,4]] + [10,20] = [[11,22],[13,24]]; * [[2],[3]] row-wise.
  auto out = run(R"(
    func.func @f(%x: tensor<2x2xf32>, %r: tensor<2xf32>, %c: tensor<2x1xf32>)
        -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = fuse.add %x, %r : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
      %1 = fuse.mul %x, %c : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
      %2 = fuse.max %x, %c : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
      return %0, %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    })",
                 {{1, 2, 3, 4}, {10, 20}, {2, 3}});
  ASSERT_EQ(out.size(), 3u);
  expectNear(out[0], {11, 22, 13, 24});
  expectNear(out[1], {2, 4, 9, 12});
  expectNear(out[2], {2, 2, 3, 4});
}

TEST_F(InterpreterTest, UnaryActivations) {
  // sigmoid(0) = 0.5; silu(1) = 1/(1+e^-1) = 0.7310586;
  // gelu(1) exact = 0.5 * (1 + erf(1/sqrt2)) = 0.8413447;
  // gelu(1) tanh = 0.5 * (1 + tanh(0.7978846 * 1.044715)) = 0.8411920.
  auto out = run(R"(
    func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
      %0 = fuse.sigmoid %x : tensor<2xf32>
      %1 = fuse.silu %x : tensor<2xf32>
      %2 = fuse.gelu %x approximate = none : tensor<2xf32>
      %3 = fuse.gelu %x approximate = tanh : tensor<2xf32>
      %4 = fuse.relu %x : tensor<2xf32>
      return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
    })",
                 {{0, 1}});
  ASSERT_EQ(out.size(), 5u);
  expectNear(out[0], {0.5, 0.7310586});
  expectNear(out[1], {0, 0.7310586});
  expectNear(out[2], {0, 0.8413447});
  expectNear(out[3], {0, 0.8411920});
  expectNear(out[4], {0, 1});
}

TEST_F(InterpreterTest, CastsRoundAndTruncate) {
  // f32 -> bf16 rounds 1.00390625 (1 + 2^-8, a tie) to even: 1.0;
  // f32 -> i32 truncates 2.9 to 2 and -2.9 to -2; x != 0 gives i1.
  auto out = run(R"(
    func.func @f(%x: tensor<3xf32>) -> (tensor<3xbf16>, tensor<3xi32>, tensor<3xi1>) {
      %0 = fuse.cast %x : tensor<3xf32> to tensor<3xbf16>
      %1 = fuse.cast %x : tensor<3xf32> to tensor<3xi32>
      %2 = fuse.cast %x : tensor<3xf32> to tensor<3xi1>
      return %0, %1, %2 : tensor<3xbf16>, tensor<3xi32>, tensor<3xi1>
    })",
                 {{1.00390625, 2.9, -2.9}});
  ASSERT_EQ(out.size(), 3u);
  expectNear(out[0], {1.0, 2.90625, -2.90625});
  expectNear(out[1], {1, 2, -2});
  expectNear(out[2], {1, 1, 1});
}

TEST_F(InterpreterTest, EdgeCasesFollowTheWrittenSemantics) {
  // docs/numerics.md, "What each op means at the edges".
  const double nan = std::nan(""), inf = INFINITY;
  auto out = run(R"(
    func.func @f(%n: tensor<6xi32>, %d: tensor<6xi32>, %x: tensor<6xf32>,
                 %b: tensor<6xf32>, %e: tensor<6xf32>, %l: tensor<3xf32>)
        -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xf32>,
            tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
      %q = fuse.div %n, %d : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
      %p = fuse.mul %n, %n : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
      %c = fuse.cast %x : tensor<6xf32> to tensor<6xi32>
      %w = fuse.pow %b, %e : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
      %g = fuse.log %l : tensor<3xf32>
      %s = fuse.sqrt %l : tensor<3xf32>
      %r = fuse.rsqrt %l : tensor<3xf32>
      return %q, %p, %c, %w, %g, %s, %r : tensor<6xi32>, tensor<6xi32>,
          tensor<6xi32>, tensor<6xf32>, tensor<3xf32>, tensor<3xf32>,
          tensor<3xf32>
    })",
                 {{7, -7, -2147483648.0, 2147483647, -9, 65537},
                  {0, 2, -1, -1, 4, 3},
                  {nan, inf, -inf, 3e9, -2.9, 2147483520.0},
                  {-2, -2, 0, nan, 1, 0},
                  {3, 0.5, 0, 0, nan, -1},
                  {0.0, -0.0, -1}});
  ASSERT_EQ(out.size(), 7u);
  // x / 0 = -1; -7 / 2 truncates to -3; MIN / -1 wraps to MIN.
  EXPECT_EQ(out[0], (std::vector<double>{-1, -3, -2147483648.0, -2147483647, -2,
                                         21845}));
  // i32 products wrap: 65537^2 = 2^32 + 2^17 + 1 keeps 131073; MIN^2 = 0;
  // MAX^2 = 1 (mod 2^32).
  EXPECT_EQ(out[1][0], 49);
  EXPECT_EQ(out[1][2], 0);
  EXPECT_EQ(out[1][3], 1);
  EXPECT_EQ(out[1][5], 131073);
  // NaN -> 0; saturated at the ends; truncated toward zero inside.
  EXPECT_EQ(out[2], (std::vector<double>{0, 2147483647, -2147483648.0,
                                         2147483647, -2, 2147483520.0}));
  // (-2)^3 = -8, (-2)^0.5 = NaN, 0^0 = 1, NaN^0 = 1, 1^NaN = 1, 0^-1 = inf.
  EXPECT_EQ(out[3][0], -8);
  EXPECT_TRUE(std::isnan(out[3][1]));
  EXPECT_EQ(out[3][2], 1);
  EXPECT_EQ(out[3][3], 1);
  EXPECT_EQ(out[3][4], 1);
  EXPECT_EQ(out[3][5], inf);
  // log(+-0) = -inf, log(-1) NaN; sqrt(-0) = -0; rsqrt(+-0) = +-inf.
  EXPECT_EQ(out[4][0], -inf);
  EXPECT_EQ(out[4][1], -inf);
  EXPECT_TRUE(std::isnan(out[4][2]));
  EXPECT_EQ(out[5][1], 0.0);
  EXPECT_TRUE(std::signbit(out[5][1]));
  EXPECT_TRUE(std::isnan(out[5][2]));
  EXPECT_EQ(out[6][0], inf);
  EXPECT_EQ(out[6][1], -inf);
}

TEST_F(InterpreterTest, CompareSelectConstants) {
  auto out = run(R"(
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %t = fuse.constant dense<0.5> : tensor<f32>
      %k = fuse.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
      %m = fuse.compare gt, %x, %t : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
      %y = fuse.select %m, %k, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %y : tensor<4xf32>
    })",
                 {{0, 1, 0.25, 2}});
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], {0, 20, 0.25, 40});
}

TEST_F(InterpreterTest, Reductions) {
  // [[1,2,3],[4,5,6]]: row sums 6, 15; column max 4,5,6; mean of all 3.5.
  auto out = run(R"(
    func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<3xf32>, tensor<f32>) {
      %0 = fuse.reduce_sum %x axes = [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
      %1 = fuse.reduce_max %x axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
      %2 = fuse.reduce_mean %x axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
      return %0, %1, %2 : tensor<2x1xf32>, tensor<3xf32>, tensor<f32>
    })",
                 {{1, 2, 3, 4, 5, 6}});
  ASSERT_EQ(out.size(), 3u);
  expectNear(out[0], {6, 15});
  expectNear(out[1], {4, 5, 6});
  expectNear(out[2], {3.5});
}

TEST_F(InterpreterTest, SoftmaxSubtractsTheMaximum) {
  // softmax([0, ln 3]) = [1/4, 3/4]; a row of 1e4 and 1e4 + ln 3 gives the
  // same, which a naive exp would overflow.
  auto out = run(R"(
    func.func @f(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %0 = fuse.softmax %x axis = 1 : tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    })",
                 {{0, std::log(3.0), 1e4, 1e4 + std::log(3.0)}});
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], {0.25, 0.75, 0.25, 0.75}, 1e-3);
}

TEST_F(InterpreterTest, LayerNormAndRmsNorm) {
  // Row [1, 3]: mean 2, variance 1, normalised [-1, 1]; scale [2, 3] and
  // bias [10, 20] give [8, 23]. rms([3, 4]) = sqrt(12.5): [0.8485, 1.1314].
  auto out = run(R"(
    func.func @f(%x: tensor<1x2xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>, %y: tensor<1x2xf32>)
        -> (tensor<1x2xf32>, tensor<1x2xf32>) {
      %0 = fuse.layer_norm %x scale %g bias %b axis = 1 epsilon = 0.0
          : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
      %1 = fuse.rms_norm %y axis = 1 epsilon = 0.0 : (tensor<1x2xf32>) -> tensor<1x2xf32>
      return %0, %1 : tensor<1x2xf32>, tensor<1x2xf32>
    })",
                 {{1, 3}, {2, 3}, {10, 20}, {3, 4}});
  ASSERT_EQ(out.size(), 2u);
  expectNear(out[0], {8, 23});
  expectNear(out[1], {0.8485281, 1.1313708});
}

TEST_F(InterpreterTest, DataMovement) {
  // x = [[0,1,2],[3,4,5]].
  auto out = run(R"(
    func.func @f(%x: tensor<2x3xf32>, %i: tensor<2xi32>)
        -> (tensor<3x2xf32>, tensor<2x1xf32>, tensor<2x5xf32>, tensor<2x2xf32>, tensor<6xf32>, tensor<2x2x3xf32>) {
      %0 = fuse.transpose %x permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      %1 = fuse.slice %x offsets = [0, 1] sizes = [2, 1] strides = [1, 1] : tensor<2x3xf32> -> tensor<2x1xf32>
      %s = fuse.slice %x offsets = [0, 0] sizes = [2, 2] strides = [1, 2] : tensor<2x3xf32> -> tensor<2x2xf32>
      %2 = fuse.concat %x, %s axis = 1 : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
      %3 = fuse.gather %x, %i axis = 1 : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x2xf32>
      %4 = fuse.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
      %5 = fuse.broadcast_to %x : tensor<2x3xf32> -> tensor<2x2x3xf32>
      return %0, %1, %2, %3, %4, %5 : tensor<3x2xf32>, tensor<2x1xf32>, tensor<2x5xf32>, tensor<2x2xf32>, tensor<6xf32>, tensor<2x2x3xf32>
    })",
                 {{0, 1, 2, 3, 4, 5}, {2, 0}});
  ASSERT_EQ(out.size(), 6u);
  expectNear(out[0], {0, 3, 1, 4, 2, 5});
  expectNear(out[1], {1, 4});
  expectNear(out[2], {0, 1, 2, 0, 2, 3, 4, 5, 3, 5});
  expectNear(out[3], {2, 0, 5, 3});
  expectNear(out[4], {0, 1, 2, 3, 4, 5});
  expectNear(out[5], {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
}

TEST_F(InterpreterTest, MatmulAndTransposes) {
  // [[1,2],[3,4]] @ [[5,6],[7,8]] = [[19,22],[43,50]]; with transpose_b the
  // rhs is read as [[5,7],[6,8]]: [[17,23],[39,53]].
  auto out = run(R"(
    func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
      %0 = fuse.matmul %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      %1 = fuse.matmul %a, %b transpose_b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
    })",
                 {{1, 2, 3, 4}, {5, 6, 7, 8}});
  ASSERT_EQ(out.size(), 2u);
  expectNear(out[0], {19, 22, 43, 50});
  expectNear(out[1], {17, 23, 39, 53});
}

// The packed, threaded matmul gives the naive loop's sums bit for bit
// (ascending k, rounded after every addition), over broadcast batches,
// both transposes, columns that do not fill its blocks of 8, and in f32
// and f64 accumulation alike.
TEST_F(InterpreterTest, MatmulEqualsTheNaiveLoopBitForBit) {
  const int64_t batches = 3, m = 5, k = 37, n = 13;
  std::vector<double> a(batches * k * m), b(n * k);
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(static_cast<float>(
        static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1));
  };
  for (double &v : a)
    v = next();
  for (double &v : b)
    v = next();
  // A is [3, k, m] read transposed, B is [n, k] shared by every batch and
  // read transposed.
  const char *source = R"mlir(
    func.func @f(%a: tensor<3x37x5xf32>, %b: tensor<13x37xf32>) -> tensor<3x5x13xf32> {
      %0 = fuse.matmul %a, %b transpose_a transpose_b : (tensor<3x37x5xf32>, tensor<13x37xf32>) -> tensor<3x5x13xf32>
      return %0 : tensor<3x5x13xf32>
    })mlir";
  for (bool f64 : {false, true}) {
    reference::Options options;
    options.f64Accumulation = f64;
    std::vector<std::vector<double>> got = run(source, {a, b}, options);
    ASSERT_EQ(got.size(), 1u);
    std::vector<double> want;
    for (int64_t batch = 0; batch < batches; ++batch)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t x = 0; x < k; ++x) {
            acc += a[(batch * k + x) * m + i] * b[j * k + x];
            if (!f64)
              acc = static_cast<float>(acc);
          }
          want.push_back(static_cast<float>(acc));
        }
    ASSERT_EQ(got[0].size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(got[0][i], want[i])
          << "element " << i << " f64 " << f64 << std::hexfloat << " "
          << got[0][i] << " " << want[i];
  }
}

TEST_F(InterpreterTest, Conv2D) {
  // A 3x3 single-channel image [[1..9]] with a 3x3 all-ones filter, padding
  // 1: each output sums its neighbourhood; the centre sums all nine (45),
  // the corner 1+2+4+5 = 12.
  auto out = run(R"(
    func.func @f(%x: tensor<1x3x3x1xf32>, %w: tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32> {
      %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1
          : (tensor<1x3x3x1xf32>, tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
      return %0 : tensor<1x3x3x1xf32>
    })",
                 {{1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<double>(9, 1.0)});
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], {12, 21, 16, 27, 45, 33, 24, 39, 28});
}

TEST_F(InterpreterTest, CollectivesActAsOneDeviceOfIdenticalData) {
  auto out = run(R"(
    func.func @f(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x4xf32>, tensor<1x2xf32>) {
      %0 = fuse.all_reduce sum, %x devices = 4 : tensor<2x2xf32>
      %1 = fuse.all_gather %x axis = 1 devices = 2 : tensor<2x2xf32> -> tensor<2x4xf32>
      %2 = fuse.reduce_scatter sum, %x axis = 0 devices = 2 : tensor<2x2xf32> -> tensor<1x2xf32>
      return %0, %1, %2 : tensor<2x2xf32>, tensor<2x4xf32>, tensor<1x2xf32>
    })",
                 {{1, 2, 3, 4}});
  ASSERT_EQ(out.size(), 3u);
  expectNear(out[0], {1, 2, 3, 4});
  expectNear(out[1], {1, 2, 1, 2, 3, 4, 3, 4});
  expectNear(out[2], {1, 2});
}

TEST_F(InterpreterTest, SpmdCollectivesCombineTheDevices) {
  auto func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<1x2xf32>) {
      %0 = fuse.all_reduce sum, %x devices = 2 : tensor<2x2xf32>
      %1 = fuse.all_reduce max, %x devices = 2 : tensor<2x2xf32>
      %2 = fuse.all_gather %x axis = 1 devices = 2 : tensor<2x2xf32> -> tensor<2x4xf32>
      %3 = fuse.reduce_scatter sum, %x axis = 0 devices = 2 : tensor<2x2xf32> -> tensor<1x2xf32>
      return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<1x2xf32>
    })");
  ASSERT_TRUE(func);
  // Device 0 holds [[1, 2], [3, 4]], device 1 [[10, -20], [30, -40]].
  SmallVector<SmallVector<Tensor>> devices = {
      arguments(func, {{1, 2, 3, 4}}), arguments(func, {{10, -20, 30, -40}})};
  FailureOr<SmallVector<SmallVector<Tensor>>> results =
      reference::interpretSpmd(func, devices);
  ASSERT_TRUE(succeeded(results));
  ASSERT_EQ(results->size(), 2u);
  for (int device = 0; device < 2; ++device) {
    const SmallVector<Tensor> &out = (*results)[device];
    ASSERT_EQ(out.size(), 4u);
    expectNear(out[0].data, {11, -18, 33, -36});
    expectNear(out[1].data, {10, 2, 30, 4});
    // Concatenated along the columns, device 0's first in each row.
    expectNear(out[2].data, {1, 2, 10, -20, 3, 4, 30, -40});
  }
  // The sum [[11, -18], [33, -36]] split by rows: device d keeps row d.
  expectNear((*results)[0][3].data, {11, -18});
  expectNear((*results)[1][3].data, {33, -36});
}

TEST_F(InterpreterTest, SpmdElementwiseRunsEachDeviceOnItsOwnData) {
  auto func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
      %0 = fuse.mul %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %1 = fuse.all_reduce sum, %0 devices = 3 : tensor<3xf32>
      %2 = fuse.add %1, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      return %2 : tensor<3xf32>
    })");
  ASSERT_TRUE(func);
  SmallVector<SmallVector<Tensor>> devices = {arguments(func, {{1, 2, 3}}),
                                              arguments(func, {{0, 1, 0}}),
                                              arguments(func, {{2, 0, 1}})};
  FailureOr<SmallVector<SmallVector<Tensor>>> results =
      reference::interpretSpmd(func, devices);
  ASSERT_TRUE(succeeded(results));
  // Sum of squares [5, 5, 10], plus each device's own x.
  expectNear((*results)[0][0].data, {6, 7, 13});
  expectNear((*results)[1][0].data, {5, 6, 10});
  expectNear((*results)[2][0].data, {7, 5, 11});
}

TEST_F(InterpreterTest, SpmdCollectiveOfOtherDevicesIsAnError) {
  auto func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = fuse.all_reduce sum, %x devices = 4 : tensor<2xf32>
      return %0 : tensor<2xf32>
    })");
  ASSERT_TRUE(func);
  SmallVector<SmallVector<Tensor>> devices = {arguments(func, {{1, 2}}),
                                              arguments(func, {{3, 4}})};
  EXPECT_EQ(lastDiagnostic([&] {
              EXPECT_TRUE(failed(reference::interpretSpmd(func, devices)));
            }),
            "this collective spans 4 devices; the SPMD run has 2");
  EXPECT_EQ(lastDiagnostic([&] {
              EXPECT_TRUE(failed(reference::interpretSpmd(func, {})));
            }),
            "an SPMD run needs at least one device");
}

TEST_F(InterpreterTest, GroupsEvaluateTheirBody) {
  auto out = run(R"(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = fuse.group (%x) : (tensor<2xf32>) -> tensor<2xf32> {
      ^bb0(%a: tensor<2xf32>):
        %k = fuse.constant dense<3.0> : tensor<f32>
        %m = fuse.mul %a, %k : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
        fuse.yield %m : tensor<2xf32>
      }
      return %0 : tensor<2xf32>
    })",
                 {{1, -2}});
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], {3, -6});
}

TEST_F(InterpreterTest, Bf16ResultsRoundEveryOp) {
  // In bf16, 1 + 2^-9 rounds to 1 after the add, so subtracting 1 gives 0;
  // in f32 the same ops keep 2^-9.
  auto out = run(R"(
    func.func @f(%x: tensor<1xbf16>, %e: tensor<1xbf16>, %y: tensor<1xf32>, %d: tensor<1xf32>) -> (tensor<1xbf16>, tensor<1xf32>) {
      %0 = fuse.add %x, %e : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
      %1 = fuse.sub %0, %x : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
      %2 = fuse.add %y, %d : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      %3 = fuse.sub %2, %y : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      return %1, %3 : tensor<1xbf16>, tensor<1xf32>
    })",
                 {{1.0}, {1.0 / 512}, {1.0}, {1.0 / 512}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0][0], 0.0);
  EXPECT_EQ(out[1][0], 1.0 / 512);
}

TEST_F(InterpreterTest, KernelPrecisionKeepsBf16InF32InsideAGroup) {
  // One kernel: t = x + e, u = t - x, yielded, and v = bf16(f32(t)) - x.
  // Per op, t rounds to 1 in bf16 and u is 0. At kernel precision t keeps
  // 2^-9 in f32, so u = 2^-9 (a bf16 number: stored exactly); the cast to
  // bf16 still rounds t to 1, so v is 0. Outside the group the same ops
  // round every result.
  llvm::StringRef source = R"(
    func.func @f(%x: tensor<1xbf16>, %e: tensor<1xbf16>) -> (tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>) {
      %g:2 = fuse.group (%x, %e) : (tensor<1xbf16>, tensor<1xbf16>) -> (tensor<1xbf16>, tensor<1xbf16>) {
      ^bb0(%a: tensor<1xbf16>, %b: tensor<1xbf16>):
        %t = fuse.add %a, %b : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
        %u = fuse.sub %t, %a : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
        %f = fuse.cast %t : tensor<1xbf16> to tensor<1xf32>
        %c = fuse.cast %f : tensor<1xf32> to tensor<1xbf16>
        %v = fuse.sub %c, %a : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
        fuse.yield %u, %v : tensor<1xbf16>, tensor<1xbf16>
      }
      %s = fuse.add %x, %e : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
      %w = fuse.sub %s, %x : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
      return %g#0, %g#1, %w : tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>
    })";
  std::vector<std::vector<double>> inputs = {{1.0}, {1.0 / 512}};
  reference::Options kernels;
  kernels.kernelPrecision = true;
  auto fused = run(source, inputs, kernels);
  ASSERT_EQ(fused.size(), 3u);
  EXPECT_EQ(fused[0][0], 1.0 / 512);
  EXPECT_EQ(fused[1][0], 0.0);
  EXPECT_EQ(fused[2][0], 0.0);
  auto perOp = run(source, inputs);
  ASSERT_EQ(perOp.size(), 3u);
  EXPECT_EQ(perOp[0][0], 0.0);
}

TEST_F(InterpreterTest, KernelPrecisionRoundsWhatAGroupYields) {
  // (1 + 3 * 2^-9) * 1 is computed in f32 inside the group and stored as
  // bf16: it rounds up to 1 + 2^-7 where it leaves the kernel.
  auto out = run(R"(
    func.func @f(%x: tensor<1xf32>) -> tensor<1xbf16> {
      %g = fuse.group (%x) : (tensor<1xf32>) -> tensor<1xbf16> {
      ^bb0(%a: tensor<1xf32>):
        %c = fuse.cast %a : tensor<1xf32> to tensor<1xbf16>
        %one = fuse.constant dense<1.0> : tensor<bf16>
        %y = fuse.mul %c, %one : (tensor<1xbf16>, tensor<bf16>) -> tensor<1xbf16>
        fuse.yield %y : tensor<1xbf16>
      }
      return %g : tensor<1xbf16>
    })",
                 {{1.0 + 3.0 / 512}}, [] {
                   reference::Options options;
                   options.kernelPrecision = true;
                   return options;
                 }());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0][0], 1.0078125);
}

TEST_F(InterpreterTest, AttentionByHand) {
  // One head, two queries, three keys of dimension 2, scale 1, causal.
  // Query 0 sees key 0 only: output v0 = 1. Query 1 = (1, 0) sees keys 0
  // (1, 0) and 1 (0, 1): scores 1 and 0, weights e/(e+1) and 1/(e+1),
  // output 1 e/(e+1) + 2/(e+1). Key 2 (score 5, v 100) is hidden.
  const char *source = R"mlir(
    func.func @f(%q: tensor<1x1x2x2xf32>, %k: tensor<1x1x3x2xf32>, %v: tensor<1x1x3x1xf32>) -> tensor<1x1x2x1xf32> {
      %o = fuse.attention %q, %k, %v scale = 1.000000e+00 causal : (tensor<1x1x2x2xf32>, tensor<1x1x3x2xf32>, tensor<1x1x3x1xf32>) -> tensor<1x1x2x1xf32>
      return %o : tensor<1x1x2x1xf32>
    })mlir";
  const double e = std::exp(1.0);
  auto out = run(source, {{0, 1, 1, 0}, {1, 0, 0, 1, 5, 5}, {1, 2, 100}});
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], {1.0, (e + 2) / (e + 1)});
  // A mask of -inf over every key of query 1 gives zeros, not NaN.
  const char *masked = R"mlir(
    func.func @f(%q: tensor<1x1x2x2xf32>, %k: tensor<1x1x3x2xf32>, %v: tensor<1x1x3x1xf32>, %m: tensor<1x1x2x3xf32>) -> tensor<1x1x2x1xf32> {
      %o = fuse.attention %q, %k, %v mask %m scale = 1.000000e+00 : (tensor<1x1x2x2xf32>, tensor<1x1x3x2xf32>, tensor<1x1x3x1xf32>, tensor<1x1x2x3xf32>) -> tensor<1x1x2x1xf32>
      return %o : tensor<1x1x2x1xf32>
    })mlir";
  const double inf = std::numeric_limits<double>::infinity();
  out = run(masked, {{0, 1, 1, 0},
                     {1, 0, 0, 1, 5, 5},
                     {1, 2, 100},
                     {0, -inf, -inf, -inf, -inf, -inf}});
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], {1.0, 0.0});
}

TEST_F(InterpreterTest, AttentionMatchesItsDecomposition) {
  // Grouped-query (4 query heads on 2 key/value heads), causal, an added
  // mask broadcast over heads that hides all of query 0's keys: the f64
  // evaluation of fuse.attention and fuse-decompose's primitives (scores
  // and softmax in f32) agree to f32 rounding.
  const char *source = R"mlir(
    func.func @f(%q: tensor<1x4x5x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x3xf32>, %m: tensor<1x1x5x6xf32>) -> tensor<1x4x5x3xf32> {
      %o = fuse.attention %q, %k, %v mask %m scale = 3.500000e-01 causal : (tensor<1x4x5x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x3xf32>, tensor<1x1x5x6xf32>) -> tensor<1x4x5x3xf32>
      return %o : tensor<1x4x5x3xf32>
    })mlir";
  auto values = [](int64_t n, int64_t seed) {
    std::vector<double> data(n);
    for (int64_t i = 0; i < n; ++i)
      data[i] = std::sin(double(i * 7 + seed)) * 2;
    return data;
  };
  std::vector<double> mask = values(30, 4);
  const double inf = std::numeric_limits<double>::infinity();
  mask[0] = -inf; // query 0 sees key 0 only (causal): now none
  std::vector<std::vector<double>> inputs = {values(160, 1), values(96, 2),
                                             values(36, 3), mask};
  auto direct = run(source, inputs);

  auto func = parseFirst<func::FuncOp>(source);
  ASSERT_TRUE(func);
  PassManager pm(&context);
  pm.addNestedPass<func::FuncOp>(fuse::createFuseDecompose());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  int attentions = 0;
  module->walk([&](fuse::AttentionOp) { ++attentions; });
  EXPECT_EQ(attentions, 0);
  FailureOr<SmallVector<Tensor>> decomposed =
      reference::interpret(func, arguments(func, inputs));
  ASSERT_TRUE(succeeded(decomposed));
  ASSERT_EQ(direct.size(), 1u);
  expectNear((*decomposed)[0].data, direct[0], 1e-5);
  // Query 0 of every head: zeros.
  for (int64_t h = 0; h < 4; ++h)
    for (int64_t c = 0; c < 3; ++c)
      EXPECT_EQ(direct[0][h * 15 + c], 0.0);
}

TEST_F(InterpreterTest, GatherOutOfRangeIsAnError) {
  auto func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<3xf32>, %i: tensor<1xi32>) -> tensor<1xf32> {
      %0 = fuse.gather %x, %i axis = 0 : (tensor<3xf32>, tensor<1xi32>) -> tensor<1xf32>
      return %0 : tensor<1xf32>
    })");
  ASSERT_TRUE(func);
  Tensor x{Float32Type::get(&context), {3}, {1, 2, 3}};
  Tensor i{IntegerType::get(&context, 32), {1}, {7}};
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(reference::interpret(func, {x, i})));
  EXPECT_EQ(message,
            "index 7 at position 0 is out of range for a dimension of size 3");
}

} // namespace
